/* tq2_0_x16, AVX2: 8 rows per 256-bit register, the 16 rows of a record as two registers side
 * by side.  Plane l of a run is (v >> 2l) & 3, the codes themselves (<= 3), so
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

/* The sum of a q8_K block's activations, in every lane: its 16 bsums widened by vpmaddwd and
 * added across the register. */
static inline __m256i block_qsum(const bb_block_q8_K *ab)
{
    __m256i s = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)ab->bsums), _mm256_set1_epi16(1));
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
    return _mm256_broadcastd_epi32(x);
}

/* s[h] += the block terms of rows 8h .. 8h+7 of one record against one q8_K block.  Both halves
 * of a run in one pass, so that each broadcast of 4 activations (AVX2 has no broadcast operand)
 * serves 16 rows. */
static inline __attribute__((always_inline)) void record_terms(const uint8_t *rec, const bb_block_q8_K *ab, __m256 s[2])
{
    const __m256i three = _mm256_set1_epi8(3), ones = _mm256_set1_epi16(1);
    __m256i acc[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    for (int j = 0; j < 2; j++) { /* runs 8j .. 8j+7: weights 128j .. 128j+127 */
        __m256i sum16[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
        /* A loop, not unrolled: GCC 12 scheduled the unrolled runs' products ahead of their
         * sums and spilled a third of them to the stack. */
        for (int i = 0; i < 8; i++) {
            const uint8_t *run = rec + 64 * (8 * j + i);
            const int8_t *qa = ab->qs + 128 * j + 4 * i; /* plane l at qa + 32 l (tq2_0_x16.h) */
            /* the record's 17 lines prefetched one per run (tq1_0_x16_avx2.c) */
            bb_prefetch_stream(run);
            __m256i v[2] = {_mm256_loadu_si256((const __m256i *)run), _mm256_loadu_si256((const __m256i *)(run + 32))};
#pragma GCC unroll 4
            for (int l = 0; l < 4; l++) {
                __m256i q = bcast4(qa + 32 * l);
                for (int h = 0; h < 2; h++) {
                    __m256i c = _mm256_and_si256(v[h], three);
                    sum16[h] = _mm256_add_epi16(sum16[h], _mm256_maddubs_epi16(c, q));
                    if (l < 3) v[h] = _mm256_srli_epi16(v[h], 2); /* the next plane to the bottom */
                }
            }
        }
        for (int h = 0; h < 2; h++) acc[h] = _mm256_add_epi32(acc[h], _mm256_madd_epi16(sum16[h], ones));
    }
    bb_prefetch_stream(rec + BB_TQ2_0_X16_D);
    __m256i sumq = block_qsum(ab);
    for (int h = 0; h < 2; h++) {
        __m256i isum = _mm256_sub_epi32(acc[h], sumq);
        __m256 d = _mm256_mul_ps(_mm256_set1_ps(ab->d),
                                 _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(rec + BB_TQ2_0_X16_D + 16 * h))));
        s[h] = _mm256_add_ps(s[h], _mm256_mul_ps(_mm256_cvtepi32_ps(isum), d));
    }
}

void bb_tq2_0_x16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK_K;
    for (int r = m0; r < m1; r += BB_TQ2_0_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_TQ2_0_X16_ROWS) * nblk * BB_TQ2_0_X16_RECORD;
        for (int c = 0; c < n; c++) {
            const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nblk;
            __m256 s[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
            for (int b = 0; b < nblk; b++) record_terms(grp + (size_t)b * BB_TQ2_0_X16_RECORD, &a[b], s);
            _mm256_storeu_ps(y + (size_t)c * m + r, s[0]);
            _mm256_storeu_ps(y + (size_t)c * m + r + 8, s[1]);
        }
    }
}
