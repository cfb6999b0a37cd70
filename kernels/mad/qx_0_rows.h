/* The row tile shared by the x86 SIMD variants of the row-major block kernels q8_0 and q4_0
 * (qx_0_avx2.c, qx_0_avx512.c), under the ISA-neutral outer loop of qx_0_driver.h.  The including
 * file defines
 *     QX_ISA                      suffix of the exported functions (avx2, avx512)
 *     block_step(blk, fmt, b, a, aux, nb, sc, j, acc)
 *                                 adds block b of one weight row times block b of nb activation
 *                                 rows into the 8-lane float accumulators acc[0..nb): exact int32
 *                                 lane partials (4 weights each), converted, FMA with the scale
 *                                 d_w * d_a held in sc[c][j]
 * and gets bb_q8_0_matmul_<QX_ISA> and bb_q4_0_matmul_<QX_ISA> (qx_0_driver.h).
 * Up to NB_MAX activation rows share each decoded weight block (N > 1); two accumulators per
 * activation row (even and odd blocks) keep two FMA chains in flight; the weight stream is
 * prefetched BB_PREFETCH_BYTES ahead (common/prefetch.h). */
#ifndef BB_QX_0_ROWS_H
#define BB_QX_0_ROWS_H

#include <immintrin.h>
#include <string.h>

#include "qx_0_driver.h"

/* q4_0: the block's 32 nibbles as unsigned bytes in the order of the activation block: the 16
 * bytes broadcast to both halves (a load, no shuffle), the upper half shifted right by 4. */
BB_QX_INLINE __m256i nibbles_u8(const uint8_t *blk)
{
    __m256i q = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(blk + 2)));
    return _mm256_and_si256(_mm256_srlv_epi32(q, _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4)), _mm256_set1_epi8(15));
}

BB_QX_INLINE void block_step(const uint8_t *blk, int fmt, int b, const bb_block_q8_0 *const *a,
                              const bb_qx_aux *aux, int nb, const float (*sc)[4], int j, __m256 *acc);
/* The fp16 d of the 4 blocks from blk on, as 4 floats (one vcvtph2ps; gathering the 4 halves
 * with a 512-bit vpermw instead measured slower). */
BB_QX_INLINE __m128 quad_d(const uint8_t *blk, int fmt)
{
    size_t bb = block_bytes(fmt);
    int16_t h[4];
    for (int j = 0; j < 4; j++) memcpy(&h[j], blk + j * bb, 2);
    return _mm_cvtph_ps(_mm_setr_epi16(h[0], h[1], h[2], h[3], 0, 0, 0, 0));
}

/* The scales d_w * d_a of blocks b .. b+3 of one weight row for nb activation rows, into memory:
 * the fp16 d of 4 blocks are converted with one vcvtph2ps and multiplied with one vmulps per
 * activation row, and block_step broadcasts each from memory (a load, no shuffle). */
BB_QX_INLINE void quad_scales(const uint8_t *blk, int fmt, int b, const bb_qx_aux *aux, int nb, float (*sc)[4])
{
    __m128 dw = quad_d(blk, fmt);
    for (int c = 0; c < nb; c++) _mm_storeu_ps(sc[c], _mm_mul_ps(dw, _mm_loadu_ps(aux[c].d + b)));
}

/* The same for one block (the last K/32 mod 4 of a row), into sc[c][0]. */
BB_QX_INLINE void one_scale(const uint8_t *blk, int b, const bb_qx_aux *aux, int nb, float (*sc)[4])
{
    uint16_t h;
    memcpy(&h, blk, 2);
    float dw = _cvtsh_ss(h);
    for (int c = 0; c < nb; c++) sc[c][0] = dw * aux[c].d[b];
}

static inline float hsum_ps(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

BB_QX_INLINE void rows_tile(const uint8_t *w, int fmt, const void *act, float *y, int m, int k, int n, int m0,
                             int m1, int c0, int nb)
{
    int nblk = k / BB_QK;
    const bb_block_q8_0 *a[NB_MAX];
    bb_qx_aux aux[NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
    }
    size_t bbytes = block_bytes(fmt);
    for (int r = m0; r < m1; r++) {
        const uint8_t *row = w + (size_t)r * nblk * bbytes;
        __m256 even[NB_MAX], odd[NB_MAX];
        for (int c = 0; c < nb; c++) even[c] = odd[c] = _mm256_setzero_ps();
        float sc[NB_MAX][4];
        int b = 0;
        for (; b + 4 <= nblk; b += 4) {
            const uint8_t *blk = row + b * bbytes;
            /* one prefetch per line that starts in these four blocks */
            for (size_t o = (size_t)(-(uintptr_t)blk & 63); o < 4 * bbytes; o += 64) bb_prefetch_stream(blk + o);
            quad_scales(blk, fmt, b, aux, nb, sc);
            block_step(blk, fmt, b, a, aux, nb, sc, 0, even);
            block_step(blk + bbytes, fmt, b + 1, a, aux, nb, sc, 1, odd);
            block_step(blk + 2 * bbytes, fmt, b + 2, a, aux, nb, sc, 2, even);
            block_step(blk + 3 * bbytes, fmt, b + 3, a, aux, nb, sc, 3, odd);
        }
        for (; b < nblk; b++) {
            one_scale(row + b * bbytes, b, aux, nb, sc);
            if (b & 1) /* two calls, not a pointer choice: the accumulators stay in registers */
                block_step(row + b * bbytes, fmt, b, a, aux, nb, sc, 0, odd);
            else
                block_step(row + b * bbytes, fmt, b, a, aux, nb, sc, 0, even);
        }
        for (int c = 0; c < nb; c++) y[(size_t)(c0 + c) * m + r] = hsum_ps(_mm256_add_ps(even[c], odd[c]));
    }
}

#endif
