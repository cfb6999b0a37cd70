/* The engine's vector primitives (models/vec.h): every table this CPU runs against the scalar
 * one, on lengths that exercise full registers and every tail (1..70, head dimensions 64, 96,
 * 128, a 4099-wide FFN row), KV rows with a stride wider than a head, and exp's extremes.
 * Element-wise products and adds must be bit-identical, f16 conversion must give the scalar
 * round-to-nearest-even bits, reductions and exp agree within float rounding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/common/fp16.h"
#include "kernels/cpu.h"
#include "models/kv_type.h"
#include "models/vec.h"
#include "support/rng.h"

static void fill(bb_rng *r, float *x, int n, float scale)
{
    for (int i = 0; i < n; i++) x[i] = (float)(bb_rng_gauss(r) * scale);
}

static float max_abs_diff(const float *a, const float *b, int n)
{
    float m = 0;
    for (int i = 0; i < n; i++) {
        float d = fabsf(a[i] - b[i]);
        if (!(d <= m)) m = d; /* NaN propagates as a failure */
    }
    return m;
}

static int same_bits(const float *a, const float *b, int n) { return memcmp(a, b, sizeof(float) * (size_t)n) == 0; }

static const int lengths[] = {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 47, 48, 63, 64, 65, 70, 96, 128, 4099};
#define NLEN ((int)(sizeof lengths / sizeof lengths[0]))

