/* Element-wise LUT kernels, shared part: pack / unpack, table construction (prepare), the
 * scalar reference matmul and the _0 error bound.  Layouts and semantics: elut.h. */
#include "elut.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/act_quant.h"
#include "../common/error_bound.h"

/* Weights of table entry i, [TL2?][i][e] (e = 0..2, the fourth byte 0 pads every entry to a
 * 32-bit lane for the SIMD table builders): TL1 per Table 5 (i = 3(a+1) + (b+1)); TL2 per
 * Table 6, the balanced ternary digits of i = 9a + 3b + c.  Unused entries have all-zero
 * digits, so their sum is 0. */
const int8_t elut_digits[2][ELUT_ENTRIES][4] = {
    {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 0}, {0, 1}, {1, -1}, {1, 0}, {1, 1}},
    {{0, 0, 0}, {0, 0, 1}, {0, 1, -1}, {0, 1, 0}, {0, 1, 1}, {1, -1, -1}, {1, -1, 0}, {1, -1, 1},
     {1, 0, -1}, {1, 0, 0}, {1, 0, 1}, {1, 1, -1}, {1, 1, 0}, {1, 1, 1}},
};

const char *elut_shape_error(int m, int k)
{
    (void)m;
    /* int32 sums: |sum| <= 127 * K, and the AVX2 int16 stages are widened every 8 blocks */
    if (k > (1 << 24)) return "K must be at most 16777216 so that the int32 sums cannot overflow";
    return NULL;
}

/* ---- weights ---- */

size_t elut_packed_size(int m, int k, bool tl2)
{
    return elut_wscale_off(m, k, tl2) + 64;
}

int elut_pack(const bb_weights *w, void *dst, bool tl2)
{
    elut_geom g = elut_geometry(w->k, tl2);
    uint8_t *out = dst;
    memset(out, 0, elut_packed_size(w->m, w->k, tl2));
    for (int r = 0; r < w->m; r++) {
        uint8_t *tile = out + (size_t)(r / ELUT_TILE) * g.tile_bytes;
        int rr = r % ELUT_TILE, shift, bit;
        const int8_t *t = w->ternary + (size_t)r * w->k;
        for (int j = 0; j < g.ng3; j++) {
            int v = 9 * t[3 * j] + 3 * t[3 * j + 1] + t[3 * j + 2]; /* Table 6 */
            size_t at = elut_idx_byte(j, rr, &shift);
            tile[at] |= (uint8_t)((v < 0 ? -v : v) << shift);
            if (v < 0) {
                size_t sat = g.sign_off + elut_sign_byte(j, rr, &bit); /* sets bit: call it first */
                tile[sat] |= (uint8_t)(1u << bit);
            }
        }
        for (int j = 0; j < g.ng1; j++) {
            const int8_t *p = t + g.k3 + 2 * j;
            size_t at = elut_idx_byte(j, rr, &shift);
            tile[g.idx1_off + at] |= (uint8_t)((3 * (p[0] + 1) + (p[1] + 1)) << shift); /* Table 5 */
        }
    }
    memcpy(out + elut_wscale_off(w->m, w->k, tl2), &w->ternary_scale, sizeof(float));
    return 0;
}

/* Group j of the TL2 part of tile row rr: index and sign (0 or -1). */
static inline int tl2_lookup_index(const uint8_t *tile, const elut_geom *g, int j, int rr, int *sign)
{
    int shift, bit;
    /* the byte functions set shift/bit: call them before the shifts that read those */
    size_t at = elut_idx_byte(j, rr, &shift), sat = g->sign_off + elut_sign_byte(j, rr, &bit);
    *sign = -((tile[sat] >> bit) & 1);
    return (tile[at] >> shift) & 15;
}

static inline int tl1_lookup_index(const uint8_t *tile, const elut_geom *g, int j, int rr)
{
    int shift;
    size_t at = g->idx1_off + elut_idx_byte(j, rr, &shift); /* sets shift: call it first */
    return (tile[at] >> shift) & 15;
}

