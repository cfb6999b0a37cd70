/* q4_0x8, Arm dot product (FEAT_DotProd: SDOT; Armv8.2-A+, Neoverse N1 /
 * Cortex-A76 and later).  Layout and semantics: q4_0x8.h; the loop, shared with q4_0_4_8 and
 * iq4_nl_x8: chunk8_records_neon.h.  Per record of R rows (32R weights): R 16-byte loads, R SHL + R AND, R/4
 * FCVTL; per activation row 4 LD1R, 2R SDOT, R/4 ADDP and R/4 × (SCVTF #4, FMUL, FMUL, FADD). */
#include "../common/chunk8_records_neon.h"
#include "q4_0x8.h"

void bb_q4_0x8_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    c8_matmul(w, act, y, m, k, n, m0, m1, BB_NIBBLE_X8_ROWS, 0, NULL);
}
