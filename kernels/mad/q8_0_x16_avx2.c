/* q8_0_x16, AVX2: 8 rows per 256-bit register, the 16 rows of a record as two registers side by
 * side.  llama.cpp's sign trick: vpmaddubsw of |w| (unsigned) and sign(a, w) pairs the weights
 * with their broadcast activations in int16 without saturating (|pair| <= 2 * 128 * 127 < 2^15),
 * and vpmaddwd with ones widens each run's pairs to the lane's int32 sum, isum_b exactly.  q8_0's
 * float steps follow lane-wise: the reference's bits. */
#include <immintrin.h>
#include <string.h>

#include "../common/prefetch.h"
#include "../cpu.h"
#include "q8_0_x16.h"

static inline __m256i bcast4(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/* s[h] += the terms of rows 8h .. 8h+7 of one record against activation block ab (scale da).
 * Both halves of a run in one pass, so that each broadcast of 4 activations (AVX2 has no
 * broadcast operand) serves 16 rows.  pf: software prefetch (bb_cpu_stream_prefetch). */
static inline __attribute__((always_inline)) void record_terms(const uint8_t *rec, const bb_block_q8_0 *ab, float da,
                                                               __m256 s[2], int pf)
{
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    if (pf) bb_prefetch_stream(rec + 64 * BB_Q8_0_X16_RUNS); /* the record's 9 lines: one per run, and its last */
    for (int r = 0; r < BB_Q8_0_X16_RUNS; r++) {
        const uint8_t *run = rec + BB_Q8_0_X16_Q + 64 * r;
        if (pf) bb_prefetch_stream(rec + 64 * r);
        __m256i q = bcast4(ab->qs + 4 * r);
        for (int h = 0; h < 2; h++) {
            __m256i w = _mm256_loadu_si256((const __m256i *)(run + 32 * h));
            __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(q, w));
            acc[h] = _mm256_add_epi32(acc[h], _mm256_madd_epi16(p, ones));
        }
    }
    for (int h = 0; h < 2; h++) {
        __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(rec + 16 * h)));
        __m256 t = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc[h]), dw), _mm256_set1_ps(da));
        s[h] = _mm256_add_ps(s[h], t);
    }
}

void bb_q8_0_x16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK, pf = bb_cpu_stream_prefetch();
    for (int r = m0; r < m1; r += BB_Q8_0_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_Q8_0_X16_ROWS) * nblk * BB_Q8_0_X16_RECORD;
        for (int c = 0; c < n; c++) {
            const bb_block_q8_0 *a = bb_qx_act_row(act, k, c);
            bb_qx_aux aux = bb_qx_aux_row(act, n, k, c);
            __m256 s[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
            for (int b = 0; b < nblk; b++) record_terms(grp + (size_t)b * BB_Q8_0_X16_RECORD, &a[b], aux.d[b], s, pf);
            _mm256_storeu_ps(y + (size_t)c * m + r, s[0]);
            _mm256_storeu_ps(y + (size_t)c * m + r + 8, s[1]);
        }
    }
}
