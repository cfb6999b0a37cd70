/* f16, AVX-512: weights widened by vcvtph2ps zmm (16 per load), tiles of 4 weight rows x 4
 * activation rows, 8 weight rows for N = 1.  Prepare: the F16C one (f16_avx2.c); it is a few
 * microseconds per call, never the bottleneck. */
#include "f16.h"
#include "float_common.h"

BB_FL_DEFINE_MATMUL(bb_f16_matmul_avx512, avx512, BB_FL_F16, 4, 4, 8)
