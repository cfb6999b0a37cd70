/* T-MAC: bit-wise lookup-table kernels (T-MAC, Wei et al., "T-MAC: CPU Renaissance via Table
 * Lookup for Low-Bit LLM Deployment on Edge").  Shared layout, semantics and helpers of
 * tmac_w1 .. tmac_w4 (one header per bit width: tmac_w1.h .. tmac_w4.h).
 *
 * ---- Weights (offline, §3.1) ----
 * b-bit codes q in [0, L], L = 2^b - 1, with a group-wise fp32 scale s and a half-integer zero
 * point z = z2/2 (z2 in [0, 2L]) per row and group of QG = 128 consecutive weights along K:
 *     w = s * (q - z2/2) = h * c,   h = s/2 (stored),   c = 2q - z2 (an integer).
 * Bit-serial linear transformation (§4, "bit-serial linear transformation"): with bits
 * q_i in {0,1} and u_i = 2 q_i - 1 in {-1,+1},
 *     c = sum_i 2^i u_i + o,        o = L - z2 (stored, int8 in [-L, L]),
 * so each bit plane is a ±1 matrix and the zero point is one constant "all-ones plane" of weight o.
 * Quantizer (per row and group, quantize_group in tmac.c), least squares over the zero point:
 * for every z2 = 0 .. 2L, z = z2/2, a sequence of states (h, codes), all with
 * q = clamp(nearbyint(w / s + z), 0, L), s = 2h:
 *   state 0: the smallest scale that covers the group without clipping,
 *            s = max(max_k w_k / (L - z), -min_k w_k / z) (terms with zero denominator omitted; a
 *            z2 that cannot cover the group is skipped, with all its states);
 *   state i = 1 .. TMAC_LS_STEPS (4): h = (float)(sum_k w_k c_k / sum_k c_k^2) with the codes of
 *            state i - 1 (the least-squares scale of those codes, sums in double), then the codes
 *            re-rounded with that h; the sequence ends early when that h is not positive and
 *            finite (2h included), equals the previous h, or leaves the codes unchanged (that
 *            state is then the last).
 * A state whose grid reaches further than twice its largest dequantized magnitude
 * (h (L + |o|) > 2 max|h c|, float) is not admitted (this keeps the lossy kernels' error bound a
 * function of the dequantized weights); a z2 = L state (the symmetric grid) is always admitted.
 * Of all admitted states, in order of z2 and then i, the least sum of squared errors
 * sum (w - h c)^2 (double) wins, the first on ties; none (all-zero or non-finite group): q = 0,
 * h = 0, o = 0.  Neither half of a least-squares step can increase the error (in exact
 * arithmetic); on Gaussian weights the result is at or slightly below the error of the optimal
 * uniform quantizer of N(0, 1) (per-group fit, tests/test_tmac.c), where the covering scale alone
 * is 3.6x (1 bit) and 1.6x (2 bits) above it.  State 0 is the covering
 * scale, so any weights lying on a grid h*(2q - z2) with the extreme codes present are
 * reconstructed exactly (error 0 wins); BitNet ternary t*scale with b = 2 is exact (z2 = 2,
 * h = scale/2, codes c in {-2, 0, 2}: ternary runs as 2-bit, §5.1).
 *
 * ---- Tables (online, once per activation vector, in prepare(): shared by all threads) ----
 * g = 4 activations per table: for K-group j (activations 4j .. 4j+3) and 4-bit pattern p,
 *     T_j[p] = sum_t (bit_t(p) ? +x_{4j+t} : -x_{4j+t}).
 * Mirror consolidation (§3.3): T_j[p ^ 15] = -T_j[p], so only p = 0..7 (bit 3 clear) is stored;
 * the kernels rebuild entries 8..15 by negation (scalar: per lookup; AVX-512: in registers, once
 * per 16-activation chunk and row tile; AVX2: once per group and row tile, into an L1 buffer).
 * Three configurations, each its own kernel name:
 *   tmac_wB        table quantization (§3.3): float tables, one scale per 128 activations,
 *                  d = amax / 127 with amax = max |T_j[p]| over the group's 32 tables,
 *                  qT = clamp(nearbyint(T * (127 / amax)), -127, 127)  (int8).  T-MAC's default.
 *   tmac_wB_fa     the same int8 tables plus fast 8-bit aggregation (§4): lookups biased to
 *                  u = qT + 128 are averaged with the rounding average (u + u' + 1) >> 1 over the
 *                  same row and plane of K-groups j, j+4, j+8, j+12 as avg(avg(u0,u1), avg(u2,u3))
 *                  and the sum is taken as 4 v - 514 (4 * 128 for the bias, and 2, the mean of the
                  rounding excess 4 v - sum u in [0, 4], removed).
 *   tmac_wB_exact  lossless tables: activations are per-row int8 absmax (common/act_quant.h, the
 *                  same q as i2_s), T in int16 (|T| <= 508), looked up as two byte tables
 *                  (low byte unsigned, high byte signed) and recombined as lo + 256 hi.
 *
 * ---- Exact reference semantics (all variants, bit for bit) ----
 * For output y[n][m], per group g of 128 activations with table scale d_g (exact: d_g = 1/s_a
 * for all g, s_a the int8 row scale, 0 for an all-zero row):
 *     isum_g = sum_i 2^i sum_{j in g} T_j[p_ij] + o * SQ_g              (exact int32)
 *       T    = the stored integer tables (int8 qT; int16 for _exact), mirrored for p >= 8,
 *       p_ij = the 4 bits of plane i of the row's codes at K-group j (bit t: k = 4j + t),
 *       SQ_g = sum_{j in g} T_j[15]    (the offset plane),
 *     (tmac_wB_fa replaces each plane's sum over j by sum over quads of 4 v - 514)
 *     y = sum_g ((float)isum_g * h_g) * d_g       float, g ascending, from 0, no FMA.
 *
 * ---- Packed layout (LUT-centric, §3.2) ----
 * Rows in blocks of 32 (m_multiple), K in chunks of 16 (4 K-groups = one 64-byte table register
 * holding 4 full 16-entry tables for vpermb).  Weights region, block-major then chunk-major
 * (weight permutation: a tile's reads are sequential): per (block, chunk) b vectors of 64 bytes.
 * Vector u, byte 4d + t: low nibble = the 4-bit pattern of row d of the block, high nibble that of
 * row 16 + d, for K-group 4*chunk + sel(u,t) and bit plane plane(u,t) (tmac_slot below).  So one
 * dword holds 4 lookups of ONE row, which vpdpbusd sums with weights 2^plane, and one load serves
 * two 16-row accumulators (weight interleaving: the nibbles are already where the kernel's
 * shift/mask puts them).  Then the h region (fp32, [block][group][32 rows]) and the o region
 * (int8, [block][group][32 rows]).  Size M*K*b/8 + 5*M*K/128 bytes: b + 0.3125 bits/weight.
 */