void elut_unpack(const void *src, int m, int k, float *dst, bool tl2)
{
    elut_geom g = elut_geometry(k, tl2);
    float s = elut_wscale(src, m, k, tl2);
    for (int r = 0; r < m; r++) {
        const uint8_t *tile = (const uint8_t *)src + (size_t)(r / ELUT_TILE) * g.tile_bytes;
        int rr = r % ELUT_TILE, sign;
        float *d = dst + (size_t)r * k;
        for (int j = 0; j < g.ng3; j++) {
            int idx = tl2_lookup_index(tile, &g, j, rr, &sign), neg = sign ? -1 : 1;
            for (int e = 0; e < 3; e++) d[3 * j + e] = (float)(neg * elut_digits[1][idx][e]) * s;
        }
        for (int j = 0; j < g.ng1; j++) {
            int idx = tl1_lookup_index(tile, &g, j, rr);
            for (int e = 0; e < 2; e++) d[g.k3 + 2 * j + e] = (float)elut_digits[0][idx][e] * s;
        }
    }
}

/* ---- activations: tables ---- */

size_t elut_act_size(int n, int k, elut_kind kind)
{
    return (size_t)n * (bb_i8_row_stride(k) + elut_tab_stride(k, kind));
}

/* The 16 exact sums of one group (Tables 5 and 6, second column times the activations). */
static inline void group_sums(const int8_t *q, bool tl2_group, int16_t sum[ELUT_ENTRIES])
{
    int q2 = tl2_group ? q[2] : 0;
    for (int i = 0; i < ELUT_ENTRIES; i++) {
        const int8_t *d = elut_digits[tl2_group][i];
        sum[i] = (int16_t)(d[0] * q[0] + d[1] * q[1] + d[2] * q2);
    }
}

static inline const int8_t *group_q(const int8_t *q, const elut_geom *g, int j)
{
    return j < g->ng3 ? q + 3 * j : q + g->k3 + 2 * (j - g->ng3);
}

int elut_table_amax(const int8_t *q, const elut_geom *g)
{
    int amax = 0;
    for (int j = 0; j < g->ng3 + g->ng1; j++) {
        const int8_t *p = group_q(q, g, j);
        int a = abs(p[0]) + abs(p[1]) + (j < g->ng3 ? abs(p[2]) : 0);
        if (a > amax) amax = a;
    }
    return amax;
}

float elut_table_step(int amax, float *inv)
{
    *inv = amax ? 127.0f / (float)amax : 0.0f;
    return (float)amax / 127.0f;
}

void elut_tables_ref(const int8_t *q, const elut_geom *g, bool q8, uint8_t *tab, float *d)
{
    int ng = g->ng3 + g->ng1;
    int16_t sum[ELUT_ENTRIES];
    if (!q8) {
        /* _1: exact int16 sums, low bytes in one plane and high bytes in the other */
        uint8_t *lo = tab, *hi = tab + (size_t)ng * ELUT_ENTRIES;
        for (int j = 0; j < ng; j++) {
            group_sums(group_q(q, g, j), j < g->ng3, sum);
            for (int i = 0; i < ELUT_ENTRIES; i++) {
                lo[j * ELUT_ENTRIES + i] = (uint8_t)(sum[i] & 0xff);
                hi[j * ELUT_ENTRIES + i] = (uint8_t)((uint16_t)sum[i] >> 8);
            }
        }
        return;
    }
    /* _0: entries round(T / d), d = A / 127 (one table scale per activation row) */
    float inv;
    *d = elut_table_step(elut_table_amax(q, g), &inv);
    int8_t *t8 = (int8_t *)tab;
    for (int j = 0; j < ng; j++) {
        group_sums(group_q(q, g, j), j < g->ng3, sum);
        for (int i = 0; i < ELUT_ENTRIES; i++) {
            /* round half to even by the 1.5*2^23 trick (what vroundps and AVX-512's conversion
             * with embedded rounding do in the SIMD builders); |sum| <= amax, so |v| <= 127 */
            float v = ((float)sum[i] * inv + 0x1.8p23f) - 0x1.8p23f;
            t8[j * ELUT_ENTRIES + i] = (int8_t)(int32_t)v;
        }
    }
}

