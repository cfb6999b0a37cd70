/* up_i1, AVX-512 VNNI.  AVX-512BW puts Figure 2's shuffle + AND + compare into the mask unit:
 * the 64 bits of two consecutive 8x4 tiles (rows 16h..16h+15 of a group) are loaded straight
 * into a mask register, whose bit i selects byte i — exactly the VNNI4 byte of that bit (up_i1.h)
 * — so vpblendmb gives the 64 weight bytes u = w + 1 in {0, 2}, and vpdpbusd (u8 x s8) multiplies
 * them with the broadcast activation dword: 2 ops per 512-bit output instead of 5 per 256-bit.
 * Accumulator dword d is row 16h + d.  Streams: two blocks against one activation row (GEMV) or
 * one block against up to four rows (GEMM); with fewer than four streams, P interleaved
 * accumulator sets (alternate groups) keep the vpdpbusd chains shorter than its latency. */
#include <immintrin.h>
#include <string.h>

#include "up_i1.h"

static inline __mmask64 tile_mask(const uint8_t *p)
{
    uint64_t bits;
    memcpy(&bits, p, 8);
    return _cvtu64_mask64(bits);
}

static inline __m512i bcast_dword(const int8_t *p)
{
    int32_t d;
    memcpy(&d, p, 4);
    return _mm512_set1_epi32(d);
}

/* One group g of stream (c, j) into accumulator set a[2]. */
static inline __attribute__((always_inline)) void group(const uint8_t *t, const int8_t *qc, int g, __m512i a[2])
{
    const __m512i two = _mm512_set1_epi8(2), zero = _mm512_setzero_si512();
    __m512i x = bcast_dword(qc + 4 * g);
    a[0] = _mm512_dpbusd_epi32(a[0], _mm512_mask_blend_epi8(tile_mask(t), two, zero), x);
    a[1] = _mm512_dpbusd_epi32(a[1], _mm512_mask_blend_epi8(tile_mask(t + 8), two, zero), x);
}

/* Streams s = c * nblk + j; nb * nblk <= 4; accumulator set (s, p) = acc[s * P + p]. */
static inline __attribute__((always_inline)) void block_512(const uint8_t *blk, const int nblk, int k,
                                                            const int8_t *const *q, const int nb,
                                                            int32_t (*usum)[2 * BB_UP_MB])
{
    const int S = nb * nblk, P = 4 / S;
    const size_t bstride = (size_t)k / 4 * BB_UP_I1_GROUP;
    __m512i acc[4][2];
    for (int s = 0; s < 4; s++) acc[s][0] = acc[s][1] = _mm512_setzero_si512();
    int groups = k / 4, g = 0;
    /* four groups = one 64-byte line of each stream per iteration: one prefetch each, no branch */
    for (; g <= groups - 4; g += 4) {
        for (int j = 0; j < nblk; j++) bb_up_prefetch(blk + j * bstride + (size_t)g * BB_UP_I1_GROUP);
        for (int u = 0; u < 4; u++)
            for (int j = 0; j < nblk; j++)
                for (int c = 0; c < nb; c++)
                    group(blk + j * bstride + (size_t)(g + u) * BB_UP_I1_GROUP, q[c], g + u,
                          acc[(c * nblk + j) * P + u % P]);
    }
    for (; g < groups; g++)
        for (int j = 0; j < nblk; j++)
            for (int c = 0; c < nb; c++) group(blk + j * bstride + (size_t)g * BB_UP_I1_GROUP, q[c], g, acc[(c * nblk + j) * P]);
    for (int s = 0; s < S; s++)
        for (int h = 0; h < 2; h++) {
            __m512i sum = acc[s * P][h];
            for (int p = 1; p < P; p++) sum = _mm512_add_epi32(sum, acc[s * P + p][h]);
            _mm512_storeu_si512((void *)(usum[s / nblk] + BB_UP_MB * (s % nblk) + 16 * h), sum);
        }
}

static void blocks_512(const void *w, const uint8_t *blk, int nblk, int k, const int8_t *const *q, int nb,
                       int32_t (*usum)[2 * BB_UP_MB])
{
    (void)w;
    if (nblk == 2) block_512(blk, 2, k, q, 1, usum);
    else if (nb == 4) block_512(blk, 1, k, q, 4, usum);
    else if (nb == 3) block_512(blk, 1, k, q, 3, usum);
    else if (nb == 2) block_512(blk, 1, k, q, 2, usum);
    else block_512(blk, 1, k, q, 1, usum);
}

void bb_up_i1_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_up_matmul_blocks(w, act, y, m, k, n, m0, m1, 1, 4, blocks_512);
}
