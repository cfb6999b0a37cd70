/* tq2_0, AVX-512 VNNI, float lanes (the kernel sets float_accumulation; see tq2_0.h).
 *
 * Decoding by masks only: each 32-byte half of a block is broadcast to both 256-bit halves of a
 * zmm; v & [0x03 | 0x0c] holds the plane-0 codes in the low half and the plane-1 codes times 4
 * in the high half, v & [0x30 | 0xc0] planes 2 and 3 times 16 and 64: unsigned bytes <= 192,
 * lined up with 64 consecutive activations, so vpdpbusd reads q straight from the q8_K block
 * (no shifts: they would compete with vpdpbusd for port 0).  Per block two accumulators (planes
 * 0/1 of both halves, planes 2/3) hold exact integers (|lane| < 2^18) that are 1, 4, 16 or 64
 * times partial sums; the second's are multiples of 16, so one arithmetic shift by 4 gives it
 * the first's lane weights (1 | 4) exactly, and their sum is converted to float and accumulated
 * with one FMA by d_b = a_b.d * w_b.d, as in ggml's AVX paths; the exact lane weights 1, 1/4 are
 * applied once per row, and the offset sum_b d_b * (sum of block b's q) turns codes c into c - 1.
 *
 * GEMV takes weight rows four at a time (their horizontal sums in one tree, finish4).
 * GEMM decodes a block once for up to BB_GK_NB activation rows, with two shifts so that all four
 * planes come out as [c | 4c] and each row needs one accumulator: there the shifts are shared and
 * the per-row work is what counts.  Both paths convert the same per-block integers and fold them
 * in the same order; a row's result does not depend on its partner row, so any split of M gives
 * the same bits. */
#include <immintrin.h>

#include "ggml_k_avx512.h"
#include "tq2_0.h"

/* The four plane vectors of a block, lined up with q[0..63], q[64..127], q[128..191],
 * q[192..255].  `ahead`: the distance to the same block of the next group of rows, where the L1
 * prefetch goes (the usual 2 KiB would land inside the four rows being read). */
static inline __attribute__((always_inline)) void decode(const bb_block_tq2_0 *blk, __m512i c[4], size_t ahead)
{
    const __m512i m01 = _mm512_inserti64x4(_mm512_set1_epi8(0x03), _mm256_set1_epi8(0x0c), 1);
    const __m512i m23 = _mm512_inserti64x4(_mm512_set1_epi8(0x30), _mm256_set1_epi8((char)0xc0), 1);
    /* One prefetch per 66-byte block (its start) reaches 32 of every 33 lines; the hardware
     * streamer has the 33rd, and from DRAM on 2 threads this streamed better than prefetching
     * both ends of every block (`gemm --cache dram --read`, figures in docs/measurements). */
    __builtin_prefetch(blk->qs + ahead, 0, 3);
    __builtin_prefetch(blk->qs + BB_PREFETCH_BYTES, 0, 2);
    __m512i lo = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)blk->qs));
    __m512i hi = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(blk->qs + 32)));
    c[0] = _mm512_and_si512(lo, m01);
    c[1] = _mm512_and_si512(lo, m23);
    c[2] = _mm512_and_si512(hi, m01);
    c[3] = _mm512_and_si512(hi, m23);
}

/* f += (float)(lanes of planes 0/1 + lanes of planes 2/3 / 16) * d: one conversion and one FMA
 * per block (the division is exact, above). */
static inline __attribute__((always_inline)) void accumulate(const __m512i c[4], const int8_t *q, float d, __m512 *f)
{
    __m512i u = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c[0], _mm512_loadu_si512(q));
    __m512i v = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c[1], _mm512_loadu_si512(q + 64));
    u = _mm512_dpbusd_epi32(u, c[2], _mm512_loadu_si512(q + 128));
    v = _mm512_dpbusd_epi32(v, c[3], _mm512_loadu_si512(q + 192));
    __m512i s = _mm512_add_epi32(u, _mm512_srai_epi32(v, 4));
    *f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), _mm512_set1_ps(d), *f);
}

/* Four rows' results: the lanes weighted back (1 | 1/4), minus the offset, added up in one tree
 * for the four (128-bit lanes 0+2 and 1+3, their sum, then within each 128-bit lane); a row's sum
 * is the same tree whatever the other rows' lanes. */
static inline void finish4(const __m512 f[4], const __m512 off[4], float *out)
{
    const __m512 w = _mm512_insertf32x8(_mm512_set1_ps(1.0f), _mm256_set1_ps(0.25f), 1);
    __m512 g[4];
    for (int i = 0; i < 4; i++) g[i] = _mm512_sub_ps(_mm512_mul_ps(f[i], w), off[i]);
    __m512 a = _mm512_add_ps(_mm512_shuffle_f32x4(g[0], g[1], 0x44), _mm512_shuffle_f32x4(g[0], g[1], 0xee));
    __m512 b = _mm512_add_ps(_mm512_shuffle_f32x4(g[2], g[3], 0x44), _mm512_shuffle_f32x4(g[2], g[3], 0xee));
    /* 128-bit lanes: rows 0, 1, 2, 3 */
    __m512 t = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x88), _mm512_shuffle_f32x4(a, b, 0xdd));
    t = _mm512_add_ps(t, _mm512_permute_ps(t, 0x4e));
    t = _mm512_add_ps(t, _mm512_permute_ps(t, 0xb1));
    __m512 first = _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), t);
    _mm_storeu_ps(out, _mm512_castps512_ps128(first));
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

_Static_assert(BB_GK_QUAD == 4 && BB_GK_NB <= 4, "finish4 sums the rows of one quad or one GEMM group");

/* GEMV: four weight rows against one activation row. */
static void tq2_0_quad(const uint8_t *const w[4], const bb_gk_arow *a, int nblk, float *out)
{
    const size_t ahead = 4 * (size_t)nblk * sizeof(bb_block_tq2_0); /* the next four rows */
    const bb_block_tq2_0 *x[4];
    __m512 f[4], off[4];
    for (int i = 0; i < 4; i++) {
        x[i] = (const bb_block_tq2_0 *)w[i];
        f[i] = off[i] = _mm512_setzero_ps();
    }
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        float d[4][BB_GK_CHUNK];
        for (int i = 0; i < 4; i++) chunk_scales(x[i], a, b0, nc, d[i], &off[i]);
        for (int j = 0; j < nc; j++) {
            const int8_t *q = a->q[b0 + j].qs;
            for (int i = 0; i < 4; i++) {
                __m512i c[4];
                decode(&x[i][b0 + j], c, ahead);
                accumulate(c, q, d[i][j], &f[i]);
            }
        }
    }
    finish4(f, off, out);
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
    /* the rows' sums by finish4, the last row standing in for missing ones */
    __m512 f4[4], off4[4];
    for (int i = 0; i < 4; i++) {
        f4[i] = f[i < nb ? i : nb - 1];
        off4[i] = off[i < nb ? i : nb - 1];
    }
    float y4[4];
    finish4(f4, off4, y4);
    for (int r = 0; r < nb; r++) out[r] = y4[r];
}

BB_GK_ROW_BY_NB(tq2_0_row, tq2_0_row_nb)

void bb_tq2_0_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul_quads(w, bb_tq2_0_row_bytes(k), act, y, m, k, n, m0, m1, tq2_0_row, tq2_0_quad);
}
