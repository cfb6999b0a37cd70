/* f16, AVX-512: weights widened by vcvtph2ps zmm (16 per load), tiles of 4 weight rows x 4
 * activation rows, 8 weight rows for N = 1.  Prepare: the F16C one (f16_avx2.c); it is a few
 * microseconds per call, never the bottleneck.  Fewer GEMV rows were tried for the classifier
 * (K = 1536, before the tile-wrapping prefetch of float_common.h): 2 rows were no better there
 * and clearly worse at K = 3200 (best of 12 passes from DRAM against a plain read of the same
 * bytes, 2 threads: 8 rows 0.74-0.75 and 0.82-0.83, 2 rows 0.60-0.81 and 0.67-0.69). */
#include "f16.h"
#include "float_tile.h"

static void gemm_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 4, 4, BB_FL_F16); }
static void gemv_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 8, 1, BB_FL_F16); }

void bb_f16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    static const bb_fl_plan plan = {BB_FL_F16, {4, 4, gemm_tile}, {8, 1, gemv_tile}};
    bb_fl_drive(&plan, w, act, y, m, k, n, m0, m1);
}
