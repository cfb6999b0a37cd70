/* i2_s, AVX2: 32 code bytes → four 32-byte planes by shift and mask, vpmaddubsw (code × q, int16,
 * |value| <= 2*3*127 with a stray code 3, which decodes as +2) summed over the four planes and up
 * to 8 blocks in int16 (|sum| <= 24384), then widened with vpmaddwd.  Up to 4 activation rows
 * share each decoded weight block.
 *
 * The row walk is compiled once per activation-row count (1-4): with the count a constant the
 * accumulators stay in registers and the loop carries no per-block tests, which is what lets one
 * Zen 3 core decode a row at about a DRAM stream's rate (the general loop, indexed by a runtime
 * count, ran at half that; docs/measurements/2026-11-28-avx2.md). */
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

/* One block of 128 weights into the int16 sums of nb activation rows. */
static inline __attribute__((always_inline)) void block_dot(const uint8_t *blk, const int8_t *const *q, int nb,
                                                            size_t off, __m256i *acc16)
{
    const __m256i mask = _mm256_set1_epi8(3);
    __m256i v = _mm256_loadu_si256((const __m256i *)blk);
    __m256i c0 = _mm256_and_si256(_mm256_srli_epi16(v, 6), mask);
    __m256i c1 = _mm256_and_si256(_mm256_srli_epi16(v, 4), mask);
    __m256i c2 = _mm256_and_si256(_mm256_srli_epi16(v, 2), mask);
    __m256i c3 = _mm256_and_si256(v, mask);
    for (int c = 0; c < nb; c++) {
        const int8_t *qb = q[c] + off;
        __m256i p0 = _mm256_maddubs_epi16(c0, _mm256_loadu_si256((const __m256i *)(qb)));
        __m256i p1 = _mm256_maddubs_epi16(c1, _mm256_loadu_si256((const __m256i *)(qb + 32)));
        __m256i p2 = _mm256_maddubs_epi16(c2, _mm256_loadu_si256((const __m256i *)(qb + 64)));
        __m256i p3 = _mm256_maddubs_epi16(c3, _mm256_loadu_si256((const __m256i *)(qb + 96)));
        acc16[c] = _mm256_add_epi16(acc16[c], _mm256_add_epi16(_mm256_add_epi16(p0, p1), _mm256_add_epi16(p2, p3)));
    }
}

/* The row walk for a constant nb: two blocks (one 64-byte line of codes, one prefetch) per step,
 * the even block into one set of int16 sums and the odd into another, so a group of 16 blocks
 * keeps each set within its 8-block limit. */
static inline __attribute__((always_inline)) void row_dot_nb(const uint8_t *row, const int8_t *const *q, int nb,
                                                             int k, int32_t *out)
{
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc[BB_I2S_NB], even[BB_I2S_NB], odd[BB_I2S_NB];
    for (int c = 0; c < nb; c++) acc[c] = _mm256_setzero_si256();
    int nblk = k / BB_I2S_BLOCK;
    for (int g = 0; g < nblk; g += 16) {
        int end = g + 16 < nblk ? g + 16 : nblk, b = g;
        for (int c = 0; c < nb; c++) even[c] = odd[c] = _mm256_setzero_si256();
        for (; b + 2 <= end; b += 2) {
            bb_prefetch_stream(row + 32 * b);
            block_dot(row + 32 * b, q, nb, (size_t)b * BB_I2S_BLOCK, even);
            block_dot(row + 32 * (b + 1), q, nb, (size_t)(b + 1) * BB_I2S_BLOCK, odd);
        }
        if (b < end) block_dot(row + 32 * b, q, nb, (size_t)b * BB_I2S_BLOCK, even);
        for (int c = 0; c < nb; c++)
            acc[c] = _mm256_add_epi32(acc[c], _mm256_add_epi32(_mm256_madd_epi16(even[c], ones),
                                                                _mm256_madd_epi16(odd[c], ones)));
    }
    for (int c = 0; c < nb; c++) out[c] = hsum_epi32(acc[c]);
}

/* The count is tested once per weight row, not per block. */
static void row_dot(const uint8_t *row, const int8_t *const *q, int nb, int k, int32_t *out)
{
    switch (nb) {
    case 1: row_dot_nb(row, q, 1, k, out); break;
    case 2: row_dot_nb(row, q, 2, k, out); break;
    case 3: row_dot_nb(row, q, 3, k, out); break;
    default: row_dot_nb(row, q, 4, k, out); break;
    }
}

void bb_i2_s_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_i2_s_matmul_rows(row_dot, w, act, y, m, k, n, m0, m1);
}
