/* up_i1, AVX-512 VNNI.  AVX-512BW puts Figure 2's shuffle + AND + compare into the mask unit:
 * the 64 bits of two consecutive 8x4 tiles (rows 16h..16h+15 of a group) are loaded straight
 * into a mask register, whose bit i selects byte i — exactly the VNNI4 byte of that bit (up_i1.h)
 * — so vpblendmb gives the 64 weight bytes u = w + 1 in {0, 2}, and vpdpbusd (u8 x s8) multiplies
 * them with the broadcast activation dword: 2 ops per 512-bit output instead of 5 per 256-bit.
 * Accumulator dword d is row 16h + d.  For a GEMV, P = 4 interleaved accumulator sets keep the
 * vpdpbusd dependency chains shorter than its latency; for a GEMM the activation rows do that. */
#include <immintrin.h>
#include <string.h>

#include "../common/prefetch.h"
#include "up_i1.h"

#define NB 4

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

static inline __attribute__((always_inline)) void block_512(const uint8_t *blk, int k, const int8_t *const *q,
                                                            const int nb, int32_t (*usum)[BB_UP_MB])
{
    const int P = nb == 1 ? 4 : (nb == 2 ? 2 : 1); /* accumulator sets */
    const __m512i two = _mm512_set1_epi8(2), zero = _mm512_setzero_si512();
    __m512i acc[4][2]; /* [c * P + p][h] */
    for (int s = 0; s < 4; s++) acc[s][0] = acc[s][1] = zero;
    int groups = k / 4, g = 0;
    for (; g <= groups - P; g += P)
        for (int p = 0; p < P; p++) {
            const uint8_t *t = blk + (size_t)(g + p) * BB_UP_I1_GROUP;
            if (((g + p) & 3) == 0) bb_prefetch_stream(t);
            __m512i u0 = _mm512_mask_blend_epi8(tile_mask(t), two, zero);
            __m512i u1 = _mm512_mask_blend_epi8(tile_mask(t + 8), two, zero);
            for (int c = 0; c < nb; c++) {
                __m512i x = bcast_dword(q[c] + 4 * (g + p));
                acc[c * P + p][0] = _mm512_dpbusd_epi32(acc[c * P + p][0], u0, x);
                acc[c * P + p][1] = _mm512_dpbusd_epi32(acc[c * P + p][1], u1, x);
            }
        }
    for (; g < groups; g++) {
        const uint8_t *t = blk + (size_t)g * BB_UP_I1_GROUP;
        __m512i u0 = _mm512_mask_blend_epi8(tile_mask(t), two, zero);
        __m512i u1 = _mm512_mask_blend_epi8(tile_mask(t + 8), two, zero);
        for (int c = 0; c < nb; c++) {
            __m512i x = bcast_dword(q[c] + 4 * g);
            acc[c * P][0] = _mm512_dpbusd_epi32(acc[c * P][0], u0, x);
            acc[c * P][1] = _mm512_dpbusd_epi32(acc[c * P][1], u1, x);
        }
    }
    for (int c = 0; c < nb; c++)
        for (int h = 0; h < 2; h++) {
            __m512i s = acc[c * P][h];
            for (int p = 1; p < P; p++) s = _mm512_add_epi32(s, acc[c * P + p][h]);
            _mm512_storeu_si512((void *)(usum[c] + 16 * h), s);
        }
}

static void blocks_512(const void *w, const uint8_t *blk, int k, const int8_t *const *q, int nb,
                       int32_t (*usum)[BB_UP_MB])
{
    (void)w;
    switch (nb) {
    case 4: block_512(blk, k, q, 4, usum); break;
    case 3: block_512(blk, k, q, 3, usum); break;
    case 2: block_512(blk, k, q, 2, usum); break;
    default: block_512(blk, k, q, 1, usum); break;
    }
}

void bb_up_i1_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_up_matmul_blocks(w, act, y, m, k, n, m0, m1, 1, NB, blocks_512);
}
