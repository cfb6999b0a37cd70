/* Element-wise LUT kernels, Arm NEON (Armv8.0 Advanced SIMD): bitnet.cpp's Arm scheme (bitnet.cpp
 * §3 and Table 4: TBL lookups, vqtbl1q_u8).  The 16 bytes of lane L of an index block are the 16
 * rows of group L (low nibbles) and of group 4 + L (high nibbles), so AND 0x0F / USHR 4 and one
 * TBL (vqtbl1q) against that group's 16-entry table give 16 lookups, one lane per row; a block
 * (16 rows x 8 groups) is 4 loads and 8 TBLs (16 for _1), and every lane stays one row from the
 * lookup to the int32 sum, so no transposition is needed.
 *
 * _0: int8 entries, widened and summed into int16 lanes by SADDW / SADDW2 (8 lookups of |x| <= 127
 * per row and block: 32 blocks fit), widened to int32 every 32 blocks.
 * _1: the low-byte lookups (unsigned) are summed by UADDW / UADDW2 into uint16 lanes and the
 * high-byte lookups (signed, -2..1) by ADD into int8 lanes; every 4 blocks the high sums are
 * widened with SSHLL #8 (times 256) and both are added to int32 — the recombination lo + 256 hi of
 * §3.2.1 done once per 4 blocks instead of per lookup (the sum of the int16 entries is the sum of
 * their low bytes plus 256 times the sum of their high bytes).
 * TL2 sign: the 16-byte sign block is spread to bytes by one TBL per mask (byte r takes byte r/2
 * of the mask), CMTST with the bit 4 (r % 2) + L of group L turns it into 0 / -1 bytes s.  _0
 * applies eq. (5) as written, x' = s ^ (s + x) (ADD, EOR).  _1 applies it rearranged,
 * x' = (s ^ x) - s: EOR on both bytes of the entry (the complement of an int16 is the complement
 * of its two bytes; the high byte stays in -2..1), and the -s, one per negative triple, is counted
 * in bytes (SUB) and added with the flush.
 * All sums are exact integers (the bounds above), so results are the scalar reference's bits.
 * Two row tiles (32 rows) share every table register load (LUT-centric tiling, T-MAC §3.2). */
#include <arm_neon.h>
#include <string.h>

#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "elut.h"

#define AI static inline __attribute__((always_inline))

#define TP ELUT_TP_NEON /* row tiles per pass */
_Static_assert(TP <= ELUT_TP_MAX, "elut_matmul_tiled's isum holds ELUT_TP_MAX tiles");

/* Blocks between widenings to int32 (bounds in the header comment). */
AI int widen_every(const bool q8) { return q8 ? 32 : 4; }

/* Per tile: the small accumulators of one widening period, rows 0-7 / 8-15 where two. */
typedef struct {
    int16x8_t s16[2]; /* _0: sums of int8 entries */
    uint16x8_t lo16[2]; /* _1: sums of low bytes */
    int8x16_t hi8;      /* _1: sums of high bytes */
    uint8x16_t neg8;    /* _1 with signs: count of negative lookups */
} period_acc;

AI void period_zero(period_acc *a)
{
    a->s16[0] = a->s16[1] = vdupq_n_s16(0);
    a->lo16[0] = a->lo16[1] = vdupq_n_u16(0);
    a->hi8 = vdupq_n_s8(0);
    a->neg8 = vdupq_n_u8(0);
}

/* acc (rows 0-3, 4-7, 8-11, 12-15) += the period's sums. */
AI void period_widen(const period_acc *a, const bool q8, int32x4_t acc[4])
{
    int16x8_t v[2];
    if (q8) {
        v[0] = a->s16[0];
        v[1] = a->s16[1];
    } else {
        /* 256 hi + count: |hi| <= 2 * 8 * 4, count <= 8 * 4 per row: int16 */
        v[0] = vreinterpretq_s16_u16(vaddw_u8(vreinterpretq_u16_s16(vshll_n_s8(vget_low_s8(a->hi8), 8)),
                                              vget_low_u8(a->neg8)));
        v[1] = vreinterpretq_s16_u16(vaddw_high_u8(vreinterpretq_u16_s16(vshll_high_n_s8(a->hi8, 8)), a->neg8));
        for (int h = 0; h < 2; h++) {
            uint32x4_t l0 = vaddw_u16(vreinterpretq_u32_s32(acc[2 * h]), vget_low_u16(a->lo16[h]));
            uint32x4_t l1 = vaddw_high_u16(vreinterpretq_u32_s32(acc[2 * h + 1]), a->lo16[h]);
            acc[2 * h] = vreinterpretq_s32_u32(l0); /* int32 lanes wrap like the exact sum */
            acc[2 * h + 1] = vreinterpretq_s32_u32(l1);
        }
    }
    for (int h = 0; h < 2; h++) {
        acc[2 * h] = vaddw_s16(acc[2 * h], vget_low_s16(v[h]));
        acc[2 * h + 1] = vaddw_high_s16(acc[2 * h + 1], v[h]);
    }
}

