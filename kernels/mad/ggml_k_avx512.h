/* AVX-512 helpers shared by the tq1_0 / tq2_0 / q2_k AVX-512 variants (include only from
 * *_avx512.c). */
#ifndef BB_GGML_K_AVX512_H
#define BB_GGML_K_AVX512_H

#include <immintrin.h>
#include <stdint.h>

#include "ggml_k.h"

/* The totals of four blocks' 16-lane int32 partial sums, [S0, S1, S2, S3]: two 128-bit-lane
 * transposes (vshufi64x2) and adds, then the 4 lanes of each 128-bit lane, then one vpermd to
 * gather them: 15 instructions for 4 blocks instead of 9 per block.  Wrapping adds, exact for
 * the sums these kernels produce (all well below 2^31). */
static inline __m128i bb_gk_reduce4_avx512(__m512i s0, __m512i s1, __m512i s2, __m512i s3)
{
    __m512i t01 = _mm512_add_epi32(_mm512_shuffle_i64x2(s0, s1, 0x44), _mm512_shuffle_i64x2(s0, s1, 0xee));
    __m512i t23 = _mm512_add_epi32(_mm512_shuffle_i64x2(s2, s3, 0x44), _mm512_shuffle_i64x2(s2, s3, 0xee));
    __m512i w = _mm512_add_epi32(_mm512_shuffle_i64x2(t01, t23, 0x88), _mm512_shuffle_i64x2(t01, t23, 0xdd));
    w = _mm512_add_epi32(w, _mm512_shuffle_epi32(w, 0x4e));
    w = _mm512_add_epi32(w, _mm512_shuffle_epi32(w, 0xb1));
    return _mm512_castsi512_si128(_mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12), w));
}

static inline __m512i bb_gk_join4x4(__m128i a, __m128i b, __m128i c, __m128i d)
{
    __m512i v = _mm512_castsi128_si512(a);
    v = _mm512_inserti32x4(v, b, 1);
    v = _mm512_inserti32x4(v, c, 2);
    return _mm512_inserti32x4(v, d, 3);
}

static inline __mmask16 bb_gk_mask16(int nc) { return (__mmask16)((1u << nc) - 1u); }

/* The dwords at base + i*stride for i < nc (zero beyond): one gather for a chunk's block scales
 * instead of a scalar load and conversion per block. */
static inline __m512i bb_gk_gather_dw(const uint8_t *base, int stride, int nc)
{
    __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                     _mm512_set1_epi32(stride));
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), bb_gk_mask16(nc), idx, base, 1);
}

/* fp16 in the low (hi = 0) or high (hi = 1) half of each dword → float. */
static inline __m512 bb_gk_fp16_lanes(__m512i dw, int hi)
{
    if (hi) dw = _mm512_srli_epi32(dw, 16);
    return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(dw));
}

/* The ternary kernels' fold of one chunk: isum = sum c*q minus the block sums of q, then
 * p_b = (float)isum_b * (a_b.d * w_b.d) lane by lane, added to sumf in block order. */
static inline float bb_gk_fold_tq_avx512(float sumf, __m512i csum, const bb_gk_arow *a, int b0, __m512 wd, int nc)
{
    __mmask16 k = bb_gk_mask16(nc);
    __m512i isum = _mm512_sub_epi32(csum, _mm512_maskz_loadu_epi32(k, a->qsum + b0));
    __m512 d = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, a->d + b0), wd);
    float p[16];
    _mm512_storeu_ps(p, _mm512_mul_ps(_mm512_cvtepi32_ps(isum), d));
    return bb_gk_fold(sumf, p, nc);
}

#endif