static void elementwise(const bb_vec_ops *v, bb_rng *r)
{
    const bb_vec_ops *s = &bb_vec_scalar;
    enum { MAXN = 4099 };
    float *x = malloc(sizeof(float) * MAXN), *w = malloc(sizeof(float) * MAXN), *a = malloc(sizeof(float) * MAXN),
          *b = malloc(sizeof(float) * MAXN);
    uint16_t *ha = malloc(sizeof(uint16_t) * MAXN), *hb = malloc(sizeof(uint16_t) * MAXN);
    for (int li = 0; li < NLEN; li++) {
        int n = lengths[li];
        fill(r, x, n, 3.0f);
        fill(r, w, n, 1.0f);
        float ss = s->sum_squares(x, n), sv = v->sum_squares(x, n);
        CHECK(fabsf(ss - sv) <= 1e-5f * ss, "%s sum_squares n=%d: %.9g vs scalar %.9g", v->name, n, sv, ss);

        s->scale_mul(a, x, w, 0.37f, n);
        v->scale_mul(b, x, w, 0.37f, n);
        CHECK(same_bits(a, b, n), "%s scale_mul n=%d differs from scalar", v->name, n);
        memcpy(b, x, sizeof(float) * n); /* in place, as RMSNorm of a sub-norm runs */
        v->scale_mul(b, b, w, 0.37f, n);
        CHECK(same_bits(a, b, n), "%s scale_mul in place n=%d differs", v->name, n);

        memcpy(a, x, sizeof(float) * n);
        memcpy(b, x, sizeof(float) * n);
        s->add(a, w, n);
        v->add(b, w, n);
        CHECK(same_bits(a, b, n), "%s add n=%d differs from scalar", v->name, n);

        memcpy(a, x, sizeof(float) * n);
        memcpy(b, x, sizeof(float) * n);
        s->relu2_mul(a, w, n);
        v->relu2_mul(b, w, n);
        CHECK(same_bits(a, b, n), "%s relu2_mul n=%d differs from scalar", v->name, n);

        memcpy(a, x, sizeof(float) * n);
        memcpy(b, x, sizeof(float) * n);
        s->silu_mul(a, w, n);
        v->silu_mul(b, w, n);
        float worst = 0;
        for (int i = 0; i < n; i++) worst = fmaxf(worst, fabsf(a[i] - b[i]) / (fabsf(a[i]) + 1e-30f));
        CHECK(worst <= 4e-7f, "%s silu_mul n=%d: relative error %.3g", v->name, n, worst);

        s->to_f16(ha, x, n);
        v->to_f16(hb, x, n);
        CHECK(memcmp(ha, hb, sizeof(uint16_t) * n) == 0, "%s to_f16 n=%d differs from scalar", v->name, n);

        fill(r, x, n, 4.0f);
        memcpy(a, x, sizeof(float) * n);
        s->softmax(a, n);
        v->softmax(x, n);
        float sum = 0;
        for (int i = 0; i < n; i++) sum += x[i];
        CHECK(max_abs_diff(a, x, n) <= 4e-6f && fabsf(sum - 1.0f) <= 1e-5f, "%s softmax n=%d: |diff| %.3g, sum %.9g",
              v->name, n, max_abs_diff(a, x, n), sum);
    }
    /* exp at the ends of the float range: SiLU saturates to 0 and to x, softmax of a huge spread
     * gives exact 0s and a 1, nothing is NaN */
    float ext[8] = {-200.0f, -88.0f, -30.0f, 0.0f, 30.0f, 88.0f, 200.0f, -1e30f}, ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    memcpy(b, ext, sizeof ext);
    v->silu_mul(b, ones, 8);
    CHECK(fabsf(b[0]) < 1e-30f && fabsf(b[1]) < 1e-30f && b[3] == 0.0f && b[4] == 30.0f && b[5] == 88.0f &&
              b[6] == 200.0f && fabsf(b[7]) <= 1e-30f,
          "%s silu at extremes: %g %g %g %g %g %g %g %g", v->name, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
    float sm[5] = {-1e30f, -500.0f, 0.0f, -200.0f, -1e4f};
    v->softmax(sm, 5);
    CHECK(sm[2] == 1.0f && sm[0] == 0.0f && sm[1] == 0.0f && sm[3] == 0.0f && sm[4] == 0.0f,
          "%s softmax of a huge spread: %g %g %g %g %g", v->name, sm[0], sm[1], sm[2], sm[3], sm[4]);
    free(x); free(w); free(a); free(b); free(ha); free(hb);
}

/* RoPE: n_heads heads of hd, angles from a real table row. */
static void rope(const bb_vec_ops *v, bb_rng *r)
{
    const int hds[] = {2, 4, 6, 8, 10, 14, 16, 18, 30, 32, 34, 64, 96, 128};
    for (size_t hi = 0; hi < sizeof hds / sizeof hds[0]; hi++) {
        int hd = hds[hi], nh = 3, n = nh * hd;
        float cs[128], x[3 * 128], a[3 * 128];
        for (int i = 0; i < hd; i += 2) {
            float ang = 37.0f / powf(10000.0f, (float)i / hd);
            cs[i] = cosf(ang);
            cs[i + 1] = sinf(ang);
        }
        fill(r, x, n, 2.0f);
        memcpy(a, x, sizeof(float) * n);
        bb_vec_scalar.rope(a, nh, hd, cs);
        v->rope(x, nh, hd, cs);
        CHECK(max_abs_diff(a, x, n) <= 4e-6f, "%s rope hd=%d: |diff| %.3g", v->name, hd, max_abs_diff(a, x, n));
    }
}

/* Attention on a cache of len positions with stride kvdim > hd, reading head 1. */
static void attention(const bb_vec_ops *v, bb_rng *r)
{
    const int hds[] = {8, 12, 16, 20, 64, 96, 100, 128};
    const int lens[] = {1, 2, 7, 16, 17, 33, 100};
    for (size_t hi = 0; hi < sizeof hds / sizeof hds[0]; hi++)
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            int hd = hds[hi], len = lens[li], kvdim = 3 * hd;
            size_t cache = (size_t)len * kvdim;
            float *k = malloc(sizeof(float) * cache), *val = malloc(sizeof(float) * cache);
            uint16_t *k16 = malloc(sizeof(uint16_t) * cache), *v16 = malloc(sizeof(uint16_t) * cache);
            float q[128], sa[100], sb[100], oa[128], ob[128];
            fill(r, k, (int)cache, 1.0f);
            fill(r, val, (int)cache, 1.0f);
            fill(r, q, hd, 1.0f);
            for (size_t i = 0; i < cache; i++) {
                k16[i] = bb_fp32_to_fp16(k[i]);
                v16[i] = bb_fp32_to_fp16(val[i]);
            }
            float scale = 1.0f / sqrtf((float)hd), bound = 1e-6f * 4 * hd;
            for (int f16 = 0; f16 < 2; f16++) {
                if (f16) {
                    bb_vec_scalar.scores_f16(q, k16 + hd, kvdim, hd, len, scale, sa);
                    v->scores_f16(q, k16 + hd, kvdim, hd, len, scale, sb);
                } else {
                    bb_vec_scalar.scores_f32(q, k + hd, kvdim, hd, len, scale, sa);
                    v->scores_f32(q, k + hd, kvdim, hd, len, scale, sb);
                }
                CHECK(max_abs_diff(sa, sb, len) <= bound, "%s scores_%s hd=%d len=%d: |diff| %.3g", v->name,
                      f16 ? "f16" : "f32", hd, len, max_abs_diff(sa, sb, len));
                bb_vec_scalar.softmax(sa, len);
                /* wsum adds to out: both start from the same values */
                float oc[128];
                fill(r, oa, hd, 1.0f);
                memcpy(ob, oa, sizeof(float) * (size_t)hd);
                memcpy(oc, oa, sizeof(float) * (size_t)hd);
                int half = len / 2;
                if (f16) {
                    bb_vec_scalar.wsum_f16(oa, sa, v16 + hd, kvdim, hd, len);
                    v->wsum_f16(ob, sa, v16 + hd, kvdim, hd, len);
                    v->wsum_f16(oc, sa, v16 + hd, kvdim, hd, half);
                    v->wsum_f16(oc, sa + half, v16 + hd + (size_t)half * kvdim, kvdim, hd, len - half);
                } else {
                    bb_vec_scalar.wsum_f32(oa, sa, val + hd, kvdim, hd, len);
                    v->wsum_f32(ob, sa, val + hd, kvdim, hd, len);
                    v->wsum_f32(oc, sa, val + hd, kvdim, hd, half);
                    v->wsum_f32(oc, sa + half, val + hd + (size_t)half * kvdim, kvdim, hd, len - half);
                }
                CHECK(max_abs_diff(oa, ob, hd) <= 1e-5f, "%s wsum_%s hd=%d len=%d: |diff| %.3g", v->name,
                      f16 ? "f16" : "f32", hd, len, max_abs_diff(oa, ob, hd));
                /* one call over [0, len) or two over its halves: the same FMA chain per output */
                CHECK(memcmp(ob, oc, sizeof(float) * (size_t)hd) == 0, "%s wsum_%s hd=%d len=%d: split at %d differs",
                      v->name, f16 ? "f16" : "f32", hd, len, half);
            }
            free(k); free(val); free(k16); free(v16);
        }
}