void elut_prepare_with(const float *x, int n, int k, void *act, elut_kind kind, elut_quant_fn quant,
                       elut_table_fn build)
{
    quant(x, n, k, act);
    elut_geom g = elut_geometry(k, kind.tl2);
    size_t stride = elut_tab_stride(k, kind);
    size_t used = (size_t)(g.ng3 + g.ng1) * ELUT_ENTRIES * (kind.q8 ? 1 : 2);
    for (int c = 0; c < n; c++) {
        uint8_t *rec = (uint8_t *)elut_tab(act, n, k, kind, c);
        float d = 0;
        memset(rec, 0, ELUT_HEAD);
        memset(rec + ELUT_HEAD + used, 0, stride - ELUT_HEAD - used);
        build(bb_i8_row_q(act, k, c), &g, kind.q8, rec + ELUT_HEAD, &d);
        memcpy(rec, &d, sizeof d);
    }
}

/* ---- reference matmul ---- */

void elut_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                     elut_kind kind)
{
    elut_geom g = elut_geometry(k, kind.tl2);
    int ng = g.ng3 + g.ng1;
    float ws = elut_wscale(w, m, k, kind.tl2);
    for (int c = 0; c < n; c++) {
        const uint8_t *rec = elut_tab(act, n, k, kind, c), *tab = rec + ELUT_HEAD;
        const uint8_t *lo = tab, *hi = tab + (size_t)ng * ELUT_ENTRIES;
        float as = bb_i8_row(act, k, c)->scale, d;
        memcpy(&d, rec, sizeof d);
        for (int r = m0; r < m1; r++) {
            const uint8_t *tile = (const uint8_t *)w + (size_t)(r / ELUT_TILE) * g.tile_bytes;
            int rr = r % ELUT_TILE;
            int32_t sum = 0;
            for (int j = 0; j < ng; j++) {
                int s = 0, idx = j < g.ng3 ? tl2_lookup_index(tile, &g, j, rr, &s)
                                           : tl1_lookup_index(tile, &g, j - g.ng3, rr);
                size_t e = (size_t)j * ELUT_ENTRIES + (size_t)idx;
                if (kind.q8) {
                    int8_t v = (int8_t)lo[e];
                    sum += (int8_t)(s ^ (s + v)); /* eq. (5) */
                } else {
                    int16_t v = (int16_t)(lo[e] | hi[e] << 8); /* recombine the two byte lookups */
                    sum += (int16_t)(s ^ (s + v));               /* eq. (5) */
                }
            }
            y[(size_t)c * m + r] = kind.q8 ? elut_dequant_q8(sum, d, as, ws) : bb_i8_dequant(sum, as, ws);
        }
    }
}

void elut_matmul_tiled(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                       elut_kind kind, elut_tiles_fn tiles)
{
    elut_geom g = elut_geometry(k, kind.tl2);
    float ws = elut_wscale(w, m, k, kind.tl2);
    int32_t isum[ELUT_TP_MAX * ELUT_TILE];
    for (int c = 0; c < n; c++) {
        const uint8_t *rec = elut_tab(act, n, k, kind, c);
        float as = bb_i8_row(act, k, c)->scale, d;
        memcpy(&d, rec, sizeof d);
        /* whole tiles are computed; only the rows of [m0, m1) are written */
        int t1 = (m1 + ELUT_TILE - 1) / ELUT_TILE;
        for (int tile = m0 / ELUT_TILE, tp; tile < t1; tile += tp) {
            tp = tiles(w, &g, rec + ELUT_HEAD, tile, t1 - tile, kind, isum);
            int r0 = tile * ELUT_TILE > m0 ? tile * ELUT_TILE : m0;
            int r1 = (tile + tp) * ELUT_TILE < m1 ? (tile + tp) * ELUT_TILE : m1;
            for (int r = r0; r < r1; r++) {
                int32_t v = isum[r - tile * ELUT_TILE];
                y[(size_t)c * m + r] = kind.q8 ? elut_dequant_q8(v, d, as, ws) : bb_i8_dequant(v, as, ws);
            }
        }
    }
}

/* ---- error bound of the _0 kernels ---- */

