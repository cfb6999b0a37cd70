/* i2_s, Arm dot product (FEAT_DotProd: SDOT, Armv8.2-A+; Cortex-A76 / Neoverse N1 and later,
 * Apple M1+).  Layout and exact semantics are i2_s.h's: 2-bit codes c = t + 1, four planes per
 * 32-byte block, per-row int8 activations.
 *
 * What the loop does, per 128-weight block: two 16-byte loads of codes; each plane s is one shift
 * right by 6 - 2s (USHR) and, for s > 0, one AND with 3, giving the codes 0..2 of 32 weights as
 * int8; SDOT multiplies them by the 32 activations of the plane (4 products summed into each
 * int32 lane), 8 SDOTs per block into one int32x4 accumulator per activation row.  The sum of
 * c * q minus the row's qsum (sum of q, prepared with the activations) is sum (c - 1) * q = sum
 * t * q exactly, as the AVX2 variant does with vpmaddubsw; every partial sum stays far inside
 * int32 (|c q| <= 254, K <= 2^18), so the result is the scalar reference's, bit for bit.  Up to 4
 * activation rows share each decoded block (prefill); N = 1 is the GEMV of decoding.
 *
 * bitnet.cpp §2 (seed 000) runs i2_s on Arm with NEON multiply-accumulate (Table 4: vmlal_s8,
 * vmull_s16 + vaddq_s32); SDOT does the multiply and the 4-way sum in one instruction, as the Arm
 * paper's kernels do (seed 003 §3-4, vdotq_laneq_s32). */
#include <arm_neon.h>

#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "i2_s.h"

#define NB_MAX 4

static void row_dot(const uint8_t *row, const int8_t *const *q, int nb, int k, int32_t *out)
{
    const uint8x16_t three = vdupq_n_u8(3);
    int32x4_t acc[NB_MAX];
    for (int c = 0; c < nb; c++) acc[c] = vdupq_n_s32(0);
    int nblk = k / BB_I2S_BLOCK;
    for (int b = 0; b < nblk; b++) {
        if ((b & 1) == 0) bb_prefetch_stream(row + 32 * b);
        uint8x16_t lo = vld1q_u8(row + 32 * b), hi = vld1q_u8(row + 32 * b + 16);
        int8x16_t code[4][2] = {
            {vreinterpretq_s8_u8(vshrq_n_u8(lo, 6)), vreinterpretq_s8_u8(vshrq_n_u8(hi, 6))},
            {vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(lo, 4), three)), vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(hi, 4), three))},
            {vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(lo, 2), three)), vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(hi, 2), three))},
            {vreinterpretq_s8_u8(vandq_u8(lo, three)), vreinterpretq_s8_u8(vandq_u8(hi, three))},
        };
        for (int c = 0; c < nb; c++) {
            const int8_t *qb = q[c] + b * BB_I2S_BLOCK;
            for (int s = 0; s < 4; s++) {
                acc[c] = vdotq_s32(acc[c], code[s][0], vld1q_s8(qb + 32 * s));
                acc[c] = vdotq_s32(acc[c], code[s][1], vld1q_s8(qb + 32 * s + 16));
            }
        }
    }
    for (int c = 0; c < nb; c++) out[c] = vaddvq_s32(acc[c]);
}

void bb_i2_s_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    float ws = bb_i2_s_scale(w, m, k);
    for (int c0 = 0; c0 < n; c0 += NB_MAX) {
        int nb = n - c0 < NB_MAX ? n - c0 : NB_MAX;
        const int8_t *q[NB_MAX];
        for (int c = 0; c < nb; c++) q[c] = bb_i8_row_q(act, k, c0 + c);
        for (int r = m0; r < m1; r++) {
            int32_t sum[NB_MAX];
            row_dot((const uint8_t *)w + (size_t)r * k / 4, q, nb, k, sum);
            for (int c = 0; c < nb; c++) {
                const bb_i8_row_head *h = bb_i8_row(act, k, c0 + c);
                y[(size_t)(c0 + c) * m + r] = bb_i8_dequant(sum[c] - h->qsum, h->scale, ws);
            }
        }
    }
}
