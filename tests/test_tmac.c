/* T-MAC (kernels/bitlut) properties the conformance suite does not see:
 *   - each of tmac_w1..w4 reconstructs weights lying on its grid h * (2q - z2) exactly;
 *   - BitNet ternary weights t * scale packed with tmac_w2 are represented exactly;
 *   - on Gaussian weights the least-squares quantizer comes within a few percent of the optimal
 *     uniform quantizer's error, and every packed group keeps h > 0 finite (or 0 for an all-zero
 *     group) and the grid's reach h (L + |o|) within twice its largest dequantized magnitude;
 *   - tmac_wB_exact (every variant) equals the integer dot product sum_k c_k q_k per group of 128,
 *     computed here directly from the weights (no tables, no bit planes), combined in the header's
 *     float order — so tables, mirror consolidation and bit-serial decomposition are exact;
 *   - the error of the lossy options (int8 tables; + fast aggregation) against the exact path and
 *     against fp64 is measured and printed, and the fast aggregation's bias correction is checked
 *     (mean error small against its spread). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm_bench.h"
#include "kernels/bitlut/tmac.h"
#include "kernels/common/act_quant.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

static const bb_kernel *kernel(const char *name)
{
    const bb_kernel *k = bb_kernel_by_name(name);
    CHECK(k != NULL, "kernel %s not registered", name);
    return k;
}

/* Random weights on the b-bit grid: per row and group, h = (1 + r/64) 2^e (few mantissa bits, so
 * h * c is exact), z2 in [0, 2L], codes with 0 and L both present. */
static void grid_weights(int b, int m, int k, bb_rng *r, float *w, int *c_out, float *h_out)
{
    const int L = (1 << b) - 1;
    for (int row = 0; row < m; row++)
        for (int g = 0; g < k / TMAC_QG; g++) {
            float h = (1.0f + (float)(bb_rng_next(r) % 64) / 64.0f) * ldexpf(1.0f, (int)(bb_rng_next(r) % 9) - 6);
            int z2 = (int)(bb_rng_next(r) % (uint64_t)(2 * L + 1));
            h_out[(size_t)row * (k / TMAC_QG) + g] = h;
            for (int i = 0; i < TMAC_QG; i++) {
                int q = i == 5 ? 0 : i == 77 ? L : (int)(bb_rng_next(r) % (uint64_t)(L + 1));
                size_t at = (size_t)row * k + (size_t)g * TMAC_QG + i;
                c_out[at] = 2 * q - z2;
                w[at] = h * (float)c_out[at];
            }
        }
}

static void check_grid(int b)
{
    char name[32], err[256];
    snprintf(name, sizeof name, "tmac_w%d", b);
    const bb_kernel *kern = kernel(name);
    if (!kern) return;
    const int m = 64, k = 512;
    bb_rng r;
    bb_rng_seed(&r, 100 + (uint64_t)b);
    float *w = malloc(sizeof(float) * m * k), *back = malloc(sizeof(float) * m * k), *h = malloc(sizeof(float) * m * k / TMAC_QG);
    int *c = malloc(sizeof(int) * m * k);
    void *packed = bb_alloc(kern->packed_size(m, k));
    grid_weights(b, m, k, &r, w, c, h);
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s: pack: %s", name, err);
    kern->unpack(packed, m, k, back);
    int bad = 0;
    for (int i = 0; i < m * k; i++)
        if (back[i] != w[i] && bad++ < 3) CHECK(0, "%s: on-grid weight %d = %g came back as %g", name, i, w[i], back[i]);
    if (!bad) PASS();
    printf("%s: %d on-grid weights reconstructed exactly: %s\n", name, m * k, bad ? "NO" : "yes");
    free(w); free(back); free(h); free(c); free(packed);
}

