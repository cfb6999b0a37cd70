/* Element-wise LUT kernels (tl1_0, tl1_1, tl2_0, tl2_1; kernels/elut): what the shared suites do
 * not cover.
 *  - Table 5 / Table 6: every pair and triple packs to the paper's index (and sign), and
 *    unpacks back.
 *  - tl1_1 and tl2_1 give bit for bit i2_s's results for the same ternary weights and float
 *    activations (same per-row int8 q and scale), every variant, on random and adversarial
 *    matrices (all -1, all +1, alternating, activations at +-127) and K that is not a multiple
 *    of TL2's block of 48 (TL1 tail of 16 or 32 columns), partial row tiles, N > 1; for K that
 *    i2_s refuses (K % 128 != 0), against the exact integer dot product of the same q.
 *  - Every variant's prepare writes the same bytes (i8 rows and tables, _0's table step), and
 *    the _0 variants give the reference's bits.
 *  - The _0 kernels' measured error against the exact _1 results, printed, and checked against
 *    the table-rounding part of their derived bound.
 *  - Stored bits per weight, and shapes the kernels refuse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "check.h"
#include "kernels/common/act_quant.h"
#include "kernels/elut/elut.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

enum { W_RANDOM, W_ALL_NEG, W_ALL_POS, W_ALTERNATING, W_ROWS_ALTERNATING, W_PATTERNS };
enum { X_GAUSS, X_PLUS127, X_MINUS127, X_MIXED127, X_PATTERNS };

static const char *wname[] = {"random", "all -1", "all +1", "alternating", "rows +-1"};
static const char *xname[] = {"gauss", "+127", "-127", "+-127"};

static void make_weights(int pattern, int m, int k, uint64_t seed, int8_t *t, float *w, float ws)
{
    bb_rng r;
    bb_rng_seed(&r, seed);
    for (int row = 0; row < m; row++)
        for (int i = 0; i < k; i++) {
            int v;
            switch (pattern) {
            case W_ALL_NEG: v = -1; break;
            case W_ALL_POS: v = 1; break;
            case W_ALTERNATING: v = i % 2 ? 1 : -1; break;
            case W_ROWS_ALTERNATING: v = row % 2 ? 1 : -1; break;
            default: v = (int)(bb_rng_next(&r) % 3) - 1;
            }
            t[(size_t)row * k + i] = (int8_t)v;
            w[(size_t)row * k + i] = (float)v * ws;
        }
}

/* Activations whose int8 quantization reaches the extreme table sums (+-381 for TL2). */
static void make_acts(int pattern, int n, int k, uint64_t seed, float *x)
{
    bb_rng r;
    bb_rng_seed(&r, seed);
    for (size_t i = 0; i < (size_t)n * k; i++) {
        switch (pattern) {
        case X_PLUS127: x[i] = 3.5f; break;
        case X_MINUS127: x[i] = -2.25f; break;
        case X_MIXED127: x[i] = bb_rng_next(&r) % 2 ? 1.75f : -1.75f; break;
        default: x[i] = (float)bb_rng_gauss(&r) * 1.3f;
        }
    }
}

typedef struct {
    const bb_kernel *kern;
    void *packed, *act;
} prepared;

static int prepare_kernel(prepared *p, const char *name, const bb_weights *bw, int n)
{
    char err[512];
    p->packed = p->act = NULL;
    p->kern = bb_kernel_by_name(name);
    CHECK(p->kern != NULL, "%s not registered", name);
    if (!p->kern) return -1;
    p->packed = bb_alloc(p->kern->packed_size(bw->m, bw->k));
    p->act = bb_alloc(p->kern->act_size(n, bw->k));
    int rc = bb_kernel_pack(p->kern, bw, p->packed, err, sizeof err);
    CHECK(rc == 0, "%s pack: %s", name, err);
    return rc;
}

static void release(prepared *p)
{
    free(p->packed);
    free(p->act);
}

/* Runs every usable variant (with its own prepare); checks that all give `expect` bit for bit
 * and that every prepare wrote the same activation bytes. */
