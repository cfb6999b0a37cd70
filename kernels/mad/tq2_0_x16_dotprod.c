/* tq2_0_x16, Arm dot product (FEAT_DotProd): 4 rows per 128-bit register, a record's 16 rows as
 * 4 quads side by side.  SDOT multiplies signed bytes, so the planes are taken as codes times 4^l
 * only while they stay below 128: v & 3, v & 0x0c, v & 0x30 (times 1, 4, 16) and v >> 6 (times
 * 1), one instruction each; one SDOT per plane, quad and run, with the 4 activations broadcast
 * (LD1R) once per plane and run.  The
 * plane sums are exact (a block: |lane| <= 64 * 48 * 128 < 2^31), brought to one scale by exact
 * shifts, and the block's sum of c * q less its sum of q is isum_b; tq2_0's float steps follow
 * lane-wise: the reference's bits. */
#include <arm_neon.h>

#include "../common/prefetch.h"
#include "tq2_0_x16.h"

static inline int8x16_t bcast4(const int8_t *p)
{
    return vreinterpretq_s8_s32(vld1q_dup_s32((const int32_t *)(const void *)p));
}

/* s[qd] += the block terms of rows 4qd .. 4qd+3 of one record against one q8_K block, the 4
 * quads of a run in one pass so that each broadcast of 4 activations serves 16 rows.  p[l][qd]:
 * plane l's sums (times 1, 4, 16, 1). */
static inline __attribute__((always_inline)) void record_terms(const uint8_t *rec, const bb_block_q8_K *ab,
                                                               float32x4_t s[4])
{
    const uint8x16_t m0 = vdupq_n_u8(0x03), m1 = vdupq_n_u8(0x0c), m2 = vdupq_n_u8(0x30);
    int32x4_t p[4][4];
    for (int l = 0; l < 4; l++)
        for (int qd = 0; qd < 4; qd++) p[l][qd] = vdupq_n_s32(0);
    /* A loop, not unrolled: unrolled, GCC 12 spilled the 16 sums and loaded the broadcasts as
     * scalars (1337 instructions per record). */
    for (int r = 0; r < BB_TQ2_0_X16_RUNS; r++) {
        const int8_t *qa = ab->qs + bb_tq2_0_x16_value(r, 0); /* plane l at qa + 32 l (tq2_0_x16.h) */
        uint8x16_t v[4];
        for (int qd = 0; qd < 4; qd++) v[qd] = vld1q_u8(rec + 64 * r + 16 * qd);
        int8x16_t q0 = bcast4(qa), q1 = bcast4(qa + 32), q2 = bcast4(qa + 64), q3 = bcast4(qa + 96);
        for (int qd = 0; qd < 4; qd++) {
            p[0][qd] = vdotq_s32(p[0][qd], vreinterpretq_s8_u8(vandq_u8(v[qd], m0)), q0);
            p[1][qd] = vdotq_s32(p[1][qd], vreinterpretq_s8_u8(vandq_u8(v[qd], m1)), q1);
            p[2][qd] = vdotq_s32(p[2][qd], vreinterpretq_s8_u8(vandq_u8(v[qd], m2)), q2);
            p[3][qd] = vdotq_s32(p[3][qd], vreinterpretq_s8_u8(vshrq_n_u8(v[qd], 6)), q3);
        }
    }
    int32_t sumq = 0;
    for (int i = 0; i < 16; i++) sumq += ab->bsums[i];
    for (int qd = 0; qd < 4; qd++) {
        int32x4_t t = vaddq_s32(vaddq_s32(p[0][qd], vshrq_n_s32(p[1][qd], 2)),
                                vaddq_s32(vshrq_n_s32(p[2][qd], 4), p[3][qd]));
        int32x4_t isum = vsubq_s32(t, vdupq_n_s32(sumq));
        float32x4_t d = vmulq_f32(vdupq_n_f32(ab->d),
                                  vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(rec + BB_TQ2_0_X16_D + 8 * qd))));
        s[qd] = vaddq_f32(s[qd], vmulq_f32(vcvtq_f32_s32(isum), d));
    }
}

void bb_tq2_0_x16_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK_K;
    for (int r = m0; r < m1; r += BB_TQ2_0_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_TQ2_0_X16_ROWS) * nblk * BB_TQ2_0_X16_RECORD;
        for (int c = 0; c < n; c++) {
            const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nblk;
            float32x4_t s[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0)};
            for (int b = 0; b < nblk; b++) {
                const uint8_t *rec = grp + (size_t)b * BB_TQ2_0_X16_RECORD;
                bb_prefetch_stream_range(rec, BB_TQ2_0_X16_RECORD);
                record_terms(rec, &a[b], s);
            }
            for (int qd = 0; qd < 4; qd++) vst1q_f32(y + (size_t)c * m + r + 4 * qd, s[qd]);
        }
    }
}
