/* Element-wise LUT kernels, AVX-512 (VBMI + VNNI): one 64-byte index block (16 rows x 8 groups)
 * is transposed with one vpermb so that each 32-bit lane holds one row's four groups, the
 * nibbles are cut out and the table-select bits g << 4 added with one vpternlogd each, and
 * vpermb looks the 64 indices up in a register holding four groups' 16-entry tables at once
 * (VBMI: a 64-byte table, where vpshufb only has 16 bytes per lane).  vpdpbusd with a vector of
 * ones then sums the four groups of each row into its int32 lane — widening and accumulation in
 * one instruction, 16 rows per register.
 *
 * _0: int8 entries, one lookup per group; a triple's sign is eq. (5) in one instruction: the
 * k-register of its sign mask selects the bytes that become 0 - x (= s ^ (s + x) for s = -1).
 * _1: two lookups (low-byte and high-byte tables), accumulated separately and recombined once per
 * row: sum = 256 * sum_hi + sum_lo (§3.2.1).  The high bytes (signed, -2..1) take the sign like
 * the _0 entries; the low bytes are unsigned (0..255, their negation fits no byte type), so their
 * sign is the signed operand of vpdpbusd, +1 or -1 per byte (one masked blend): VNNI makes that
 * multiply free, where eq. (5) on the recombined int16 needs the int16 lanes this layout avoids.
 * LUT-centric tiling (T-MAC, kept by §3.1.2): TP row tiles (ELUT_TP_AVX512, elut.h: 4, 64
 * rows) share every table register load; each tile's index and sign streams are prefetched
 * ahead, the far prefetch one pass ahead and the near one 2 KiB / TP ahead in each tile
 * (bb_prefetch_interleaved, common/prefetch.h: 1.20-1.21x a read from DRAM on Zen 4 at one thread
 * with 2 KiB in each tile, 1.10-1.14x so). */
#include <immintrin.h>
#include <string.h>

#include "../common/act_quant.h"
#include "../common/pack_i8_avx512.h"
#include "../common/prefetch.h"
#include "elut.h"

#define TP ELUT_TP_AVX512 /* row tiles per pass */
_Static_assert(TP <= ELUT_TP_MAX, "elut_matmul_tiled's isum holds ELUT_TP_MAX tiles");

#define R4(r) r, 16 + r, 32 + r, 48 + r
/* byte 4r + g of the transposed block <- byte 16g + r of the stored block (lane g, row r) */
static const uint8_t TRANSPOSE[64] = {R4(0),  R4(1),  R4(2),  R4(3),  R4(4),  R4(5),  R4(6),  R4(7),
                                      R4(8),  R4(9),  R4(10), R4(11), R4(12), R4(13), R4(14), R4(15)};
#undef R4

/* nb index blocks (and sign blocks when sign) of tp tiles against tables lo / hi (hi: _1 only). */
static inline __attribute__((always_inline)) void blocks(const uint8_t *tile0, size_t tstride, size_t idx_off,
                                                         size_t sign_off, int nb, const uint8_t *lo,
                                                         const uint8_t *hi, const bool q8, const bool sign,
                                                         const int tp, __m512i *acc_a, __m512i *acc_b)
{
    const __m512i nib = _mm512_set1_epi8(0x0f), zero = _mm512_setzero_si512();
    const __m512i one = _mm512_set1_epi8(1), minus_one = _mm512_set1_epi8(-1);
    const __m512i sel = _mm512_set1_epi32(0x30201000); /* table g of the register for byte 4r + g */
    const __m512i tr = _mm512_loadu_si512(TRANSPOSE);
    const size_t pass = (size_t)tp * tstride, near = BB_PREFETCH_L1_BYTES / tp; /* prefetch.h */
    for (int b = 0; b < nb; b++) {
        const __m512i L0 = _mm512_loadu_si512(lo + (size_t)b * 128);
        const __m512i L1 = _mm512_loadu_si512(lo + (size_t)b * 128 + 64);
        __m512i H0 = L0, H1 = L1;
        if (!q8) {
            H0 = _mm512_loadu_si512(hi + (size_t)b * 128);
            H1 = _mm512_loadu_si512(hi + (size_t)b * 128 + 64);
        }
        for (int t = 0; t < tp; t++) {
            const uint8_t *tile = tile0 + (size_t)t * tstride;
            bb_prefetch_interleaved(tile + idx_off + (size_t)b * ELUT_BLOCK, pass, near);
            if (sign && (b & 3) == 0)
                bb_prefetch_interleaved(tile + sign_off + (size_t)b * ELUT_SIGNS, pass, near);
            __m512i p = _mm512_permutexvar_epi8(tr, _mm512_loadu_si512(tile + idx_off + (size_t)b * ELUT_BLOCK));
            /* (p & 0x0f) | sel: groups 0-3 from the low nibbles, 4-7 from the high ones */
            __m512i x0 = _mm512_ternarylogic_epi32(p, nib, sel, 0xea);
            __m512i x1 = _mm512_ternarylogic_epi32(_mm512_srli_epi16(p, 4), nib, sel, 0xea);
            __mmask64 k0 = 0, k1 = 0;
            if (sign) {
                const uint8_t *s = tile + sign_off + (size_t)b * ELUT_SIGNS;
                k0 = _load_mask64((__mmask64 *)(uintptr_t)s);
                k1 = _load_mask64((__mmask64 *)(uintptr_t)(s + 8));
            }
            __m512i a0 = _mm512_permutexvar_epi8(x0, L0), a1 = _mm512_permutexvar_epi8(x1, L1);
            if (q8) {
                if (sign) {
                    a0 = _mm512_mask_sub_epi8(a0, k0, zero, a0);
                    a1 = _mm512_mask_sub_epi8(a1, k1, zero, a1);
                }
                acc_a[t] = _mm512_dpbusd_epi32(acc_a[t], one, a0);
                acc_a[t] = _mm512_dpbusd_epi32(acc_a[t], one, a1);
            } else {
                __m512i h0 = _mm512_permutexvar_epi8(x0, H0), h1 = _mm512_permutexvar_epi8(x1, H1);
                __m512i s0 = one, s1 = one;
                if (sign) {
                    h0 = _mm512_mask_sub_epi8(h0, k0, zero, h0);
                    h1 = _mm512_mask_sub_epi8(h1, k1, zero, h1);
                    s0 = _mm512_mask_blend_epi8(k0, one, minus_one);
                    s1 = _mm512_mask_blend_epi8(k1, one, minus_one);
                }
                acc_a[t] = _mm512_dpbusd_epi32(acc_a[t], a0, s0); /* low bytes (unsigned) x sign */
                acc_a[t] = _mm512_dpbusd_epi32(acc_a[t], a1, s1);
                acc_b[t] = _mm512_dpbusd_epi32(acc_b[t], one, h0); /* signed high bytes */
                acc_b[t] = _mm512_dpbusd_epi32(acc_b[t], one, h1);
            }
        }
    }
}

