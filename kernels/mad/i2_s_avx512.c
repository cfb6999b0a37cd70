/* i2_s, AVX-512 VNNI: 64 code bytes (two 128-weight blocks) per load, planes by shift and mask,
 * vpdpbusd (unsigned code × signed q, accumulated in int32) — one instruction per plane, no
 * int16 stage.  The activations of plane s of both blocks are joined with one 256-bit insert.
 * Up to 4 activation rows share each decoded weight vector. */
#include <immintrin.h>

#include "../common/act_quant.h"
#include "i2_s.h"

#define NB_MAX 4

static inline __m512i act_pair(const int8_t *qb, int s)
{
    __m512i lo = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(qb + 32 * s)));
    return _mm512_inserti64x4(lo, _mm256_loadu_si256((const __m256i *)(qb + BB_I2S_BLOCK + 32 * s)), 1);
}

static void row_dot(const uint8_t *row, const int8_t *const *q, int nb, int k, int32_t *out)
{
    const __m512i mask = _mm512_set1_epi8(3);
    __m512i acc[NB_MAX];
    for (int c = 0; c < nb; c++) acc[c] = _mm512_setzero_si512();
    int nblk = k / BB_I2S_BLOCK, b = 0;
    for (; b + 2 <= nblk; b += 2) {
        __m512i v = _mm512_loadu_si512((const void *)(row + 32 * b));
        __m512i c0 = _mm512_and_si512(_mm512_srli_epi16(v, 6), mask);
        __m512i c1 = _mm512_and_si512(_mm512_srli_epi16(v, 4), mask);
        __m512i c2 = _mm512_and_si512(_mm512_srli_epi16(v, 2), mask);
        __m512i c3 = _mm512_and_si512(v, mask);
        for (int c = 0; c < nb; c++) {
            const int8_t *qb = q[c] + b * BB_I2S_BLOCK;
            acc[c] = _mm512_dpbusd_epi32(acc[c], c0, act_pair(qb, 0));
            acc[c] = _mm512_dpbusd_epi32(acc[c], c1, act_pair(qb, 1));
            acc[c] = _mm512_dpbusd_epi32(acc[c], c2, act_pair(qb, 2));
            acc[c] = _mm512_dpbusd_epi32(acc[c], c3, act_pair(qb, 3));
        }
    }
    if (b < nblk) { /* odd block count: last block in the low half, upper half masked to zero */
        __m512i v = _mm512_maskz_loadu_epi8(0xffffffffull, row + 32 * b);
        __m512i cs[4] = {
            _mm512_and_si512(_mm512_srli_epi16(v, 6), mask), _mm512_and_si512(_mm512_srli_epi16(v, 4), mask),
            _mm512_and_si512(_mm512_srli_epi16(v, 2), mask), _mm512_and_si512(v, mask)};
        for (int c = 0; c < nb; c++) {
            const int8_t *qb = q[c] + b * BB_I2S_BLOCK;
            for (int s = 0; s < 4; s++) {
                __m512i a = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(qb + 32 * s)));
                a = _mm512_inserti64x4(a, _mm256_setzero_si256(), 1);
                acc[c] = _mm512_dpbusd_epi32(acc[c], cs[s], a);
            }
        }
    }
    for (int c = 0; c < nb; c++) out[c] = _mm512_reduce_add_epi32(acc[c]);
}

void bb_i2_s_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
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
