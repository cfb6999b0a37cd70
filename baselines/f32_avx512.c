/* f32, AVX-512: tiles of 4 weight rows x 4 activation rows (16 of the 32 zmm registers hold
 * accumulators), 8 weight rows for N = 1. */
#include "f32.h"
#include "float_common.h"

BB_FL_DEFINE_MATMUL(bb_f32_matmul_avx512, avx512, BB_FL_F32, 4, 4, 8)
