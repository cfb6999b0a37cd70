/* tmac_w2, tmac_w2_fa, tmac_w2_exact: the kernel descriptors (tmac_w2.h); the code they
 * bind is shared by the four bit widths (tmac.c, tmac_avx2.c, tmac_avx512.c). */
#include "tmac_w2.h"

TMAC_DEFINE_KERNELS(2)
