/* bb_quant_i8_rows with AVX-512 (see i8_rows_simd.h). */
#include <immintrin.h>
#include <string.h>

#include "act_quant.h"
#include "i8_rows_simd.h"

void bb_quant_i8_rows_avx512(const float *x, int n, int k, void *dst)
{
    const __m512 absmask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
    const __m512 lo = _mm512_set1_ps(-127.0f), hi = _mm512_set1_ps(127.0f);
    for (int r = 0; r < n; r++) {
        const float *xr = x + (size_t)r * k;
        char *row = (char *)dst + (size_t)r * bb_i8_row_stride(k);
        int8_t *q = (int8_t *)(row + BB_I8_ROW_HEAD);
        __m512 m = _mm512_setzero_ps();
        for (int i = 0; i < k; i += 16) {
            __mmask16 lanes = k - i >= 16 ? 0xffff : (__mmask16)((1u << (k - i)) - 1);
            m = _mm512_max_ps(_mm512_and_ps(_mm512_maskz_loadu_ps(lanes, xr + i), absmask), m);
        }
        float amax = _mm512_reduce_max_ps(m);
        float s = amax > 0.0f ? 127.0f / amax : 0.0f;
        const __m512 vs = _mm512_set1_ps(s);
        __m512i sum = _mm512_setzero_si512();
        for (int i = 0; i < k; i += 16) {
            __mmask16 lanes = k - i >= 16 ? 0xffff : (__mmask16)((1u << (k - i)) - 1);
            __m512 v = _mm512_roundscale_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(lanes, xr + i), vs),
                                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            __m512i qi = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v, lo), hi));
            sum = _mm512_add_epi32(sum, qi);
            _mm512_mask_cvtepi32_storeu_epi8(q + i, lanes, qi);
        }
        bb_i8_row_finish(xr, k, k, s, _mm512_reduce_add_epi32(sum), row);
    }
}
