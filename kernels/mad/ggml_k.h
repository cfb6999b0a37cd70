/* Shared by the llama.cpp block-format kernels that take q8_K activations: tq1_0, tq2_0, q2_k.
 *
 * Block structs byte-compatible with ggml's block_tq1_0, block_tq2_0 and block_q2_K (GGUF tensor
 * data is M rows of K/256 such blocks, back to back, so a GGUF tensor's bytes are our packed
 * weights as they are), the row-tiled matmul driver every variant uses, and the float epilogue
 * that fixes the order of float operations so that every ISA variant gives the scalar
 * reference's bits:
 *
 *     sumf = 0;  for each block b in order:  sumf += (float)isum_b * (a_b.d * fp16(w_b.d))
 *
 * (q2_k: sumf += dall_b * (float)isum_b - dmin_b * (float)summs_b, see q2_k.h).  isum_b is an
 * exact integer (|isum_b| < 2^24, so the conversion is exact too).  The exact SIMD variants (all
 * but tq2_0's AVX-512 one, see tq2_0.h) compute the integer sums of several blocks in vector
 * registers (up to BB_GK_CHUNK; four in the ternary AVX2 row, ggml_k_avx2.h), the per-block
 * products lane by lane with the same IEEE operations, and then add the products in block order.
 */
#ifndef BB_GGML_K_H
#define BB_GGML_K_H

#include <stddef.h>
#include <stdint.h>

#include "../common/act_quant.h"
#include "../common/fp16.h"
#include "../common/prefetch.h"
#include "../common/q8_k_rows.h" /* the SIMD prepares of every variant here */

/* ---- ggml block layouts (QK_K = 256 values per block) ---- */
typedef struct {
    uint8_t qs[48]; /* 5 trits per byte, base-3 fixed point (tq1_0.h) */
    uint8_t qh[4];  /* 4 trits per byte for the last 16 values */
    uint16_t d;     /* fp16 scale */
} bb_block_tq1_0;   /* 54 bytes */

typedef struct {
    uint8_t qs[64]; /* 2-bit codes t + 1 (tq2_0.h) */
    uint16_t d;     /* fp16 scale */
} bb_block_tq2_0;   /* 66 bytes */

typedef struct {
    uint8_t scales[16]; /* per 16 values: low nibble scale, high nibble min */
    uint8_t qs[64];     /* 2-bit codes, same plane order as tq2_0 */
    uint16_t d, dmin;   /* fp16 super-block scales */
} bb_block_q2_K;        /* 84 bytes */

_Static_assert(sizeof(bb_block_tq1_0) == 54, "block_tq1_0 is 54 bytes in ggml");
_Static_assert(sizeof(bb_block_tq2_0) == 66, "block_tq2_0 is 66 bytes in ggml");
_Static_assert(sizeof(bb_block_q2_K) == 84, "block_q2_K is 84 bytes in ggml");


/* Blocks whose integer sums are produced before they are folded into the float sum (a chunk);
 * activation rows sharing one decoded weight block; weight rows per tile (the tile stays in
 * L1/L2 while every group of activation rows passes over it). */
#define BB_GK_CHUNK 16
#define BB_GK_NB 4
#define BB_GK_ROW_TILE 64
/* Per activation row the driver keeps each block's d and sum of q (sum of its bsums) in arrays
 * of this many entries, so K is limited to BB_GK_MAX_BLOCKS * 256. */
#define BB_GK_MAX_BLOCKS 512

/* One prepared activation row as the row functions see it: the q8_K blocks, plus d and the
 * block sums of q gathered into contiguous arrays once per call (the ternary kernels subtract
 * sum q to turn sum (c)*q into sum (c - 1)*q). */
typedef struct {
    const bb_block_q8_K *q;
    float d[BB_GK_MAX_BLOCKS + BB_GK_CHUNK]; /* + a chunk: whole-vector reads stay inside */
    int32_t qsum[BB_GK_MAX_BLOCKS + BB_GK_CHUNK];
} bb_gk_arow;

/* The AMX driver's act_i8 / act_scales (common/amx.h bb_amx_ops) for q8_K rows: row c's int8
 * copied out of its blocks, and the blocks' d (tq2_0_amx.c; also q2_k_amx.c). */
const int8_t *bb_gk_amx_act_i8(const void *act, int n, int k, int c, int8_t *scratch);
void bb_gk_amx_act_scales(const void *act, int n, int k, int npad, float *da);

static inline const char *bb_gk_shape_error(int m, int k)
{
    (void)m;
    return k > BB_GK_MAX_BLOCKS * BB_QK_K ? "K must be at most 131072 (512 blocks of 256)" : NULL;
}

/* The fold of the reference: sumf += p_b in block order, where the variants computed
 * p_b = (float)isum_b * (a_b.d * w_b.d) lane by lane (the same IEEE operations on the same
 * operands as the scalar reference, so the same bits). */
