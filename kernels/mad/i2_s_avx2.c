/* i2_s, AVX2: 32 code bytes → four 32-byte planes by shift and mask, vpmaddubsw (code × q, int16,
 * |value| <= 2*2*127) summed over the four planes and up to 8 blocks in int16 (<= 16256), then
 * widened with vpmaddwd.  Up to 4 activation rows share each decoded weight block. */
#include <immintrin.h>

#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "i2_s.h"

static inline int32_t hsum_epi32(__m256i v)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

static void row_dot(const uint8_t *row, const int8_t *const *q, int nb, int k, int32_t *out)
{
    const __m256i mask = _mm256_set1_epi8(3), ones = _mm256_set1_epi16(1);
    __m256i acc[BB_I2S_NB], acc16[BB_I2S_NB];
    for (int c = 0; c < nb; c++) acc[c] = acc16[c] = _mm256_setzero_si256();
    int nblk = k / BB_I2S_BLOCK;
    for (int b = 0; b < nblk; b++) {
        if ((b & 1) == 0) bb_prefetch_stream(row + 32 * b);
        __m256i v = _mm256_loadu_si256((const __m256i *)(row + 32 * b));
        __m256i c0 = _mm256_and_si256(_mm256_srli_epi16(v, 6), mask);
        __m256i c1 = _mm256_and_si256(_mm256_srli_epi16(v, 4), mask);
        __m256i c2 = _mm256_and_si256(_mm256_srli_epi16(v, 2), mask);
        __m256i c3 = _mm256_and_si256(v, mask);
        for (int c = 0; c < nb; c++) {
            const int8_t *qb = q[c] + b * BB_I2S_BLOCK;
            __m256i p0 = _mm256_maddubs_epi16(c0, _mm256_loadu_si256((const __m256i *)(qb)));
            __m256i p1 = _mm256_maddubs_epi16(c1, _mm256_loadu_si256((const __m256i *)(qb + 32)));
            __m256i p2 = _mm256_maddubs_epi16(c2, _mm256_loadu_si256((const __m256i *)(qb + 64)));
            __m256i p3 = _mm256_maddubs_epi16(c3, _mm256_loadu_si256((const __m256i *)(qb + 96)));
            acc16[c] = _mm256_add_epi16(acc16[c], _mm256_add_epi16(_mm256_add_epi16(p0, p1),
                                                                   _mm256_add_epi16(p2, p3)));
        }
        if ((b & 7) == 7 || b == nblk - 1)
            for (int c = 0; c < nb; c++) {
                acc[c] = _mm256_add_epi32(acc[c], _mm256_madd_epi16(acc16[c], ones));
                acc16[c] = _mm256_setzero_si256();
            }
    }
    for (int c = 0; c < nb; c++) out[c] = hsum_epi32(acc[c]);
}

void bb_i2_s_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_i2_s_matmul_rows(row_dot, w, act, y, m, k, n, m0, m1);
}
