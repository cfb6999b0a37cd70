/* f32, AVX2 + FMA: tiles of 4 weight rows x 2 activation rows (8 accumulators + 2 activation
 * vectors + 1 weight vector of the 16 ymm registers), 8 weight rows for N = 1. */
#include "f32.h"
#include "float_tile.h"

static void gemm_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 4, 2, BB_FL_F32); }
static void gemv_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 8, 1, BB_FL_F32); }

void bb_f32_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    static const bb_fl_plan plan = {BB_FL_F32, {4, 2, gemm_tile}, {8, 1, gemv_tile}};
    bb_fl_drive(&plan, w, act, y, m, k, n, m0, m1);
}
