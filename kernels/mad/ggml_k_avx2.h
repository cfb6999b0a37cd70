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

/* The exact ternary row (tq1_0, tq2_0): per block `decode` gives 8 vectors of 32 codes (0..3)
 * lined up with q[32p..32p+31]; sum c*q in int16 (bb_gk_dot8_i16), widened, four blocks reduced
 * together, the block sums of q subtracted, and the four products p_b = (float)isum_b *
 * (a_b.d * w_b.d) formed and added to the row's sum in block order, all in registers.  (Through
 * arrays, as the chunked fold of the other variants does, the 128-bit stores of the sums and the
 * scalar stores of the scales were read back by 256-bit loads that store forwarding cannot serve:
 * about a fifth of a 2560-wide GEMV row on Zen 3.)  Inlined with constant nb and decode, so each
 * kernel gets its own straight-line code. */
static inline __attribute__((always_inline)) void bb_gk_tq_row_avx2(const uint8_t *wrow, size_t bsize, size_t doff,
                                                                    void (*decode)(const uint8_t *blk, __m256i c[8]),
                                                                    const bb_gk_arow *a, const int nb, int nblk,
                                                                    float *out)
{
    const __m256i ones = _mm256_set1_epi16(1);
    float sumf[BB_GK_NB] = {0};
    for (int g = 0; g < nblk; g += 4) {
        int nc = nblk - g < 4 ? nblk - g : 4;
        __m256i s[BB_GK_NB][4];
        uint16_t d16[4] = {0, 0, 0, 0};
        for (int j = 0; j < 4; j++) {
            if (j >= nc) {
                for (int r = 0; r < nb; r++) s[r][j] = _mm256_setzero_si256();
                continue;
            }
            const uint8_t *blk = wrow + (size_t)(g + j) * bsize;
            memcpy(&d16[j], blk + doff, 2);
            __m256i c[8];
            decode(blk, c);
            for (int r = 0; r < nb; r++) s[r][j] = _mm256_madd_epi16(bb_gk_dot8_i16(c, a[r].q[g + j].qs), ones);
        }
        __m128 wd =
            _mm_cvtph_ps(_mm_setr_epi16((short)d16[0], (short)d16[1], (short)d16[2], (short)d16[3], 0, 0, 0, 0));
        for (int r = 0; r < nb; r++) {
            __m128i isum = _mm_sub_epi32(bb_gk_reduce4_avx2(s[r][0], s[r][1], s[r][2], s[r][3]),
                                         _mm_loadu_si128((const __m128i *)(a[r].qsum + g)));
            __m128 d = _mm_mul_ps(_mm_loadu_ps(a[r].d + g), wd);
            float p[4];
            _mm_storeu_ps(p, _mm_mul_ps(_mm_cvtepi32_ps(isum), d));
            for (int j = 0; j < nc; j++) sumf[r] += p[j];
        }
    }
    for (int r = 0; r < nb; r++) out[r] = sumf[r];
}

#endif
