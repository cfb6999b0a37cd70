/* tq1_0_x16, Arm dot product (FEAT_DotProd): 4 rows per 128-bit register, a record's 16 rows as
 * 4 quads.  Trit n of every code byte b as tq1_0.h states it: b' = b * 3^n mod 256, built from the
 * previous trit's b' by two byte adds, and c = [b' >= 86] + [b' >= 171] by two unsigned compares
 * (CMHS), whose all-ones bytes are -1: c = -(m1 + m2).  One SDOT per trit vector with the 4
 * activations broadcast (LD1R); the block's sum of c * q less its sum of q is isum_b, and
 * tq1_0's float steps follow lane-wise: the reference's bits. */
#include <arm_neon.h>

#include "../common/prefetch.h"
#include "tq1_0_x16.h"

/* First weight of trit n of run c (tq1_0_x16.h). */
static inline int run_value(int c, int n)
{
    return c < 8 ? 32 * n + 4 * c : (c < 12 ? 160 + 16 * n + 4 * (c - 8) : 240 + 4 * n);
}

/* The 4 rows' block terms (rows 4*quad ..) of one record against one q8_K block. */
static inline __attribute__((always_inline)) float32x4_t quad_terms(const uint8_t *rec, int quad, const bb_block_q8_K *ab)
{
    const uint8x16_t t86 = vdupq_n_u8(86), t171 = vdupq_n_u8(171);
    int32x4_t acc0 = vdupq_n_s32(0), acc1 = vdupq_n_s32(0);
#pragma GCC unroll 13
    for (int r = 0; r < BB_TQ1_0_X16_RUNS; r++) {
        uint8x16_t b = vld1q_u8(rec + 64 * r + 16 * quad);
#pragma GCC unroll 5
        for (int n = 0; n < 5; n++) {
            if (r == 12 && n == 4) break; /* qh bytes hold 4 trits */
            if (n > 0) b = vaddq_u8(b, vaddq_u8(b, b));
            int8x16_t c = vnegq_s8(vreinterpretq_s8_u8(vaddq_u8(vcgeq_u8(b, t86), vcgeq_u8(b, t171))));
            int8x16_t q = vreinterpretq_s8_s32(vld1q_dup_s32((const int32_t *)(const void *)(ab->qs + run_value(r, n))));
            if (n % 2) acc1 = vdotq_s32(acc1, c, q);
            else acc0 = vdotq_s32(acc0, c, q);
        }
    }
    int32_t sumq = 0;
    for (int s = 0; s < 16; s++) sumq += ab->bsums[s];
    int32x4_t isum = vsubq_s32(vaddq_s32(acc0, acc1), vdupq_n_s32(sumq));
    float32x4_t d = vmulq_f32(vdupq_n_f32(ab->d),
                              vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(rec + BB_TQ1_0_X16_D + 8 * quad))));
    return vmulq_f32(vcvtq_f32_s32(isum), d);
}

void bb_tq1_0_x16_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK_K;
    for (int r = m0; r < m1; r += BB_TQ1_0_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_TQ1_0_X16_ROWS) * nblk * BB_TQ1_0_X16_RECORD;
        for (int c = 0; c < n; c++) {
            const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nblk;
            float32x4_t s[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0)};
            for (int b = 0; b < nblk; b++) {
                const uint8_t *rec = grp + (size_t)b * BB_TQ1_0_X16_RECORD;
                bb_prefetch_stream_range(rec, BB_TQ1_0_X16_RECORD);
                for (int qd = 0; qd < 4; qd++) s[qd] = vaddq_f32(s[qd], quad_terms(rec, qd, &a[b]));
            }
            for (int qd = 0; qd < 4; qd++) vst1q_f32(y + (size_t)c * m + r + 4 * qd, s[qd]);
        }
    }
}
