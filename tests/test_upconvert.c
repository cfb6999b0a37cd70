/* up_i2 / up_i1 (kernels/upconvert, Intel up-convert paper §III): every variant equals the plain integer
 * reference  y = bb_i8_dequant(sum_k w_int[m][k] * q[k], s_a, scale[m])  bit for bit, computed
 * here from integer weights the test chose (not from the kernel), on
 *   - random on-grid weights (ternary, SEQ {-3,-1,1,3} and +-1 times per-row scales) with random
 *     and extreme activations (all -127, all +127, alternating), packed by the kernel's pack,
 *     which must also give the weights back exactly (unpack);
 *   - crafted packed buffers at the arithmetic extremes (every code at the largest or smallest
 *     level, scale 1) against activations of all +127, all -127 and, written directly into the
 *     prepared buffer, all -128 (outside what prepare produces; the offset trick must still be
 *     exact);
 *   - BitNet ternary weights (one per-tensor scale, from floats and from the ternary view) through
 *     up_i2, which must pick the ternary level set, be exact, and agree bit for bit with i2_s. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "check.h"
#include "kernels/common/act_quant.h"
#include "kernels/kernel.h"
#include "kernels/upconvert/upconvert.h"
#include "support/memory.h"
#include "support/rng.h"

enum { ACT_RANDOM, ACT_NEG, ACT_POS, ACT_ALT, ACT_COUNT };

static void make_act(int kind, int n, int k, bb_rng *r, float *x)
{
    for (int c = 0; c < n; c++)
        for (int i = 0; i < k; i++) {
            float v;
            switch (kind) {
            case ACT_NEG: v = -1.0f; break;
            case ACT_POS: v = 1.0f; break;
            case ACT_ALT: v = (i + c) % 2 ? 1.0f : -1.0f; break;
            default: v = (float)bb_rng_gauss(r);
            }
            x[(size_t)c * k + i] = v;
        }
}

/* Runs every usable variant of kern on packed/act and compares with the integer reference of
 * the given w_int and per-row scales.  Returns the number of mismatching variants. */
static int check_variants(const bb_kernel *kern, const void *packed, const void *act, const int8_t *w_int,
                          const float *scale, int m, int k, int n, const char *what)
{
    float *y = malloc(sizeof(float) * (size_t)n * m), *want = malloc(sizeof(float) * (size_t)n * m);
    int bad_variants = 0;
    for (int c = 0; c < n; c++) {
        const int8_t *q = bb_i8_row_q(act, k, c);
        float as = bb_i8_row(act, k, c)->scale;
        for (int r = 0; r < m; r++) {
            int64_t s = 0;
            for (int i = 0; i < k; i++) s += (int64_t)w_int[(size_t)r * k + i] * q[i];
            want[(size_t)c * m + r] = bb_i8_dequant((int32_t)s, as, scale[r]);
        }
    }
    for (int v = 0; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        if (!bb_variant_usable(var)) continue;
        for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
        var->matmul(packed, act, y, m, k, n, 0, m);
        int bad = 0;
        for (size_t i = 0; i < (size_t)n * m && !bad; i++)
            if (memcmp(&y[i], &want[i], sizeof(float)) != 0) {
                bad = 1;
                CHECK(0, "%s@%s %s M=%d K=%d N=%d: y[%zu][%zu]=%.9g, integer reference %.9g", kern->name, var->isa,
                      what, m, k, n, i / m, i % m, y[i], want[i]);
            }
        if (!bad) PASS();
        bad_variants += bad;
    }
    free(y);
    free(want);
    return bad_variants;
}

/* Random on-grid weights: w_int from `levels`, per-row scales that keep level * scale exact. */
static void on_grid(bb_rng *r, int m, int k, const int8_t *levels, int nlev, int8_t *w_int, float *scale, float *w)
{
    for (int row = 0; row < m; row++) {
        scale[row] = 0.0625f * (float)(17 + (int)(bb_rng_next(r) % 15)); /* 5 significant bits */
        for (int i = 0; i < k; i++) {
            int8_t l = levels[bb_rng_next(r) % (uint64_t)nlev];
            w_int[(size_t)row * k + i] = l;
            w[(size_t)row * k + i] = (float)l * scale[row];
        }
        /* make sure the row's largest level occurs (SEQ rows then have +-3) */
        w_int[(size_t)row * k] = levels[nlev - 1];
        w[(size_t)row * k] = (float)levels[nlev - 1] * scale[row];
    }
}

