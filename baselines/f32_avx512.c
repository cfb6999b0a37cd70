/* f32, AVX-512: tiles of 4 weight rows x 4 activation rows (16 of the 32 zmm registers hold
 * accumulators), 8 weight rows for N = 1. */
#include "f32.h"
#include "float_tile.h"

static void gemm_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 4, 4, BB_FL_F32); }
static void gemv_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 8, 1, BB_FL_F32); }

void bb_f32_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    static const bb_fl_plan plan = {BB_FL_F32, {4, 4, gemm_tile}, {8, 1, gemv_tile}};
    bb_fl_drive(&plan, w, act, y, m, k, n, m0, m1);
}