static void check_variants(prepared *p, const float *x, int m, int k, int n, const float *expect, const char *what)
{
    size_t asize = p->kern->act_size(n, k);
    uint8_t *ref_act = malloc(asize);
    float *y = malloc(sizeof(float) * (size_t)n * m);
    for (int v = 0; v < bb_variant_count(p->kern); v++) {
        const bb_variant *var = &p->kern->variants[v];
        if (!bb_variant_usable(var)) continue;
        (var->prepare ? var->prepare : p->kern->prepare)(x, n, k, p->act);
        if (v == 0) memcpy(ref_act, p->act, asize);
        else CHECK(memcmp(ref_act, p->act, asize) == 0, "%s@%s %s M=%d K=%d: prepare wrote other bytes",
                   p->kern->name, var->isa, what, m, k);
        for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
        var->matmul(p->packed, p->act, y, m, k, n, 0, m);
        int bad = 0;
        for (size_t i = 0; i < (size_t)n * m && bad < 2; i++)
            if (memcmp(&y[i], &expect[i], sizeof(float)) != 0) {
                bad++;
                CHECK(0, "%s@%s %s M=%d K=%d N=%d: y[%zu] = %.9g, expected %.9g", p->kern->name, var->isa, what, m,
                      k, n, i, y[i], expect[i]);
            }
        if (!bad) PASS();
    }
    free(ref_act);
    free(y);
}

/* y of i2_s (scalar reference) or, where i2_s cannot take K, of the exact integer dot product of
 * the same per-row int8 activations. */
static void expected_exact(const int8_t *t, float ws, const float *x, int m, int k, int n, float *y)
{
    char err[512];
    const bb_kernel *i2s = bb_kernel_by_name("i2_s");
    if (i2s && bb_kernel_check_shape(i2s, m, k, n, err, sizeof err) == 0) {
        float *w = malloc(sizeof(float) * (size_t)m * k);
        for (size_t i = 0; i < (size_t)m * k; i++) w[i] = (float)t[i] * ws;
        bb_weights bw = {.m = m, .k = k, .f32 = w, .ternary = t, .ternary_scale = ws};
        prepared p;
        if (prepare_kernel(&p, "i2_s", &bw, n) == 0) {
            i2s->prepare(x, n, k, p.act);
            i2s->variants[0].matmul(p.packed, p.act, y, m, k, n, 0, m);
        }
        release(&p);
        free(w);
        return;
    }
    uint8_t *act = bb_alloc(bb_i8_rows_size(n, k));
    bb_quant_i8_rows(x, n, k, act);
    for (int c = 0; c < n; c++) {
        const int8_t *q = bb_i8_row_q(act, k, c);
        for (int r = 0; r < m; r++) {
            int32_t dot = 0;
            for (int i = 0; i < k; i++) dot += t[(size_t)r * k + i] * q[i];
            y[(size_t)c * m + r] = bb_i8_dequant(dot, bb_i8_row(act, k, c)->scale, ws);
        }
    }
    free(act);
}

static void check_lossless(void)
{
    /* K: multiples of 48 (TL2 only), 128 = 2*48 + 32, 640 = 13*48 + 16, 2560 and 4096 (TL1 tail
     * of 16), and K that i2_s refuses: 16 (TL1 only), 80 = 48 + 32, 1552 = 32*48 + 16 */
    const int shapes[][3] = {{16, 128, 1}, {37, 640, 3}, {64, 1536, 1}, {21, 2560, 2}, {48, 4096, 1},
                             {32, 384, 2},  {5, 16, 1},   {19, 80, 2},   {33, 1552, 1}};
    const char *names[] = {"tl1_1", "tl2_1"};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int wp = 0; wp < W_PATTERNS; wp++)
            for (int xp = 0; xp < X_PATTERNS; xp++) {
                if (xp != X_GAUSS && wp != W_RANDOM && wp != W_ALL_POS) continue;
                int m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
                const float ws = 0.0421875f;
                int8_t *t = malloc((size_t)m * k);
                float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
                float *expect = malloc(sizeof(float) * (size_t)n * m);
                make_weights(wp, m, k, 100 + s, t, w, ws);
                make_acts(xp, n, k, 200 + s, x);
                expected_exact(t, ws, x, m, k, n, expect);
                char what[64];
                snprintf(what, sizeof what, "weights %s, x %s", wname[wp], xname[xp]);
                for (int kn = 0; kn < 2; kn++) {
                    bb_weights bw = {.m = m, .k = k, .f32 = w, .ternary = t, .ternary_scale = ws};
                    prepared p;
                    if (prepare_kernel(&p, names[kn], &bw, n) == 0) check_variants(&p, x, m, k, n, expect, what);
                    release(&p);
                }
                free(t); free(w); free(x); free(expect);
            }
}

