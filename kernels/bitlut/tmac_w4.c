/* tmac_w4, tmac_w4_fa, tmac_w4_exact: the kernel descriptors (tmac_w4.h); the code they
 * bind is shared by the four bit widths (tmac.c, tmac_avx2.c, tmac_avx512.c). */
#include "tmac_w4.h"

TMAC_DEFINE_KERNELS(4)