/* A bf16 or q8_0 row's scores and weighted sum through one signature: byte strides. */
static void scores_stored(const bb_vec_ops *v, bb_kv_type t, const float *q, const uint8_t *k, size_t stride, int hd,
                          int n, float scale, float *out)
{
    if (t == BB_KV_BF16) v->scores_bf16(q, (const uint16_t *)k, stride / 2, hd, n, scale, out);
    else v->scores_q8_0(q, k, stride, hd, n, scale, out);
}

static void wsum_stored(const bb_vec_ops *v, bb_kv_type t, float *out, const float *a, const uint8_t *val,
                        size_t stride, int hd, int n)
{
    if (t == BB_KV_BF16) v->wsum_bf16(out, a, (const uint16_t *)val, stride / 2, hd, n);
    else v->wsum_q8_0(out, a, val, stride, hd, n);
}

/* The same over bf16 and q8_0 caches (models/kv_type.h rows, byte strides), stored by
 * bb_kv_store_row: scores and wsum within float rounding of the scalar table's, 16 and more
 * positions (the 16-row reductions) and heads past 128 (more than one pass), and a wsum in two
 * calls the same bits as one. */
static void attention_stored(const bb_vec_ops *v, bb_rng *r)
{
    const int hds[] = {32, 64, 96, 128, 160};
    const int lens[] = {1, 15, 16, 17, 33, 100};
    const bb_kv_type types[] = {BB_KV_BF16, BB_KV_Q8_0};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t hi = 0; hi < sizeof hds / sizeof hds[0]; hi++)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                bb_kv_type t = types[ti];
                int hd = hds[hi], len = lens[li];
                size_t row = bb_kv_row_bytes(t, hd), stride = 3 * row; /* head 1 of 3 */
                uint8_t *k = malloc(stride * (size_t)len), *val = malloc(stride * (size_t)len);
                float x[160], q[160], sa[100], sb[100], oa[160], ob[160], oc[160];
                for (int s = 0; s < len; s++)
                    for (int h = 0; h < 3; h++) {
                        fill(r, x, hd, 1.0f);
                        bb_kv_store_row(t, k + (size_t)s * stride + h * row, x, hd, bb_vec_scalar.to_f16);
                        fill(r, x, hd, 1.0f);
                        bb_kv_store_row(t, val + (size_t)s * stride + h * row, x, hd, bb_vec_scalar.to_f16);
                    }
                fill(r, q, hd, 1.0f);
                float scale = 1.0f / sqrtf((float)hd), bound = 1e-6f * 4 * hd;
                const char *name = bb_kv_type_name(t);
                int half = len / 2;
                fill(r, oa, hd, 1.0f);
                memcpy(ob, oa, sizeof(float) * (size_t)hd);
                memcpy(oc, oa, sizeof(float) * (size_t)hd);
                const uint8_t *kh = k + row, *vh = val + row;
                scores_stored(&bb_vec_scalar, t, q, kh, stride, hd, len, scale, sa);
                scores_stored(v, t, q, kh, stride, hd, len, scale, sb);
                CHECK(max_abs_diff(sa, sb, len) <= bound, "%s scores_%s hd=%d len=%d: |diff| %.3g", v->name, name, hd,
                      len, max_abs_diff(sa, sb, len));
                bb_vec_scalar.softmax(sa, len);
                wsum_stored(&bb_vec_scalar, t, oa, sa, vh, stride, hd, len);
                wsum_stored(v, t, ob, sa, vh, stride, hd, len);
                wsum_stored(v, t, oc, sa, vh, stride, hd, half);
                wsum_stored(v, t, oc, sa + half, vh + (size_t)half * stride, stride, hd, len - half);
                CHECK(max_abs_diff(oa, ob, hd) <= 1e-5f, "%s wsum_%s hd=%d len=%d: |diff| %.3g", v->name, name, hd,
                      len, max_abs_diff(oa, ob, hd));
                CHECK(memcmp(ob, oc, sizeof(float) * (size_t)hd) == 0, "%s wsum_%s hd=%d len=%d: split at %d differs",
                      v->name, name, hd, len, half);
                free(k);
                free(val);
            }
}

