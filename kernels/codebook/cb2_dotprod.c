/* cb2, Arm dot product (FEAT_DotProd, Armv8.2-A+): codebook offset and 2-bit indices combined,
 * one TBL of the two-register codebook set per 16 weights, SDOT by the q8_K activations, local
 * scales by MLA per 4 sub-groups, the reference's float steps per super-block; bit-exact with the
 * scalar reference.  The loop and why it is exact: cb2_arm.h (Arm paper §5.3). */
#include "cb2_arm.h"

void bb_cb2_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_cb2_matmul_arm(w, act, y, m, k, n, m0, m1, BB_CB_NB_MAX);
}
