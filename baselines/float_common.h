/* Shared machinery of the float baselines (f32, f32_blas, f16, bf16): one scalar reference, one
 * N-tiling driver and one register tile (float_tile.h, written once over the vector type of the
 * ISA its includer is compiled for), so that the kernels differ only in how an element is stored.
 *
 * All four compute y[n][m] = sum_k W[m][k] * X[n][k] with products and sums in float (binary32);
 * W and X are row-major and K-contiguous (a weight row and an activation row are both dot-product
 * operands, as in llama.cpp's ggml_vec_dot_f16/bf16 and in a BLAS sgemm with B transposed).
 *
 * Modes (how the packed weights / prepared activations store an element):
 *   BB_FL_F32     weights float32, activations float32
 *   BB_FL_F16     weights IEEE binary16, activations rounded to binary16 and stored back as the
 *                 float32 they equal (exact), so the inner loop converts only the weights
 *   BB_FL_BF16    weights and activations bfloat16; SIMD variants split each 32-bit pair into its
 *                 even element (<< 16) and odd element (& 0xffff0000), two FMAs per pair
 *   BB_FL_BF16DP  same bytes as BB_FL_BF16, multiplied pairwise by vdpbf16ps (AVX512-BF16 only)
 * Every binary16 or bfloat16 product is exact in float (11x11 and 8x8 significand bits), so the
 * variants differ from the scalar reference only in the order of the float additions.
 *
 * Blocking of the SIMD variants (bb_fl_drive): for each row tile of R weight rows and each tile of
 * C activation rows, R x C vector accumulators stay in registers across a K-block; each weight
 * vector loaded feeds C FMAs and each activation vector R FMAs.  All column tiles of a block of
 * 16 activation rows pass over the same K-block of the R weight rows (8 KiB of each activation
 * row: the weight chunk stays in L1, the activation chunk, 16 x 8 KiB, in L2), so every weight
 * byte comes from memory once for 16 activation rows.  Accumulators are parked in a small buffer
 * between K-blocks (bit-exact).  Smaller K-blocks that keep the activation chunk in L1 too
 * were slower (parking costs more than the L2 loads it saves); the tile shapes were chosen among
 * equally fast ones (docs/measurements/2026-11-22.md, "The engine's decode against its bandwidth bound").
 * Every accumulator sees the same sequence of operations whatever the tile, block or row slice it
 * falls in, so any split of M gives the same bits.
 * N = 1 uses a taller single-column tile (memory-bound GEMV: more independent rows in flight). */
#ifndef BB_FLOAT_COMMON_H
#define BB_FLOAT_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/common/fp16.h"
#include "kernels/common/prefetch.h"
#include "kernels/kernel.h"

enum { BB_FL_F32 = 0, BB_FL_F16, BB_FL_BF16, BB_FL_BF16DP };

/* Bytes per element of the packed weights and of the prepared activations. */
static inline size_t bb_fl_wsize(int mode) { return mode == BB_FL_F32 ? 4 : 2; }
static inline size_t bb_fl_xsize(int mode) { return mode == BB_FL_F32 || mode == BB_FL_F16 ? 4 : 2; }

/* ---- scalar pieces: pack, unpack, prepare, reference ---- */

/* Weights float -> stored format (round to nearest even, common/fp16.h). */
static inline void bb_fl_pack_weights(int mode, const float *src, size_t count, void *dst)
{
    if (mode == BB_FL_F32) {
        memcpy(dst, src, count * sizeof(float));
        return;
    }
    uint16_t *d = dst;
    for (size_t i = 0; i < count; i++) d[i] = mode == BB_FL_F16 ? bb_fp32_to_fp16(src[i]) : bb_fp32_to_bf16(src[i]);
}

static inline float bb_fl_weight(int mode, const void *w, size_t i)
{
    if (mode == BB_FL_F32) return ((const float *)w)[i];
    uint16_t h = ((const uint16_t *)w)[i];
    return mode == BB_FL_F16 ? bb_fp16_to_fp32(h) : bb_bf16_to_fp32(h);
}

static inline float bb_fl_act(int mode, const void *act, size_t i)
{
    if (mode == BB_FL_F32 || mode == BB_FL_F16) return ((const float *)act)[i];
    return bb_bf16_to_fp32(((const uint16_t *)act)[i]);
}

static inline void bb_fl_unpack_weights(int mode, const void *src, size_t count, float *dst)
{
    for (size_t i = 0; i < count; i++) dst[i] = bb_fl_weight(mode, src, i);
}

/* The reference prepare: the activations each variant's prepare must reproduce byte for byte. */
static inline void bb_fl_prepare_ref(int mode, const float *x, size_t count, void *act)
{
    if (mode == BB_FL_F32) {
        memcpy(act, x, count * sizeof(float));
    } else if (mode == BB_FL_F16) {
        float *a = act;
        for (size_t i = 0; i < count; i++) a[i] = bb_fp16_to_fp32(bb_fp32_to_fp16(x[i]));
    } else {
        uint16_t *a = act;
        for (size_t i = 0; i < count; i++) a[i] = bb_fp32_to_bf16(x[i]);
    }
}

/* The reference semantics: one float accumulator per output, k in increasing order, each
 * product rounded to float and added (no FMA: plain C in a file built without ISA flags). */
