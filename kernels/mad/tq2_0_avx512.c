/* tq2_0, AVX-512 VNNI, float lanes (the kernel sets float_accumulation; see tq2_0.h).
 *
 * Decoding with one mask: each 32-byte half of a block is broadcast to both 256-bit halves of a
 * zmm; v & [0x03 | 0x0c] holds the plane-0 codes in the low half and the plane-1 codes times 4 in
 * the high half, (v >> 4) & [0x03 | 0x0c] planes 2 and 3 the same way: unsigned bytes <= 12, lined
 * up with 64 consecutive activations, so vpdpbusd reads q straight from the q8_K block, and all
 * four planes share one accumulator whose high lanes are 4 times a partial sum (exact integers,
 * |.| < 2^17).  As in ggml's AVX paths, each block's lanes are converted to float and accumulated
 * with one FMA by d_b = a_b.d * w_b.d (even and odd blocks in separate accumulators, to halve the
 * FMA latency chain); the lane weights 1 and 1/4 (exact) are applied once per row, and the
 * offset sum_b d_b * (sum of block b's q) turns codes c into c - 1.  Six instructions of decoding
 * per block serve up to BB_GK_NB activation rows; each row then costs 4 vpdpbusd, 1 convert and
 * 1 FMA per block. */
#include <immintrin.h>

#include "../common/prefetch.h"
#include "ggml_k_avx512.h"
#include "tq2_0.h"

/* One block against nb activation rows: f[r] += (float)(sum of lane partials) * d[r][i]. */
static inline __attribute__((always_inline)) void tq2_0_block(const bb_block_tq2_0 *blk, const bb_gk_arow *a, int b,
                                                              float d[][BB_GK_CHUNK], int i, const int nb, __m512 *f)
{
    const __m512i m = _mm512_inserti64x4(_mm512_set1_epi8(0x03), _mm256_set1_epi8(0x0c), 1);
    bb_prefetch_stream(blk->qs);
    bb_prefetch_stream(blk->qs + sizeof *blk - 1); /* blocks are 66 bytes: both ends */
    __m512i lo = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)blk->qs));
    __m512i hi = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(blk->qs + 32)));
    __m512i c0 = _mm512_and_si512(lo, m), c1 = _mm512_and_si512(_mm512_srli_epi16(lo, 4), m);
    __m512i c2 = _mm512_and_si512(hi, m), c3 = _mm512_and_si512(_mm512_srli_epi16(hi, 4), m);
    for (int r = 0; r < nb; r++) {
        const int8_t *q = a[r].q[b].qs;
        __m512i u = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c0, _mm512_loadu_si512(q));
        __m512i v = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c2, _mm512_loadu_si512(q + 128));
        u = _mm512_dpbusd_epi32(u, c1, _mm512_loadu_si512(q + 64));
        v = _mm512_dpbusd_epi32(v, c3, _mm512_loadu_si512(q + 192));
        f[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(u, v)), _mm512_set1_ps(d[r][i]), f[r]);
    }
}

static inline __attribute__((always_inline)) void tq2_0_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                               int nblk, float *out)
{
    const bb_block_tq2_0 *x = (const bb_block_tq2_0 *)wrow;
    __m512 f0[BB_GK_NB], f1[BB_GK_NB], off[BB_GK_NB];
    for (int r = 0; r < nb; r++) f0[r] = f1[r] = off[r] = _mm512_setzero_ps();
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        __mmask16 k = bb_gk_mask16(nc);
        /* d is the high half of the dword at offset 62 (inside the block, even for the last) */
        __m512 wd = bb_gk_fp16_lanes(bb_gk_gather_dw((const uint8_t *)&x[b0] + 62, sizeof(bb_block_tq2_0), nc), 1);
        float d[BB_GK_NB][BB_GK_CHUNK];
        for (int r = 0; r < nb; r++) {
            __m512 dr = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, a[r].d + b0), wd);
            _mm512_storeu_ps(d[r], dr);
            off[r] = _mm512_fmadd_ps(dr, _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(k, a[r].qsum + b0)), off[r]);
        }
        for (int i = 0; i < nc; i += 2) { /* block pairs: even blocks into f0, odd into f1 */
            tq2_0_block(&x[b0 + i], a, b0 + i, d, i, nb, f0);
            if (i + 1 < nc) tq2_0_block(&x[b0 + i + 1], a, b0 + i + 1, d, i + 1, nb, f1);
        }
    }
    const __m512 w = _mm512_insertf32x8(_mm512_set1_ps(1.0f), _mm256_set1_ps(0.25f), 1);
    for (int r = 0; r < nb; r++)
        out[r] = _mm512_reduce_add_ps(_mm512_fmsub_ps(_mm512_add_ps(f0[r], f1[r]), w, off[r]));
}

static void tq2_0_row(const uint8_t *wrow, const bb_gk_arow *a, int nb, int nblk, float *out)
{
    switch (nb) {
    case 1: tq2_0_row_nb(wrow, a, 1, nblk, out); break;
    case 2: tq2_0_row_nb(wrow, a, 2, nblk, out); break;
    case 3: tq2_0_row_nb(wrow, a, 3, nblk, out); break;
    default: tq2_0_row_nb(wrow, a, 4, nblk, out); break;
    }
}

void bb_tq2_0_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_tq2_0_row_bytes(k), act, y, m, k, n, m0, m1, tq2_0_row);
}
