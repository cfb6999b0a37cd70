/* f16, AVX-512: weights widened by vcvtph2ps zmm (16 per load), tiles of 4 weight rows x 4
 * activation rows, 2 weight rows for N = 1: a GEMV from DRAM streams best with few concurrent row
 * streams (the classifier 32002x1536 read at 0.72 of a plain read of the same bytes with 8 rows,
 * 0.80-0.83 with 2; best of 12 passes, 2 threads).  Prepare: the F16C one (f16_avx2.c); it is a
 * few microseconds per call, never the bottleneck. */
#include "f16.h"
#include "float_common.h"

BB_FL_DEFINE_MATMUL(bb_f16_matmul_avx512, avx512, BB_FL_F16, 4, 4, 2)