static void check_ternary(void)
{
    const bb_kernel *kern = kernel("tmac_w2");
    if (!kern) return;
    const int m = 96, k = 640;
    const float scales[] = {0.0421875f, 0.7310001f, 3.3e-3f, 1.0f / 3.0f};
    for (int s = 0; s < 4; s++) {
        bb_rng r;
        bb_rng_seed(&r, 7 + (uint64_t)s);
        float *w = malloc(sizeof(float) * m * k), *back = malloc(sizeof(float) * m * k);
        void *packed = bb_alloc(kern->packed_size(m, k));
        for (int i = 0; i < m * k; i++) {
            int row = i / k, g = (i % k) / TMAC_QG, t;
            switch ((row + g) % 5) { /* random, all -1, all +1, all 0, only {0, +1} groups */
            case 1: t = -1; break;
            case 2: t = 1; break;
            case 3: t = 0; break;
            case 4: t = (int)(bb_rng_next(&r) % 2); break;
            default: t = (int)(bb_rng_next(&r) % 3) - 1;
            }
            w[i] = (float)t * scales[s];
        }
        char err[256];
        bb_weights bw = {.m = m, .k = k, .f32 = w};
        CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "pack: %s", err);
        kern->unpack(packed, m, k, back);
        int bad = 0;
        for (int i = 0; i < m * k; i++)
            if (back[i] != w[i] && bad++ < 3) CHECK(0, "tmac_w2 ternary scale %g: w[%d] = %g came back as %g", scales[s], i, w[i], back[i]);
        if (!bad) PASS();
        printf("tmac_w2: ternary weights (scale %g) represented exactly: %s\n", scales[s], bad ? "NO" : "yes");
        free(w); free(back); free(packed);
    }
}

/* Reconstruction error ||dequant - W|| / ||W|| on Gaussian W.  Reference: the optimal uniform
 * quantizer of N(0, 1) with 2^b levels has relative rms error sqrt(MSE) = 0.6028, 0.3447, 0.1935,
 * 0.1074 for b = 1 .. 4 (J. Max, "Quantizing for minimum distortion", IRE Trans. IT-6, 1960; the
 * non-uniform Lloyd-Max optimum: 0.6028, 0.3428, 0.1858, 0.0975).  T-MAC's grid is uniform with a
 * scale and zero point fitted per 128 weights, which may come slightly below the asymptotic figures
 * (in-sample fit); the limits allow 3 % above the uniform optimum.  On these weights the
 * covering-scale quantizer alone (no least-squares steps) measured 2.156, 0.546, 0.221, 0.100; with
 * TMAC_LS_STEPS = 4: 0.601, 0.342, 0.190, 0.096. */
static void check_gauss_error(int b)
{
    static const double limit[5] = {0, 0.6028 * 1.03, 0.3447 * 1.03, 0.1935 * 1.03, 0.1074 * 1.03};
    char name[32], err[256];
    snprintf(name, sizeof name, "tmac_w%d", b);
    const bb_kernel *kern = kernel(name);
    if (!kern) return;
    const int m = 128, k = 4096, G = k / TMAC_QG, L = (1 << b) - 1;
    bb_rng r;
    bb_rng_seed(&r, 900);
    float *w = malloc(sizeof(float) * m * k), *back = malloc(sizeof(float) * m * k);
    void *packed = bb_alloc(kern->packed_size(m, k));
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s: pack: %s", name, err);
    kern->unpack(packed, m, k, back);
    double se = 0, sw = 0;
    for (size_t i = 0; i < (size_t)m * k; i++) {
        double e = (double)back[i] - w[i];
        se += e * e;
        sw += (double)w[i] * w[i];
    }
    double rel = sqrt(se / sw);
    CHECK(rel <= limit[b], "%s: Gaussian reconstruction error %.4f above %.4f (3 %% over the optimal uniform quantizer)",
          name, rel, limit[b]);
    /* the kernels' error bound (tmac_error_bound) relies on the reach condition */
    int bad = 0;
    for (int row = 0; row < m; row++)
        for (int g = 0; g < G; g++) {
            float h = tmac_block_h(packed, m, k, b, row / TMAC_RB)[g * TMAC_RB + row % TMAC_RB];
            int o = tmac_block_o(packed, m, k, b, row / TMAC_RB)[g * TMAC_RB + row % TMAC_RB];
            float a = 0.0f;
            for (int i = g * TMAC_QG; i < (g + 1) * TMAC_QG; i++) a = fmaxf(a, fabsf(back[(size_t)row * k + i]));
            if (!(h > 0.0f && isfinite(h) && h * (float)(L + abs(o)) <= 2.0f * a) && bad++ < 3)
                CHECK(0, "%s: row %d group %d: h = %g, o = %d, largest |w| %g: reach h (L + |o|) over 2 |w|max", name,
                      row, g, h, o, a);
        }
    if (!bad) PASS();
    printf("%s: Gaussian W (%dx%d): ||dequant - W|| / ||W|| = %.4f (limit %.4f), reach within 2 |w|max: %s\n", name,
           m, k, rel, limit[b], bad ? "NO" : "yes");
    free(w); free(back); free(packed);
}