/* One lookup vector x (16 rows, one group) with sign bytes s (0 / -1; all 0 without signs) into
 * the period's sums; for _1 xh is the high-byte lookup. */
AI void add_lookup(period_acc *a, uint8x16_t x, uint8x16_t xh, uint8x16_t s, const bool q8, const bool sign)
{
    if (q8) {
        int8x16_t v = vreinterpretq_s8_u8(x);
        if (sign) v = vreinterpretq_s8_u8(veorq_u8(s, vaddq_u8(s, x))); /* eq. (5) */
        a->s16[0] = vaddw_s8(a->s16[0], vget_low_s8(v));
        a->s16[1] = vaddw_high_s8(a->s16[1], v);
    } else {
        if (sign) {
            x = veorq_u8(x, s);
            xh = veorq_u8(xh, s);
            a->neg8 = vsubq_u8(a->neg8, s);
        }
        a->hi8 = vaddq_s8(a->hi8, vreinterpretq_s8_u8(xh));
        a->lo16[0] = vaddw_u8(a->lo16[0], vget_low_u8(x));
        a->lo16[1] = vaddw_high_u8(a->lo16[1], x);
    }
}

/* nb index blocks (and sign blocks when sign) of tp tiles against tables lo / hi (hi: _1 only). */
AI void blocks(const uint8_t *tile0, size_t tstride, size_t idx_off, size_t sign_off, int nb, const uint8_t *lo,
               const uint8_t *hi, const bool q8, const bool sign, const int tp, int32x4_t acc[TP][4])
{
    static const uint8_t spread_idx[2][16] = {{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7},
                                              {8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15}};
    const uint8x16_t nib = vdupq_n_u8(0x0f);
    const int we = widen_every(q8);
    /* the full near distance in each tile: the shared one (elut_avx512.c) is not measured on Arm */
    const size_t pass = (size_t)tp * tstride, near = BB_PREFETCH_L1_BYTES;
    for (int b0 = 0; b0 < nb; b0 += we) {
        int b1 = nb - b0 < we ? nb : b0 + we;
        period_acc pa[TP];
        for (int t = 0; t < tp; t++) period_zero(&pa[t]);
        for (int b = b0; b < b1; b++) {
            uint8x16_t sp[TP][2]; /* byte r: byte r/2 of mask 0 / mask 1 */
            for (int t = 0; t < tp; t++) {
                const uint8_t *tile = tile0 + (size_t)t * tstride;
                bb_prefetch_interleaved(tile + idx_off + (size_t)b * ELUT_BLOCK, pass, near);
                if (sign) {
                    if ((b & 3) == 0)
                        bb_prefetch_interleaved(tile + sign_off + (size_t)b * ELUT_SIGNS, pass, near);
                    uint8x16_t sb = vld1q_u8(tile + sign_off + (size_t)b * ELUT_SIGNS);
                    sp[t][0] = vqtbl1q_u8(sb, vld1q_u8(spread_idx[0]));
                    sp[t][1] = vqtbl1q_u8(sb, vld1q_u8(spread_idx[1]));
                }
            }
            for (int l = 0; l < 4; l++) {
                /* tables of group l (low nibbles) and 4 + l (high nibbles) of block b */
                size_t to = (size_t)b * 128 + 16 * (size_t)l;
                const uint8x16_t L0 = vld1q_u8(lo + to), L1 = vld1q_u8(lo + to + 64);
                uint8x16_t H0 = L0, H1 = L1; /* _1's high-byte tables */
                if (!q8) {
                    H0 = vld1q_u8(hi + to);
                    H1 = vld1q_u8(hi + to + 64);
                }
                /* sign bit of (group l or 4 + l, row r): bit 4 (r % 2) + l of the spread byte */
                const uint8x16_t bits = vreinterpretq_u8_u16(vdupq_n_u16((uint16_t)((0x1001u << l) & 0xffff)));
                for (int t = 0; t < tp; t++) {
                    const uint8_t *tile = tile0 + (size_t)t * tstride;
                    uint8x16_t v = vld1q_u8(tile + idx_off + (size_t)b * ELUT_BLOCK + 16 * (size_t)l);
                    uint8x16_t i0 = vandq_u8(v, nib), i1 = vshrq_n_u8(v, 4);
                    uint8x16_t s0 = vdupq_n_u8(0), s1 = s0;
                    if (sign) {
                        s0 = vtstq_u8(sp[t][0], bits);
                        s1 = vtstq_u8(sp[t][1], bits);
                    }
                    uint8x16_t h0 = s0, h1 = s0; /* _1's high-byte lookups; unused by _0 */
                    if (!q8) {
                        h0 = vqtbl1q_u8(H0, i0);
                        h1 = vqtbl1q_u8(H1, i1);
                    }
                    add_lookup(&pa[t], vqtbl1q_u8(L0, i0), h0, s0, q8, sign);
                    add_lookup(&pa[t], vqtbl1q_u8(L1, i1), h1, s1, q8, sign);
                }
            }
        }
        for (int t = 0; t < tp; t++) period_widen(&pa[t], q8, acc[t]);
    }
}

