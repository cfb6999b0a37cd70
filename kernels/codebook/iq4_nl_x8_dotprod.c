/* iq4_nl_x8 with SDOT (Armv8.2 dotprod; layout and semantics: iq4_nl_x8.h): q4_0x8's Arm loop over
 * the 8-byte-chunk records (mad/chunk8_records_neon.h) with the indices looked up by TBL from the
 * register-resident codebook (Arm paper §6.3) and iq4_nl's fold: the reference's bits. */
#include "../common/chunk8_records_neon.h"
#include "iq4_nl_x8.h"

void bb_iq4_nl_x8_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    c8_matmul(w, act, y, m, k, n, m0, m1, BB_NIBBLE_X8_ROWS, 0, bb_iq4_nl_kvalues);
}
