/* Helpers shared by the codebook family's SIMD files (include only from *_avx2.c / *_avx512.c:
 * needs AVX2 and F16C).  Integer horizontal sums are exact whatever their order. */
#ifndef BB_CB_SIMD_H
#define BB_CB_SIMD_H

#include <immintrin.h>
#include <stddef.h>
#include "../common/prefetch.h"
#include <stdint.h>
#include <string.h>

/* Up to this many activation columns share each decoded weight block (GEMM, N > 1). */
#define BB_CB_NB_MAX 4

/* fp16 -> fp32 with F16C: exact, the same value as bb_fp16_to_fp32 for every finite input. */
static inline float bb_cb_f16(uint16_t h) { return _cvtsh_ss(h); }

/* The fp16 values at base + i * stride for i < cnt <= 8 (zero beyond), as 8 floats.  Built in a
 * register when all 8 are there: going through memory (2-byte stores, one 16-byte load) stalls
 * on store forwarding and cost iq4_nl half its speed. */
static inline __m256 bb_cb_f16x8(const void *base, size_t stride, int cnt)
{
    const char *p = base;
    if (cnt == 8)
        return _mm256_cvtph_ps(_mm_setr_epi16(*(const int16_t *)p, *(const int16_t *)(p + stride),
                                              *(const int16_t *)(p + 2 * stride), *(const int16_t *)(p + 3 * stride),
                                              *(const int16_t *)(p + 4 * stride), *(const int16_t *)(p + 5 * stride),
                                              *(const int16_t *)(p + 6 * stride), *(const int16_t *)(p + 7 * stride)));
    int16_t h[8] = {0};
    for (int i = 0; i < cnt; i++) memcpy(&h[i], p + i * stride, 2);
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)h));
}

static inline int32_t bb_cb_hsum_epi32(__m256i v)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

static inline float bb_cb_hsum_ps(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* Four int32x8 vectors -> their four totals, in dwords 0..3 (hadd tree, then the 128-bit
 * halves added). */
static inline __m128i bb_cb_reduce4_epi32(__m256i v0, __m256i v1, __m256i v2, __m256i v3)
{
    __m256i t = _mm256_hadd_epi32(_mm256_hadd_epi32(v0, v1), _mm256_hadd_epi32(v2, v3));
    return _mm_add_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
}

#ifdef __AVX512F__
/* Four int32x16 vectors -> their four totals, in dwords 0..3. */
static inline __m128i bb_cb_reduce4_epi32_512(__m512i v0, __m512i v1, __m512i v2, __m512i v3)
{
    /* 256-bit halves added: [v0 | v1] and [v2 | v3] as 8 + 8 partial sums */
    __m512i a = _mm512_add_epi32(_mm512_shuffle_i64x2(v0, v1, 0x44), _mm512_shuffle_i64x2(v0, v1, 0xee));
    __m512i b = _mm512_add_epi32(_mm512_shuffle_i64x2(v2, v3, 0x44), _mm512_shuffle_i64x2(v2, v3, 0xee));
    /* 128-bit lanes [v0, v1, v2, v3], 4 partial sums each */
    __m512i c = _mm512_add_epi32(_mm512_shuffle_i64x2(a, b, 0x88), _mm512_shuffle_i64x2(a, b, 0xdd));
    __m256i d = _mm256_hadd_epi32(_mm512_castsi512_si256(c), _mm512_extracti64x4_epi64(c, 1));
    /* d = [v0 pair sums, v2 pair sums | v1 pair sums, v3 pair sums] */
    d = _mm256_hadd_epi32(d, d); /* [v0, v2, v0, v2 | v1, v3, v1, v3] */
    return _mm_unpacklo_epi32(_mm256_castsi256_si128(d), _mm256_extracti128_si256(d, 1));
}
#endif

#endif