static inline float bb_gk_fold(float sumf, const float *p, int nb)
{
    for (int b = 0; b < nb; b++) sumf += p[b];
    return sumf;
}

/* One weight row against nb (<= BB_GK_NB) activation rows: out[c] = y for activation row c. */
typedef void (*bb_gk_row_fn)(const uint8_t *wrow, const bb_gk_arow *a, int nb, int nblk, float *out);

/* Defines `static void name(wrow, a, nb, nblk, out)` calling impl(wrow, a, NB, nblk, out) with a
 * constant NB = nb, so that impl (always_inline) is compiled once per group size with its loops
 * over activation rows unrolled and its accumulators in registers. */
#define BB_GK_ROW_BY_NB(name, impl)                                                            \
    static void name(const uint8_t *wrow, const bb_gk_arow *a, int nb, int nblk, float *out)   \
    {                                                                                           \
        switch (nb) {                                                                           \
        case 1: impl(wrow, a, 1, nblk, out); break;                                             \
        case 2: impl(wrow, a, 2, nblk, out); break;                                             \
        case 3: impl(wrow, a, 3, nblk, out); break;                                             \
        default: impl(wrow, a, 4, nblk, out); break;                                            \
        }                                                                                       \
    }

static inline void bb_gk_arow_fill(bb_gk_arow *r, const bb_block_q8_K *q, int nblk)
{
    r->q = q;
    for (int b = 0; b < nblk; b++) {
        int32_t s = 0;
        for (int j = 0; j < BB_QK_K / 16; j++) s += q[b].bsums[j];
        r->d[b] = q[b].d;
        r->qsum[b] = s;
    }
}

/* Optional: four weight rows against one activation row (out[0..3]), for GEMV paths that
 * amortize per-row work (scale gathers, horizontal sums) over a group.  A row's result must not
 * depend on its partners (the driver fills a short last group with copies of its last row), so
 * any split of M gives the same bits. */
#define BB_GK_QUAD 4
typedef void (*bb_gk_quad_fn)(const uint8_t *const w[BB_GK_QUAD], const bb_gk_arow *a, int nblk, float *out);

/* The matmul every SIMD variant runs: rows [m0, m1) in tiles of BB_GK_ROW_TILE, activation rows
 * in groups of BB_GK_NB, so a decoded weight block serves BB_GK_NB activation rows and a weight
 * tile is reused from cache by every group; with one activation row and a `quad` function, weight
 * rows go four at a time.  Each y is computed by one call of `row` or `quad`, which gives the same
 * bits for a row whatever its partners, so the result depends neither on the tiling nor on the
 * split of M. */
static inline void bb_gk_matmul_quads(const void *w, size_t row_bytes, const void *act, float *y, int m, int k,
                                      int n, int m0, int m1, bb_gk_row_fn row, bb_gk_quad_fn quad)
{
    int nblk = k / BB_QK_K;
    const bb_block_q8_K *arows = act;
    bb_gk_arow a[BB_GK_NB];
    int tile = n <= BB_GK_NB ? m1 - m0 : BB_GK_ROW_TILE; /* one group: no need to tile */
    for (int r0 = m0; r0 < m1; r0 += tile) {
        int r1 = r0 + tile < m1 ? r0 + tile : m1;
        for (int c0 = 0; c0 < n; c0 += BB_GK_NB) {
            int nb = n - c0 < BB_GK_NB ? n - c0 : BB_GK_NB;
            for (int c = 0; c < nb; c++) bb_gk_arow_fill(&a[c], arows + (size_t)(c0 + c) * nblk, nblk);
            if (nb == 1 && quad) {
                for (int r = r0; r < r1; r += BB_GK_QUAD) {
                    const uint8_t *wq[BB_GK_QUAD];
                    int rows = r1 - r < BB_GK_QUAD ? r1 - r : BB_GK_QUAD;
                    for (int i = 0; i < BB_GK_QUAD; i++)
                        wq[i] = (const uint8_t *)w + (size_t)(r + (i < rows ? i : rows - 1)) * row_bytes;
                    float out[BB_GK_QUAD];
                    quad(wq, a, nblk, out);
                    for (int i = 0; i < rows; i++) y[(size_t)c0 * m + r + i] = out[i];
                }
                continue;
            }
            for (int r = r0; r < r1; r++) {
                float out[BB_GK_NB];
                row((const uint8_t *)w + (size_t)r * row_bytes, a, nb, nblk, out);
                for (int c = 0; c < nb; c++) y[(size_t)(c0 + c) * m + r] = out[c];
            }
        }
    }
}

static inline void bb_gk_matmul(const void *w, size_t row_bytes, const void *act, float *y, int m, int k, int n,
                                int m0, int m1, bb_gk_row_fn row)
{
    bb_gk_matmul_quads(w, row_bytes, act, y, m, k, n, m0, m1, row, NULL);
}

#endif
