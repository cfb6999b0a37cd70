/* up_i2, AVX-512 VNNI: the Figure 1 up-convert on 512-bit vectors.  One 64-byte load holds two
 * consecutive 32x4 groups (k = 4g..4g+7) of the same 32 rows; the same 1 shift + 2 AND +
 * 4 vpshufb (the tables are repeated in all four 128-bit lanes) give four zmm whose low half is
 * group g and high half group g+1 in VNNI4 order, and one vpermd spreads the two activation
 * dwords q[4g..4g+3], q[4g+4..4g+7] over the matching halves.  vpdpbusd (u8 weights x s8
 * activations, exact in int32) accumulates; at the end the two halves of each accumulator are
 * added, giving dword d = row 8j + d.  A GEMV streams two 32-row blocks at once (sharing the
 * activation vector); a GEMM shares each up-converted pair among four activation rows. */
#include <immintrin.h>
#include <string.h>

#include "up_i2.h"

static inline __m512i lut_of(const void *w, int i)
{
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)bb_up_head_of(w)->lut[i]));
}

/* Streams s = c * nblk + j (activation row c, block j); nb * nblk <= 4. */
static inline __attribute__((always_inline)) void block_512(const void *w, const uint8_t *blk, const int nblk, int k,
                                                            const int8_t *const *q, const int nb,
                                                            int32_t (*usum)[2 * BB_UP_MB])
{
    const __m512i lut01 = lut_of(w, 0), lut23 = lut_of(w, 1), m0f = _mm512_set1_epi8(0x0f);
    const __m512i pair = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    const size_t bstride = (size_t)k / 4 * BB_UP_I2_GROUP;
    __m512i acc[4][4];
    for (int s = 0; s < nb * nblk; s++)
        for (int i = 0; i < 4; i++) acc[s][i] = _mm512_setzero_si512();
    int groups = k / 4, g = 0;
    for (; g <= groups - 2; g += 2) {
        __m512i wv[2][4];
        for (int j = 0; j < nblk; j++) {
            const uint8_t *p = blk + j * bstride + (size_t)g * BB_UP_I2_GROUP;
            bb_up_prefetch(p);
            __m512i v = _mm512_loadu_si512((const void *)p);
            __m512i lo = _mm512_and_si512(v, m0f), hi = _mm512_and_si512(_mm512_srli_epi32(v, 4), m0f);
            wv[j][0] = _mm512_shuffle_epi8(lut01, lo);
            wv[j][1] = _mm512_shuffle_epi8(lut23, lo);
            wv[j][2] = _mm512_shuffle_epi8(lut01, hi);
            wv[j][3] = _mm512_shuffle_epi8(lut23, hi);
        }
        for (int c = 0; c < nb; c++) {
            __m512i x = _mm512_permutexvar_epi32(pair, _mm512_castsi128_si512(_mm_loadl_epi64((const __m128i *)(q[c] + 4 * g))));
            for (int j = 0; j < nblk; j++)
                for (int i = 0; i < 4; i++) acc[c * nblk + j][i] = _mm512_dpbusd_epi32(acc[c * nblk + j][i], wv[j][i], x);
        }
    }
    if (g < groups) { /* K = 4 mod 8: the last group alone, in the low half */
        for (int j = 0; j < nblk; j++) {
            __m512i v = _mm512_zextsi256_si512(
                _mm256_loadu_si256((const __m256i *)(blk + j * bstride + (size_t)g * BB_UP_I2_GROUP)));
            __m512i lo = _mm512_and_si512(v, m0f), hi = _mm512_and_si512(_mm512_srli_epi32(v, 4), m0f);
            __m512i wv[4] = {_mm512_shuffle_epi8(lut01, lo), _mm512_shuffle_epi8(lut23, lo),
                             _mm512_shuffle_epi8(lut01, hi), _mm512_shuffle_epi8(lut23, hi)};
            for (int c = 0; c < nb; c++) {
                int32_t d;
                memcpy(&d, q[c] + 4 * g, 4);
                __m512i x = _mm512_maskz_set1_epi32(0x00ff, d);
                for (int i = 0; i < 4; i++) acc[c * nblk + j][i] = _mm512_dpbusd_epi32(acc[c * nblk + j][i], wv[i], x);
            }
        }
    }
    for (int c = 0; c < nb; c++)
        for (int j = 0; j < nblk; j++)
            for (int i = 0; i < 4; i++) {
                __m512i a = acc[c * nblk + j][i];
                __m256i s = _mm256_add_epi32(_mm512_castsi512_si256(a), _mm512_extracti64x4_epi64(a, 1));
                _mm256_storeu_si256((__m256i *)(usum[c] + BB_UP_MB * j + 8 * i), s);
            }
}

static void blocks_512(const void *w, const uint8_t *blk, int nblk, int k, const int8_t *const *q, int nb,
                       int32_t (*usum)[2 * BB_UP_MB])
{
    if (nblk == 2) block_512(w, blk, 2, k, q, 1, usum);
    else if (nb == 4) block_512(w, blk, 1, k, q, 4, usum);
    else if (nb == 3) block_512(w, blk, 1, k, q, 3, usum);
    else if (nb == 2) block_512(w, blk, 1, k, q, 2, usum);
    else block_512(w, blk, 1, k, q, 1, usum);
}

void bb_up_i2_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_up_matmul_blocks(w, act, y, m, k, n, m0, m1, 2, 4, blocks_512);
}
