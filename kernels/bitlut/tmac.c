/* T-MAC, scalar part shared by tmac_w1 .. tmac_w4: the quantizer and the bit-plane
 * packing (offline), the table construction with mirror consolidation and table quantization
 * (online, prepare), the scalar reference matmul that defines every variant's exact result, and
 * the error bounds of the lossy configurations.  Layout and semantics: tmac.h. */
#include "tmac.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* nearbyint (round half to even, default rounding mode) for |v| < 2^22, without a libm call:
 * adding 1.5 * 2^23 leaves an ulp of 1, so the addition itself rounds; the subtraction is exact. */
static inline float round_even(float v)
{
    const float m = 0x1.8p23f; /* (v + m) - m is not folded: no -ffast-math in this project */
    return (v + m) - m;
}

/* ------------------------------------------------------------------------------------------ */
/* Offline: quantizer and packing                                                              */
/* ------------------------------------------------------------------------------------------ */

static size_t packed_size(int b, int m, int k)
{
    return tmac_wbytes(m, k, b) + (size_t)m * (k / TMAC_QG) * 5;
}

/* Codes of the grid (z2, s = 2 h) for a group, q = clamp(nearbyint(w / s + z2/2), 0, L), written to
 * q, with c = 2q - z2 in cf (as float, exact), and what choosing among grids needs of them: *cmax =
 * max |c| (the largest dequantized magnitude is h * cmax: rounding is monotonic) and *scc = sum c^2.
 * Returns whether any code differs from q's previous content.  The quantizer runs this up to
 * (2L + 1) (1 + TMAC_LS_STEPS) times per group: the loop is written so that it vectorizes. */
static int fit_codes(const float *restrict w, int L, int z2, float s, uint8_t *restrict q, float *restrict cf,
                     int *cmax, int32_t *scc)
{
    const float z = 0.5f * (float)z2, Lf = (float)L, z2f = (float)z2;
    int changed = 0, cm = 0;
    int32_t ss = 0;
    for (int i = 0; i < TMAC_QG; i++) {
        float v = w[i] / s + z; /* clamped first: rounding is monotonic, so this is clamp(round) */
        v = v > 0.0f ? v : 0.0f; /* the forms of maxss / minss */
        v = v < Lf ? v : Lf;
        v = round_even(v);
        int code = (int)v, c = 2 * code - z2;
        changed |= code != q[i];
        q[i] = (uint8_t)code;
        cf[i] = 2.0f * v - z2f;
        cm = cm > abs(c) ? cm : abs(c);
        ss += c * c;
    }
    *cmax = cm;
    *scc = ss;
    return changed;
}

enum { FIT_LANES = 8 }; /* independent partial sums, combined in lane order: vectorizable, deterministic */

/* Sum of squared errors (w - h c)^2 in double: 0 exactly when every weight is on the grid. */
static double grid_sse(const float *restrict w, float h, const float *restrict cf)
{
    double acc[FIT_LANES] = {0};
    for (int i = 0; i < TMAC_QG; i += FIT_LANES)
        for (int l = 0; l < FIT_LANES; l++) {
            double e = (double)w[i + l] - (double)(h * cf[i + l]);
            acc[l] += e * e;
        }
    for (int l = 1; l < FIT_LANES; l++) acc[0] += acc[l];
    return acc[0];
}

/* sum w c in double (with sum c^2: the least-squares scale of the codes). */
static double grid_swc(const float *restrict w, const float *restrict cf)
{
    double acc[FIT_LANES] = {0};
    for (int i = 0; i < TMAC_QG; i += FIT_LANES)
        for (int l = 0; l < FIT_LANES; l++) acc[l] += (double)w[i + l] * (double)cf[i + l];
    for (int l = 1; l < FIT_LANES; l++) acc[0] += acc[l];
    return acc[0];
}

/* Least-squares refinements per zero point after the covering scale: the scale that minimizes the
 * error for the current codes, then the codes re-rounded on the new grid.  Neither half can increase
 * the error (in exact arithmetic), so the covering scale's error is an upper bound; 4 steps take
 * most of the gain on Gaussian groups (measured in tests/test_tmac.c) at about 3x the covering
 * quantizer's cost. */
#define TMAC_LS_STEPS 4

