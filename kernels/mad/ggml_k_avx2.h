/* AVX2 helpers shared by the tq1_0 / tq2_0 / q2_k AVX2 variants (include only from *_avx2.c). */
#ifndef BB_GGML_K_AVX2_H
#define BB_GGML_K_AVX2_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "ggml_k.h"

/* The totals of four blocks' 8-lane int32 partial sums, [S0, S1, S2, S3]: 32- and 64-bit
 * interleaves and adds, then the two 128-bit halves (10 instructions for 4 blocks). */
static inline __m128i bb_gk_reduce4_avx2(__m256i s0, __m256i s1, __m256i s2, __m256i s3)
{
    __m256i a = _mm256_add_epi32(_mm256_unpacklo_epi32(s0, s1), _mm256_unpackhi_epi32(s0, s1));
    __m256i b = _mm256_add_epi32(_mm256_unpacklo_epi32(s2, s3), _mm256_unpackhi_epi32(s2, s3));
    __m256i c = _mm256_add_epi32(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
    return _mm_add_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
}

/* sum over 8 planes of 32 unsigned codes (each <= 3) times the 256 int8 activations q, in int16
 * lanes: each vpmaddubsw lane is <= 2*3*128 = 768 in magnitude, the sum of 8 <= 6144: no
 * saturation, exact. */
static inline __m256i bb_gk_dot8_i16(const __m256i c[8], const int8_t *q)
{
    __m256i s = _mm256_setzero_si256();
    for (int p = 0; p < 8; p++)
        s = _mm256_add_epi16(s, _mm256_maddubs_epi16(c[p], _mm256_loadu_si256((const __m256i *)(q + 32 * p))));
    return s;
}

/* The ternary kernels' fold of one chunk (csum: sum c*q of each block): isum = csum - sum q,
 * p_b = (float)isum_b * (a_b.d * w_b.d) lane by lane, added to sumf in block order. */
static inline float bb_gk_fold_tq_avx2(float sumf, const int32_t *csum, const bb_gk_arow *a, int b0, const float *wd,
                                       int nc)
{
    float p[BB_GK_CHUNK];
    for (int i = 0; i < BB_GK_CHUNK; i += 8) {
        __m256i isum = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(csum + i)),
                                        _mm256_loadu_si256((const __m256i *)(a->qsum + b0 + i)));
        __m256 d = _mm256_mul_ps(_mm256_loadu_ps(a->d + b0 + i), _mm256_loadu_ps(wd + i));
        _mm256_storeu_ps(p + i, _mm256_mul_ps(_mm256_cvtepi32_ps(isum), d));
    }
    return bb_gk_fold(sumf, p, nc);
}

/* The exact ternary row (tq1_0, tq2_0): per block `decode` gives 8 vectors of 32 codes (0..3)
 * lined up with q[32p..32p+31]; sum c*q in int16 (bb_gk_dot8_i16), widened, four blocks reduced
 * together, the block sums of q subtracted, the products folded in block order (ggml_k.h).
 * Inlined with constant nb and decode, so each kernel gets its own straight-line code. */
static inline __attribute__((always_inline)) void bb_gk_tq_row_avx2(const uint8_t *wrow, size_t bsize, size_t doff,
                                                                    void (*decode)(const uint8_t *blk, __m256i c[8]),
                                                                    const bb_gk_arow *a, const int nb, int nblk,
                                                                    float *out)
{
    const __m256i ones = _mm256_set1_epi16(1);
    float sumf[BB_GK_NB] = {0};
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        float wd[BB_GK_CHUNK] = {0};
        int32_t csum[BB_GK_NB][BB_GK_CHUNK] = {{0}};
        for (int g = 0; g < nc; g += 4) {
            __m256i s[BB_GK_NB][4];
            for (int j = 0; j < 4; j++) {
                if (g + j >= nc) {
                    for (int r = 0; r < nb; r++) s[r][j] = _mm256_setzero_si256();
                    continue;
                }
                const uint8_t *blk = wrow + (size_t)(b0 + g + j) * bsize;
                uint16_t d;
                memcpy(&d, blk + doff, 2);
                wd[g + j] = _cvtsh_ss(d);
                __m256i c[8];
                decode(blk, c);
                for (int r = 0; r < nb; r++)
                    s[r][j] = _mm256_madd_epi16(bb_gk_dot8_i16(c, a[r].q[b0 + g + j].qs), ones);
            }
            for (int r = 0; r < nb; r++)
                _mm_storeu_si128((__m128i *)&csum[r][g], bb_gk_reduce4_avx2(s[r][0], s[r][1], s[r][2], s[r][3]));
        }
        for (int r = 0; r < nb; r++) sumf[r] = bb_gk_fold_tq_avx2(sumf[r], csum[r], &a[r], b0, wd, nc);
    }
    for (int r = 0; r < nb; r++) out[r] = sumf[r];
}

#endif
