/* Element-wise LUT (bitnet.cpp "TL", bitnet.cpp §3.1-3.2 and Appendix D): what the four kernels
 * tl1_0, tl1_1, tl2_0, tl2_1 share — the packed layout, the table layout and their builders live
 * in elut.c, the SIMD kernels in elut_avx2.c, elut_avx512.c and elut_neon.c.
 *
 * Groups and indices.  TL1 takes the weights two at a time (g = 2, 3^2 = 9 combinations) and
 * stores the 4-bit index i = 3(a+1) + (b+1) of Table 5.  TL2 takes them three at a time (g = 3,
 * 27 combinations): element-wise mirror consolidation (§3.1.1) keeps only the 14 magnitudes of
 * v = 9a + 3b + c (13 + zero) — a 4-bit index |v| — and a 1-bit sign (v < 0), exactly Table 6
 * (e.g. (-1,-1,-1) → sign 1, index 1101; (1,0,1) → sign 0, index 1010).  Table entry i of a group
 * of activations (q0, q1[, q2]) is the sum for the weights whose index is i:
 *     TL1  T[i] = (i/3 - 1) q0 + (i%3 - 1) q1                      i = 0..8 (9..15 are 0)
 *     TL2  T[i] = a q0 + b q1 + c q2,  9a + 3b + c = i (balanced ternary digits)   i = 0..13
 * and a TL2 lookup is sign ? -T[idx] : T[idx] — eq. (5), x' = s ^ (s + x) for s = 0 / -1.
 * (How each variant spends its instructions on eq. (5) is said in its file; all compute these
 * values exactly.)
 *
 * Block-fitting weight splitting (§3.1.2, Figure 6): ThreeK = floor(K / 48) * 48 columns go to
 * TL2 and the remaining TwoK = K - ThreeK (0, 16 or 32) to TL1, no padding.  48 is the smallest
 * block that holds whole TL2 storage blocks (8 triples = 24 columns) and leaves a remainder made
 * of whole TL1 storage blocks (8 pairs = 16 columns), so the TL1 part is as small as it can be.
 * Hence K must be a multiple of 16 (all four kernels).  M is free: the last row tile may be
 * partial (its missing rows are stored as zero bytes and never written out).
 *
 * Packed layout (all variants read these bytes).  Rows in tiles of 16; tile t (rows 16t..16t+15)
 * is one contiguous record of tile_bytes, ceil(M/16) of them:
 *     nb3 TL2 index blocks (64 bytes each) | nb1 TL1 index blocks (64 bytes each) |
 *     nb3 TL2 sign blocks (16 bytes each), padded to a multiple of 64 bytes
 * with nb3 = ThreeK / 24 and nb1 = TwoK / 16.  Index block b covers the 8 groups 8b..8b+7 of the
 * part: byte p (lane L = p / 16, row p % 16) holds group L in its low nibble and group 4 + L in
 * its high nibble — so 32 bytes masked to low (high) nibbles are two 16-row lanes of one group
 * each (what AVX2 vpshufb wants: one table per 128-bit lane).  Sign block b is two little-endian
 * 64-bit masks; bit 4r + g of mask h is the sign of (group 4h + g, row r) — the order in which
 * the AVX-512 kernel holds the looked-up bytes (one 32-bit lane per row, its four groups side by
 * side), so one mask is one k-register; the AVX2 kernel expands the bits it needs to bytes with
 * one vpshufb.  Index and sign planes stay aligned (signed-unsigned weight splitting, Figure 5):
 * block b of both covers the same 16 rows x 8 triples.
 * After the tiles: one float, the per-tensor weight scale, padded to 64 bytes.
 * Bits per weight: TL2 part 5/3 (4-bit index + 1-bit sign per 3 weights), TL1 part 2, plus the
 * sign plane's padding to 64 bytes per tile (none when ThreeK is a multiple of 96) and one
 * float per tensor.
 *
 * Prepared activations: bb_quant_i8_rows (per-row absmax int8, identical to i2_s's), N rows of
 * bb_i8_row_stride(K) bytes; then N table records of elut_tab_stride bytes, built once per
 * activation row and shared by all threads: a 64-byte head (float d, the int8 table step, _0
 * only) and one 16-entry table per group in K order (TL2 groups, then TL1 groups):
 *     _1: int16 sums split into a plane of low bytes (16 per group) followed by a plane of high
 *         bytes — looked up separately, recombined after the lookups (§3.2.1, pack-and-unpack);
 *     _0: int8 entries round(T / d), d = A / 127 where A = max over the row's groups of
 *         sum |q| (the largest |T| of any table of the row): one table scale per activation row.
 */
