/* up_i2, 256-bit: the paper's Figure 1 microkernel (M = 32, N = 1, K = 4 per step).
 * avx2:    the four up-converted vectors go through vpmaddubsw (u x q -> int16 pairs, |.| <=
 *          2*6*128 = 1536), summed in int16 over up to 16 groups (<= 24576 < 2^15), then widened
 *          with vpmaddwd: exact.
 * avxvnni: the same up-convert followed by VEX vpdpbusd straight into int32 — the paper's exact
 *          instruction sequence (§III-C) with vpdpbusd (u8 x s8) for vpdpbssd (s8 x s8).
 * Dword d of accumulator i is row 8i + d of the 32-row block (no horizontal sums).  Two streams
 * per pass: two blocks against one activation row (GEMV) or one block against two activation
 * rows (GEMM). */
#include <immintrin.h>
#include <string.h>

#include "up_i2.h"

#define FLUSH 16 /* groups summed in int16 before widening (avx2) */

static inline __m256i bcast_act(const int8_t *q, int g)
{
    int32_t d;
    memcpy(&d, q + 4 * g, 4);
    return _mm256_set1_epi32(d);
}

/* 1 vpsrld + 2 vpand + 4 vpshufb: 128 codes -> four VNNI4 int8 vectors (rows 0-7, 8-15, 16-23,
 * 24-31), already offset to unsigned. */
static inline void upconvert(const uint8_t *p, __m256i lut01, __m256i lut23, __m256i wv[4])
{
    const __m256i m0f = _mm256_set1_epi8(0x0f);
    __m256i v = _mm256_loadu_si256((const __m256i *)p);
    __m256i lo = _mm256_and_si256(v, m0f), hi = _mm256_and_si256(_mm256_srli_epi32(v, 4), m0f);
    wv[0] = _mm256_shuffle_epi8(lut01, lo);
    wv[1] = _mm256_shuffle_epi8(lut23, lo);
    wv[2] = _mm256_shuffle_epi8(lut01, hi);
    wv[3] = _mm256_shuffle_epi8(lut23, hi);
}

static inline __m256i lut_of(const void *w, int i)
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)bb_up_head_of(w)->lut[i]));
}

static inline void store_acc(const __m256i acc[4], int32_t *out)
{
    for (int i = 0; i < 4; i++) _mm256_storeu_si256((__m256i *)(out + 8 * i), acc[i]);
}

/* Streams s = c * nblk + j; nb * nblk <= 2. */
static inline __attribute__((always_inline)) void block_avx2(const void *w, const uint8_t *blk, const int nblk, int k,
                                                             const int8_t *const *q, const int nb,
                                                             int32_t (*usum)[2 * BB_UP_MB])
{
    const __m256i ones = _mm256_set1_epi16(1), lut01 = lut_of(w, 0), lut23 = lut_of(w, 1);
    const size_t bstride = (size_t)k / 4 * BB_UP_I2_GROUP;
    __m256i acc[2][4], acc16[2][4];
    for (int s = 0; s < nb * nblk; s++)
        for (int i = 0; i < 4; i++) acc[s][i] = acc16[s][i] = _mm256_setzero_si256();
    int groups = k / 4;
    for (int g0 = 0; g0 < groups; g0 += FLUSH) {
        int g1 = g0 + FLUSH < groups ? g0 + FLUSH : groups;
        for (int g = g0; g < g1; g++)
            for (int j = 0; j < nblk; j++) {
                const uint8_t *p = blk + j * bstride + (size_t)g * BB_UP_I2_GROUP;
                if ((g & 1) == 0) bb_up_prefetch(p);
                __m256i wv[4];
                upconvert(p, lut01, lut23, wv);
                for (int c = 0; c < nb; c++) {
                    __m256i x = bcast_act(q[c], g);
                    for (int i = 0; i < 4; i++)
                        acc16[c * nblk + j][i] = _mm256_add_epi16(acc16[c * nblk + j][i], _mm256_maddubs_epi16(wv[i], x));
                }
            }
        for (int s = 0; s < nb * nblk; s++)
            for (int i = 0; i < 4; i++) {
                acc[s][i] = _mm256_add_epi32(acc[s][i], _mm256_madd_epi16(acc16[s][i], ones));
                acc16[s][i] = _mm256_setzero_si256();
            }
    }
    for (int c = 0; c < nb; c++)
        for (int j = 0; j < nblk; j++) store_acc(acc[c * nblk + j], usum[c] + BB_UP_MB * j);
}

static void blocks_avx2(const void *w, const uint8_t *blk, int nblk, int k, const int8_t *const *q, int nb,
                        int32_t (*usum)[2 * BB_UP_MB])
{
    if (nblk == 2) block_avx2(w, blk, 2, k, q, 1, usum);
    else if (nb == 2) block_avx2(w, blk, 1, k, q, 2, usum);
    else block_avx2(w, blk, 1, k, q, 1, usum);
}

void bb_up_i2_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_up_matmul_blocks(w, act, y, m, k, n, m0, m1, 2, 2, blocks_avx2);
}

#define VNNI __attribute__((target("avxvnni")))

static inline __attribute__((always_inline)) VNNI void block_vnni(const void *w, const uint8_t *blk, const int nblk,
                                                                  int k, const int8_t *const *q, const int nb,
                                                                  int32_t (*usum)[2 * BB_UP_MB])
{
    const __m256i lut01 = lut_of(w, 0), lut23 = lut_of(w, 1);
    const size_t bstride = (size_t)k / 4 * BB_UP_I2_GROUP;
    __m256i acc[2][4];
    for (int s = 0; s < nb * nblk; s++)
        for (int i = 0; i < 4; i++) acc[s][i] = _mm256_setzero_si256();
    for (int g = 0; g < k / 4; g++)
        for (int j = 0; j < nblk; j++) {
            const uint8_t *p = blk + j * bstride + (size_t)g * BB_UP_I2_GROUP;
            if ((g & 1) == 0) bb_up_prefetch(p);
            __m256i wv[4];
            upconvert(p, lut01, lut23, wv);
            for (int c = 0; c < nb; c++) {
                __m256i x = bcast_act(q[c], g);
                for (int i = 0; i < 4; i++)
                    acc[c * nblk + j][i] = _mm256_dpbusd_avx_epi32(acc[c * nblk + j][i], wv[i], x);
            }
        }
    for (int c = 0; c < nb; c++)
        for (int j = 0; j < nblk; j++) store_acc(acc[c * nblk + j], usum[c] + BB_UP_MB * j);
}

static VNNI void blocks_vnni(const void *w, const uint8_t *blk, int nblk, int k, const int8_t *const *q, int nb,
                             int32_t (*usum)[2 * BB_UP_MB])
{
    if (nblk == 2) block_vnni(w, blk, 2, k, q, 1, usum);
    else if (nb == 2) block_vnni(w, blk, 1, k, q, 2, usum);
    else block_vnni(w, blk, 1, k, q, 1, usum);
}

void bb_up_i2_matmul_avxvnni(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_up_matmul_blocks(w, act, y, m, k, n, m0, m1, 2, 2, blocks_vnni);
}