/* One row's group of 128 weights → codes q, half-scale h, offset o (see tmac.h). */
static void quantize_group(const float *w, int b, uint8_t *q, float *h_out, int *o_out)
{
    const int L = (1 << b) - 1;
    float mx = -INFINITY, mn = INFINITY;
    for (int i = 0; i < TMAC_QG; i++) {
        mx = fmaxf(mx, w[i]);
        mn = fminf(mn, w[i]);
    }
    memset(q, 0, TMAC_QG); /* all zero (or not finite: no candidate wins): h = 0 */
    *h_out = 0.0f;
    *o_out = 0;
    if (mx == 0.0f && mn == 0.0f) return;
    double best = INFINITY;
    uint8_t cand[TMAC_QG];
    float cf[TMAC_QG];
    for (int z2 = 0; z2 <= 2 * L; z2++) {
        float z = 0.5f * (float)z2, s = 0.0f;
        if (mx > 0.0f) {
            if (z2 == 2 * L) continue; /* no positive code */
            s = fmaxf(s, mx / ((float)L - z));
        }
        if (mn < 0.0f) {
            if (z2 == 0) continue; /* no negative code */
            s = fmaxf(s, -mn / z);
        }
        float h = 0.5f * s;
        if (!(h > 0.0f) || !isfinite(h)) continue;
        const int o = L - z2;
        int cmax;
        int32_t scc;
        fit_codes(w, L, z2, s, cand, cf, &cmax, &scc);
        for (int step = 0;; step++) {
            /* the grid may reach at most twice the largest dequantized magnitude (bound, tmac.h),
             * checked for every state, as refinement changes the codes; the symmetric grid z2 = L
             * always reaches exactly the largest magnitude */
            if (z2 == L || h * (float)(L + abs(o)) <= 2.0f * (h * (float)cmax)) {
                double sse = grid_sse(w, h, cf);
                if (sse < best) {
                    best = sse;
                    memcpy(q, cand, TMAC_QG);
                    *h_out = h;
                    *o_out = o;
                }
            }
            if (step == TMAC_LS_STEPS || scc == 0) break;
            float hn = (float)(grid_swc(w, cf) / (double)scc);
            if (!(hn > 0.0f) || !isfinite(2.0f * hn) || hn == h) break;
            h = hn;
            s = 2.0f * hn;
            /* unchanged codes: (h, codes) is a fixed point, the last state of this z2 */
            if (!fit_codes(w, L, z2, s, cand, cf, &cmax, &scc)) step = TMAC_LS_STEPS - 1;
        }
    }
}

/* (sel, plane) → u*4 + t, the inverse of tmac_slot. */
static void slot_inverse(int b, int inv[4][4])
{
    for (int u = 0; u < b; u++)
        for (int t = 0; t < 4; t++) {
            int sel, plane;
            tmac_slot(b, u, t, &sel, &plane);
            inv[sel][plane] = u * 4 + t;
        }
}

/* Byte offset inside a block's weights, and nibble shift, of row rr's pattern for K-group j and
 * bit plane i. */
static inline size_t nibble_at(const int inv[4][4], int b, int rr, int j, int i, int *shift)
{
    int ut = inv[j % 4][i];
    *shift = rr < 16 ? 0 : 4;
    return (size_t)(j / 4) * 64 * b + (size_t)(ut / 4) * 64 + (size_t)4 * (rr % 16) + (size_t)(ut % 4);
}

static int pack(int b, const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err, (void)errlen; /* cannot fail */
    const int m = w->m, k = w->k, G = k / TMAC_QG;
    int inv[4][4];
    slot_inverse(b, inv);
    memset(dst, 0, tmac_wbytes(m, k, b));
    uint8_t q[TMAC_QG];
    for (int r = 0; r < m; r++) {
        int blk = r / TMAC_RB, rr = r % TMAC_RB;
        uint8_t *wb = (uint8_t *)dst + (size_t)blk * tmac_block_wbytes(k, b);
        float *hb = (float *)tmac_block_h(dst, m, k, b, blk);
        int8_t *ob = (int8_t *)tmac_block_o(dst, m, k, b, blk);
        for (int g = 0; g < G; g++) {
            float h = 0.0f; /* always set by quantize_group; initialized for the compiler */
            int o = 0;
            quantize_group(w->f32 + (size_t)r * k + (size_t)g * TMAC_QG, b, q, &h, &o);
            hb[g * TMAC_RB + rr] = h;
            ob[g * TMAC_RB + rr] = (int8_t)o;
            for (int jj = 0; jj < TMAC_TPG; jj++) {
                int j = g * TMAC_TPG + jj;
                for (int i = 0; i < b; i++) {
                    int p = 0, shift;
                    for (int t = 0; t < 4; t++) p |= ((q[4 * jj + t] >> i) & 1) << t;
                    size_t at = nibble_at(inv, b, rr, j, i, &shift); /* sets shift: sequence it first */
                    wb[at] |= (uint8_t)(p << shift);
                }
            }
        }
    }
    return 0;
}