/* Every triple / pair of one row packs to the paper's code and unpacks back. */
/* The 4-bit index of group j of tile row 0 at byte offset base, and a sign bit (the byte
 * functions set shift / bit, so they are called before the shift that reads them). */
static int idx_at(const uint8_t *packed, size_t base, int j)
{
    int shift;
    size_t at = base + elut_idx_byte(j, 0, &shift);
    return (packed[at] >> shift) & 15;
}

static int sign_at(const uint8_t *packed, size_t base, int j)
{
    int bit;
    size_t at = base + elut_sign_byte(j, 0, &bit);
    return (packed[at] >> bit) & 1;
}

static void check_tables_5_6(void)
{
    const int m = 16, k = 96; /* 27 triples (81 columns) + filler in the TL2 part, TL1: 8 pairs */
    int8_t t[16 * 96];
    float w[16 * 96], back[16 * 96];
    memset(t, 0, sizeof t);
    for (int c = 0; c < 27; c++) {
        t[3 * c] = (int8_t)(c / 9 - 1);
        t[3 * c + 1] = (int8_t)(c / 3 % 3 - 1);
        t[3 * c + 2] = (int8_t)(c % 3 - 1);
    }
    for (int i = 0; i < 16 * 96; i++) {
        if (i >= 96) t[i] = (int8_t)((i * 7 + i / 96) % 3 - 1);
        w[i] = t[i];
    }
    for (int tl2 = 0; tl2 < 2; tl2++) {
        elut_geom g = elut_geometry(k, tl2);
        uint8_t *packed = bb_alloc(elut_packed_size(m, k, tl2));
        bb_weights bw = {.m = m, .k = k, .f32 = w, .ternary = t, .ternary_scale = 1.0f};
        elut_pack(&bw, packed, tl2);
        elut_unpack(packed, m, k, back, tl2);
        CHECK(memcmp(w, back, sizeof w) == 0, "TL%d: unpack(pack(w)) != w", tl2 + 1);
        int wrong = 0;
        if (tl2) {
            CHECK(g.k3 == 96 && g.k2 == 0, "K=96: ThreeK=%d TwoK=%d", g.k3, g.k2);
            for (int c = 0; c < 27; c++) { /* Table 6: index |9a+3b+c|, sign v < 0 */
                int v = 9 * t[3 * c] + 3 * t[3 * c + 1] + t[3 * c + 2];
                int idx = idx_at(packed, 0, c);
                int sg = sign_at(packed, g.sign_off, c);
                wrong += idx != abs(v) || sg != (v < 0);
            }
            /* the rows printed in Table 6 */
            int idx13 = idx_at(packed, 0, 0); /* (-1,-1,-1) */
            int sg13 = sign_at(packed, g.sign_off, 0);
            CHECK(idx13 == 13 && sg13 == 1, "Table 6: (-1,-1,-1) -> sign %d index %d, want 1 1101", sg13, idx13);
            int idx11 = idx_at(packed, 0, 24); /* triple 24 = (1,1,-1) */
            CHECK(idx11 == 11, "Table 6: (1,1,-1) -> index %d, want 1011", idx11);
        } else {
            for (int c = 0; c < 9; c++) { /* Table 5: the pair (t[2c], t[2c+1]) of row 0 */
                int idx = idx_at(packed, g.idx1_off, c);
                wrong += idx != 3 * (t[2 * c] + 1) + (t[2 * c + 1] + 1);
            }
        }
        CHECK(wrong == 0, "TL%d: %d groups with the wrong code", tl2 + 1, wrong);
        free(packed);
    }
}

