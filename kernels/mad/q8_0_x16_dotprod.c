/* q8_0_x16, Arm dot product (FEAT_DotProd): 4 rows per 128-bit register, a record's 16 rows as 4
 * quads side by side.  The weights are signed bytes as stored, so one SDOT per quad and run
 * against the run's 4 activations (LD1R, once per run for all 16 rows) sums each lane's isum_b
 * exactly; q8_0's float steps follow lane-wise: the reference's bits. */
#include <arm_neon.h>

#include "../common/prefetch.h"
#include "../cpu.h"
#include "q8_0_x16.h"

static inline int8x16_t bcast4(const int8_t *p)
{
    return vreinterpretq_s8_s32(vld1q_dup_s32((const int32_t *)(const void *)p));
}

/* s[qd] += the terms of rows 4qd .. 4qd+3 of one record against activation block ab (scale da).
 * pf: software prefetch (bb_cpu_stream_prefetch). */
static inline __attribute__((always_inline)) void record_terms(const uint8_t *rec, const bb_block_q8_0 *ab, float da,
                                                               float32x4_t s[4], int pf)
{
    int32x4_t acc[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
    if (pf) bb_prefetch_stream_range(rec, BB_Q8_0_X16_RECORD);
    for (int r = 0; r < BB_Q8_0_X16_RUNS; r++) {
        const int8_t *run = (const int8_t *)rec + BB_Q8_0_X16_Q + 64 * r;
        int8x16_t q = bcast4(ab->qs + 4 * r);
        for (int qd = 0; qd < 4; qd++) acc[qd] = vdotq_s32(acc[qd], vld1q_s8(run + 16 * qd), q);
    }
    for (int qd = 0; qd < 4; qd++) {
        float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(rec + 8 * qd)));
        s[qd] = vaddq_f32(s[qd], vmulq_f32(vmulq_f32(vcvtq_f32_s32(acc[qd]), dw), vdupq_n_f32(da)));
    }
}

void bb_q8_0_x16_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK, pf = bb_cpu_stream_prefetch();
    for (int r = m0; r < m1; r += BB_Q8_0_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_Q8_0_X16_ROWS) * nblk * BB_Q8_0_X16_RECORD;
        for (int c = 0; c < n; c++) {
            const bb_block_q8_0 *a = bb_qx_act_row(act, k, c);
            bb_qx_aux aux = bb_qx_aux_row(act, n, k, c);
            float32x4_t s[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0)};
            for (int b = 0; b < nblk; b++) record_terms(grp + (size_t)b * BB_Q8_0_X16_RECORD, &a[b], aux.d[b], s, pf);
            for (int qd = 0; qd < 4; qd++) vst1q_f32(y + (size_t)c * m + r + 4 * qd, s[qd]);
        }
    }
}
