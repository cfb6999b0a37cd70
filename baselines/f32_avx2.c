/* f32, AVX2 + FMA: tiles of 4 weight rows x 2 activation rows (8 accumulators + 2 activation
 * vectors + 1 weight vector of the 16 ymm registers), 8 weight rows for N = 1. */
#include "f32.h"
#include "float_common.h"

BB_FL_DEFINE_MATMUL(bb_f32_matmul_avx2, avx2, BB_FL_F32, 4, 2, 8)
