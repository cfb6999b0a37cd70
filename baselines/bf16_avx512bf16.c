/* bf16, AVX512-BF16: vdpbf16ps multiplies 32 bfloat16 pairs and adds them to 16 float lanes in
 * one instruction (what llama.cpp's ggml_vec_dot_bf16 uses on such CPUs); same tiles as the
 * AVX-512 variant, no widening at all — but half the multiply throughput of two FMAs on Emerald
 * Rapids (bf16.h), hence not the default there. */
#include "bf16.h"
#include "float_tile.h"

static void gemm_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 4, 4, BB_FL_BF16DP); }
static void gemv_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 8, 1, BB_FL_BF16DP); }

void bb_bf16_matmul_avx512bf16(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    static const bb_fl_plan plan = {BB_FL_BF16DP, {4, 4, gemm_tile}, {8, 1, gemv_tile}};
    bb_fl_drive(&plan, w, act, y, m, k, n, m0, m1);
}
