/* cb2, Armv8.0 Advanced SIMD (every aarch64 core; Cortex-A72 / Raspberry Pi 4 lack SDOT): the
 * same TBL lookup as cb2_dotprod.c with SMULL + SMLAL2 + SADALP for each SDOT, one activation
 * column per decode (no spills); bit-exact with the scalar reference.  The loop and why it is exact: cb2_arm.h (Arm paper §5.3). */
#include "cb2_arm.h"

void bb_cb2_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_cb2_matmul_arm(w, act, y, m, k, n, m0, m1, 1);
}
