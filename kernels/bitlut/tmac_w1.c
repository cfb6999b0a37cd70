/* tmac_w1, tmac_w1_fa, tmac_w1_exact: the kernel descriptors (tmac_w1.h); the code they
 * bind is shared by the four bit widths (tmac.c, tmac_avx2.c, tmac_avx512.c). */
#include "tmac_w1.h"

TMAC_DEFINE_KERNELS(1)