#ifndef BB_TMAC_H
#define BB_TMAC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "../kernel.h"

#define TMAC_QG 128       /* weights per scale group (and activations per table scale) */
#define TMAC_RB 32        /* rows per block */
#define TMAC_CHUNK 16     /* activations per chunk: 4 tables of g = 4 */
#define TMAC_TPG (TMAC_QG / 4) /* tables per group: 32 */
/* Row blocks per tile: the SIMD variants load a group's tables once for a tile of this many
 * blocks (avx2, neon, and avx512's int8 tables: 4; avx512's _fa and _exact hold twice the
 * accumulators and tables, so 2).  A slice of fewer rows runs narrower tiles that load the same
 * tables for fewer rows, so the variants state TMAC_RB times it as their m_pass (kernel.h): the
 * engine's decode chunks of 64 rows ran tmac_w2@avx512 as single-block tiles. */
#define TMAC_TB 4
#define TMAC_TB_AVX512_WIDE 2

/* A tile's blocks are tb code streams read in lockstep, a chunk of each in turn, and a decode call
 * is one tile (m_pass), so the SIMD variants prefetch each code line with
 * bb_prefetch_interleaved(line, tile bytes, BB_PREFETCH_L1_BYTES / tb) (common/prefetch.h):
 * further ahead in its own block a prefetch lands in the next block of the same tile, already
 * read.  With the plain stream prefetch tmac_w2@avx512 took 1.53-1.68x a read from DRAM at one
 * thread on the Zen 4 host, 1.20-1.28x so (docs/measurements/2026-12-01-near-prefetch.md). */

typedef enum { TMAC_LUT8 = 0, TMAC_FA, TMAC_EXACT } tmac_mode;

