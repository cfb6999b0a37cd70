/* tq2_0, AVX-512 VNNI, float lanes (the kernel sets float_accumulation; see tq2_0.h).
 *
 * Decoding by masks only: each 32-byte half of a block is broadcast to both 256-bit halves of a
 * zmm; v & [0x03 | 0x0c] holds the plane-0 codes in the low half and the plane-1 codes times 4
 * in the high half, v & [0x30 | 0xc0] planes 2 and 3 times 16 and 64: unsigned bytes <= 192,
 * lined up with 64 consecutive activations, so vpdpbusd reads q straight from the q8_K block
 * (no shifts: they would compete with vpdpbusd for port 0).  Per block two accumulators (planes
 * 0/1 of both halves, planes 2/3) hold exact integers (|lane| < 2^18) that are 1, 4, 16 or 64
 * times partial sums.  As in ggml's AVX paths, each is converted to float and accumulated with
 * one FMA by d_b = a_b.d * w_b.d; the exact lane weights 1, 1/4, 1/16, 1/64 are applied once per
 * row, and the offset sum_b d_b * (sum of block b's q) turns codes c into c - 1.
 *
 * GEMV takes weight rows two at a time (one gather of block scales, one horizontal sum for both).
 * GEMM decodes a block once for up to BB_GK_NB activation rows, with two shifts so that all four
 * planes come out as [c | 4c] and each row needs one accumulator: there the shifts are shared and
 * the per-row work is what counts.  (The two paths round differently; each gives a row the same
 * bits whatever its partner row, so any split of M gives the same result.) */
#include <immintrin.h>

#include "ggml_k_avx512.h"
#include "tq2_0.h"

/* The four plane vectors of a block, lined up with q[0..63], q[64..127], q[128..191],
 * q[192..255]. */
static inline __attribute__((always_inline)) void decode(const bb_block_tq2_0 *blk, __m512i c[4])
{
    const __m512i m01 = _mm512_inserti64x4(_mm512_set1_epi8(0x03), _mm256_set1_epi8(0x0c), 1);
    const __m512i m23 = _mm512_inserti64x4(_mm512_set1_epi8(0x30), _mm256_set1_epi8((char)0xc0), 1);
    /* One prefetch per 66-byte block (its start) reaches 32 of every 33 lines; the hardware
     * streamer has the 33rd, and from DRAM on 2 threads this streamed better than prefetching
     * both ends of every block (`gemm --cache dram --read`, figures in README.md). */
    bb_prefetch_stream(blk->qs);
    __m512i lo = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)blk->qs));
    __m512i hi = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(blk->qs + 32)));
    c[0] = _mm512_and_si512(lo, m01);
    c[1] = _mm512_and_si512(lo, m23);
    c[2] = _mm512_and_si512(hi, m01);
    c[3] = _mm512_and_si512(hi, m23);
}

/* fu += (float)(lanes of planes 0/1) * d, fv += (float)(lanes of planes 2/3) * d. */
static inline __attribute__((always_inline)) void accumulate(const __m512i c[4], const int8_t *q, float d, __m512 *fu,
                                                             __m512 *fv)
{
    __m512i u = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c[0], _mm512_loadu_si512(q));
    __m512i v = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c[1], _mm512_loadu_si512(q + 64));
    u = _mm512_dpbusd_epi32(u, c[2], _mm512_loadu_si512(q + 128));
    v = _mm512_dpbusd_epi32(v, c[3], _mm512_loadu_si512(q + 192));
    __m512 db = _mm512_set1_ps(d);
    *fu = _mm512_fmadd_ps(_mm512_cvtepi32_ps(u), db, *fu);
    *fv = _mm512_fmadd_ps(_mm512_cvtepi32_ps(v), db, *fv);
}

/* Two rows' results: the lanes weighted back (1, 1/4 | 1/16, 1/64), minus the offset, added
 * up; a row's sum does not depend on the other row's lanes. */
static inline void finish2(__m512 fu0, __m512 fv0, __m512 off0, __m512 fu1, __m512 fv1, __m512 off1, float *out)
{
    const __m512 wu = _mm512_insertf32x8(_mm512_set1_ps(1.0f), _mm256_set1_ps(0.25f), 1);
    const __m512 wv = _mm512_insertf32x8(_mm512_set1_ps(0.0625f), _mm256_set1_ps(0.015625f), 1);
    __m512 g0 = _mm512_sub_ps(_mm512_fmadd_ps(fu0, wu, _mm512_mul_ps(fv0, wv)), off0);
    __m512 g1 = _mm512_sub_ps(_mm512_fmadd_ps(fu1, wu, _mm512_mul_ps(fv1, wv)), off1);
    __m512 t = _mm512_add_ps(_mm512_shuffle_f32x4(g0, g1, 0x44), _mm512_shuffle_f32x4(g0, g1, 0xee));
    t = _mm512_add_ps(t, _mm512_shuffle_f32x4(t, t, 0xb1)); /* 128-bit lanes: g0, g0, g1, g1 */
    t = _mm512_add_ps(t, _mm512_permute_ps(t, 0x4e));
    t = _mm512_add_ps(t, _mm512_permute_ps(t, 0xb1));
    out[0] = _mm512_cvtss_f32(t);
    out[1] = _mm512_cvtss_f32(_mm512_shuffle_f32x4(t, t, 0x02));
}

