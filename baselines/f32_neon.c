/* f32, NEON (every aarch64 core): the float baselines' register tile (float_tile.h) over
 * float32x4_t.  Layout and semantics are f32.h's; what the loop does: for a tile of 4 weight rows
 * x 4 activation rows, 16 accumulators of 4 float lanes each take one FMLA per 4 elements of K in
 * increasing k (each weight vector feeds 4 FMLAs, each activation vector 4), and are summed in a
 * fixed order (FADDP, FADDP) at the end; 20 of the 32 vector registers hold accumulators and
 * activations, so nothing spills.  N = 1 (GEMV, memory-bound) takes 8 weight rows x 1, eight
 * independent FMLA chains covering the FMLA latency (4 cycles on Neoverse N1/V1) at two per cycle.
 * As the AVX2/AVX-512 variants (float_accumulation), it differs from the scalar reference only by
 * the float rounding of the reordered sum.  The FP baseline of the papers' Arm tables
 * (bitnet.cpp's Apple M2 half of Table 7, T-MAC's M2 / Raspberry Pi figures; see f32.h). */
#include "f32.h"
#include "float_tile.h"

static void gemm_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 4, 4, BB_FL_F32); }
static void gemv_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 8, 1, BB_FL_F32); }

void bb_f32_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    static const bb_fl_plan plan = {BB_FL_F32, {4, 4, gemm_tile}, {8, 1, gemv_tile}};
    bb_fl_drive(&plan, w, act, y, m, k, n, m0, m1);
}
