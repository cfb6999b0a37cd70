/* q2_k_x16, AVX2: the AVX-512 variant's scheme (q2_k_x16_avx512.c) on 8 rows per 256-bit
 * register, the 16 rows of a record in two passes (the record is in L1 for the second).  Without
 * VNNI the codes (planes isolated in place by masks: at most 12) meet the broadcast activations in
 * vpmaddubsw, pairs of products in int16 (|.| <= 2 * 12 * 128); a sub-block's 4 of them are
 * summed in int16 (|.| <= 12288), and one vpmaddwd with the row's scale in both words of its lane
 * gives sc * (its dot) in int32, planes 0 and 2 times 4: 4 * isum exactly, then an arithmetic
 * shift.  The mins: one vpmaddwd of the two 4-bit mins against the two bsums.  q2_k's float steps
 * lane-wise: the reference's bits. */
#include <immintrin.h>
#include <string.h>

#include "../common/prefetch.h"
#include "q2_k_x16.h"

static inline __m256i bcast4(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/* The 8 rows' block terms (rows 8*half ..) of one record against one q8_K block. */
static inline __attribute__((always_inline)) __m256 half_terms(const uint8_t *rec, int half, const bb_block_q8_K *ab)
{
    const __m256i m03 = _mm256_set1_epi8(0x03), m0c = _mm256_set1_epi8(0x0c);
    const __m256i lo_word = _mm256_setr_epi8(0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13, 0, 1, 0, 1, 4, 5, 4, 5,
                                             8, 9, 8, 9, 12, 13, 12, 13);
    const __m256i hi_word = _mm256_setr_epi8(2, 3, 2, 3, 6, 7, 6, 7, 10, 11, 10, 11, 14, 15, 14, 15, 2, 3, 2, 3, 6, 7,
                                             6, 7, 10, 11, 10, 11, 14, 15, 14, 15);
    const __m256i nib = _mm256_set1_epi16(0x0f);
    const uint8_t *qs = rec + BB_Q2_K_X16_QS + 32 * half;
    __m256i isum4 = _mm256_setzero_si256(), summs = _mm256_setzero_si256();
    for (int h = 0; h < 2; h++) {
        __m256i acc[4][2]; /* [plane][sub-block of the plane's 32 weights], int16 pair sums */
        for (int l = 0; l < 4; l++) acc[l][0] = acc[l][1] = _mm256_setzero_si256();
        for (int g = 0; g < 4; g++)
            for (int s = 0; s < 2; s++) {
                int q = 4 * s + g;
                /* the record's 21 lines (16 of codes, 4 of scales, d/dmin) are prefetched one or two
                 * per load of the first pass, not as one run of 42 at the record's start: such a run
                 * takes every miss buffer of the core at once and the loads behind it wait (measured:
                 * docs/measurements/2026-11-29-avx2.md) */
                if (half == 0) {
                    bb_prefetch_stream(qs + 64 * (8 * h + q));
                    if (h == 0 && q < 5)
                        bb_prefetch_stream(rec + (q < 4 ? BB_Q2_K_X16_SCALES + 64 * q : BB_Q2_K_X16_D));
                }
                __m256i v = _mm256_loadu_si256((const __m256i *)(qs + 64 * (8 * h + q))), v4 = _mm256_srli_epi16(v, 4);
                const int8_t *qa = ab->qs + 128 * h + 4 * q;
                acc[0][s] = _mm256_add_epi16(acc[0][s], _mm256_maddubs_epi16(_mm256_and_si256(v, m03), bcast4(qa)));
                acc[1][s] = _mm256_add_epi16(acc[1][s], _mm256_maddubs_epi16(_mm256_and_si256(v, m0c), bcast4(qa + 32)));
                acc[2][s] = _mm256_add_epi16(acc[2][s], _mm256_maddubs_epi16(_mm256_and_si256(v4, m03), bcast4(qa + 64)));
                acc[3][s] = _mm256_add_epi16(acc[3][s], _mm256_maddubs_epi16(_mm256_and_si256(v4, m0c), bcast4(qa + 96)));
            }
        for (int l = 0; l < 4; l++) {
            int p = 4 * h + l; /* sub-blocks 2p, 2p+1 */
            /* lane i: row i's scales[2p] in the low word, scales[2p+1] in the high word */
            __m256i w = _mm256_cvtepu8_epi16(
                _mm_loadu_si128((const __m128i *)(rec + BB_Q2_K_X16_SCALES + 32 * p + 16 * half)));
            __m256i sc = _mm256_and_si256(w, nib);
            if (l % 2 == 0) sc = _mm256_slli_epi16(sc, 2); /* planes 0 and 2 are at weight 1 */
            isum4 = _mm256_add_epi32(isum4, _mm256_madd_epi16(acc[l][0], _mm256_shuffle_epi8(sc, lo_word)));
            isum4 = _mm256_add_epi32(isum4, _mm256_madd_epi16(acc[l][1], _mm256_shuffle_epi8(sc, hi_word)));
            int32_t bs;
            memcpy(&bs, ab->bsums + 2 * p, 4);
            summs = _mm256_add_epi32(summs, _mm256_madd_epi16(_mm256_and_si256(_mm256_srli_epi16(w, 4), nib),
                                                              _mm256_set1_epi32(bs)));
        }
    }
    __m256i isum = _mm256_srai_epi32(isum4, 2);
    __m256 ad = _mm256_set1_ps(ab->d);
    __m256 dall = _mm256_mul_ps(ad, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(rec + BB_Q2_K_X16_D + 16 * half))));
    __m256 dmin = _mm256_mul_ps(ad, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(rec + BB_Q2_K_X16_DMIN + 16 * half))));
    __m256 p = _mm256_mul_ps(dall, _mm256_cvtepi32_ps(isum)), q = _mm256_mul_ps(dmin, _mm256_cvtepi32_ps(summs));
    return _mm256_sub_ps(p, q);
}

void bb_q2_k_x16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK_K;
    for (int r = m0; r < m1; r += BB_Q2_K_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_Q2_K_X16_ROWS) * nblk * BB_Q2_K_X16_RECORD;
        for (int c = 0; c < n; c++) {
            const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nblk;
            __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
            for (int b = 0; b < nblk; b++) {
                const uint8_t *rec = grp + (size_t)b * BB_Q2_K_X16_RECORD;
                s0 = _mm256_add_ps(s0, half_terms(rec, 0, &a[b]));
                s1 = _mm256_add_ps(s1, half_terms(rec, 1, &a[b]));
            }
            _mm256_storeu_ps(y + (size_t)c * m + r, s0);
            _mm256_storeu_ps(y + (size_t)c * m + r + 8, s1);
        }
    }
}
