/* q4_0x8, Arm int8 matrix multiply (FEAT_I8MM: SMMLA, vmmlaq_s32; Armv8.6-A, optional
 * from 8.2: Neoverse V1 / V2, the Graviton3 and Graviton4 of the paper's Tables 1-2).  Layout and
 * semantics: q4_0x8.h; the loop, shared with q4_0_4_8 and iq4_nl_x8: chunk8_records_neon.h.
 * Activation rows go in pairs (Arm paper §4.2: MMLA does twice the MACs of SDOT by taking two
 * input rows): per record of R rows and pair, 4 left operands of 8 + 8 activation bytes (LD1 +
 * LD1 lane), 2R SMMLA, ZIP1/ZIP2;
 * N = 1 and an odd last activation row take the SDOT loop, which gives the same integers. */
#include "../common/chunk8_records_neon.h"
#include "q4_0x8.h"

void bb_q4_0x8_matmul_i8mm(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    c8_matmul(w, act, y, m, k, n, m0, m1, BB_NIBBLE_X8_ROWS, 1, NULL);
}
