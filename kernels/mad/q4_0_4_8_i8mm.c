/* q4_0_4_8, Arm int8 matrix multiply (FEAT_I8MM: SMMLA): q4_0x8's loop (chunk8_records_neon.h)
 * over records of 4 rows.  Layout and semantics: q4_0_4_8.h; instruction counts: q4_0x8_i8mm.c. */
#include "../common/chunk8_records_neon.h"
#include "q4_0_4_8.h"

void bb_q4_0_4_8_matmul_i8mm(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    c8_matmul(w, act, y, m, k, n, m0, m1, BB_Q4_0_4_8_ROWS, 1, NULL);
}
