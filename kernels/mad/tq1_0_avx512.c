/* tq1_0, AVX-512 VNNI + VBMI.  Values 0..127 come from qs[0..31] broadcast to both halves of a
 * zmm and multiplied by [1 | 3] and [9 | 27] with byte adds (modulo 256).  For values 128..255 the
 * 52 code bytes are loaded once (masked, so the last block of a tensor is not over-read), one
 * vpermb per 64 values places the byte holding each value's trit in its lane, and one per-lane
 * multiply by 3^n (vpmullw on the even and on the odd bytes, blended: a byte multiply modulo 256)
 * brings the trit to the top of the byte.  The trit is then [b >= 86] + [b >= 171] (two
 * unsigned compares into masks, two masked moves), which equals (b * 3) >> 8 on every byte.  vpdpbusd multiplies the codes
 * 0..2 by q (exact int32); four blocks' partial sums are reduced together, the block sums of q
 * subtracted, and the per-block products folded in block order: the reference's bits
 * (ggml_k.h).  Decoded codes serve up to BB_GK_NB activation rows. */
#include <immintrin.h>

#include "ggml_k_avx512.h"
#include "tq1_0.h"

/* Source byte of each value (tq1_0.h), for values 128..191 and 192..255. */
static const uint8_t src_idx[2][64] = {
#define R32(a) a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6, a + 7, a + 8, a + 9, a + 10, a + 11, a + 12, a + 13, a + 14, a + 15, \
               a + 16, a + 17, a + 18, a + 19, a + 20, a + 21, a + 22, a + 23, a + 24, a + 25, a + 26, a + 27, a + 28,      \
               a + 29, a + 30, a + 31
#define R16(a) a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6, a + 7, a + 8, a + 9, a + 10, a + 11, a + 12, a + 13, a + 14, a + 15
    {R32(0), R16(32), R16(32)},
    {R16(32), R16(32), R16(32), 48, 49, 50, 51, 48, 49, 50, 51, 48, 49, 50, 51, 48, 49, 50, 51},
#undef R16
#undef R32
};

/* 3^trit of each value, per 16-bit lane (both bytes of a lane always share it), for values
 * 128..191 and 192..255. */
static const uint16_t pow3_lanes[2][32] = {
#define X8(a) a, a, a, a, a, a, a, a
    {X8(81), X8(81), X8(1), X8(3)},
    {X8(9), X8(27), X8(81), 1, 1, 3, 3, 9, 9, 27, 27},
#undef X8
};

static inline __attribute__((always_inline)) void tq1_0_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                               int nblk, float *out)
{
    const bb_block_tq1_0 *x = (const bb_block_tq1_0 *)wrow;
    const __m512i hi_bytes = _mm512_set1_epi16((short)0xff00);
    const __m512i one = _mm512_set1_epi8(1), two = _mm512_set1_epi8(2);
    const __m512i t86 = _mm512_set1_epi8(86), t171 = _mm512_set1_epi8((char)171);
    __m512i idx[2], mul[2];
    for (int v = 0; v < 2; v++) {
        idx[v] = _mm512_loadu_si512(src_idx[v]);
        mul[v] = _mm512_loadu_si512(pow3_lanes[v]);
    }
    float sumf[BB_GK_NB] = {0};
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        /* d is the high half of the dword at offset 50 */
        __m512 wd = bb_gk_fp16_lanes(bb_gk_gather_dw((const uint8_t *)&x[b0] + 50, sizeof(bb_block_tq1_0), nc), 1);
        __m128i part[BB_GK_NB][BB_GK_CHUNK / 4];
        for (int g = 0; g < BB_GK_CHUNK / 4; g++) {
            __m512i s[BB_GK_NB][4];
            for (int j = 0; j < 4; j++) {
                if (4 * g + j >= nc) {
                    for (int r = 0; r < nb; r++) s[r][j] = _mm512_setzero_si512();
                    continue;
                }
                const bb_block_tq1_0 *blk = &x[b0 + 4 * g + j];
                bb_prefetch_stream(blk);
                __m512i t[4];
                /* values 0..127: qs[0..31] broadcast, times [1 | 3] and [9 | 27] by byte adds */
                __m512i qs = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)blk->qs));
                t[0] = _mm512_mask_add_epi8(qs, (__mmask64)0xffffffff00000000ull, qs, _mm512_add_epi8(qs, qs));
                __m512i t3 = _mm512_add_epi8(t[0], _mm512_add_epi8(t[0], t[0]));
                t[1] = _mm512_add_epi8(t3, _mm512_add_epi8(t3, t3));
                /* values 128..255: vpermb of the 52 code bytes, byte multiply by 3^n */
                __m512i bytes = _mm512_maskz_loadu_epi8(0xfffffffffffffull, blk); /* qs, qh: 52 bytes */
                for (int v = 0; v < 2; v++) {
                    __m512i p = _mm512_permutexvar_epi8(idx[v], bytes);
                    __m512i ev = _mm512_mullo_epi16(p, mul[v]);                            /* even bytes right */
                    __m512i od = _mm512_mullo_epi16(_mm512_and_si512(p, hi_bytes), mul[v]); /* odd bytes right */
                    t[2 + v] = _mm512_mask_blend_epi8((__mmask64)0xaaaaaaaaaaaaaaaaull, ev, od);
                }
                __m512i c[4];
                for (int v = 0; v < 4; v++) {
                    c[v] = _mm512_maskz_mov_epi8(_mm512_cmpge_epu8_mask(t[v], t86), one);
                    c[v] = _mm512_mask_mov_epi8(c[v], _mm512_cmpge_epu8_mask(t[v], t171), two);
                }
                for (int r = 0; r < nb; r++) {
                    const int8_t *q = a[r].q[b0 + 4 * g + j].qs;
                    __m512i u = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c[0], _mm512_loadu_si512(q));
                    __m512i w = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c[2], _mm512_loadu_si512(q + 128));
                    u = _mm512_dpbusd_epi32(u, c[1], _mm512_loadu_si512(q + 64));
                    w = _mm512_dpbusd_epi32(w, c[3], _mm512_loadu_si512(q + 192));
                    s[r][j] = _mm512_add_epi32(u, w);
                }
            }
            for (int r = 0; r < nb; r++) part[r][g] = bb_gk_reduce4_avx512(s[r][0], s[r][1], s[r][2], s[r][3]);
            if (4 * g + 4 >= nc) {
                for (int g2 = g + 1; g2 < BB_GK_CHUNK / 4; g2++)
                    for (int r = 0; r < nb; r++) part[r][g2] = _mm_setzero_si128();
                break;
            }
        }
        for (int r = 0; r < nb; r++)
            sumf[r] = bb_gk_fold_tq_avx512(sumf[r], bb_gk_join4x4(part[r][0], part[r][1], part[r][2], part[r][3]), &a[r],
                                           b0, wd, nc);
    }
    for (int r = 0; r < nb; r++) out[r] = sumf[r];
}

BB_GK_ROW_BY_NB(tq1_0_row, tq1_0_row_nb)

void bb_tq1_0_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_tq1_0_row_bytes(k), act, y, m, k, n, m0, m1, tq1_0_row);
}