AI void tiles(const uint8_t *w, const elut_geom *g, const uint8_t *tab, int tile, const int tp, const bool q8,
              const bool tl2, int32_t *isum)
{
    int32x4_t acc[TP][4];
    for (int t = 0; t < tp; t++)
        for (int i = 0; i < 4; i++) acc[t][i] = vdupq_n_s32(0);
    size_t ng = (size_t)(g->ng3 + g->ng1), t1 = (size_t)g->ng3 * ELUT_ENTRIES;
    const uint8_t *lo = tab, *hi = tab + ng * ELUT_ENTRIES;
    const uint8_t *base = w + (size_t)tile * g->tile_bytes;
    if (tl2) blocks(base, g->tile_bytes, 0, g->sign_off, g->nb3, lo, hi, q8, true, tp, acc);
    blocks(base, g->tile_bytes, g->idx1_off, 0, g->nb1, lo + t1, hi + t1, q8, false, tp, acc);
    for (int t = 0; t < tp; t++)
        for (int i = 0; i < 4; i++) vst1q_s32(isum + t * ELUT_TILE + 4 * i, acc[t][i]);
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

void elut_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1, elut_kind kind)
{
    elut_matmul_tiled(w, act, y, m, k, n, m0, m1, kind, tiles_any);
}

/* A = max over groups of sum |q| (elut_table_amax): 16 triples per LD3 (one register per
 * weight position), 8 pairs per 16-byte load summed by UADDLP; |q| as unsigned bytes (ABS of
 * -128 is 0x80 = 128).  ThreeK / 3 is a multiple of 16 and the TL1 part a multiple of 8 pairs. */
static int table_amax(const int8_t *q, const elut_geom *g)
{
    uint16x8_t mx = vdupq_n_u16(0);
    for (int j = 0; j < g->ng3; j += 16) {
        int8x16x3_t v = vld3q_s8(q + 3 * j);
        uint8x16_t a0 = vreinterpretq_u8_s8(vabsq_s8(v.val[0])), a1 = vreinterpretq_u8_s8(vabsq_s8(v.val[1]));
        uint8x16_t a2 = vreinterpretq_u8_s8(vabsq_s8(v.val[2]));
        mx = vmaxq_u16(mx, vaddw_u8(vaddl_u8(vget_low_u8(a0), vget_low_u8(a1)), vget_low_u8(a2)));
        mx = vmaxq_u16(mx, vaddw_high_u8(vaddl_high_u8(a0, a1), a2));
    }
    for (int j = 0; j < g->ng1; j += 8)
        mx = vmaxq_u16(mx, vpaddlq_u8(vreinterpretq_u8_s8(vabsq_s8(vld1q_s8(q + g->k3 + 2 * j)))));
    return vmaxvq_u16(mx);
}