/* Which K-group (0..3 within the chunk) and bit plane byte t of a dword of vector u holds.
 *   b=1: (t, 0)                    b=2: u=0: (t>>1, t&1), u=1: (2+(t>>1), t&1)
 *   b=3: u<2 as b=2, u=2: (t, 2)   b=4: (u, t) */
static inline void tmac_slot(int b, int u, int t, int *sel, int *plane)
{
    if (b == 4) {
        *sel = u;
        *plane = t;
    } else if (b == 1 || u == 2) {
        *sel = t;
        *plane = b - 1;
    } else {
        *sel = 2 * u + (t >> 1);
        *plane = t & 1;
    }
}

/* ---- packed weights ---- */
static inline size_t tmac_wbytes(int m, int k, int b) { return (size_t)m * k / 8 * b; }
static inline size_t tmac_block_wbytes(int k, int b) { return (size_t)TMAC_RB * k / 8 * b; }
static inline const uint8_t *tmac_block_w(const void *w, int k, int b, int blk)
{
    return (const uint8_t *)w + (size_t)blk * tmac_block_wbytes(k, b);
}
static inline const float *tmac_block_h(const void *w, int m, int k, int b, int blk)
{
    return (const float *)((const uint8_t *)w + tmac_wbytes(m, k, b)) + (size_t)blk * (k / TMAC_QG) * TMAC_RB;
}
static inline const int8_t *tmac_block_o(const void *w, int m, int k, int b, int blk)
{
    return (const int8_t *)((const uint8_t *)w + tmac_wbytes(m, k, b) + (size_t)m * (k / TMAC_QG) * 4) +
           (size_t)blk * (k / TMAC_QG) * TMAC_RB;
}

/* ---- prepared activations ----
 * [exact only: the int8 rows of bb_quant_i8_rows, n * bb_i8_row_stride(k)]
 * then per activation row: k/128 group headers {float d; int32 sq;}, padded to 64 bytes, then
 * k/4 mirror-consolidated tables of 8 entries (int8, biased uint8 for _fa, int16 for _exact). */
typedef struct {
    float d;
    int32_t sq;
} tmac_ghead;

static inline size_t tmac_entry_bytes(tmac_mode mode) { return mode == TMAC_EXACT ? 2 : 1; }
static inline size_t tmac_head_bytes(int k) { return ((size_t)(k / TMAC_QG) * sizeof(tmac_ghead) + 63) & ~(size_t)63; }
static inline size_t tmac_col_stride(int k, tmac_mode mode)
{
    return tmac_head_bytes(k) + (((size_t)k / 4 * 8 * tmac_entry_bytes(mode) + 63) & ~(size_t)63);
}
static inline size_t tmac_i8_bytes(int n, int k, tmac_mode mode)
{
    return mode == TMAC_EXACT ? bb_i8_rows_size(n, k) : 0;
}
static inline const tmac_ghead *tmac_col_head(const void *act, int n, int k, tmac_mode mode, int col)
{
    return (const tmac_ghead *)((const uint8_t *)act + tmac_i8_bytes(n, k, mode) + (size_t)col * tmac_col_stride(k, mode));
}
static inline const void *tmac_col_tables(const void *act, int n, int k, tmac_mode mode, int col)
{
    return (const uint8_t *)tmac_col_head(act, n, k, mode, col) + tmac_head_bytes(k);
}
/* Start writing column col of a prepared buffer: zeroed first, so padding bytes are defined. */
static inline tmac_ghead *tmac_col_begin(void *act, int n, int k, tmac_mode mode, int col)
{
    tmac_ghead *head = (tmac_ghead *)tmac_col_head(act, n, k, mode, col);
    memset(head, 0, tmac_col_stride(k, mode));
    return head;
}

/* ---- the twelve kernels' functions: one implementation, instantiated per bit width ----
 * What distinguishes the twelve T-MAC kernels is the bit width b (1 .. 4 bit planes) and the
 * table mode.  Each implementation takes them as arguments: tmac.c's scalar functions (pack,
 * unpack, the reference) as ordinary ints, each SIMD file's matmul as constants of an
 * always-inline function, so that the compiler specialises the inner loops for them.  The
 * kernel interface's function pointers carry no parameter of their own, so the file holding an
 * implementation also instantiates it for each (b, mode): one one-line function per kernel,
 * named for the kernel (bb_tmac_w<b>[_fa|_exact]_<isa>; scripts/insn-table reads these names).
 * The kernel files tmac_w1.c .. tmac_w4.c are descriptors only, pointing at them: the way every
 * parameterised family binds its kernels (docs/kernels.md, "Binding a family's parameters").
 * The packed weights depend on b alone: one packed_size/pack/unpack per width. */