/* Exact integer sums of the 16*tp rows of tiles [tile, tile + tp) for one activation row. */
static inline __attribute__((always_inline)) void tiles(const uint8_t *w, const elut_geom *g, const uint8_t *tab,
                                                        int tile, const int tp,
                                                        const bool q8, const bool tl2, int32_t *isum)
{
    __m512i acc_a[TP], acc_b[TP];
    for (int t = 0; t < tp; t++) acc_a[t] = acc_b[t] = _mm512_setzero_si512();
    size_t ng = (size_t)(g->ng3 + g->ng1), t1 = (size_t)g->ng3 * ELUT_ENTRIES;
    const uint8_t *lo = tab, *hi = tab + ng * ELUT_ENTRIES;
    const uint8_t *base = w + (size_t)tile * g->tile_bytes;
    if (tl2) blocks(base, g->tile_bytes, 0, g->sign_off, g->nb3, lo, hi, q8, true, tp, acc_a, acc_b);
    blocks(base, g->tile_bytes, g->idx1_off, 0, g->nb1, lo + t1, hi + t1, q8, false, tp, acc_a, acc_b);
    for (int t = 0; t < tp; t++) {
        __m512i s = q8 ? acc_a[t] : _mm512_add_epi32(acc_a[t], _mm512_slli_epi32(acc_b[t], 8));
        _mm512_storeu_si512(isum + t * ELUT_TILE, s);
    }
}

/* elut_tiles_fn: TP tiles per pass where there are as many, else 1. */
static int tiles_any(const uint8_t *w, const elut_geom *g, const uint8_t *tab, int tile, int left, elut_kind kind,
                     int32_t *isum)
{
    if (left < TP) {
        ELUT_TILES_KIND(tiles, 1);
        return 1;
    }
    ELUT_TILES_KIND(tiles, TP);
    return TP;
}

void elut_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                        elut_kind kind)
{
    elut_matmul_tiled(w, act, y, m, k, n, m0, m1, kind, tiles_any);
}

/* A = max over groups of sum |q| (elut_table_amax), 16 groups per step: the group's bytes moved
 * to one 32-bit lane by vpermb (zeros elsewhere), summed by vpdpbusd with ones. */
static int table_amax(const int8_t *q, const elut_geom *g)
{
    const __m512i ones = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
    __m512i mx = zero;
    for (int tl2 = 0; tl2 < 2; tl2++) {
        int n = tl2 ? g->ng3 : g->ng1, len = tl2 ? 3 : 2;
        const int8_t *qp = tl2 ? q : q + g->k3;
        uint8_t gather[64];
        for (int i = 0; i < 64; i++) gather[i] = (uint8_t)(len * (i / 4) + i % 4);
        const __m512i idx = _mm512_loadu_si512(gather);
        const __mmask64 keep = tl2 ? 0x7777777777777777ull : 0x3333333333333333ull;
        for (int j = 0; j < n; j += 16) {
            int cnt = n - j < 16 ? n - j : 16;
            __mmask64 in = cnt * len == 64 ? ~0ull : (1ull << (cnt * len)) - 1;
            __mmask64 out = cnt == 16 ? keep : keep & ((1ull << (4 * cnt)) - 1);
            __m512i v = _mm512_abs_epi8(_mm512_maskz_loadu_epi8(in, qp + (size_t)len * j));
            v = _mm512_maskz_permutexvar_epi8(out, idx, v);
            mx = _mm512_max_epi32(mx, _mm512_dpbusd_epi32(zero, v, ones));
        }
    }
    return _mm512_reduce_max_epi32(mx);
}

