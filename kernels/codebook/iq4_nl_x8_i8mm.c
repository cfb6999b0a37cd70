/* iq4_nl_x8 with SMMLA for pairs of activation rows (Armv8.6 i8mm; layout and semantics:
 * iq4_nl_x8.h): q4_0x8's Arm loop (mad/chunk8_records_neon.h) with the TBL codebook decode and
 * iq4_nl's fold: the reference's bits. */
#include "../common/chunk8_records_neon.h"
#include "iq4_nl_x8.h"

void bb_iq4_nl_x8_matmul_i8mm(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    c8_matmul(w, act, y, m, k, n, m0, m1, BB_NIBBLE_X8_ROWS, 1, bb_iq4_nl_kvalues);
}
