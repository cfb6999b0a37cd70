/* i2_s, AVX-512 VNNI.  64 code bytes (two 128-weight blocks) per load.  Each 2-bit plane is
 * isolated in place by one AND (v & 0xC0 = 64*c0, v & 0x30 = 16*c1, v & 0x0C = 4*c2, v & 0x03 = c3:
 * still unsigned bytes <= 128), so no shifts are needed; vpdpbusd multiplies it by the signed
 * activations into a separate int32 accumulator per plane (four independent chains instead of
 * one 4-deep chain), and the plane weights 64/16/4/1 are divided out exactly at the end
 * (each accumulator is a multiple of its weight).  Two rows share each activation vector.
 * Exactness: |acc0| <= 128*127*K/4 < 2^31 for K <= 2^18 (shape_error enforces it).
 * The activations of plane s of both blocks are joined with one 256-bit insert. */
#include <immintrin.h>

#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "i2_s.h"

static inline __m512i act_pair(const int8_t *qb, int s)
{
    __m512i lo = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(qb + 32 * s)));
    return _mm512_inserti64x4(lo, _mm256_loadu_si256((const __m256i *)(qb + BB_I2S_BLOCK + 32 * s)), 1);
}

/* Activations of the last (odd) block: plane s in the low half, zero above. */
static inline __m512i act_single(const int8_t *qb, int s)
{
    return _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)(qb + 32 * s)));
}

/* Every lane of acc[s] is a sum of products of (plane weight x code) with signed bytes, so each
 * lane is itself a multiple of the plane weight 64/16/4/1: the exact division is done lane-wise
 * by an arithmetic shift and one horizontal sum remains instead of four (at K = 1536 the four
 * reductions were about as much work as the dot product itself). */
static inline int32_t combine(const __m512i acc[4])
{
    __m512i t = _mm512_add_epi32(_mm512_srai_epi32(acc[0], 6), _mm512_srai_epi32(acc[1], 4));
    t = _mm512_add_epi32(t, _mm512_add_epi32(_mm512_srai_epi32(acc[2], 2), acc[3]));
    return _mm512_reduce_add_epi32(t);
}

static inline void planes(__m512i v, __m512i c[4])
{
    c[0] = _mm512_and_si512(v, _mm512_set1_epi8((char)0xC0));
    c[1] = _mm512_and_si512(v, _mm512_set1_epi8(0x30));
    c[2] = _mm512_and_si512(v, _mm512_set1_epi8(0x0C));
    c[3] = _mm512_and_si512(v, _mm512_set1_epi8(0x03));
}

/* Rows r0 and r1 (r1 may equal r0 when only one is left) against one activation row. */
static void dot_2rows(const uint8_t *w0, const uint8_t *w1, const int8_t *q, int k, int32_t out[2])
{
    __m512i a0[4], a1[4];
    for (int s = 0; s < 4; s++) a0[s] = a1[s] = _mm512_setzero_si512();
    int nblk = k / BB_I2S_BLOCK, b = 0;
    for (; b + 2 <= nblk; b += 2) {
        __m512i c0[4], c1[4];
        bb_prefetch_stream(w0 + 32 * b);
        bb_prefetch_stream(w1 + 32 * b);
        planes(_mm512_loadu_si512((const void *)(w0 + 32 * b)), c0);
        planes(_mm512_loadu_si512((const void *)(w1 + 32 * b)), c1);
        const int8_t *qb = q + b * BB_I2S_BLOCK;
        for (int s = 0; s < 4; s++) {
            __m512i a = act_pair(qb, s);
            a0[s] = _mm512_dpbusd_epi32(a0[s], c0[s], a);
            a1[s] = _mm512_dpbusd_epi32(a1[s], c1[s], a);
        }
    }
    if (b < nblk) {
        __m512i c0[4], c1[4];
        planes(_mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)(w0 + 32 * b))), c0);
        planes(_mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)(w1 + 32 * b))), c1);
        for (int s = 0; s < 4; s++) {
            __m512i a = act_single(q + b * BB_I2S_BLOCK, s);
            a0[s] = _mm512_dpbusd_epi32(a0[s], c0[s], a);
            a1[s] = _mm512_dpbusd_epi32(a1[s], c1[s], a);
        }
    }
    out[0] = combine(a0);
    out[1] = combine(a1);
}

void bb_i2_s_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    float ws = bb_i2_s_scale(w, m, k);
    size_t row_bytes = (size_t)k / 4;
    for (int r = m0; r < m1; r += 2) {
        int r1 = r + 1 < m1 ? r + 1 : r;
        const uint8_t *w0 = (const uint8_t *)w + (size_t)r * row_bytes, *w1 = (const uint8_t *)w + (size_t)r1 * row_bytes;
        /* The rows' weights stay in L1 across the activation rows of a GEMM. */
        for (int c = 0; c < n; c++) {
            const bb_i8_row_head *h = bb_i8_row(act, k, c);
            int32_t sum[2];
            dot_2rows(w0, w1, bb_i8_row_q(act, k, c), k, sum);
            y[(size_t)c * m + r] = bb_i8_dequant(sum[0] - h->qsum, h->scale, ws);
            if (r1 != r) y[(size_t)c * m + r1] = bb_i8_dequant(sum[1] - h->qsum, h->scale, ws);
        }
    }
}
