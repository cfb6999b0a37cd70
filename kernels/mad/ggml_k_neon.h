/* NEON helpers shared by the tq1_0 / tq2_0 / q2_k Arm variants (include only from *_neon.c and
 * *_dotprod.c): the Arm counterpart of ggml_k_avx2.h, feeding the same driver (bb_gk_matmul) and
 * the same fold in block order (ggml_k.h), so the results are the scalar reference's bits. */
#ifndef BB_GGML_K_NEON_H
#define BB_GGML_K_NEON_H

#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

#include "ggml_k.h"

/* [S0, S1, S2, S3]: the totals of four blocks' 4-lane int32 partial sums, three ADDP. */
static inline int32x4_t bb_gk_reduce4_neon(int32x4_t s0, int32x4_t s1, int32x4_t s2, int32x4_t s3)
{
    return vpaddq_s32(vpaddq_s32(s0, s1), vpaddq_s32(s2, s3));
}

/* The ternary kernels' fold of one chunk (csum: sum c*q of each block): isum = csum - sum q,
 * p_b = (float)isum_b * (a_b.d * w_b.d) lane by lane (the reference's IEEE operations; this code
 * is built without FP contraction, so no FMLA), added to sumf in block order. */
static inline float bb_gk_fold_tq_neon(float sumf, const int32_t *csum, const bb_gk_arow *a, int b0, const float *wd,
                                       int nc)
{
    float p[BB_GK_CHUNK];
    for (int i = 0; i < BB_GK_CHUNK; i += 4) {
        int32x4_t isum = vsubq_s32(vld1q_s32(csum + i), vld1q_s32(a->qsum + b0 + i));
        float32x4_t d = vmulq_f32(vld1q_f32(a->d + b0 + i), vld1q_f32(wd + i));
        vst1q_f32(p + i, vmulq_f32(vcvtq_f32_s32(isum), d));
    }
    return bb_gk_fold(sumf, p, nc);
}

/* Adds nothing, sets s[r] (r < nb) to 4 int32 lanes whose total is sum_i c_i * q[r][i] over the
 * block's 256 codes c (as stored, 0..3). */
typedef void (*bb_gk_block_dot_neon)(const uint8_t *blk, const int8_t *const *q, int nb, int32x4_t *s);

/* The exact ternary row (tq1_0, tq2_0), as bb_gk_tq_row_avx2: per block `block_dot` gives each
 * activation row's lane sums of c*q; blocks go in pairs (one ADDP each, so few registers stay
 * live), four blocks reduced together, the block sums of q subtracted, the products folded in
 * block order (ggml_k.h).  Inlined with constant nb and block_dot, so each kernel gets its own
 * straight-line code.  The fp16 block scale is converted as the reference converts it. */
static inline __attribute__((always_inline)) void bb_gk_tq_row_neon(const uint8_t *wrow, size_t bsize, size_t doff,
                                                                    bb_gk_block_dot_neon block_dot,
                                                                    const bb_gk_arow *a, const int nb, int nblk,
                                                                    float *out)
{
    float sumf[BB_GK_NB] = {0};
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        float wd[BB_GK_CHUNK] = {0};
        int32_t csum[BB_GK_NB][BB_GK_CHUNK] = {{0}};
        for (int g = 0; g < nc; g += 4) {
            int32x4_t pair[2][BB_GK_NB]; /* blocks g, g+1 and g+2, g+3 after one ADDP */
            for (int j = 0; j < 4; j += 2) {
                int32x4_t s[2][BB_GK_NB];
                for (int h = 0; h < 2; h++) {
                    int b = b0 + g + j + h;
                    if (b - b0 >= nc) {
                        for (int r = 0; r < nb; r++) s[h][r] = vdupq_n_s32(0);
                        continue;
                    }
                    const uint8_t *blk = wrow + (size_t)b * bsize;
                    bb_prefetch_stream(blk);
                    bb_prefetch_stream(blk + bsize - 1);
                    uint16_t d;
                    memcpy(&d, blk + doff, 2);
                    wd[b - b0] = bb_fp16_to_fp32(d);
                    const int8_t *q[BB_GK_NB];
                    for (int r = 0; r < nb; r++) q[r] = a[r].q[b].qs;
                    block_dot(blk, q, nb, s[h]);
                }
                for (int r = 0; r < nb; r++) pair[j / 2][r] = vpaddq_s32(s[0][r], s[1][r]);
            }
            for (int r = 0; r < nb; r++) vst1q_s32(&csum[r][g], vpaddq_s32(pair[0][r], pair[1][r]));
        }
        for (int r = 0; r < nb; r++) sumf[r] = bb_gk_fold_tq_neon(sumf[r], csum[r], &a[r], b0, wd, nc);
    }
    for (int r = 0; r < nb; r++) out[r] = sumf[r];
}

#endif
