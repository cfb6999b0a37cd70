/* bb_quant_i8_rows with AVX-512 (see i8_rows_simd.h). */
#include <immintrin.h>
#include <string.h>

#include "act_quant.h"
#include "i8_rows_simd.h"
#include "pack_i8_avx512.h"

/* One code vector: x * s clamped to +-127 (a NaN to -127, as max takes its second operand) and
 * rounded half to even by the conversion's embedded rounding, whatever MXCSR holds.  Clamping
 * before rounding gives the reference's clamp after it: both send (127, inf) to 127. */
static inline __m512i codes(__m512 x, __m512 vs)
{
    const __m512 lo = _mm512_set1_ps(-127.0f), hi = _mm512_set1_ps(127.0f);
    return _mm512_cvt_roundps_epi32(_mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(x, vs), lo), hi),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* 64 codes a step, packed in order (pack_i8_avx512.h) for one store; their sum is one vpdpbusd
 * with ones.  The last K % 64, 16 at a time. */
void bb_quant_i8_rows_avx512(const float *x, int n, int k, void *dst)
{
    const __m512 absmask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
    const __m512i ones = _mm512_set1_epi8(1);
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
        int i = 0;
        for (; i + 64 <= k; i += 64) {
            __m512i c0 = codes(_mm512_loadu_ps(xr + i), vs), c1 = codes(_mm512_loadu_ps(xr + i + 16), vs);
            __m512i c2 = codes(_mm512_loadu_ps(xr + i + 32), vs), c3 = codes(_mm512_loadu_ps(xr + i + 48), vs);
            __m512i b = bb_pack_i8x64(c0, c1, c2, c3);
            sum = _mm512_dpbusd_epi32(sum, ones, b);
            _mm512_storeu_si512(q + i, b);
        }
        for (; i < k; i += 16) {
            __mmask16 lanes = k - i >= 16 ? 0xffff : (__mmask16)((1u << (k - i)) - 1);
            __m512i qi = codes(_mm512_maskz_loadu_ps(lanes, xr + i), vs);
            sum = _mm512_add_epi32(sum, _mm512_maskz_mov_epi32(lanes, qi));
            _mm512_mask_cvtepi32_storeu_epi8(q + i, lanes, qi);
        }
        bb_i8_row_finish(xr, k, k, s, _mm512_reduce_add_epi32(sum), row);
    }
}
