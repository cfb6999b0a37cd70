/* tq2_0_x16, AVX2: 8 rows per 256-bit register, the 16 rows of a record in two passes (the record
 * is in L1 for the second).  Plane l of a run is (v >> 2l) & 3, the codes themselves (<= 3), so
 * vpmaddubsw pairs them with their broadcast activations in int16 without saturating
 * (|.| <= 2 * 3 * 128); the 4 planes of 8 runs are summed there (<= 24576) and widened to int32
 * by one vpmaddwd with ones.  The block's sum of c * q less its sum of q is isum_b, and tq2_0's
 * float steps follow lane-wise: the reference's bits. */
#include <immintrin.h>
#include <string.h>

#include "../common/prefetch.h"
#include "tq2_0_x16.h"

static inline __m256i bcast4(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/* The 8 rows' block terms (rows 8*half ..) of one record against one q8_K block. */
static inline __attribute__((always_inline)) __m256 half_terms(const uint8_t *rec, int half, const bb_block_q8_K *ab)
{
    const __m256i three = _mm256_set1_epi8(3), ones = _mm256_set1_epi16(1);
    __m256i acc = _mm256_setzero_si256();
    for (int j = 0; j < 2; j++) { /* runs 8j .. 8j+7: weights 128j .. 128j+127 */
        __m256i sum16 = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int r = 8 * j; r < 8 * j + 8; r++) {
            /* the record's 17 lines prefetched one per run of the first pass (tq1_0_x16_avx2.c) */
            if (half == 0) {
                bb_prefetch_stream(rec + 64 * r);
                if (r == 0) bb_prefetch_stream(rec + BB_TQ2_0_X16_D);
            }
            __m256i v = _mm256_loadu_si256((const __m256i *)(rec + 64 * r + 32 * half));
#pragma GCC unroll 4
            for (int l = 0; l < 4; l++) {
                __m256i c = _mm256_and_si256(l ? _mm256_srli_epi16(v, 2 * l) : v, three);
                sum16 = _mm256_add_epi16(sum16, _mm256_maddubs_epi16(c, bcast4(ab->qs + bb_tq2_0_x16_value(r, l))));
            }
        }
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(sum16, ones));
    }
    int32_t sumq = 0;
    for (int s = 0; s < 16; s++) sumq += ab->bsums[s];
    __m256i isum = _mm256_sub_epi32(acc, _mm256_set1_epi32(sumq));
    __m256 d = _mm256_mul_ps(_mm256_set1_ps(ab->d),
                             _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(rec + BB_TQ2_0_X16_D + 16 * half))));
    return _mm256_mul_ps(_mm256_cvtepi32_ps(isum), d);
}

void bb_tq2_0_x16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK_K;
    for (int r = m0; r < m1; r += BB_TQ2_0_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_TQ2_0_X16_ROWS) * nblk * BB_TQ2_0_X16_RECORD;
        for (int c = 0; c < n; c++) {
            const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nblk;
            __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
            for (int b = 0; b < nblk; b++) {
                const uint8_t *rec = grp + (size_t)b * BB_TQ2_0_X16_RECORD;
                s0 = _mm256_add_ps(s0, half_terms(rec, 0, &a[b]));
                s1 = _mm256_add_ps(s1, half_terms(rec, 1, &a[b]));
            }
            _mm256_storeu_ps(y + (size_t)c * m + r, s0);
            _mm256_storeu_ps(y + (size_t)c * m + r + 8, s1);
        }
    }
}