/* _0 against _1 (exact for the same q): measured error, and the table-rounding bound. */
static void check_lossy(void)
{
    const int shapes[][2] = {{256, 1536}, {256, 2560}, {256, 4096}, {256, 6912}, {64, 640}};
    const char *pairs[][2] = {{"tl1_0", "tl1_1"}, {"tl2_0", "tl2_1"}};
    printf("measured error of the int8 tables (_0) against the exact int16 ones (_1):\n");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int pi = 0; pi < 2; pi++) {
            int m = shapes[s][0], k = shapes[s][1], n = 2;
            const float ws = 0.0421875f;
            int8_t *t = malloc((size_t)m * k);
            float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
            float *y0 = malloc(sizeof(float) * (size_t)n * m), *y1 = malloc(sizeof(float) * (size_t)n * m);
            make_weights(W_RANDOM, m, k, 300 + s, t, w, ws);
            make_acts(X_GAUSS, n, k, 400 + s, x);
            bb_weights bw = {.m = m, .k = k, .f32 = w, .ternary = t, .ternary_scale = ws};
            prepared p0, p1;
            const bb_variant *v0, *v1;
            char err[256];
            if (prepare_kernel(&p0, pairs[pi][0], &bw, n) || prepare_kernel(&p1, pairs[pi][1], &bw, n) ||
                bb_kernel_resolve(pairs[pi][0], &p0.kern, &v0, err, sizeof err) ||
                bb_kernel_resolve(pairs[pi][1], &p1.kern, &v1, err, sizeof err)) {
                CHECK(0, "%s: %s", pairs[pi][0], err);
                continue;
            }
            (v0->prepare ? v0->prepare : p0.kern->prepare)(x, n, k, p0.act);
            (v1->prepare ? v1->prepare : p1.kern->prepare)(x, n, k, p1.act);
            v0->matmul(p0.packed, p0.act, y0, m, k, n, 0, m);
            v1->matmul(p1.packed, p1.act, y1, m, k, n, 0, m);
            elut_kind kind = {pi == 1, true};
            elut_geom g = elut_geometry(k, pi == 1);
            double max_err = 0, max_y = 0, sq = 0, sqy = 0, worst = 0;
            for (int c = 0; c < n; c++) {
                float d;
                memcpy(&d, elut_tab(p0.act, n, k, kind, c), sizeof d);
                float as = bb_i8_row(p0.act, k, c)->scale;
                for (int r = 0; r < m; r++) {
                    double e = fabs((double)y0[(size_t)c * m + r] - y1[(size_t)c * m + r]);
                    int nz = 0; /* groups with a nonzero weight */
                    for (int j = 0; j < g.ng3 + g.ng1; j++) {
                        int at = j < g.ng3 ? 3 * j : g.k3 + 2 * (j - g.ng3), len = j < g.ng3 ? 3 : 2, any = 0;
                        for (int i = 0; i < len; i++) any |= t[(size_t)r * k + at + i] != 0;
                        nz += any;
                    }
                    double bound = nz * d * (0.5 + 0x1p-14) * ws / as + 0x1p-20 * fabs(y1[(size_t)c * m + r]) + 1e-30;
                    worst = fmax(worst, e / bound);
                    max_err = fmax(max_err, e);
                    max_y = fmax(max_y, fabs(y1[(size_t)c * m + r]));
                    sq += e * e;
                    sqy += (double)y1[(size_t)c * m + r] * y1[(size_t)c * m + r];
                }
            }
            printf("  %-6s M=%-4d K=%-5d  max|y0-y1| %.3g (%.3g of max|y|)  rms rel %.3g  err/table-bound %.3f\n",
                   pairs[pi][0], m, k, max_err, max_err / max_y, sqrt(sq / sqy), worst);
            CHECK(worst <= 1.0, "%s M=%d K=%d: |y0 - y1| exceeds the table-rounding bound (%.3f)", pairs[pi][0], m,
                  k, worst);
            CHECK(max_err > 0, "%s M=%d K=%d: int8 tables gave exactly the int16 results (no rounding?)",
                  pairs[pi][0], m, k);
            release(&p0);
            release(&p1);
            free(t); free(w); free(x); free(y0); free(y1);
        }
}