bb_packed_size_fn bb_tmac_w1_packed_size, bb_tmac_w2_packed_size, bb_tmac_w3_packed_size,
    bb_tmac_w4_packed_size;
bb_pack_fn bb_tmac_w1_pack, bb_tmac_w2_pack, bb_tmac_w3_pack, bb_tmac_w4_pack;
bb_unpack_fn bb_tmac_w1_unpack, bb_tmac_w2_unpack, bb_tmac_w3_unpack, bb_tmac_w4_unpack;
/* matmul: the scalar reference (tmac.c) and the SIMD variants (tmac_avx2.c, tmac_avx512.c,
 * tmac_neon.c), for each kernel */
bb_matmul_fn bb_tmac_w1_ref, bb_tmac_w1_fa_ref, bb_tmac_w1_exact_ref, bb_tmac_w2_ref,
    bb_tmac_w2_fa_ref, bb_tmac_w2_exact_ref, bb_tmac_w3_ref, bb_tmac_w3_fa_ref,
    bb_tmac_w3_exact_ref, bb_tmac_w4_ref, bb_tmac_w4_fa_ref, bb_tmac_w4_exact_ref;
bb_matmul_fn bb_tmac_w1_avx2, bb_tmac_w1_fa_avx2, bb_tmac_w1_exact_avx2, bb_tmac_w2_avx2,
    bb_tmac_w2_fa_avx2, bb_tmac_w2_exact_avx2, bb_tmac_w3_avx2, bb_tmac_w3_fa_avx2,
    bb_tmac_w3_exact_avx2, bb_tmac_w4_avx2, bb_tmac_w4_fa_avx2, bb_tmac_w4_exact_avx2;
bb_matmul_fn bb_tmac_w1_avx512, bb_tmac_w1_fa_avx512, bb_tmac_w1_exact_avx512, bb_tmac_w2_avx512,
    bb_tmac_w2_fa_avx512, bb_tmac_w2_exact_avx512, bb_tmac_w3_avx512, bb_tmac_w3_fa_avx512,
    bb_tmac_w3_exact_avx512, bb_tmac_w4_avx512, bb_tmac_w4_fa_avx512, bb_tmac_w4_exact_avx512;
bb_matmul_fn bb_tmac_w1_neon, bb_tmac_w1_fa_neon, bb_tmac_w1_exact_neon, bb_tmac_w2_neon,
    bb_tmac_w2_fa_neon, bb_tmac_w2_exact_neon, bb_tmac_w3_neon, bb_tmac_w3_fa_neon,
    bb_tmac_w3_exact_neon, bb_tmac_w4_neon, bb_tmac_w4_fa_neon, bb_tmac_w4_exact_neon;

/* One group's float tables (mirror half, 8 entries per K-group, fixed order of additions) and
 * their absolute maximum; used by prepare and by the error bound, so both see the same d. */
float bb_tmac_float_tables(const float *x, float *tab);

/* Per-mode prepare/act_size/bound wrappers, shared by the four bit widths (tmac.c; the SIMD
 * prepares of the int8-table modes in tmac_avx2.c / tmac_avx512.c write the same bytes; _exact's
 * tables are integer and cheap, its variants use the scalar prepare; tmac_neon.c likewise). */
size_t tmac_act_size(int n, int k);
size_t tmac_fa_act_size(int n, int k);
size_t tmac_exact_act_size(int n, int k);
void tmac_prepare(const float *x, int n, int k, void *act);
void tmac_fa_prepare(const float *x, int n, int k, void *act);
void tmac_exact_prepare(const float *x, int n, int k, void *act);
void tmac_prepare_avx2(const float *x, int n, int k, void *act);
void tmac_fa_prepare_avx2(const float *x, int n, int k, void *act);
void tmac_prepare_avx512(const float *x, int n, int k, void *act);
void tmac_fa_prepare_avx512(const float *x, int n, int k, void *act);
void tmac_prepare_neon(const float *x, int n, int k, void *act);
void tmac_fa_prepare_neon(const float *x, int n, int k, void *act);
double tmac_error_bound(const float *wdeq_row, const float *x, int k);
double tmac_fa_error_bound(const float *wdeq_row, const float *x, int k);

#endif