/* The 4-bit pattern of plane i of row r at K-group j. */
static inline int pattern(const void *w, const int inv[4][4], int k, int b, int r, int j, int i)
{
    int shift;
    const uint8_t *wb = tmac_block_w(w, k, b, r / TMAC_RB);
    size_t at = nibble_at(inv, b, r % TMAC_RB, j, i, &shift); /* sets shift: call it first */
    return (wb[at] >> shift) & 15;
}

static void unpack(int b, const void *src, int m, int k, float *dst)
{
    const int L = (1 << b) - 1;
    int inv[4][4];
    slot_inverse(b, inv);
    for (int r = 0; r < m; r++) {
        const float *hb = tmac_block_h(src, m, k, b, r / TMAC_RB);
        const int8_t *ob = tmac_block_o(src, m, k, b, r / TMAC_RB);
        for (int j = 0; j < k / 4; j++) {
            int g = j / TMAC_TPG;
            float h = hb[g * TMAC_RB + r % TMAC_RB];
            int o = ob[g * TMAC_RB + r % TMAC_RB];
            int q[4] = {0, 0, 0, 0};
            for (int i = 0; i < b; i++) {
                int p = pattern(src, inv, k, b, r, j, i);
                for (int t = 0; t < 4; t++) q[t] |= ((p >> t) & 1) << i;
            }
            for (int t = 0; t < 4; t++) /* c = 2q - z2 = 2q - L + o */
                dst[(size_t)r * k + 4 * j + t] = h * (float)(2 * q[t] - L + o);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Online: tables                                                                              */
/* ------------------------------------------------------------------------------------------ */

float bb_tmac_float_tables(const float *x, float *tab)
{
    float amax = 0.0f;
    for (int j = 0; j < TMAC_TPG; j++) {
        const float *xj = x + 4 * j;
        for (int p = 0; p < 8; p++) { /* bit 3 clear: the 4th activation enters negated */
            float a = ((p & 1) ? xj[0] : -xj[0]) + ((p & 2) ? xj[1] : -xj[1]);
            a = a + ((p & 4) ? xj[2] : -xj[2]);
            a = a - xj[3];
            tab[8 * j + p] = a;
            amax = fmaxf(amax, fabsf(a));
        }
    }
    return amax;
}

size_t tmac_act_size(int n, int k) { return (size_t)n * tmac_col_stride(k, TMAC_LUT8); }
size_t tmac_fa_act_size(int n, int k) { return (size_t)n * tmac_col_stride(k, TMAC_FA); }
size_t tmac_exact_act_size(int n, int k)
{
    return tmac_i8_bytes(n, k, TMAC_EXACT) + (size_t)n * tmac_col_stride(k, TMAC_EXACT);
}

/* int8 table quantization of one group (§3.3): returns SQ = sum_j qT_j[15]. */
static int32_t quantize_tables(const float *tab, float amax, int8_t *qt, tmac_ghead *head)
{
    int32_t sq = 0;
    float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    for (int e = 0; e < 8 * TMAC_TPG; e++) {
        float v = tab[e] * inv; /* |v| <= 127 (1 + 2^-22) */
        v = v > 127.0f ? 127.0f : (v < -127.0f ? -127.0f : v);
        qt[e] = (int8_t)round_even(v);
        if (e % 8 == 0) sq -= qt[e]; /* T[15] = -T[0] */
    }
    head->d = amax / 127.0f;
    head->sq = sq;
    return sq;
}

static void prepare_lut8(const float *x, int n, int k, void *act, tmac_mode mode)
{
    float tab[8 * TMAC_TPG];
    for (int c = 0; c < n; c++) {
        tmac_ghead *head = tmac_col_begin(act, n, k, mode, c);
        int8_t *qt = (int8_t *)tmac_col_tables(act, n, k, mode, c);
        for (int g = 0; g < k / TMAC_QG; g++) {
            const float *xg = x + (size_t)c * k + (size_t)g * TMAC_QG;
            float amax = bb_tmac_float_tables(xg, tab);
            int8_t *qg = qt + (size_t)g * 8 * TMAC_TPG;
            quantize_tables(tab, amax, qg, &head[g]);
            if (mode == TMAC_FA) /* stored biased, u = qT + 128: the mirror is then -u mod 256 */
                for (int e = 0; e < 8 * TMAC_TPG; e++) qg[e] = (int8_t)(uint8_t)(qg[e] + 128);
        }
    }
}

void tmac_prepare(const float *x, int n, int k, void *act) { prepare_lut8(x, n, k, act, TMAC_LUT8); }
void tmac_fa_prepare(const float *x, int n, int k, void *act) { prepare_lut8(x, n, k, act, TMAC_FA); }

/* Exact tables from the int8 row of bb_quant_i8_rows (already in act). */
static void exact_tables(void *act, int n, int k, int c)
{
    const bb_i8_row_head *rh = bb_i8_row(act, k, c);
    const int8_t *q = bb_i8_row_q(act, k, c);
    tmac_ghead *head = tmac_col_begin(act, n, k, TMAC_EXACT, c);
    int16_t *tab = (int16_t *)tmac_col_tables(act, n, k, TMAC_EXACT, c);
    float d = rh->scale != 0.0f ? 1.0f / rh->scale : 0.0f;
    for (int g = 0; g < k / TMAC_QG; g++) {
        int32_t sq = 0;
        for (int i = 0; i < TMAC_QG; i++) sq += q[g * TMAC_QG + i];
        head[g].d = d;
        head[g].sq = sq;
    }
    for (int j = 0; j < k / 4; j++)
        for (int p = 0; p < 8; p++) {
            const int8_t *qj = q + 4 * j;
            int v = ((p & 1) ? qj[0] : -qj[0]) + ((p & 2) ? qj[1] : -qj[1]) + ((p & 4) ? qj[2] : -qj[2]) - qj[3];
            tab[8 * j + p] = (int16_t)v;
        }
}

void tmac_exact_prepare(const float *x, int n, int k, void *act)
{
    bb_quant_i8_rows(x, n, k, act);
    for (int c = 0; c < n; c++) exact_tables(act, n, k, c);
}

/* ------------------------------------------------------------------------------------------ */
/* Reference matmul                                                                            */
/* ------------------------------------------------------------------------------------------ */

/* Entry p of table j, rebuilt by mirror consolidation: T[p] = -T[p ^ 15] for p >= 8.  For _fa the
 * biased byte u = qT + 128 (its mirror is 256 - u). */
static inline int lookup(const void *tab, tmac_mode mode, int j, int p)
{
    int neg = p >= 8;
    int e = 8 * j + (neg ? p ^ 15 : p);
    switch (mode) {
    case TMAC_EXACT: {
        int v = ((const int16_t *)tab)[e];
        return neg ? -v : v;
    }
    case TMAC_FA: {
        int u = ((const uint8_t *)tab)[e];
        return neg ? 256 - u : u;
    }
    default: {
        int v = ((const int8_t *)tab)[e];
        return neg ? -v : v;
    }
    }
}

static inline int avg_u8(int a, int b) { return (a + b + 1) >> 1; } /* vpavgb */

static void matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1, int b,
                       tmac_mode mode)
{
    const int G = k / TMAC_QG;
    int inv[4][4];
    slot_inverse(b, inv);
    for (int c = 0; c < n; c++) {
        const tmac_ghead *head = tmac_col_head(act, n, k, mode, c);
        const void *tab = tmac_col_tables(act, n, k, mode, c);
        for (int r = m0; r < m1; r++) {
            const float *hb = tmac_block_h(w, m, k, b, r / TMAC_RB);
            const int8_t *ob = tmac_block_o(w, m, k, b, r / TMAC_RB);
            float acc = 0.0f;
            for (int g = 0; g < G; g++) {
                int32_t isum = 0;
                for (int i = 0; i < b; i++) {
                    int32_t plane = 0;
                    if (mode == TMAC_FA) {
                        /* K-groups j, j+4, j+8, j+12 (same slot of 4 consecutive chunks) */
                        for (int quad = 0; quad < TMAC_TPG / 16; quad++)
                            for (int sel = 0; sel < 4; sel++) {
                                int u[4];
                                for (int cc = 0; cc < 4; cc++) {
                                    int j = g * TMAC_TPG + 16 * quad + 4 * cc + sel;
                                    u[cc] = lookup(tab, mode, j, pattern(w, inv, k, b, r, j, i));
                                }
                                int v = avg_u8(avg_u8(u[0], u[1]), avg_u8(u[2], u[3]));
                                plane += 4 * v - 514;
                            }
                    } else {
                        for (int jj = 0; jj < TMAC_TPG; jj++) {
                            int j = g * TMAC_TPG + jj;
                            plane += lookup(tab, mode, j, pattern(w, inv, k, b, r, j, i));
                        }
                    }
                    isum += plane * (1 << i);
                }
                isum += ob[g * TMAC_RB + r % TMAC_RB] * head[g].sq;
                float t = (float)isum * hb[g * TMAC_RB + r % TMAC_RB];
                t = t * head[g].d;
                acc += t;
            }
            y[(size_t)c * m + r] = acc;
        }
    }
}

/* ---- the twelve kernels' scalar functions (tmac.h): the code above for each b and mode ---- */
size_t bb_tmac_w1_packed_size(int m, int k) { return packed_size(1, m, k); }
size_t bb_tmac_w2_packed_size(int m, int k) { return packed_size(2, m, k); }
size_t bb_tmac_w3_packed_size(int m, int k) { return packed_size(3, m, k); }
size_t bb_tmac_w4_packed_size(int m, int k) { return packed_size(4, m, k); }
int bb_tmac_w1_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    return pack(1, w, dst, err, errlen);
}
int bb_tmac_w2_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    return pack(2, w, dst, err, errlen);
}
int bb_tmac_w3_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    return pack(3, w, dst, err, errlen);
}
int bb_tmac_w4_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    return pack(4, w, dst, err, errlen);
}
void bb_tmac_w1_unpack(const void *src, int m, int k, float *dst) { unpack(1, src, m, k, dst); }
void bb_tmac_w2_unpack(const void *src, int m, int k, float *dst) { unpack(2, src, m, k, dst); }
void bb_tmac_w3_unpack(const void *src, int m, int k, float *dst) { unpack(3, src, m, k, dst); }
void bb_tmac_w4_unpack(const void *src, int m, int k, float *dst) { unpack(4, src, m, k, dst); }
void bb_tmac_w1_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 1, TMAC_LUT8);
}
void bb_tmac_w1_fa_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 1, TMAC_FA);
}
void bb_tmac_w1_exact_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 1, TMAC_EXACT);
}
void bb_tmac_w2_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 2, TMAC_LUT8);
}
void bb_tmac_w2_fa_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 2, TMAC_FA);
}
void bb_tmac_w2_exact_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 2, TMAC_EXACT);
}
void bb_tmac_w3_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 3, TMAC_LUT8);
}
void bb_tmac_w3_fa_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 3, TMAC_FA);
}
void bb_tmac_w3_exact_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 3, TMAC_EXACT);
}
void bb_tmac_w4_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 4, TMAC_LUT8);
}
void bb_tmac_w4_fa_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 4, TMAC_FA);
}
void bb_tmac_w4_exact_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    matmul_ref(w, a, y, m, k, n, m0, m1, 4, TMAC_EXACT);
}

