/* bf16, NEON (every aarch64 core): the float baselines' register tile (float_tile.h) over
 * float32x4_t.  Per 8 elements of K (four 32-bit pairs) each weight row's vector is widened twice,
 * its even elements by SHL #16 and its odd ones by AND 0xffff0000 (a bfloat16 is the top half of
 * a float), and each half feeds one FMLA per activation row: 4 weight rows x 4 activation rows for
 * GEMM, 8 x 1 for GEMV, reduced by FADDP in a fixed order.  Products of bfloat16 values are exact
 * in float, so this differs from the scalar reference only in the order of the sums
 * (float_accumulation), as the AVX2/AVX-512 variants.  Cores with FEAT_BF16 have BFDOT instead
 * (bf16_bf16.c).  The prepare is the reference's integer round-to-nearest-even
 * (x + 0x7fff + bit 16) >> 16 on 4 lanes, NaN kept quiet, narrowed by SHRN: the bytes of
 * bb_fp32_to_bf16.  The BF16 baseline of the Intel up-convert paper (§IV). */
#include "bf16.h"
#include "float_tile.h"

static void gemm_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 4, 4, BB_FL_BF16); }
static void gemv_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 8, 1, BB_FL_BF16); }

void bb_bf16_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    static const bb_fl_plan plan = {BB_FL_BF16, {4, 4, gemm_tile}, {8, 1, gemv_tile}};
    bb_fl_drive(&plan, w, act, y, m, k, n, m0, m1);
}

void bb_bf16_prepare_neon(const float *x, int n, int k, void *act)
{
    size_t count = (size_t)n * k, i = 0;
    uint16_t *a = act;
    const uint32x4_t abs = vdupq_n_u32(0x7fffffffu), inf = vdupq_n_u32(0x7f800000u);
    const uint32x4_t half = vdupq_n_u32(0x7fffu), one = vdupq_n_u32(1), quiet = vdupq_n_u32(0x400000u);
    for (; i + 4 <= count; i += 4) {
        uint32x4_t v = vreinterpretq_u32_f32(vld1q_f32(x + i));
        uint32x4_t nan = vcgtq_u32(vandq_u32(v, abs), inf);
        uint32x4_t rounded = vaddq_u32(v, vaddq_u32(half, vandq_u32(vshrq_n_u32(v, 16), one)));
        uint32x4_t r = vbslq_u32(nan, vorrq_u32(v, quiet), rounded); /* NaN: (x >> 16) | 0x40 */
        vst1_u16(a + i, vshrn_n_u32(r, 16));
    }
    bb_fl_prepare_ref(BB_FL_BF16, x + i, count - i, a + i);
}
