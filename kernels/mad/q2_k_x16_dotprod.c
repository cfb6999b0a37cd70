/* q2_k_x16, Arm dot product (FEAT_DotProd): the AVX-512 variant's scheme (q2_k_x16_avx512.c) on
 * 4 rows per 128-bit register, a record's 16 rows as 4 quads.  Planes are isolated in place by
 * masks (v & 0x03, v & 0x0c, then the same of v >> 4: codes times 1 or 4, <= 12, signed bytes),
 * and SDOT by element multiplies each row's 4 codes with the 4 activations of one lane of a
 * 16-byte activation load, the Arm paper's kernel shape (§4.2).  A sub-block's dot is
 * exact in int32 and MLA adds sc * (1 or 4) * dot per row (planes 0 and 2 times 4: 4 * isum
 * exactly, then a shift); the mins term is MLA of the 4-bit mins with the broadcast bsums.
 * q2_k's float steps lane-wise: the reference's bits. */
#include <arm_neon.h>

#include "../common/prefetch.h"
#include "q2_k_x16.h"

/* The 4 rows' block terms (rows 4*quad ..) of one record against one q8_K block. */
static inline __attribute__((always_inline)) float32x4_t quad_terms(const uint8_t *rec, int quad, const bb_block_q8_K *ab)
{
    const uint8x16_t m03 = vdupq_n_u8(0x03), m0c = vdupq_n_u8(0x0c);
    const uint32x4_t nib = vdupq_n_u32(0x0f);
    int32x4_t isum4 = vdupq_n_s32(0), summs = vdupq_n_s32(0);
    for (int h = 0; h < 2; h++) {
        int32x4_t acc[4][2];
        for (int l = 0; l < 4; l++) acc[l][0] = acc[l][1] = vdupq_n_s32(0);
        for (int s = 0; s < 2; s++) {
            /* activations of plane l, sub-block s: values 128h + 32l + 16s .. +15 */
            int8x16_t a[4];
            for (int l = 0; l < 4; l++) a[l] = vld1q_s8(ab->qs + 128 * h + 32 * l + 16 * s);
            for (int g = 0; g < 4; g++) {
                uint8x16_t v = vld1q_u8(rec + BB_Q2_K_X16_QS + 64 * (8 * h + 4 * s + g) + 16 * quad);
                uint8x16_t v4 = vshrq_n_u8(v, 4);
                int8x16_t c[4] = {vreinterpretq_s8_u8(vandq_u8(v, m03)), vreinterpretq_s8_u8(vandq_u8(v, m0c)),
                                  vreinterpretq_s8_u8(vandq_u8(v4, m03)), vreinterpretq_s8_u8(vandq_u8(v4, m0c))};
                switch (g) { /* the lane of SDOT by element must be a constant */
                case 0: for (int l = 0; l < 4; l++) acc[l][s] = vdotq_laneq_s32(acc[l][s], c[l], a[l], 0); break;
                case 1: for (int l = 0; l < 4; l++) acc[l][s] = vdotq_laneq_s32(acc[l][s], c[l], a[l], 1); break;
                case 2: for (int l = 0; l < 4; l++) acc[l][s] = vdotq_laneq_s32(acc[l][s], c[l], a[l], 2); break;
                default: for (int l = 0; l < 4; l++) acc[l][s] = vdotq_laneq_s32(acc[l][s], c[l], a[l], 3); break;
                }
            }
        }
        for (int l = 0; l < 4; l++) {
            int p = 4 * h + l; /* sub-blocks 2p, 2p+1 */
            /* lane i: row 4*quad+i's scales[2p] in the low half, scales[2p+1] in the high half */
            uint32x4_t w = vreinterpretq_u32_u16(vmovl_u8(vld1_u8(rec + BB_Q2_K_X16_SCALES + 32 * p + 8 * quad)));
            int32x4_t sc0 = vreinterpretq_s32_u32(vandq_u32(w, nib));
            int32x4_t sc1 = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(w, 16), nib));
            if (l % 2 == 0) { /* planes 0 and 2 are at weight 1 */
                sc0 = vshlq_n_s32(sc0, 2);
                sc1 = vshlq_n_s32(sc1, 2);
            }
            isum4 = vmlaq_s32(isum4, acc[l][0], sc0);
            isum4 = vmlaq_s32(isum4, acc[l][1], sc1);
            int32x4_t m0 = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(w, 4), nib));
            int32x4_t m1 = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(w, 20), nib));
            summs = vmlaq_s32(summs, m0, vdupq_n_s32(ab->bsums[2 * p]));
            summs = vmlaq_s32(summs, m1, vdupq_n_s32(ab->bsums[2 * p + 1]));
        }
    }
    int32x4_t isum = vshrq_n_s32(isum4, 2);
    float32x4_t ad = vdupq_n_f32(ab->d);
    float32x4_t d = vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(rec + BB_Q2_K_X16_D + 8 * quad)));
    float32x4_t dm = vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(rec + BB_Q2_K_X16_DMIN + 8 * quad)));
    float32x4_t p = vmulq_f32(vmulq_f32(ad, d), vcvtq_f32_s32(isum));
    float32x4_t q = vmulq_f32(vmulq_f32(ad, dm), vcvtq_f32_s32(summs));
    return vsubq_f32(p, q);
}

void bb_q2_k_x16_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK_K;
    for (int r = m0; r < m1; r += BB_Q2_K_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_Q2_K_X16_ROWS) * nblk * BB_Q2_K_X16_RECORD;
        for (int c = 0; c < n; c++) {
            const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nblk;
            float32x4_t s[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0)};
            for (int b = 0; b < nblk; b++) {
                const uint8_t *rec = grp + (size_t)b * BB_Q2_K_X16_RECORD;
                bb_prefetch_stream_range(rec, BB_Q2_K_X16_RECORD);
                for (int qd = 0; qd < 4; qd++) s[qd] = vaddq_f32(s[qd], quad_terms(rec, qd, &a[b]));
            }
            for (int qd = 0; qd < 4; qd++) vst1q_f32(y + (size_t)c * m + r + 4 * qd, s[qd]);
        }
    }
}
