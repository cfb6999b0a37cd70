/* iq4_nl, Armv8.0 Advanced SIMD (every aarch64 core; Cortex-A72 / Raspberry Pi 4 lack SDOT): TBL
 * lookup from the register-resident codebook, SMULL + SMLAL2 + SADALP by the q8_0 activations,
 * the reference's float steps per block; bit-exact with the scalar reference.  The loop and why
 * it is exact: iq4_nl_arm.h. */
#include "iq4_nl_arm.h"

void bb_iq4_nl_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_iq4_nl_matmul_arm(w, act, y, m, k, n, m0, m1);
}