int main(void)
{
    const bb_vec_ops *av[3];
    int n = bb_vec_available(av, 3);
    CHECK(n >= 1 && av[0] == &bb_vec_scalar, "the scalar table must always be available");
    CHECK(bb_vec_best() == av[n - 1], "bb_vec_best is not the widest available table");
    /* the SIMD table of this architecture must be among those checked whenever the CPU (and
     * BITBENCH_CPU_MASK) allows it: a table left out of bb_vec_available is never tested */
    uint64_t f = bb_cpu_features();
#if defined(__aarch64__)
    const char *simd = "neon";
    uint64_t need = BB_ISA_NEON;
#else
    const char *simd = "avx2";
    uint64_t need = BB_ISA_AVX2;
#endif
    int listed = 0;
    for (int i = 0; i < n; i++) listed |= !strcmp(av[i]->name, simd);
    CHECK(listed == ((f & need) == need), "the %s table is %s, but the CPU %s it", simd, listed ? "listed" : "not listed",
          (f & need) == need ? "has" : "lacks");
    for (int i = 0; i < n; i++) {
        bb_rng r;
        bb_rng_seed(&r, 99);
        elementwise(av[i], &r);
        rope(av[i], &r);
        attention(av[i], &r);
        attention_stored(av[i], &r);
        printf("%s: checked against scalar\n", av[i]->name);
    }
    return check_summary("vec");
}