/* d_b = a.d * w.d for a chunk of blocks into d[], and the chunk's sum of d_b * (sum of q) into
 * *off. */
static inline void chunk_scales(const bb_block_tq2_0 *x, const bb_gk_arow *a, int b0, int nc, float *d, __m512 *off)
{
    __mmask16 k = bb_gk_mask16(nc);
    /* d is the high half of the dword at offset 62 (inside the block, even for the last) */
    __m512 wd = bb_gk_fp16_lanes(bb_gk_gather_dw((const uint8_t *)&x[b0] + 62, sizeof(bb_block_tq2_0), nc), 1);
    __m512 dr = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, a->d + b0), wd);
    _mm512_storeu_ps(d, dr);
    *off = _mm512_fmadd_ps(dr, _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(k, a->qsum + b0)), *off);
}

/* GEMV: weight rows w0 and w1 against one activation row. */
static void tq2_0_pair(const uint8_t *w0, const uint8_t *w1, const bb_gk_arow *a, int nblk, float *out)
{
    const bb_block_tq2_0 *x0 = (const bb_block_tq2_0 *)w0, *x1 = (const bb_block_tq2_0 *)w1;
    __m512 fu0 = _mm512_setzero_ps(), fv0 = fu0, off0 = fu0, fu1 = fu0, fv1 = fu0, off1 = fu0;
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        float d0[BB_GK_CHUNK], d1[BB_GK_CHUNK];
        chunk_scales(x0, a, b0, nc, d0, &off0);
        chunk_scales(x1, a, b0, nc, d1, &off1);
        for (int i = 0; i < nc; i++) {
            __m512i c0[4], c1[4];
            const int8_t *q = a->q[b0 + i].qs;
            decode(&x0[b0 + i], c0);
            decode(&x1[b0 + i], c1);
            accumulate(c0, q, d0[i], &fu0, &fv0);
            accumulate(c1, q, d1[i], &fu1, &fv1);
        }
    }
    finish2(fu0, fv0, off0, fu1, fv1, off1, out);
}

/* GEMM decoding: the shifts are paid once per block for BB_GK_NB activation rows, and then all
 * four planes come out as [c | 4c], one accumulator, one conversion and one FMA per row. */
static inline __attribute__((always_inline)) void decode_shifted(const bb_block_tq2_0 *blk, __m512i c[4])
{
    const __m512i m01 = _mm512_inserti64x4(_mm512_set1_epi8(0x03), _mm256_set1_epi8(0x0c), 1);
    bb_prefetch_stream(blk->qs);
    bb_prefetch_stream(blk->qs + sizeof *blk - 1);
    __m512i lo = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)blk->qs));
    __m512i hi = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(blk->qs + 32)));
    c[0] = _mm512_and_si512(lo, m01);
    c[1] = _mm512_and_si512(_mm512_srli_epi16(lo, 4), m01);
    c[2] = _mm512_and_si512(hi, m01);
    c[3] = _mm512_and_si512(_mm512_srli_epi16(hi, 4), m01);
}

/* GEMM: one weight row against nb activation rows. */
static inline __attribute__((always_inline)) void tq2_0_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                               int nblk, float *out)
{
    const bb_block_tq2_0 *x = (const bb_block_tq2_0 *)wrow;
    __m512 f[BB_GK_NB], off[BB_GK_NB];
    for (int r = 0; r < nb; r++) f[r] = off[r] = _mm512_setzero_ps();
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        float d[BB_GK_NB][BB_GK_CHUNK];
        for (int r = 0; r < nb; r++) chunk_scales(x, &a[r], b0, nc, d[r], &off[r]);
        for (int i = 0; i < nc; i++) {
            __m512i c[4];
            decode_shifted(&x[b0 + i], c);
            for (int r = 0; r < nb; r++) {
                const int8_t *q = a[r].q[b0 + i].qs;
                __m512i u = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c[0], _mm512_loadu_si512(q));
                __m512i v = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c[2], _mm512_loadu_si512(q + 128));
                u = _mm512_dpbusd_epi32(u, c[1], _mm512_loadu_si512(q + 64));
                v = _mm512_dpbusd_epi32(v, c[3], _mm512_loadu_si512(q + 192));
                f[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(u, v)), _mm512_set1_ps(d[r][i]), f[r]);
            }
        }
    }
    /* lanes weighted 1 | 1/4 (finish2 with fu = f, fv = 0) */
    for (int r = 0; r < nb; r += 2) {
        int r2 = r + 1 < nb ? r + 1 : r;
        float y2[2];
        finish2(f[r], _mm512_setzero_ps(), off[r], f[r2], _mm512_setzero_ps(), off[r2], y2);
        out[r] = y2[0];
        if (r2 != r) out[r2] = y2[1];
    }
}

BB_GK_ROW_BY_NB(tq2_0_row, tq2_0_row_nb)

void bb_tq2_0_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul_pairs(w, bb_tq2_0_row_bytes(k), act, y, m, k, n, m0, m1, tq2_0_row, tq2_0_pair);
}