static void roundtrip_case(const bb_kernel *kern, const int8_t *levels, int nlev, int m, int k, int n, uint64_t seed,
                           const char *what)
{
    bb_rng r;
    bb_rng_seed(&r, seed);
    size_t mk = (size_t)m * k;
    int8_t *w_int = malloc(mk);
    float *w = malloc(sizeof(float) * mk), *wdeq = malloc(sizeof(float) * mk), *scale = malloc(sizeof(float) * m);
    float *x = malloc(sizeof(float) * (size_t)n * k);
    void *packed = bb_alloc(kern->packed_size(m, k)), *act = bb_alloc(kern->act_size(n, k));
    on_grid(&r, m, k, levels, nlev, w_int, scale, w);
    char err[256];
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s: pack: %s", kern->name, err);
    kern->unpack(packed, m, k, wdeq);
    CHECK(memcmp(w, wdeq, sizeof(float) * mk) == 0, "%s %s M=%d K=%d: on-grid weights not packed exactly", kern->name,
          what, m, k);
    CHECK(memcmp(bb_up_scales(packed), scale, sizeof(float) * m) == 0, "%s %s: scales not recovered", kern->name, what);
    for (int a = 0; a < ACT_COUNT; a++) {
        make_act(a, n, k, &r, x);
        kern->prepare(x, n, k, act);
        check_variants(kern, packed, act, w_int, scale, m, k, n, what);
    }
    free(w_int); free(w); free(wdeq); free(scale); free(x); free(packed); free(act);
}

/* Crafted extremes: a valid head from pack (level set, tables), then every code = `byte` pattern
 * and every scale 1; activations q = qv written straight into the prepared buffer (scale 1). */
static void extreme_case(const bb_kernel *kern, const float *w_for_head, int level_idx, uint8_t byte, int qv, int m,
                         int k, int n)
{
    size_t psize = kern->packed_size(m, k), mk = (size_t)m * k;
    uint8_t *packed = bb_alloc(psize);
    void *act = bb_alloc(kern->act_size(n, k));
    int8_t *w_int = malloc(mk);
    float *scale = malloc(sizeof(float) * m);
    char err[256];
    bb_weights bw = {.m = m, .k = k, .f32 = w_for_head};
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s: pack: %s", kern->name, err);
    const bb_up_head *h = bb_up_head_of(packed);
    size_t wstart = BB_UP_HEAD + bb_up_scales_bytes(m);
    memset(packed + wstart, byte, psize - wstart);
    for (int r = 0; r < m; r++) {
        scale[r] = 1.0f;
        ((float *)(packed + BB_UP_HEAD))[r] = 1.0f;
    }
    memset(w_int, h->levels[level_idx], mk);
    memset(act, 0, kern->act_size(n, k));
    for (int c = 0; c < n; c++) {
        bb_i8_row_head *rh = (bb_i8_row_head *)((char *)act + (size_t)c * bb_i8_row_stride(k));
        rh->scale = 1.0f;
        rh->qsum = qv * k;
        memset((char *)rh + BB_I8_ROW_HEAD, (uint8_t)(int8_t)qv, (size_t)k);
    }
    char what[64];
    snprintf(what, sizeof what, "extreme level %d x q %d", h->levels[level_idx], qv);
    check_variants(kern, packed, act, w_int, scale, m, k, n, what);
    free(packed); free(act); free(w_int); free(scale);
}

static void ternary_cases(const bb_kernel *up_i2)
{
    int m = 96, k = 1028, n = 3; /* K = 4 mod 8: the AVX-512 single-group tail */
    size_t mk = (size_t)m * k;
    bb_rng r;
    bb_rng_seed(&r, 77);
    int8_t *t = malloc(mk);
    float *w = malloc(sizeof(float) * mk), *wdeq = malloc(sizeof(float) * mk), *scale = malloc(sizeof(float) * m);
    float *x = malloc(sizeof(float) * (size_t)n * k);
    void *packed = bb_alloc(up_i2->packed_size(m, k)), *act = bb_alloc(up_i2->act_size(n, k));
    const float ts = 0.0421875f; /* BitNet-like per-tensor absmean scale */
    for (size_t i = 0; i < mk; i++) {
        t[i] = (int8_t)((int)(bb_rng_next(&r) % 3) - 1);
        w[i] = (float)t[i] * ts;
    }
    for (int row = 0; row < m; row++) scale[row] = ts;
    char err[256];
    for (int view = 0; view < 2; view++) { /* from floats, then from the ternary view */
        bb_weights bw = {.m = m, .k = k, .f32 = w, .ternary = view ? t : NULL, .ternary_scale = ts};
        CHECK(bb_kernel_pack(up_i2, &bw, packed, err, sizeof err) == 0, "up_i2 ternary pack: %s", err);
        const bb_up_head *h = bb_up_head_of(packed);
        CHECK(h->levels[0] == -2 && h->levels[1] == -1 && h->levels[2] == 0 && h->levels[3] == 1 && h->offset == 2,
              "up_i2: ternary weights did not select the {-2,-1,0,1} level set");
        up_i2->unpack(packed, m, k, wdeq);
        int same = 1;
        for (size_t i = 0; i < mk; i++) same &= wdeq[i] == w[i];
        CHECK(same, "up_i2: ternary weights not stored exactly (view %d)", view);
        for (int a = 0; a < ACT_COUNT; a++) {
            make_act(a, n, k, &r, x);
            up_i2->prepare(x, n, k, act);
            check_variants(up_i2, packed, act, t, scale, m, k, n, view ? "ternary view" : "ternary floats");
        }
    }
    free(t); free(w); free(wdeq); free(scale); free(x); free(packed); free(act);
}