/* tmac_wB_exact against sum_k c_k q_k computed directly, every usable variant. */
static void check_exact(int b)
{
    char name[32], err[256];
    snprintf(name, sizeof name, "tmac_w%d_exact", b);
    const bb_kernel *kern = kernel(name);
    if (!kern) return;
    const int m = 96, k = 768, n = 3, G = k / TMAC_QG;
    bb_rng r;
    bb_rng_seed(&r, 300 + (uint64_t)b);
    float *w = malloc(sizeof(float) * m * k), *h = malloc(sizeof(float) * m * G), *x = malloc(sizeof(float) * n * k);
    float *y = malloc(sizeof(float) * n * m);
    int *c = malloc(sizeof(int) * m * k);
    void *packed = bb_alloc(kern->packed_size(m, k)), *act = bb_alloc(kern->act_size(n, k));
    grid_weights(b, m, k, &r, w, c, h);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s: pack: %s", name, err);
    /* the quantizer may pick another exact grid for a group: take h as packed and c = w / h */
    for (int row = 0; row < m; row++)
        for (int g = 0; g < G; g++) {
            float hp = tmac_block_h(packed, m, k, b, row / TMAC_RB)[g * TMAC_RB + row % TMAC_RB];
            h[(size_t)row * G + g] = hp;
            for (int i = g * TMAC_QG; i < (g + 1) * TMAC_QG; i++)
                c[(size_t)row * k + i] = hp != 0.0f ? (int)lrintf(w[(size_t)row * k + i] / hp) : 0;
        }
    for (int v = 0; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        if (!bb_variant_usable(var)) continue;
        (var->prepare ? var->prepare : kern->prepare)(x, n, k, act);
        var->matmul(packed, act, y, m, k, n, 0, m);
        int bad = 0;
        for (int col = 0; col < n; col++) {
            /* the int8 activations are the first region of the exact kernels' prepared buffer */
            const int8_t *q = bb_i8_row_q(act, k, col);
            float s = bb_i8_row(act, k, col)->scale, d = s != 0.0f ? 1.0f / s : 0.0f;
            for (int row = 0; row < m; row++) {
                float acc = 0.0f;
                for (int g = 0; g < G; g++) {
                    int32_t isum = 0;
                    for (int i = g * TMAC_QG; i < (g + 1) * TMAC_QG; i++) isum += c[(size_t)row * k + i] * q[i];
                    float t = (float)isum * h[(size_t)row * G + g];
                    t = t * d;
                    acc += t;
                }
                if (memcmp(&acc, &y[(size_t)col * m + row], sizeof acc) != 0 && bad++ < 3)
                    CHECK(0, "%s@%s: y[%d][%d] = %.9g, integer reference %.9g", name, var->isa, col, row,
                          y[(size_t)col * m + row], acc);
            }
        }
        if (!bad) PASS();
        printf("%s@%s equals the integer dot product (sum c*q per group): %s\n", name, var->isa, bad ? "NO" : "yes");
    }
    free(w); free(h); free(x); free(y); free(c); free(packed); free(act);
}

