/* The AMX-INT8 GEMM driver every @amx variant shares (tile_gemm_amx.c): tile configuration,
 * blocking, padding and the scale arithmetic; a kernel supplies only the decode of its packed
 * weights to int8 and where its scales are.  Included only by *_amx.c files (AMX flags).
 *
 * Intel AMX (Intel 64 and IA-32 Architectures Software Developer's Manual, vol. 1 ch. 18;
 * Optimization Reference Manual, "Intel AMX"): eight tile registers of up to 16 rows x 64 bytes;
 * TDPBSSD C += A . B with A an M x K int8 tile (16 rows x 64 bytes), B in "VNNI" order (K/4 rows
 * x 16 columns x 4 bytes: row kr, column j holds B[4kr..4kr+3][j]) and C 16 x 16 int32.  Here:
 *   A = 16 weight rows, int8 row-major: the kernel decodes its packed rows into a strip buffer
 *       (2 bits or 4 bits -> int8 per weight; q8_0 copies), once per strip of 32 rows;
 *   B = 16 activation rows, transposed into VNNI order once per call (16x16 dword transposes);
 *   C = 16 weight rows x 16 activation rows, so tiles C00, C01, C10, C11 cover 32 x 32 outputs
 *       with two A and two B tiles (all eight tile registers).
 * Exactness: a C tile accumulates exact int32 sums of int8 x int8 (TDPBSSD wraps only beyond
 * 2^31, which each kernel's shape rule already excludes).  The driver extracts C once per scale
 * block ("segment": 32 weights for q8_0 / q4_0x8, 256 for tq2_0, all of K for per-row scales) and
 * folds it into float outputs with exactly the float operations of the kernel's scalar
 * reference, in block order, so the @amx variants give the reference's bits.
 *
 * N below BB_AMX_MIN_N goes to the kernel's AVX-512 variant (`small_n`): a decode GEMV would use
 * one sixteenth of each tile, and the AVX-512 variants stream weights at memory speed.  That is
 * the variants' documented dispatch rule (amx_rule.h, kernel.h's small_n_isa), so results record
 * the @avx512 code as what ran; any other call sent to small_n is counted (bb_kernel_fallback_note).  N >= 16
 * that is not a multiple of 16 is padded with zero activation rows whose outputs are dropped; M
 * likewise with zero weight rows. */
#ifndef BB_AMX_H
#define BB_AMX_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "amx_rule.h"
#include "row_interleave.h"

#define BB_AMX_ROWS 16  /* rows of a tile */
#define BB_AMX_STRIP 32 /* weight rows decoded together: two A tiles */

/* How one segment's int32 sums become outputs; each is the reference's float arithmetic. */
typedef enum {
    /* one segment (all of K), y = bb_i8_dequant(isum, da, dw) = (float)isum / da * dw, 0 when
     * da == 0 (common/act_quant.h): i2_s, up_i2 */
    BB_AMX_DEQUANT_ROW,
    /* y = 0; per block in order: y = y + ((float)isum * dw) * da   (qx_0.h: q8_0, q4_0, q4_0x8) */
    BB_AMX_BLOCK_QX,
    /* y = 0; per block in order: y = y + (float)isum * (da * dw)   (ggml_k.h: tq2_0, iq4_nl) */
    BB_AMX_BLOCK_K,
    /* y = 0; per block in order: y = y + ((da * dw) * (float)isum - (da * dm) * (float)msum),
     * msum the block's dot of the `mins_i8` rows, dm the fp16 scale at dm_at   (q2_k.h) */
    BB_AMX_BLOCK_K_MINS,
} bb_amx_fold;

