/* llama.cpp q8_K activation quantization with AVX-512, byte for byte the output of
 * bb_quant_q8_K (common/act_quant.c), which the tq1_0 / tq2_0 / q2_k AVX-512 variants use as
 * their prepare: the scalar version calls lrintf per value, about 4% of a 6912x2560 tq2_0 GEMV.
 * Same operations in the same order per value: amax over |x| (NaN never wins, as `a > amax`),
 * max = the first value with |x| = amax, iscale = -127 / max, q = round-half-even(iscale * x)
 * (vcvtps2dq in the default rounding mode, as lrintf), capped at 127 and truncated to int8 as
 * the C cast, bsums over the int8 values, d = 1 / iscale. */
#include <immintrin.h>
#include <string.h>

#include "q8_k_rows.h"

static void quant_block(const float *x, bb_block_q8_K *dst)
{
    const __m512 absmask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
    __m512 amaxv = _mm512_setzero_ps();
    for (int v = 0; v < 16; v++) /* max(|x|, acc): a NaN |x| leaves acc as it is */
        amaxv = _mm512_max_ps(_mm512_and_ps(_mm512_loadu_ps(x + 16 * v), absmask), amaxv);
    float amax = _mm512_reduce_max_ps(amaxv);
    if (amax == 0.0f) {
        memset(dst, 0, sizeof *dst);
        return;
    }
    float max = 0.0f;
    for (int v = 0; v < 16; v++) {
        __mmask16 m = _mm512_cmp_ps_mask(_mm512_and_ps(_mm512_loadu_ps(x + 16 * v), absmask), _mm512_set1_ps(amax), _CMP_EQ_OQ);
        if (m) {
            max = x[16 * v + __builtin_ctz(m)];
            break;
        }
    }
    float iscale = -127.0f / max;
    __m512 is = _mm512_set1_ps(iscale);
    __m512i qs[4];
    for (int v = 0; v < 16; v++) {
        __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(is, _mm512_loadu_ps(x + 16 * v)));
        __m128i b = _mm512_cvtepi32_epi8(_mm512_min_epi32(q, _mm512_set1_epi32(127)));
        _mm_storeu_si128((__m128i *)(dst->qs + 16 * v), b);
    }
    for (int v = 0; v < 4; v++) qs[v] = _mm512_loadu_si512(dst->qs + 64 * v);
    /* sums of 16: vpdpbusd with ones gives sums of 4, then the 4 dwords of each 128-bit lane */
    __m512i s[4];
    for (int v = 0; v < 4; v++) {
        __m512i t = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(1), qs[v]);
        t = _mm512_add_epi32(t, _mm512_shuffle_epi32(t, 0x4e));
        s[v] = _mm512_add_epi32(t, _mm512_shuffle_epi32(t, 0xb1));
    }
    /* dword 0 of each lane: [s0 lanes | s1 lanes] and [s2 | s3], then join */
    const __m512i pick = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
    __m512i s01 = _mm512_permutex2var_epi32(s[0], pick, s[1]), s23 = _mm512_permutex2var_epi32(s[2], pick, s[3]);
    __m512i all = _mm512_inserti64x4(s01, _mm512_castsi512_si256(s23), 1);
    _mm256_storeu_si256((__m256i *)dst->bsums, _mm512_cvtepi32_epi16(all));
    dst->d = 1.0f / iscale;
}

void bb_quant_q8_K_rows_avx512(const float *x, int n, int k, void *dst)
{
    bb_block_q8_K *out = dst;
    for (int r = 0; r < n; r++)
        for (int b = 0; b < k / BB_QK_K; b++) quant_block(x + (size_t)r * k + (size_t)b * BB_QK_K, out++);
}
