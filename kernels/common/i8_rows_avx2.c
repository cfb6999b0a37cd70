/* bb_quant_i8_rows with AVX2 (see i8_rows_simd.h): 32 elements per step, then 8, then the last
 * k % 8 with the scalar formula of act_quant.c. */
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "act_quant.h"
#include "i8_rows_simd.h"

static inline __m256i quant8(const float *x, __m256 vs)
{
    __m256 v = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x), vs), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(-127.0f)), _mm256_set1_ps(127.0f)));
}

void bb_quant_i8_rows_avx2(const float *x, int n, int k, void *dst)
{
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7), ones = _mm256_set1_epi16(1);
    int k8 = k & ~7, k32 = k & ~31;
    for (int r = 0; r < n; r++) {
        const float *xr = x + (size_t)r * k;
        char *row = (char *)dst + (size_t)r * bb_i8_row_stride(k);
        int8_t *q = (int8_t *)(row + BB_I8_ROW_HEAD);
        __m256 m = _mm256_setzero_ps();
        for (int i = 0; i < k8; i += 8) m = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(xr + i), absmask), m);
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
        float amax = _mm_cvtss_f32(m4);
        for (int i = k8; i < k; i++) amax = fmaxf(amax, fabsf(xr[i]));
        float s = amax > 0.0f ? 127.0f / amax : 0.0f;
        const __m256 vs = _mm256_set1_ps(s);
        __m256i sum = _mm256_setzero_si256();
        int i = 0;
        for (; i < k32; i += 32) {
            __m256i p01 = _mm256_packs_epi32(quant8(xr + i, vs), quant8(xr + i + 8, vs));
            __m256i p23 = _mm256_packs_epi32(quant8(xr + i + 16, vs), quant8(xr + i + 24, vs));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_add_epi16(p01, p23), ones));
            _mm256_storeu_si256((__m256i *)(q + i), _mm256_permutevar8x32_epi32(_mm256_packs_epi16(p01, p23), order));
        }
        for (; i < k8; i += 8) {
            __m256i qi = quant8(xr + i, vs);
            sum = _mm256_add_epi32(sum, qi);
            __m128i p = _mm_packs_epi32(_mm256_castsi256_si128(qi), _mm256_extracti128_si256(qi, 1));
            _mm_storel_epi64((__m128i *)(q + i), _mm_packs_epi16(p, p));
        }
        __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
        s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
        s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
        bb_i8_row_finish(xr, i, k, s, _mm_cvtsi128_si32(s4), row);
    }
}