#ifndef BB_ELUT_H
#define BB_ELUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../common/act_quant.h"
#include "../common/i8_rows_simd.h"
#include "../kernel.h"

#define ELUT_TILE 16     /* rows per tile */
#define ELUT_KMULT 16    /* K multiple */
#define ELUT_BK3 48      /* TL2 block of block-fitting weight splitting */
#define ELUT_BLOCK 64    /* bytes per index block: 16 rows x 8 groups x 4 bits */
#define ELUT_SIGNS 16    /* bytes per sign block: 16 rows x 8 groups x 1 bit */
#define ELUT_ENTRIES 16  /* entries per table (9 used by TL1, 14 by TL2) */
#define ELUT_HEAD 64     /* bytes before a row's tables */

typedef struct {
    bool tl2;       /* TL2 for ThreeK columns + TL1 for the rest; else TL1 for all K */
    bool q8;        /* _0: int8 tables with one scale per activation row; else _1: int16 tables */
} elut_kind;

/* The four kernels' parameters.  elut.c and each ISA file instantiate the shared code for each
 * as one-line functions named for the kernel (declared below, kernel.h's function types); tl1_0.c
 * .. tl2_1.c are descriptors only, pointing at them (docs/kernels.md, "Binding a family's
 * parameters").  scripts/insn-table reads the variant functions' names. */
static const elut_kind elut_tl1_0 = {.tl2 = false, .q8 = true};
static const elut_kind elut_tl1_1 = {.tl2 = false, .q8 = false};
static const elut_kind elut_tl2_0 = {.tl2 = true, .q8 = true};
static const elut_kind elut_tl2_1 = {.tl2 = true, .q8 = false};

typedef struct {
    int k3, k2;          /* columns done by TL2 and by TL1 */
    int nb3, nb1;        /* index blocks per tile of each part */
    int ng3, ng1;        /* groups (= tables) of each part */
    size_t idx1_off;     /* offset of the TL1 index blocks in a tile */
    size_t sign_off;     /* offset of the sign blocks in a tile */
    size_t tile_bytes;
} elut_geom;

static inline elut_geom elut_geometry(int k, bool tl2)
{
    elut_geom g;
    g.k3 = tl2 ? k / ELUT_BK3 * ELUT_BK3 : 0;
    g.k2 = k - g.k3;
    g.nb3 = g.k3 / 24;
    g.nb1 = g.k2 / 16;
    g.ng3 = g.k3 / 3;
    g.ng1 = g.k2 / 2;
    g.idx1_off = (size_t)g.nb3 * ELUT_BLOCK;
    g.sign_off = g.idx1_off + (size_t)g.nb1 * ELUT_BLOCK;
    g.tile_bytes = g.sign_off + (((size_t)g.nb3 * ELUT_SIGNS + 63) & ~(size_t)63);
    return g;
}

/* Where group j (of its part) of tile row rr lives: byte offset in the part's index blocks and
 * nibble shift; byte offset and bit in the sign blocks. */
static inline size_t elut_idx_byte(int j, int rr, int *shift)
{
    int gg = j % 8;
    *shift = gg / 4 * 4;
    return (size_t)(j / 8) * ELUT_BLOCK + (size_t)(gg % 4) * 16 + (size_t)rr;
}

static inline size_t elut_sign_byte(int j, int rr, int *bit)
{
    int gg = j % 8, i = 4 * rr + gg % 4;
    *bit = i % 8;
    return (size_t)(j / 8) * ELUT_SIGNS + (size_t)(gg / 4) * 8 + (size_t)(i / 8);
}

/* Bytes of one activation row's tables (head included), a multiple of 64. */
static inline size_t elut_tab_stride(int k, elut_kind kind)
{
    elut_geom g = elut_geometry(k, kind.tl2);
    size_t bytes = (size_t)(g.ng3 + g.ng1) * ELUT_ENTRIES * (kind.q8 ? 1 : 2);
    return ELUT_HEAD + ((bytes + 63) & ~(size_t)63);
}

