/* tmac_w3, tmac_w3_fa, tmac_w3_exact: the kernel descriptors (tmac_w3.h); the code they
 * bind is shared by the four bit widths (tmac.c, tmac_avx2.c, tmac_avx512.c). */
#include "tmac_w3.h"

TMAC_DEFINE_KERNELS(3)