typedef void bb_amx_matmul_fn(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

typedef struct {
    int seg; /* weights per scale block (multiple of 32); 0: all of K, one segment */
    bb_amx_fold fold;
    /* Rows [r, r + rows) of the packed matrix as the signed int8 integers the reference
     * multiplies, row i at dst + i * stride, K bytes (rows <= BB_AMX_STRIP). */
    void (*weights_i8)(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride);
    /* The first packed byte of row r (r <= M, on the kernel's row multiple; row M: the end of
     * the rows).  The bytes of rows [r, r') are [row_start(r), row_start(r')) in the layouts here:
     * the driver prefetches the next strip from them while the tiles work on this one. */
    const void *(*row_start)(const void *w, int m, int k, int r);
    /* dw[s * BB_AMX_STRIP + i]: the scale of row r + i in segment s */
    void (*weight_scales)(const void *w, int m, int k, int r, int rows, float *dw);
    /* BB_AMX_BLOCK_K_MINS only (NULL otherwise): a second int8 matrix laid out as weights_i8's,
     * whose dots with the same activations the fold subtracts (q2_k: each weight's sub-block
     * min); its scales come from min_scales (as weight_scales does), or for the GGUF block
     * layouts the fp16 at dm_at of each block.  Its dots run on the same tiles after the
     * weights', so such a kernel does twice the TDPBSSDs. */
    void (*mins_i8)(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride);
    void (*min_scales)(const void *w, int m, int k, int r, int rows, float *dm);
    /* Or, for the GGUF block layouts - rows of K / seg blocks of block_bytes bytes, each holding
     * its fp16 scale at byte d_at (and BB_AMX_BLOCK_K_MINS's second scale at dm_at) - leave
     * row_start, weight_scales and min_scales NULL and set these: the driver reads them itself. */
    size_t block_bytes, d_at, dm_at;
    /* Or, for the row-interleaved layouts (row_interleave.h: q2_k_x16, tq1_0_x16, tq2_0_x16), set
     * il with d_at (and dm_at), the bytes where each record keeps its rows' fp16 scales in 2-byte
     * lanes, and leave block_bytes 0: rows start at their group's first record. */
    const bb_il_layout *il;
    /* Activation row c's K int8 values: a pointer into act where they are contiguous, else
     * copied to scratch (K bytes) and scratch returned. */
    const int8_t *(*act_i8)(const void *act, int n, int k, int c, int8_t *scratch);
    /* da[s * npad + c]: the scale of activation row c < n in segment s */
    void (*act_scales)(const void *act, int n, int k, int npad, float *da);
    bb_amx_matmul_fn *small_n; /* the AVX-512 variant, for N < BB_AMX_MIN_N */
} bb_amx_ops;

/* The kernel's matmul contract (kernel.h) through AMX tiles.  Runs ops->small_n when
 * N < BB_AMX_MIN_N (the documented rule), and also, counted by bb_kernel_fallback_note, when K is
 * not a multiple of 32 (a tile step; no kernel's shape rule lets one through today) or the
 * call's scratch memory cannot be allocated. */
void bb_amx_matmul(const bb_amx_ops *ops, const void *w, const void *act, float *y, int m, int k, int n, int m0,
                   int m1);

/* act_i8 / act_scales of the per-row int8 activations (BB_ACT_I8_ROW, common/act_quant.h). */
const int8_t *bb_amx_i8_row_act(const void *act, int n, int k, int c, int8_t *scratch);
void bb_amx_i8_row_scales(const void *act, int n, int k, int npad, float *da);

/* 64 int8 weights c - 1 from the 32 bytes of 2-bit codes at src: code (byte >> lo) & 3 of each
 * byte for the first 32, (byte >> hi) & 3 for the next 32, with shifts = bb_amx_shift_pair(lo,
 * hi): the plane order of the ternary formats (i2_s.h, tq2_0.h). */
static inline __m512i bb_amx_shift_pair(int lo, int hi)
{
    return _mm512_inserti64x4(_mm512_set1_epi16((short)lo), _mm256_set1_epi16((short)hi), 1);
}
static inline void bb_amx_ternary64(const uint8_t *src, __m512i shifts, int8_t *dst)
{
    __m512i v = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)src));
    __m512i c = _mm512_and_si512(_mm512_srlv_epi16(v, shifts), _mm512_set1_epi8(3));
    _mm512_storeu_si512(dst, _mm512_sub_epi8(c, _mm512_set1_epi8(1)));
}

/* Rows [r, r + rows) of a GGUF layout of 32-weight blocks of block_bytes bytes whose 16 bytes at
 * qs_at hold 4-bit indices (byte j: weight j in the low nibble, weight j + 16 in the high one), as
 * the int8 table[index] of each weight, row i at dst + i * stride: q4_0 (table -8..7) and iq4_nl
 * (its codebook).  One block per 256-bit vector: its 16 bytes in both halves, the upper half
 * shifted right by 4, masked, then one vpshufb from the table in each half. */
static inline void bb_amx_nibble_rows_i8(const void *w, int k, int r, int rows, size_t block_bytes, size_t qs_at,
                                         const int8_t table[16], int8_t *dst, size_t stride)
{
    const __m256i shifts = _mm256_setr_epi64x(0, 0, 4, 4), low = _mm256_set1_epi8(0x0f);
    const __m256i book = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)table));
    for (int i = 0; i < rows; i++) {
        const uint8_t *row = (const uint8_t *)w + (size_t)(r + i) * (size_t)(k / 32) * block_bytes + qs_at;
        for (int b = 0; b < k / 32; b++) {
            __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(row + (size_t)b * block_bytes)));
            v = _mm256_and_si256(_mm256_srlv_epi64(v, shifts), low);
            _mm256_storeu_si256((__m256i *)(dst + i * stride + 32 * b), _mm256_shuffle_epi8(book, v));
        }
    }
}

/* r[j] = column j of the 16 x 16 dword matrix whose row i is r[i]. */
static inline __attribute__((always_inline)) void bb_amx_transpose16(__m512i r[16])
{
    __m512i t[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) { /* r[4q + c], lane L: rows 4q..4q+3 of column 4L + c */
        r[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
        r[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
        r[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
        r[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    for (int i = 0; i < 16; i += 8)
        for (int j = 0; j < 4; j++) {
            t[i + j] = _mm512_shuffle_i32x4(r[i + j], r[i + 4 + j], 0x88);
            t[i + 4 + j] = _mm512_shuffle_i32x4(r[i + j], r[i + 4 + j], 0xdd);
        }
    for (int j = 0; j < 8; j++) {
        r[j] = _mm512_shuffle_i32x4(t[j], t[8 + j], 0x88);
        r[8 + j] = _mm512_shuffle_i32x4(t[j], t[8 + j], 0xdd);
    }
}

#endif