/* Row c's table record: head (float d at offset 0) then the tables. */
static inline const uint8_t *elut_tab(const void *act, int n, int k, elut_kind kind, int c)
{
    return (const uint8_t *)act + (size_t)n * bb_i8_row_stride(k) + (size_t)c * elut_tab_stride(k, kind);
}

/* Offset of the weight scale: after the tiles. */
static inline size_t elut_wscale_off(int m, int k, bool tl2)
{
    return (size_t)((m + ELUT_TILE - 1) / ELUT_TILE) * elut_geometry(k, tl2).tile_bytes;
}

static inline float elut_wscale(const void *w, int m, int k, bool tl2)
{
    float s;
    memcpy(&s, (const uint8_t *)w + elut_wscale_off(m, k, tl2), sizeof s);
    return s;
}

/* Output of one row from its exact integer sum: _1 exactly as i2_s (bb_i8_dequant); _0 the
 * sum of int8 table entries times the table step d first. */
static inline float elut_dequant_q8(int32_t isum, float d, float act_scale, float w_scale)
{
    return act_scale == 0.0f ? 0.0f : (float)isum * d / act_scale * w_scale;
}

/* For the SIMD table builders: one group's activation bytes as a 32-bit lane; the bytes past the group meet zero digits.  The
 * last group of a part reads only its own bytes (the others read into the next group). */
static inline int32_t elut_group_bytes(const int8_t *p, bool last, int len)
{
    int32_t v = 0;
    if (!last) memcpy(&v, p, sizeof v);
    else if (len == 3) v = (int32_t)((uint32_t)(uint8_t)p[0] | (uint32_t)(uint8_t)p[1] << 8 | (uint32_t)(uint8_t)p[2] << 16);
    else v = (int32_t)((uint32_t)(uint8_t)p[0] | (uint32_t)(uint8_t)p[1] << 8);
    return v;
}

/* Shared implementation (elut.c). */
size_t elut_packed_size(int m, int k, bool tl2);
int elut_pack(const bb_weights *w, void *dst, bool tl2);
void elut_unpack(const void *src, int m, int k, float *dst, bool tl2);
size_t elut_act_size(int n, int k, elut_kind kind);
/* Builds one activation row's tables from its int8 q into tab (layout above); _0 also returns
 * the table step d.  elut_tables_ref is the reference; the SIMD builders write the same bytes. */
typedef void (*elut_table_fn)(const int8_t *q, const elut_geom *g, bool q8, uint8_t *tab, float *d);
void elut_tables_ref(const int8_t *q, const elut_geom *g, bool q8, uint8_t *tab, float *d);
void elut_tables_avx2(const int8_t *q, const elut_geom *g, bool q8, uint8_t *tab, float *d);
void elut_tables_avx512(const int8_t *q, const elut_geom *g, bool q8, uint8_t *tab, float *d);
void elut_tables_neon(const int8_t *q, const elut_geom *g, bool q8, uint8_t *tab, float *d);
/* bb_quant_i8_rows, then build for every row. */
/* quant writes the per-row int8 head and values (bb_quant_i8_rows or a SIMD version of it that
 * writes the same bytes, common/i8_rows_simd.h); build then fills the tables. */
typedef void (*elut_quant_fn)(const float *x, int n, int k, void *dst);
void elut_prepare_with(const float *x, int n, int k, void *act, elut_kind kind, elut_quant_fn quant,
                       elut_table_fn build);
extern const int8_t elut_digits[2][ELUT_ENTRIES][4]; /* [TL2?][entry][weight], 4th byte 0 */
int elut_table_amax(const int8_t *q, const elut_geom *g);  /* A: max over groups of sum |q| */
float elut_table_step(int amax, float *inv);             /* d = A / 127; *inv = 127 / A */
void elut_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                     elut_kind kind);
double elut_error_bound(const float *wdeq_row, const float *x, int k, bool tl2);
const char *elut_shape_error(int m, int k);

/* SIMD (elut_avx2.c, elut_avx512.c, elut_neon.c): same bytes in, same bits out as elut_matmul_ref. */
/* Their shared driver (elut.c): for each activation row, `tiles` computes the exact int32 sums of
 * whole row tiles from `tile` on (16 per tile, into isum; at most `left` tiles and ELUT_TP_MAX)
 * and returns how many it did; the rows of [m0, m1) among them are dequantized as the reference
 * does. */
