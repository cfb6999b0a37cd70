/* bf16, FEAT_BF16 (Armv8.6-A; Neoverse V1/N2, Apple M2, Cortex-A510/A710 and later): BFDOT
 * (vbfdotq_f32) multiplies 4 bfloat16 pairs of a weight row by 4 pairs of an activation row and
 * adds each pair's sum to one of 4 float lanes, one instruction per 8 elements of K where the
 * NEON variant (bf16_neon.c) needs SHL, AND and two FMLAs.  Same tiles (4 weight rows x 4
 * activation rows, 8 x 1 for GEMV) and fixed-order FADDP reduction.  BFDOT rounds the pair's sum
 * and the accumulation to odd and flushes denormals (the Arm ARM's BFDotAdd without FEAT_EBF16):
 * at most one float ulp per pair, within f16.h/bf16.h's float_accumulation bound; it is the
 * instruction llama.cpp's ggml_vec_dot_bf16 uses on such cores.  The prepare is the NEON one. */
#include "bf16.h"
#include "float_tile.h"

static void gemm_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 4, 4, BB_FL_BF16DP); }
static void gemv_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 8, 1, BB_FL_BF16DP); }

void bb_bf16_matmul_bf16(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    static const bb_fl_plan plan = {BB_FL_BF16DP, {4, 4, gemm_tile}, {8, 1, gemv_tile}};
    bb_fl_drive(&plan, w, act, y, m, k, n, m0, m1);
}