/* The tables of one activation row (elut_tables_ref's bytes): entry i of a group is
 * sum_e d[i][e] q[e] in int16 lanes (MUL / MLA by the group's activations; LD4 of elut_digits
 * gives the digit vectors), exact (|sum| <= 381).  _1: UZP1 / UZP2 split the 16 int16 sums into
 * their low and high bytes; _0: round(sum * (127 / A)) by SCVTF, FMUL and FCVTNS (ties to even,
 * as the reference's 1.5 * 2^23 addition), narrowed exactly (|value| <= 127). */
void elut_tables_neon(const int8_t *q, const elut_geom *g, bool q8, uint8_t *tab, float *d)
{
    size_t ng = (size_t)(g->ng3 + g->ng1);
    float inv = 0;
    if (q8) *d = elut_table_step(table_amax(q, g), &inv);
    for (int tl2 = 1; tl2 >= 0; tl2--) {
        int n = tl2 ? g->ng3 : g->ng1, len = tl2 ? 3 : 2;
        const int8_t *qp = tl2 ? q : q + g->k3;
        uint8_t *out = tab + (tl2 ? 0 : (size_t)g->ng3 * ELUT_ENTRIES);
        int8x16x4_t dg = vld4q_s8(&elut_digits[tl2][0][0]); /* val[e]: digit e of entries 0..15 */
        int16x8_t dv[3][2];
        for (int e = 0; e < 3; e++) {
            dv[e][0] = vmovl_s8(vget_low_s8(dg.val[e]));
            dv[e][1] = vmovl_high_s8(dg.val[e]);
        }
        for (int j = 0; j < n; j++) {
            const int8_t *p = qp + (size_t)len * j;
            int16x8_t s[2];
            for (int h = 0; h < 2; h++) {
                s[h] = vmulq_n_s16(dv[0][h], p[0]);
                s[h] = vmlaq_n_s16(s[h], dv[1][h], p[1]);
                if (len == 3) s[h] = vmlaq_n_s16(s[h], dv[2][h], p[2]);
            }
            uint8_t *o = out + (size_t)j * ELUT_ENTRIES;
            if (!q8) {
                uint8x16_t b0 = vreinterpretq_u8_s16(s[0]), b1 = vreinterpretq_u8_s16(s[1]);
                vst1q_u8(o, vuzp1q_u8(b0, b1)); /* little endian: even bytes are the low bytes */
                vst1q_u8(o + ng * ELUT_ENTRIES, vuzp2q_u8(b0, b1));
            } else {
                int16x8_t r[2];
                for (int h = 0; h < 2; h++) {
                    float32x4_t f0 = vmulq_n_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(s[h]))), inv);
                    float32x4_t f1 = vmulq_n_f32(vcvtq_f32_s32(vmovl_high_s16(s[h])), inv);
                    r[h] = vcombine_s16(vmovn_s32(vcvtnq_s32_f32(f0)), vmovn_s32(vcvtnq_s32_f32(f1)));
                }
                vst1q_s8((int8_t *)o, vcombine_s8(vmovn_s16(r[0]), vmovn_s16(r[1])));
            }
        }
    }
}

/* ---- the four kernels' neon prepares and matmuls (elut.h): the code above, per kernel ---- */
void bb_tl1_0_prepare_neon(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl1_0, bb_quant_i8_rows_neon, elut_tables_neon);
}
void bb_tl1_1_prepare_neon(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl1_1, bb_quant_i8_rows_neon, elut_tables_neon);
}
void bb_tl2_0_prepare_neon(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl2_0, bb_quant_i8_rows_neon, elut_tables_neon);
}
void bb_tl2_1_prepare_neon(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl2_1, bb_quant_i8_rows_neon, elut_tables_neon);
}
void bb_tl1_0_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_neon(w, act, y, m, k, n, m0, m1, elut_tl1_0);
}
void bb_tl1_1_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_neon(w, act, y, m, k, n, m0, m1, elut_tl1_1);
}
void bb_tl2_0_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_neon(w, act, y, m, k, n, m0, m1, elut_tl2_0);
}
void bb_tl2_1_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_neon(w, act, y, m, k, n, m0, m1, elut_tl2_1);
}