#define ELUT_TP_MAX 8
/* Row tiles per pass of each SIMD variant (its TP); the variants' m_pass is ELUT_TILE times it.
 * AVX-512: 4.  Eight tiles shared each table load with more rows but read 16 index and sign
 * streams at once, each prefetched a pass ahead; four streamed closer to a plain read from DRAM
 * and were faster from L2 and at N > 1 as well (docs/measurements/2026-11-29-peers-and-goals.md). */
#define ELUT_TP_AVX512 4
#define ELUT_TP_AVX2 2
#define ELUT_TP_NEON 2
typedef int (*elut_tiles_fn)(const uint8_t *w, const elut_geom *g, const uint8_t *tab, int tile, int left,
                             elut_kind kind, int32_t *isum);
void elut_matmul_tiled(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                       elut_kind kind, elut_tiles_fn tiles);
/* In an ISA file's elut_tiles_fn: its always-inline TILES(w, g, tab, tile, tp, q8, tl2, isum)
 * expanded with constant q8 and tl2 for the kind and the constant tile count TPC.  A macro because
 * each ISA file's TILES must be specialized with constants, and C cannot pass a function to be
 * inlined. */
#define ELUT_TILES_KIND(TILES, TPC)                                                                  \
    do {                                                                                             \
        if (kind.q8 && kind.tl2) TILES(w, g, tab, tile, TPC, true, true, isum);                      \
        else if (kind.q8) TILES(w, g, tab, tile, TPC, true, false, isum);                            \
        else if (kind.tl2) TILES(w, g, tab, tile, TPC, false, true, isum);                           \
        else TILES(w, g, tab, tile, TPC, false, false, isum);                                        \
    } while (0)
void elut_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                      elut_kind kind);
void elut_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                        elut_kind kind);
void elut_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                      elut_kind kind);

/* ---- the four kernels' functions (see elut_tl1_0 .. above) ----
 * The packed weights and the error bound depend on TL1/TL2 alone (elut.c). */
bb_packed_size_fn bb_tl1_packed_size, bb_tl2_packed_size;
bb_pack_fn bb_tl1_pack, bb_tl2_pack;
bb_unpack_fn bb_tl1_unpack, bb_tl2_unpack;
double bb_tl1_error_bound(const float *wdeq_row, const float *x, int k);
double bb_tl2_error_bound(const float *wdeq_row, const float *x, int k);
/* per kernel: act_size, the prepares (elut.c; elut_<isa>.c) and the matmuls (reference in
 * elut.c, variants in elut_<isa>.c) */
bb_act_size_fn bb_tl1_0_act_size, bb_tl1_1_act_size, bb_tl2_0_act_size, bb_tl2_1_act_size;
bb_prepare_fn bb_tl1_0_prepare, bb_tl1_1_prepare, bb_tl2_0_prepare, bb_tl2_1_prepare;
bb_prepare_fn bb_tl1_0_prepare_avx2, bb_tl1_1_prepare_avx2, bb_tl2_0_prepare_avx2, bb_tl2_1_prepare_avx2;
bb_prepare_fn bb_tl1_0_prepare_avx512, bb_tl1_1_prepare_avx512, bb_tl2_0_prepare_avx512,
    bb_tl2_1_prepare_avx512;
bb_prepare_fn bb_tl1_0_prepare_neon, bb_tl1_1_prepare_neon, bb_tl2_0_prepare_neon, bb_tl2_1_prepare_neon;
bb_matmul_fn bb_tl1_0_ref, bb_tl1_1_ref, bb_tl2_0_ref, bb_tl2_1_ref;
bb_matmul_fn bb_tl1_0_avx2, bb_tl1_1_avx2, bb_tl2_0_avx2, bb_tl2_1_avx2;
bb_matmul_fn bb_tl1_0_avx512, bb_tl1_1_avx512, bb_tl2_0_avx512, bb_tl2_1_avx512;
bb_matmul_fn bb_tl1_0_neon, bb_tl1_1_neon, bb_tl2_0_neon, bb_tl2_1_neon;

#endif
