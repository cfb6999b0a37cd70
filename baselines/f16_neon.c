/* f16, NEON (every aarch64 core): the float baselines' register tile (float_tile.h) over
 * float32x4_t.  Per 4 elements of K each weight row's 4 binary16 values are widened by one FCVTL
 * (conversion needs no FEAT_FP16) and feed one FMLA per activation row: 4 weight rows x 4
 * activation rows (16 accumulators) for GEMM, 8 x 1 for GEMV; the sums are reduced by FADDP in a
 * fixed order.  Products of binary16 values are exact in float, so the FMLA differs from the
 * scalar reference only in the order of the sums (float_accumulation), as the x86 variants' FMA
 * does.  Half-precision FMLA (FEAT_FP16 arithmetic, llama.cpp's ggml_vec_dot_f16 on such cores)
 * would accumulate in binary16, 13 fewer significand bits than f16.h's semantics allow.
 * The prepare rounds with FCVTN (round to nearest even under the default FPCR, as
 * bb_fp32_to_fp16) and widens back with FCVTL; NaN lanes become the reference's quiet NaN with the
 * input's sign, since FCVTN keeps part of the payload.  The FP16 baseline of the papers' Arm
 * tables (bitnet.cpp §4 on the Apple M2, the 1-bit AI infra article's Raspberry Pi 5 figures). */
#include "f16.h"
#include "float_tile.h"

static void gemm_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 4, 4, BB_FL_F16); }
static void gemv_tile(bb_fl_tile *t) { bb_fl_tile_sum(t, 8, 1, BB_FL_F16); }

void bb_f16_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    static const bb_fl_plan plan = {BB_FL_F16, {4, 4, gemm_tile}, {8, 1, gemv_tile}};
    bb_fl_drive(&plan, w, act, y, m, k, n, m0, m1);
}

void bb_f16_prepare_neon(const float *x, int n, int k, void *act)
{
    size_t count = (size_t)n * k, i = 0;
    float *a = act;
    const uint32x4_t sign = vdupq_n_u32(0x80000000u), qnan = vdupq_n_u32(0x7fc00000u);
    for (; i + 4 <= count; i += 4) {
        float32x4_t v = vld1q_f32(x + i);
        float32x4_t r = vcvt_f32_f16(vcvt_f16_f32(v));
        uint32x4_t nan = vmvnq_u32(vceqq_f32(v, v));
        uint32x4_t fixed = vorrq_u32(vandq_u32(vreinterpretq_u32_f32(v), sign), qnan);
        vst1q_f32(a + i, vbslq_f32(nan, vreinterpretq_f32_u32(fixed), r));
    }
    bb_fl_prepare_ref(BB_FL_F16, x + i, count - i, a + i);
}