/* |y - sum_k w_k x_k| <= (the bound of per-row int8 activations: rounding of x to q, float
 * accumulation) + (table rounding): every lookup of a group with a nonzero weight returns
 * round(T / d) * d instead of T, off by at most d/2 (plus 2^-14 d for the float products that
 * compute T / d), and is scaled by w_scale / act_scale; all-zero groups hit the exact entry 0.
 * d and the number of such lookups are recomputed from x and the row's weights. */
double elut_error_bound(const float *wdeq, const float *x, int k, bool tl2)
{
    static const bb_kernel i8_row = {.name = "elut-i8-row", .act = BB_ACT_I8_ROW};
    double base = bb_error_bound(&i8_row, wdeq, x, k);
    uint8_t *row = malloc(bb_i8_row_stride(k));
    if (!row) return INFINITY;
    bb_quant_i8_rows(x, 1, k, row);
    const int8_t *q = bb_i8_row_q(row, k, 0);
    float as = bb_i8_row(row, k, 0)->scale;
    elut_geom g = elut_geometry(k, tl2);
    int amax = elut_table_amax(q, &g);
    free(row);
    double ws = 0;
    int nonzero = 0;
    for (int j = 0; j < g.ng3 + g.ng1; j++) {
        int at = j < g.ng3 ? 3 * j : g.k3 + 2 * (j - g.ng3), len = j < g.ng3 ? 3 : 2, any = 0;
        for (int e = 0; e < len; e++) {
            ws = fmax(ws, fabs((double)wdeq[at + e]));
            any |= wdeq[at + e] != 0.0f;
        }
        nonzero += any;
    }
    if (as == 0.0f || amax == 0) return base;
    float inv;
    double d = elut_table_step(amax, &inv);
    double table = nonzero * d * (0.5 + 0x1p-14) * ws / as;
    return base + table * (1 + 0x1p-20);
}

/* ---- the four kernels' scalar functions (elut.h): the code above, per kernel ---- */
size_t bb_tl1_packed_size(int m, int k) { return elut_packed_size(m, k, false); }
size_t bb_tl2_packed_size(int m, int k) { return elut_packed_size(m, k, true); }
int bb_tl1_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err, (void)errlen; /* cannot fail */
    return elut_pack(w, dst, false);
}
int bb_tl2_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err, (void)errlen; /* cannot fail */
    return elut_pack(w, dst, true);
}
void bb_tl1_unpack(const void *src, int m, int k, float *dst) { elut_unpack(src, m, k, dst, false); }
void bb_tl2_unpack(const void *src, int m, int k, float *dst) { elut_unpack(src, m, k, dst, true); }
double bb_tl1_error_bound(const float *wdeq_row, const float *x, int k)
{
    return elut_error_bound(wdeq_row, x, k, false);
}
double bb_tl2_error_bound(const float *wdeq_row, const float *x, int k)
{
    return elut_error_bound(wdeq_row, x, k, true);
}
size_t bb_tl1_0_act_size(int n, int k) { return elut_act_size(n, k, elut_tl1_0); }
size_t bb_tl1_1_act_size(int n, int k) { return elut_act_size(n, k, elut_tl1_1); }
size_t bb_tl2_0_act_size(int n, int k) { return elut_act_size(n, k, elut_tl2_0); }
size_t bb_tl2_1_act_size(int n, int k) { return elut_act_size(n, k, elut_tl2_1); }
void bb_tl1_0_prepare(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl1_0, bb_quant_i8_rows, elut_tables_ref);
}
void bb_tl1_1_prepare(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl1_1, bb_quant_i8_rows, elut_tables_ref);
}
void bb_tl2_0_prepare(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl2_0, bb_quant_i8_rows, elut_tables_ref);
}
void bb_tl2_1_prepare(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl2_1, bb_quant_i8_rows, elut_tables_ref);
}
void bb_tl1_0_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_ref(w, act, y, m, k, n, m0, m1, elut_tl1_0);
}
void bb_tl1_1_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_ref(w, act, y, m, k, n, m0, m1, elut_tl1_1);
}
void bb_tl2_0_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_ref(w, act, y, m, k, n, m0, m1, elut_tl2_0);
}
void bb_tl2_1_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_ref(w, act, y, m, k, n, m0, m1, elut_tl2_1);
}
