/* llama.cpp q8_K activation quantization with NEON (Armv8.0-A), byte for byte the output of
 * bb_quant_q8_K (common/act_quant.c): the prepare of the tq1_0 / tq2_0 / q2_k Arm variants (the
 * scalar version calls lrintf per value).  Same operations in the same order per value: amax over
 * |x| with FMAXNM (a NaN |x| never wins, as `a > amax`), max = the first value with |x| = amax,
 * iscale = -127 / max, q = round-half-even(iscale * x) by FCVTNS (as lrintf; |iscale * x| <= 127
 * here, and a NaN gives 0 in both), capped at 127 and narrowed to its low byte as the C cast,
 * bsums as int16 by pairwise adds (SADDLP, then ADDP three times: sums of 16, in order), d =
 * 1 / iscale. */
#include <arm_neon.h>
#include <string.h>

#include "q8_k_rows.h"

/* The first x[i] with |x[i]| == amax (amax is one of them). */
static float first_with_abs(const float *x, float amax)
{
    const float32x4_t va = vdupq_n_f32(amax);
    int v = 0;
    while (vmaxvq_u32(vceqq_f32(vabsq_f32(vld1q_f32(x + 4 * v)), va)) == 0) v++;
    for (int i = 4 * v;; i++)
        if (__builtin_fabsf(x[i]) == amax) return x[i];
}

static void quant_block(const float *x, bb_block_q8_K *dst)
{
    float32x4_t m = vdupq_n_f32(0.0f);
    for (int v = 0; v < BB_QK_K / 4; v++) m = vmaxnmq_f32(m, vabsq_f32(vld1q_f32(x + 4 * v)));
    float amax = vmaxnmvq_f32(m);
    if (amax == 0.0f) {
        memset(dst, 0, sizeof *dst);
        return;
    }
    float iscale = -127.0f / first_with_abs(x, amax);
    const int32x4_t cap = vdupq_n_s32(127);
    int16x8_t pairs[BB_QK_K / 16];
    for (int v = 0; v < BB_QK_K / 16; v++) {
        int32x4_t i0 = vminq_s32(vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + 16 * v), iscale)), cap);
        int32x4_t i1 = vminq_s32(vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + 16 * v + 4), iscale)), cap);
        int32x4_t i2 = vminq_s32(vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + 16 * v + 8), iscale)), cap);
        int32x4_t i3 = vminq_s32(vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + 16 * v + 12), iscale)), cap);
        int16x8_t h0 = vmovn_high_s32(vmovn_s32(i0), i1), h1 = vmovn_high_s32(vmovn_s32(i2), i3);
        int8x16_t q = vmovn_high_s16(vmovn_s16(h0), h1);
        vst1q_s8(dst->qs + 16 * v, q);
        pairs[v] = vpaddlq_s8(q);
    }
    /* ADDP keeps the order: [sums of 4 of a | of b], then of 8, then of 16 */
    for (int j = 0; j < 2; j++) {
        const int16x8_t *p = pairs + 8 * j;
        int16x8_t s4[4], s8[2];
        for (int i = 0; i < 4; i++) s4[i] = vpaddq_s16(p[2 * i], p[2 * i + 1]);
        for (int i = 0; i < 2; i++) s8[i] = vpaddq_s16(s4[2 * i], s4[2 * i + 1]);
        vst1q_s16(dst->bsums + 8 * j, vpaddq_s16(s8[0], s8[1]));
    }
    dst->d = 1.0f / iscale;
}

void bb_quant_q8_K_rows_neon(const float *x, int n, int k, void *dst)
{
    bb_block_q8_K *out = dst;
    for (int r = 0; r < n; r++)
        for (int b = 0; b < k / BB_QK_K; b++) quant_block(x + (size_t)r * k + (size_t)b * BB_QK_K, out++);
}