/* BitNet arithmetic: with ternary weights and one tensor scale, up_i2 computes exactly what the
 * lossless i2_s computes (same int8 activations, same integer sums, same dequantization), so the
 * two must agree bit for bit. */
static void agrees_with_i2_s(const bb_kernel *up_i2)
{
    const bb_kernel *i2s = bb_kernel_by_name("i2_s");
    if (!i2s) return;
    int m = 64, k = 1024, n = 2;
    size_t mk = (size_t)m * k;
    bb_rng r;
    bb_rng_seed(&r, 99);
    float *w = malloc(sizeof(float) * mk), *x = malloc(sizeof(float) * (size_t)n * k);
    float *y0 = malloc(sizeof(float) * (size_t)n * m), *y1 = malloc(sizeof(float) * (size_t)n * m);
    bb_fill_ternary(&r, w, mk, 0.0421875f);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    void *p0 = bb_alloc(up_i2->packed_size(m, k)), *p1 = bb_alloc(i2s->packed_size(m, k));
    void *a0 = bb_alloc(up_i2->act_size(n, k)), *a1 = bb_alloc(i2s->act_size(n, k));
    char err[256];
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(up_i2, &bw, p0, err, sizeof err) == 0 && bb_kernel_pack(i2s, &bw, p1, err, sizeof err) == 0,
          "pack: %s", err);
    up_i2->prepare(x, n, k, a0);
    i2s->prepare(x, n, k, a1);
    i2s->variants[0].matmul(p1, a1, y1, m, k, n, 0, m);
    for (int v = 0; v < bb_variant_count(up_i2); v++) {
        if (!bb_variant_usable(&up_i2->variants[v])) continue;
        up_i2->variants[v].matmul(p0, a0, y0, m, k, n, 0, m);
        CHECK(memcmp(y0, y1, sizeof(float) * (size_t)n * m) == 0, "up_i2@%s and i2_s differ on BitNet ternary weights",
              up_i2->variants[v].isa);
    }
    free(w); free(x); free(y0); free(y1); free(p0); free(p1); free(a0); free(a1);
}

int main(void)
{
    const bb_kernel *up_i2 = bb_kernel_by_name("up_i2"), *up_i1 = bb_kernel_by_name("up_i1");
    CHECK(up_i2 && up_i1, "up_i2 / up_i1 not registered");
    if (!up_i2 || !up_i1) return check_summary("upconvert");

    static const int8_t seq[4] = {-1, 1, -3, 3}, tern[3] = {-1, 0, 1}, sign[2] = {-1, 1};
    static const int shapes[][3] = {{32, 4, 1}, {64, 132, 1}, {96, 1000, 3}, {160, 2052, 2}, {32, 4096, 5}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
        roundtrip_case(up_i2, seq, 4, m, k, n, 10 + s, "SEQ on-grid");
        roundtrip_case(up_i2, tern, 3, m, k, n, 20 + s, "per-row ternary");
        roundtrip_case(up_i1, sign, 2, m, k, n, 30 + s, "+-1");
    }

    /* extremes: largest / smallest level of each set against q = +127, -127, -128 */
    int m = 64, k = 4100, n = 2;
    float *w = malloc(sizeof(float) * (size_t)m * k);
    bb_rng r;
    bb_rng_seed(&r, 5);
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f); /* real weights: up_i2 takes the SEQ set */
    static const int qs[3] = {127, -127, -128};
    for (int i = 0; i < 3; i++) {
        extreme_case(up_i2, w, 3, 0xff, qs[i], m, k, n); /* code 3 = +3 */
        extreme_case(up_i2, w, 0, 0x00, qs[i], m, k, n); /* code 0 = -3 */
        extreme_case(up_i1, w, 0, 0x00, qs[i], m, k, n); /* bit 0 = +1 */
        extreme_case(up_i1, w, 1, 0xff, qs[i], m, k, n); /* bit 1 = -1 */
    }
    for (size_t i = 0; i < (size_t)m * k; i++) w[i] = (float)((int)(i % 3) - 1) * 0.5f; /* ternary set */
    for (int i = 0; i < 3; i++) {
        extreme_case(up_i2, w, 0, 0x00, qs[i], m, k, n); /* code 0 = -2 */
        extreme_case(up_i2, w, 3, 0xff, qs[i], m, k, n); /* code 3 = +1 */
    }
    free(w);

    ternary_cases(up_i2);
    agrees_with_i2_s(up_i2);
    return check_summary("upconvert");
}