/* _0 kernels: every variant's prepare (table step, int8 tables) and matmul give the scalar
 * reference's bytes and bits, including K with a TL1 tail and partial groups of 16. */
static void check_q8_variants(void)
{
    const int shapes[][3] = {{16, 16, 1}, {19, 80, 2}, {37, 128, 1}, {33, 1552, 3}, {20, 4096, 1}};
    const char *names[] = {"tl1_0", "tl2_0"};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int xp = 0; xp < X_PATTERNS; xp++)
            for (int kn = 0; kn < 2; kn++) {
                int m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
                int8_t *t = malloc((size_t)m * k);
                float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
                float *yref = malloc(sizeof(float) * (size_t)n * m);
                make_weights(W_RANDOM, m, k, 500 + s, t, w, 0.5f);
                make_acts(xp, n, k, 600 + s, x);
                bb_weights bw = {.m = m, .k = k, .f32 = w, .ternary = t, .ternary_scale = 0.5f};
                prepared p;
                if (prepare_kernel(&p, names[kn], &bw, n) == 0) {
                    p.kern->prepare(x, n, k, p.act);
                    p.kern->variants[0].matmul(p.packed, p.act, yref, m, k, n, 0, m);
                    check_variants(&p, x, m, k, n, yref, xname[xp]);
                }
                release(&p);
                free(t); free(w); free(x); free(yref);
            }
}

static void check_sizes_and_refusals(void)
{
    const char *names[] = {"tl1_0", "tl1_1", "tl2_0", "tl2_1"};
    const int ks[] = {1536, 2560, 4096, 6912};
    for (int i = 0; i < 4; i++) {
        const bb_kernel *kern = bb_kernel_by_name(names[i]);
        CHECK(kern != NULL, "%s not registered", names[i]);
        if (!kern) continue;
        bool tl2 = i >= 2;
        printf("%s stored bits per weight:", names[i]);
        for (int j = 0; j < 4; j++) {
            int m = 4096, k = ks[j];
            double bpw = (kern->packed_size(m, k) - 64) * 8.0 / ((double)m * k);
            printf("  K=%d %.4f", k, bpw);
            elut_geom g = elut_geometry(k, tl2);
            double expect = (g.k3 * 5.0 / 3.0 + g.k2 * 2.0) / k;
            double pad = (double)(g.tile_bytes - g.sign_off) - g.nb3 * ELUT_SIGNS; /* sign plane padding */
            CHECK(fabs(bpw - expect - pad * 8.0 / (16.0 * k)) < 1e-12, "%s K=%d: %.6f bits/weight, formula %.6f",
                  names[i], k, bpw, expect);
            if (tl2 && k % 96 == 0) CHECK(fabs(bpw - 5.0 / 3.0) < 1e-12, "%s K=%d: %.6f, not 5/3", names[i], k, bpw);
        }
        printf("\n");
        char err[512];
        const int bad_k[] = {8, 24, 4104, (1 << 24) + 16};
        for (int j = 0; j < 4; j++) {
            err[0] = 0;
            int rc = bb_kernel_check_shape(kern, 16, bad_k[j], 1, err, sizeof err);
            CHECK(rc != 0 && strstr(err, names[i]) && strstr(err, bad_k[j] % 16 ? "multiple of 16" : "16777216"),
                  "%s K=%d: accepted or unclear message '%s'", names[i], bad_k[j], err);
        }
        CHECK(bb_kernel_check_shape(kern, 7, 48, 1, err, sizeof err) == 0, "%s: M=7 K=48 refused: %s", names[i], err);
    }
}

int main(void)
{
    check_tables_5_6();
    check_lossless();
    check_lossy();
    check_q8_variants();
    check_sizes_and_refusals();
    return check_summary("elut");
}
