/* bf16, AVX-512 without BF16 instructions: 32 bfloat16 per load, widened by shift / mask into
 * two float vectors, tiles of 4 weight rows x 4 activation rows, 8 weight rows for N = 1. */
#include "bf16.h"
#include "float_common.h"

BB_FL_DEFINE_MATMUL(bb_bf16_matmul_avx512, avx512, BB_FL_BF16, 4, 4, 8)