/* Error of the lossy configurations, measured on Gaussian weights and activations. */
static void measure_lossy(int b)
{
    char names[3][32];
    snprintf(names[0], 32, "tmac_w%d_exact", b);
    snprintf(names[1], 32, "tmac_w%d", b);
    snprintf(names[2], 32, "tmac_w%d_fa", b);
    const int m = 256, k = 2560, n = 4;
    bb_rng r;
    bb_rng_seed(&r, 500 + (uint64_t)b);
    float *w = malloc(sizeof(float) * m * k), *x = malloc(sizeof(float) * n * k), *wdeq = malloc(sizeof(float) * m * k);
    float *y[3];
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    /* the three share the packed weights (one bb_tmac_w<b>_pack per width): packed once */
    const bb_kernel *kern0 = kernel(names[0]);
    if (!kern0) return;
    void *packed = bb_alloc(kern0->packed_size(m, k));
    char err[256];
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(kern0, &bw, packed, err, sizeof err) == 0, "pack: %s", err);
    kern0->unpack(packed, m, k, wdeq);
    for (int v = 0; v < 3; v++) {
        const bb_kernel *kern = kernel(names[v]);
        y[v] = malloc(sizeof(float) * n * m);
        if (!kern) return;
        CHECK(kern->packed_size(m, k) == kern0->packed_size(m, k), "%s: packed size differs from %s", names[v], names[0]);
        void *act = bb_alloc(kern->act_size(n, k));
        kern->prepare(x, n, k, act);
        kern->variants[0].matmul(packed, act, y[v], m, k, n, 0, m);
        free(act);
    }
    free(packed);
    double se[3] = {0, 0, 0}, mx[3] = {0, 0, 0}, sref = 0, d_mean[3] = {0, 0, 0}, d_sq[3] = {0, 0, 0};
    for (int c = 0; c < n; c++)
        for (int row = 0; row < m; row++) {
            double ref = 0;
            for (int i = 0; i < k; i++) ref += (double)wdeq[(size_t)row * k + i] * x[(size_t)c * k + i];
            sref += ref * ref;
            for (int v = 0; v < 3; v++) {
                double e = y[v][(size_t)c * m + row] - ref;
                se[v] += e * e;
                mx[v] = fmax(mx[v], fabs(e));
                double dv = (double)y[v][(size_t)c * m + row] - y[0][(size_t)c * m + row];
                d_mean[v] += dv;
                d_sq[v] += dv * dv;
            }
        }
    int cnt = n * m;
    for (int v = 0; v < 3; v++)
        printf("  %-14s vs fp64: rms rel %.2e  max|err| %.3g   vs %s: rms %.3g  mean %+.3g\n", names[v],
               sqrt(se[v] / sref), mx[v], names[0], sqrt(d_sq[v] / cnt), d_mean[v] / cnt);
    /* table quantization costs accuracy, fast aggregation more; both stay small against |y| */
    CHECK(sqrt(se[1] / sref) < 0.02 && sqrt(se[2] / sref) < 0.05, "tmac_w%d: lossy errors unexpectedly large", b);
    /* the bias correction of fast aggregation (4v - 514) leaves no systematic offset */
    double spread = sqrt(d_sq[2] / cnt);
    CHECK(fabs(d_mean[2] / cnt) < 0.2 * spread, "tmac_w%d_fa: mean error %.3g against spread %.3g", b,
          d_mean[2] / cnt, spread);
    for (int v = 0; v < 3; v++) free(y[v]);
    free(w); free(x); free(wdeq);
}

int main(void)
{
    for (int b = 1; b <= 4; b++) check_grid(b);
    check_ternary();
    for (int b = 1; b <= 4; b++) check_gauss_error(b);
    for (int b = 1; b <= 4; b++) check_exact(b);
    printf("lossy options, Gaussian W (256x2560) and x (N=4), scalar reference:\n");
    for (int b = 1; b <= 4; b++) measure_lossy(b);
    return check_summary("tmac");
}
