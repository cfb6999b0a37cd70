/* iq4_nl_x8, AVX-512 VNNI (layout and semantics: iq4_nl_x8.h): q4_0x8's 8-row record tile
 * (mad/x8_tile_avx512.h) with the codebook decode - one vpshufb per nibble plane from the
 * register-resident table of kvalue + 128 (§6.3) - the correction -128 * sum(a), and iq4_nl's
 * fold (d_w * d_a) * (float)isum, block b before block b+1: bit-equal to the reference. */
#include "../common/x8_tile_avx512.h"
#include "iq4_nl_x8.h"

void bb_iq4_nl_x8_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_x8_matmul(BB_X8_IQ4_NL, w, act, y, m, k, n, m0, m1);
}