static inline void bb_fl_matmul_ref(int mode, const void *w, const void *act, float *y, int m, int k, int n,
                                    int m0, int m1)
{
    for (int c = 0; c < n; c++)
        for (int r = m0; r < m1; r++) {
            float s = 0.0f;
            for (int i = 0; i < k; i++)
                s += bb_fl_weight(mode, w, (size_t)r * k + i) * bb_fl_act(mode, act, (size_t)c * k + i);
            y[(size_t)c * m + r] = s;
        }
}

/* ---- the SIMD driver (ISA independent; the tiles are in float_tile.h) ---- */

#define BB_FL_RMAX 8   /* most weight rows in a register tile */
#define BB_FL_CMAX 4   /* most activation rows in a register tile */
#define BB_FL_LANES 16 /* floats per parked accumulator slot (the widest vector) */
#define BB_FL_KBLOCK_BYTES 8192 /* K-block: this many bytes of each activation row */
/* GEMV weight-row prefetch: N = 1 reads the NR rows of a tile side by side, one line of each per
 * step: NR streams in lockstep, whose far prefetch goes one pass ahead as in kernels/common/
 * prefetch.h's bb_prefetch_interleaved.  Each line goes into L2 from the same place one tile
 * ahead (NR rows further on: ahead in its own row it would land in the next row, which this tile
 * is already reading), and into L1 BB_PREFETCH_L1_BYTES / NR ahead in its row or, past the row's
 * end, in the same row of the next tile, so that the tile as a whole looks BB_PREFETCH_L1_BYTES
 * ahead into L1.  One prefetch to L1 alone, BB_PREFETCH_BYTES / NR ahead, left the 700M
 * classifier (M = 32000, K = 1536) at 1.12x a read of its bytes at one thread, 1.16x at two; the
 * two prefetches take it to 1.01x and 1.08x (docs/measurements/2026-11-29-classifier.md). */
#define BB_FL_NBLOCK 16 /* activation rows per column block (a multiple of every tile width) */

typedef struct {
    const uint8_t *w[BB_FL_RMAX]; /* weight rows of the tile (the last one repeated as padding) */
    const uint8_t *x[BB_FL_CMAX]; /* activation rows of the tile (likewise) */
    int i0, i1, k;                /* this call covers elements [i0, i1) of K; i1 == k: finish */
    size_t wrow;                  /* bytes per weight row */
    int first;                    /* i0 == 0: start from zero, else from the parked sums */
    float *park;                  /* parked accumulators, [rows][cols][BB_FL_LANES] */
    float out[BB_FL_RMAX * BB_FL_CMAX]; /* when finishing: the sums, out[r * BB_FL_CMAX + c] */
} bb_fl_tile;

typedef struct {
    int rows, cols;
    void (*fn)(bb_fl_tile *t);
} bb_fl_shape;

/* A variant: its mode, its GEMM tile (cols > 1) and its GEMV tile (cols == 1). */
typedef struct {
    int mode;
    bb_fl_shape gemm, gemv;
} bb_fl_plan;

static inline void bb_fl_drive(const bb_fl_plan *pl, const void *w, const void *act, float *y, int m, int k,
                               int n, int m0, int m1)
{
    const size_t wrow = (size_t)k * bb_fl_wsize(pl->mode), xrow = (size_t)k * bb_fl_xsize(pl->mode);
    _Alignas(64) float park[BB_FL_NBLOCK * BB_FL_RMAX * BB_FL_LANES]; /* tiles x rows x cols <= 16 x rows */
    bb_fl_tile t;
    t.k = k;
    t.wrow = wrow;
    for (int c0 = 0; c0 < n;) {
        /* A lone last activation row takes the GEMV tile; two or more take GEMM tiles, the last
         * one padded by repeating its last row (wasted lanes, never wrong ones). */
        const bb_fl_shape *sh = n - c0 == 1 ? &pl->gemv : &pl->gemm;
        int ncols = n - c0 < BB_FL_NBLOCK ? n - c0 : BB_FL_NBLOCK;
        int ntiles = (ncols + sh->cols - 1) / sh->cols;
        int kb = sh->cols == 1 ? k : (int)(BB_FL_KBLOCK_BYTES / bb_fl_xsize(pl->mode));
        for (int r0 = m0; r0 < m1; r0 += sh->rows) {
            int nr = m1 - r0 < sh->rows ? m1 - r0 : sh->rows;
            for (int r = 0; r < sh->rows; r++) t.w[r] = (const uint8_t *)w + (size_t)(r0 + (r < nr ? r : nr - 1)) * wrow;
            for (int i0 = 0; i0 < k; i0 += kb) {
                t.i0 = i0;
                t.i1 = k - i0 > kb ? i0 + kb : k;
                t.first = i0 == 0;
                for (int j = 0; j < ntiles; j++) {
                    int cb = c0 + j * sh->cols, nc = c0 + ncols - cb < sh->cols ? c0 + ncols - cb : sh->cols;
                    for (int c = 0; c < sh->cols; c++)
                        t.x[c] = (const uint8_t *)act + (size_t)(cb + (c < nc ? c : nc - 1)) * xrow;
                    t.park = park + (size_t)j * sh->rows * sh->cols * BB_FL_LANES;
                    sh->fn(&t);
                    if (t.i1 == k)
                        for (int c = 0; c < nc; c++)
                            for (int r = 0; r < nr; r++) y[(size_t)(cb + c) * m + r0 + r] = t.out[r * BB_FL_CMAX + c];
                }
            }
        }
        c0 += ncols;
    }
}

#endif
