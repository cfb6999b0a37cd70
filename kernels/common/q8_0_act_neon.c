/* The q8_0 activation buffer of the "_0" kernels (q8_0_act.h) with NEON (Armv8.0-A), byte for byte
 * bb_qx_prepare: the prepare of their Arm variants.  Per block of 32 values, the same operations
 * as bb_quant_q8_0 and the aux loop:
 *   amax over |x| with FMAXNM, which like fmaxf ignores a NaN operand (max is exact in any order);
 *   d = amax / 127 and id = 1 / d as the same scalar float operations, d rounded to fp16 by
 *   bb_fp32_to_fp16 as the scalar code does;
 *   q = (int8_t)roundf(x * id): FMUL, then FCVTAS (round to nearest, ties away from zero, as
 *   roundf; it saturates out-of-range values and gives 0 for NaN exactly as the scalar FCVTZS of
 *   the rounded value does on this architecture), then the low byte (XTN, XTN) as the C cast;
 *   c = -8 * (sums of 4) by SADDLP, SADDLP and a shift; o = -8 * the block's sum. */
#include <arm_neon.h>
#include <string.h>

#include "fp16.h"
#include "q8_0_act.h"

static void quant_block(const float *x, bb_block_q8_0 *blk, float *d_out, int32_t *c, int32_t *o)
{
    float32x4_t v[8];
    float32x4_t m = vdupq_n_f32(0.0f);
    for (int i = 0; i < 8; i++) {
        v[i] = vld1q_f32(x + 4 * i);
        m = vmaxnmq_f32(m, vabsq_f32(v[i]));
    }
    float d = vmaxnmvq_f32(m) / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
    uint16_t h = bb_fp32_to_fp16(d);
    int16x8_t w[4];
    for (int i = 0; i < 4; i++) {
        int32x4_t a = vcvtaq_s32_f32(vmulq_n_f32(v[2 * i], id)), b = vcvtaq_s32_f32(vmulq_n_f32(v[2 * i + 1], id));
        w[i] = vmovn_high_s32(vmovn_s32(a), b);
    }
    int8x16_t q0 = vmovn_high_s16(vmovn_s16(w[0]), w[1]), q1 = vmovn_high_s16(vmovn_s16(w[2]), w[3]);
    memcpy(&blk->d, &h, 2);
    vst1q_s8(blk->qs, q0);
    vst1q_s8(blk->qs + 16, q1);
    int32x4_t s0 = vpaddlq_s16(vpaddlq_s8(q0)), s1 = vpaddlq_s16(vpaddlq_s8(q1));
    vst1q_s32(c, vnegq_s32(vshlq_n_s32(s0, 3)));
    vst1q_s32(c + 4, vnegq_s32(vshlq_n_s32(s1, 3)));
    *o = -8 * vaddvq_s32(vaddq_s32(s0, s1));
    *d_out = bb_fp16_to_fp32(h);
}

void bb_qx_prepare_neon(const float *x, int n, int k, void *act)
{
    int nb = k / BB_QK;
    size_t q8 = (size_t)n * nb * sizeof(bb_block_q8_0);
    memset((char *)act + q8, 0, bb_qx_act_size(n, k) - q8); /* padding included */
    for (int r = 0; r < n; r++) {
        bb_block_q8_0 *blk = (bb_block_q8_0 *)bb_qx_act_row(act, k, r);
        bb_qx_aux aux = bb_qx_aux_row(act, n, k, r);
        for (int b = 0; b < nb; b++)
            quant_block(x + (size_t)r * k + (size_t)b * BB_QK, &blk[b], (float *)aux.d + b, (int32_t *)aux.c + 8 * b,
                        (int32_t *)aux.o + 2 * b);
    }
}