/* Group j's 16 int32 sums: entry i is sum_e d[i][e] q[e], one vpdpbusd — the digits as the
 * signed operand, q + 128 as the unsigned one, 128 * sum_e d[i][e] taken off by the
 * accumulator's start value. */
static inline __attribute__((always_inline)) __m512i group_sums(const int8_t *qp, int j, int n, int len,
                                                                __m512i start, __m512i dig)
{
    const __m512i bias = _mm512_set1_epi8((char)0x80);
    __m512i a = _mm512_xor_si512(_mm512_set1_epi32(elut_group_bytes(qp + len * j, j + 1 == n, len)), bias);
    return _mm512_dpbusd_epi32(start, a, dig);
}

/* _0's entries of the sums t: round(t * inv), half to even (the rounding is the instruction's
 * own, embedded: the reference's bits whatever MXCSR holds); |t| <= A, so within +-127. */
static inline __attribute__((always_inline)) __m512i q8_entries(__m512i t, __m512 vinv)
{
    return _mm512_cvt_roundps_epi32(_mm512_mul_ps(_mm512_cvtepi32_ps(t), vinv),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* The tables of one activation row (elut_tables_ref's bytes).  _0 takes four groups a step and
 * packs their 64 entries in order into one store (pack_i8_avx512.h). */
void elut_tables_avx512(const int8_t *q, const elut_geom *g, bool q8, uint8_t *tab, float *d)
{
    size_t ng = (size_t)(g->ng3 + g->ng1);
    const __m512i bias = _mm512_set1_epi8((char)0x80), zero = _mm512_setzero_si512();
    float inv = 0;
    if (q8) *d = elut_table_step(table_amax(q, g), &inv);
    const __m512 vinv = _mm512_set1_ps(inv);
    for (int tl2 = 1; tl2 >= 0; tl2--) {
        int n = tl2 ? g->ng3 : g->ng1, len = tl2 ? 3 : 2, j = 0;
        const int8_t *qp = tl2 ? q : q + g->k3;
        uint8_t *out = tab + (tl2 ? 0 : (size_t)g->ng3 * ELUT_ENTRIES);
        const __m512i dig = _mm512_loadu_si512(elut_digits[tl2]);
        const __m512i start = _mm512_sub_epi32(zero, _mm512_dpbusd_epi32(zero, bias, dig));
        if (q8)
            for (; j + 4 <= n; j += 4) {
                __m512i e0 = q8_entries(group_sums(qp, j, n, len, start, dig), vinv);
                __m512i e1 = q8_entries(group_sums(qp, j + 1, n, len, start, dig), vinv);
                __m512i e2 = q8_entries(group_sums(qp, j + 2, n, len, start, dig), vinv);
                __m512i e3 = q8_entries(group_sums(qp, j + 3, n, len, start, dig), vinv);
                _mm512_storeu_si512(out + (size_t)j * ELUT_ENTRIES, bb_pack_i8x64(e0, e1, e2, e3));
            }
        for (; j < n; j++) {
            __m512i t = group_sums(qp, j, n, len, start, dig);
            uint8_t *o = out + (size_t)j * ELUT_ENTRIES;
            if (!q8) {
                _mm_storeu_si128((__m128i *)o, _mm512_cvtepi32_epi8(t));
                _mm_storeu_si128((__m128i *)(o + ng * ELUT_ENTRIES), _mm512_cvtepi32_epi8(_mm512_srai_epi32(t, 8)));
            } else {
                _mm_storeu_si128((__m128i *)o, _mm512_cvtepi32_epi8(q8_entries(t, vinv)));
            }
        }
    }
}

/* ---- the four kernels' avx512 prepares and matmuls (elut.h): the code above, per kernel ---- */
void bb_tl1_0_prepare_avx512(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl1_0, bb_quant_i8_rows_avx512, elut_tables_avx512);
}
void bb_tl1_1_prepare_avx512(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl1_1, bb_quant_i8_rows_avx512, elut_tables_avx512);
}
void bb_tl2_0_prepare_avx512(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl2_0, bb_quant_i8_rows_avx512, elut_tables_avx512);
}
void bb_tl2_1_prepare_avx512(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl2_1, bb_quant_i8_rows_avx512, elut_tables_avx512);
}
void bb_tl1_0_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_avx512(w, act, y, m, k, n, m0, m1, elut_tl1_0);
}
void bb_tl1_1_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_avx512(w, act, y, m, k, n, m0, m1, elut_tl1_1);
}
void bb_tl2_0_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_avx512(w, act, y, m, k, n, m0, m1, elut_tl2_0);
}
void bb_tl2_1_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_avx512(w, act, y, m, k, n, m0, m1, elut_tl2_1);
}
