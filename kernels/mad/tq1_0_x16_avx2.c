/* tq1_0_x16, AVX2: 8 rows per 256-bit register, the 16 rows of a record in two passes (the record
 * is in L1 for the second).  AVX2 has no 256-entry byte lookup, so trit n of every code byte b is
 * taken as tq1_0.h states it: b' = b * 3^n mod 256, built from the previous trit's b' by two byte
 * adds (3x = x + x + x), and c = [b' >= 86] + [b' >= 171] by two unsigned compares (max, equal),
 * whose all-ones bytes are -1: c = -(m1 + m2).  vpmaddubsw pairs the codes (<= 2) with their
 * broadcast activations in int16 (|.| <= 512); a run's 5 trit vectors are summed there (<= 2560)
 * and widened to int32 by one vpmaddwd with ones.  The block's sum of c * q less its sum of q is
 * isum_b; tq1_0's float steps follow lane-wise: the reference's bits. */
#include <immintrin.h>
#include <string.h>

#include "../common/prefetch.h"
#include "tq1_0_x16.h"

static inline __m256i bcast4(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/* First weight of trit n of run c (tq1_0_x16.h). */
static inline int run_value(int c, int n)
{
    return c < 8 ? 32 * n + 4 * c : (c < 12 ? 160 + 16 * n + 4 * (c - 8) : 240 + 4 * n);
}

/* [x >= t] per unsigned byte, as 0 or -1. */
static inline __m256i ge_epu8(__m256i x, __m256i t) { return _mm256_cmpeq_epi8(_mm256_max_epu8(x, t), x); }

/* The 8 rows' block terms (rows 8*half ..) of one record against one q8_K block. */
static inline __attribute__((always_inline)) __m256 half_terms(const uint8_t *rec, int half, const bb_block_q8_K *ab)
{
    const __m256i t86 = _mm256_set1_epi8((char)86), t171 = _mm256_set1_epi8((char)171);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
#pragma GCC unroll 13
    for (int r = 0; r < BB_TQ1_0_X16_RUNS; r++) {
        /* the record's 14 lines prefetched one per run of the first pass, spread as in
         * q2_k_x16_avx2.c, not as one run of 28 prefetches at the record's start */
        if (half == 0) {
            bb_prefetch_stream(rec + 64 * r);
            if (r == 0) bb_prefetch_stream(rec + BB_TQ1_0_X16_D);
        }
        __m256i b = _mm256_loadu_si256((const __m256i *)(rec + 64 * r + 32 * half));
        __m256i run = _mm256_setzero_si256();
#pragma GCC unroll 5
        for (int n = 0; n < 5; n++) {
            if (r == 12 && n == 4) break; /* qh bytes hold 4 trits */
            if (n > 0) b = _mm256_add_epi8(b, _mm256_add_epi8(b, b));
            __m256i c = _mm256_sub_epi8(_mm256_setzero_si256(), _mm256_add_epi8(ge_epu8(b, t86), ge_epu8(b, t171)));
            run = _mm256_add_epi16(run, _mm256_maddubs_epi16(c, bcast4(ab->qs + run_value(r, n))));
        }
        if (r % 2) acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(run, ones));
        else acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(run, ones));
    }
    int32_t sumq = 0;
    for (int s = 0; s < 16; s++) sumq += ab->bsums[s];
    __m256i isum = _mm256_sub_epi32(_mm256_add_epi32(acc0, acc1), _mm256_set1_epi32(sumq));
    __m256 d = _mm256_mul_ps(_mm256_set1_ps(ab->d),
                             _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(rec + BB_TQ1_0_X16_D + 16 * half))));
    return _mm256_mul_ps(_mm256_cvtepi32_ps(isum), d);
}

void bb_tq1_0_x16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK_K;
    for (int r = m0; r < m1; r += BB_TQ1_0_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_TQ1_0_X16_ROWS) * nblk * BB_TQ1_0_X16_RECORD;
        for (int c = 0; c < n; c++) {
            const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nblk;
            __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
            for (int b = 0; b < nblk; b++) {
                const uint8_t *rec = grp + (size_t)b * BB_TQ1_0_X16_RECORD;
                s0 = _mm256_add_ps(s0, half_terms(rec, 0, &a[b]));
                s1 = _mm256_add_ps(s1, half_terms(rec, 1, &a[b]));
            }
            _mm256_storeu_ps(y + (size_t)c * m + r, s0);
            _mm256_storeu_ps(y + (size_t)c * m + r + 8, s1);
        }
    }
}