/* ------------------------------------------------------------------------------------------ */
/* Error bounds of the lossy configurations (BB_ACT_CUSTOM)                                    */
/* ------------------------------------------------------------------------------------------ */

/* Per group g with table scale d_g (recomputed from x exactly as prepare does) and largest
 * dequantized weight magnitude A_g:
 *   each lookup is off by at most d_g/2 (rounding to the int8 grid; the float rounding of T,
 *   127/amax and amax/127 adds < 1e-4 d_g, covered by the factor 1 + 2^-9);
 *   a row's group does 32 lookups per plane (weight h 2^i) and the offset plane (weight h |o|):
 *   32 (d/2) h (L + |o|), and the quantizer guarantees h (L + |o|) <= 2 A_g      → 32 d A;
 *   fast aggregation adds, per plane, sel and quad (4 lookups), |4v - 514 - sum| <= 2:
 *   2 * 4 * 2 * sum_i 2^i h = 16 d h L <= 32 d A                                 → +32 d A;
 *   the float part (one conversion, two products per group, K/128 sums) stays within
 *   (K/128 + 4) 2^-23 of sum |w x| plus the table error. */
static double bound(const float *w, const float *x, int k, double per_group)
{
    float tab[8 * TMAC_TPG];
    double table_err = 0, sum_abs = 0;
    for (int g = 0; g < k / TMAC_QG; g++) {
        float amax = bb_tmac_float_tables(x + (size_t)g * TMAC_QG, tab);
        double a = 0;
        for (int i = g * TMAC_QG; i < (g + 1) * TMAC_QG; i++) {
            a = fmax(a, fabs((double)w[i]));
            sum_abs += fabs((double)w[i] * x[i]);
        }
        table_err += per_group * (double)(amax / 127.0f) * a * (1 + 0x1p-9);
    }
    return table_err + (k / TMAC_QG + 4) * 0x1p-23 * (sum_abs + table_err) + 1e-30;
}

double tmac_error_bound(const float *w, const float *x, int k) { return bound(w, x, k, 32.0); }
double tmac_fa_error_bound(const float *w, const float *x, int k) { return bound(w, x, k, 64.0); }
