/* The @amx variants (common/amx.h): on a CPU with AMX-INT8 granted, each gives the scalar
 * reference's bits on the tile path (N >= 16, padded N, M over several strips with a tail, K with
 * an odd number of 32-weight steps) and on its small-N fallback; where AMX is absent, not granted
 * or masked (BITBENCH_CPU_MASK=avx512), the variant is refused and bb_cpu_amx_refusal says why.
 * The conformance suite checks the float-accumulation kernels only within rounding; this checks
 * bit equality, which the tile driver promises for all of them (their small-N fallbacks only where
 * the kernel is not float_accumulation).  f16@amx, a float kernel on AMX-BF16, is checked against
 * its own error bound and its fallbacks, and so is bf16@amx (check_float_amx). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "check.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

static int round_up(int x, int multiple) { return (x + multiple - 1) / multiple * multiple; }

static const bb_variant *variant_named(const bb_kernel *kern, const char *isa)
{
    for (int v = 0; v < bb_variant_count(kern); v++)
        if (strcmp(kern->variants[v].isa, isa) == 0) return &kern->variants[v];
    return NULL;
}

/* y of the scalar reference and of @amx on the same packed weights and prepared activations. */
static void check_equal(const bb_kernel *kern, const bb_variant *amx, int m, int k, int n, uint64_t seed)
{
    float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
    float *yref = malloc(sizeof(float) * (size_t)n * m), *y = malloc(sizeof(float) * (size_t)n * m);
    void *packed = bb_alloc(kern->packed_size(m, k)), *act = bb_alloc(kern->act_size(n, k));
    char err[512] = "";
    if (!w || !x || !yref || !y || !packed || !act) {
        CHECK(0, "%s: out of memory", kern->name);
        goto done;
    }
    bb_random_weights(kern, m, k, seed, w);
    bb_rng r;
    bb_rng_seed(&r, seed);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    memset(x + (size_t)(n / 2) * k, 0, sizeof(float) * (size_t)k); /* one all-zero activation row */
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    if (bb_kernel_pack(kern, &bw, packed, err, sizeof err)) {
        CHECK(0, "%s: pack: %s", kern->name, err);
        goto done;
    }
    (amx->prepare ? amx->prepare : kern->prepare)(x, n, k, act);
    kern->variants[0].matmul(packed, act, yref, m, k, n, 0, m);
    for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
    /* two row slices, the cut on the kernel's row multiple: each strip's tail is padded */
    int cut = m / 2 / kern->m_multiple * kern->m_multiple;
    amx->matmul(packed, act, y, m, k, n, 0, cut);
    amx->matmul(packed, act, y, m, k, n, cut, m);
    int bad = 0;
    for (size_t i = 0; i < (size_t)n * m && bad < 3; i++)
        if (memcmp(&y[i], &yref[i], sizeof(float))) {
            bad++;
            CHECK(0, "%s@amx M=%d K=%d N=%d: y[%zu][%zu]=%.9g, reference %.9g", kern->name, m, k, n, i / m, i % m,
                  y[i], yref[i]);
        }
    if (!bad) PASS();
done:
    free(w); free(x); free(yref); free(y); free(packed); free(act);
}

/* The float kernels on AMX-BF16 (baselines/f16_amx.c: binary16 split exactly into two bfloat16;
 * bf16_amx.c: bfloat16 as it is): the error against the exact (double) sum stays within the bound
 * each header derives, (K + extra K + 1) u sum |w x| with u = 2^-24 (extra = 3/128 for f16's small
 * products, 0 for bf16), far tighter than the conformance suite's float-accumulation check; at
 * K = 1 the result must be the exact product (for f16 only if all four partial products are
 * there); a weight row holding `bad_weight`, and a call whose activations hold `bad_act` (values
 * the tiles would get wrong: an infinity for f16, whose split makes NaN; a float denormal for bf16,
 * which TDPBF16PS flushes), give the AVX-512 variant's bits there. */
/* Prepared activation i of a float kernel as float: binary16-rounded floats, or bfloat16. */
static float act_value(const bb_kernel *kern, const void *act, size_t i)
{
    if (kern->act != BB_ACT_BF16) return ((const float *)act)[i];
    uint32_t bits = (uint32_t)((const uint16_t *)act)[i] << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static void check_float_amx(const char *name, double extra, float bad_weight, float bad_act)
{
    const bb_kernel *kern = bb_kernel_by_name(name);
    const bb_variant *amx = kern ? variant_named(kern, "amx") : NULL, *avx512 = kern ? variant_named(kern, "avx512") : NULL;
#if defined(__x86_64__)
    CHECK(amx && avx512, "%s: no amx or avx512 variant", name);
#endif
    if (!amx || !avx512) return;
    if (!bb_variant_usable(amx)) {
        printf("%s@amx refused here (needs AMX-BF16 and AVX512-BF16)\n", name);
        return;
    }
    const int m = 37, k = 1000, n = 33;
    float *w = malloc(sizeof(float) * m * k), *x = malloc(sizeof(float) * n * k), *wd = malloc(sizeof(float) * m * k);
    float *y = malloc(sizeof(float) * n * m), *yv = malloc(sizeof(float) * n * m);
    void *packed = bb_alloc(kern->packed_size(m, k)), *act = bb_alloc(kern->act_size(n, k));
    char err[256] = "";
    if (!w || !x || !wd || !y || !yv || !packed || !act) {
        CHECK(0, "%s@amx: out of memory", name);
        goto done;
    }
    bb_rng r;
    bb_rng_seed(&r, 77);
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    for (int i = 0; i < k; i += 7) w[5 * k + i] *= 1e-4f; /* binary16 subnormals in one row */
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s: pack: %s", name, err);
    kern->unpack(packed, m, k, wd);
    amx->prepare(x, n, k, act);
    amx->matmul(packed, act, y, m, k, n, 0, m);
    int bad = 0;
    for (int c = 0; c < n; c++)
        for (int row = 0; row < m; row++) {
            double exact = 0, mag = 0;
            for (int i = 0; i < k; i++) {
                double t = (double)wd[(size_t)row * k + i] * act_value(kern, act, (size_t)c * k + i);
                exact += t;
                mag += fabs(t);
            }
            double bound = (k + extra * k + 1) * 0x1p-24 * mag;
            if (!(fabs(y[(size_t)c * m + row] - exact) <= bound) && bad++ < 3)
                CHECK(0, "%s@amx y[%d][%d]=%.9g, exact %.9g: error %.3g over %.3g", name, c, row, y[(size_t)c * m + row],
                      exact, fabs(y[(size_t)c * m + row] - exact), bound);
        }
    if (!bad) PASS();

    /* K = 1: y = w x, exact in float, and exact here only if all four partial products are there */
    amx->prepare(x, n, 1, act);
    bw.k = 1;
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s: pack: %s", name, err);
    kern->unpack(packed, m, 1, wd);
    amx->matmul(packed, act, y, m, 1, n, 0, m);
    bad = 0;
    for (int c = 0; c < n; c++)
        for (int row = 0; row < m; row++)
            if (y[(size_t)c * m + row] != wd[row] * act_value(kern, act, c) && bad++ < 3)
                CHECK(0, "%s@amx K=1: y[%d][%d]=%.9g, w x = %.9g", name, c, row, y[(size_t)c * m + row],
                      wd[row] * act_value(kern, act, c));
    if (!bad) PASS();
    bw.k = k;
    amx->prepare(x, n, k, act);

    /* bad_weight in row 9: that row as @avx512 gives it, the others still from the tiles */
    w[9 * k + 123] = bad_weight;
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s: pack: %s", name, err);
    amx->matmul(packed, act, y, m, k, n, 0, m);
    avx512->matmul(packed, act, yv, m, k, n, 0, m);
    int same_row = 1, finite_rest = 1;
    for (int c = 0; c < n; c++) {
        same_row &= memcmp(&y[(size_t)c * m + 9], &yv[(size_t)c * m + 9], sizeof(float)) == 0;
        for (int row = 0; row < m; row++) finite_rest &= row == 9 || isfinite(y[(size_t)c * m + row]);
    }
    CHECK(same_row && finite_rest, "%s@amx with weight %g: row 9 %s the avx512 bits, other rows %s", name,
          bad_weight, same_row ? "has" : "lacks", finite_rest ? "finite" : "not finite");
    /* bad_act: the whole call as @avx512 */
    w[9 * k + 123] = 0.5f;
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s: pack: %s", name, err);
    x[3 * k + 17] = bad_act;
    amx->prepare(x, n, k, act);
    amx->matmul(packed, act, y, m, k, n, 0, m);
    avx512->matmul(packed, act, yv, m, k, n, 0, m);
    CHECK(memcmp(y, yv, sizeof(float) * n * m) == 0, "%s@amx with activation %g differs from @avx512", name, bad_act);
done:
    free(w); free(x); free(wd); free(y); free(yv); free(packed); free(act);
}

int main(void)
{
    static const char *const names[] = {"i2_s",   "tq2_0",     "up_i2", "q8_0",     "q8_0_x16", "q4_0",
                                        "q4_0x8", "iq4_nl",    "q2_k",  "q2_k_x16", "tq1_0",    "tq1_0_x16",
                                        "tq2_0_x16", "iq4_nl_x8"};
    const char *why = bb_cpu_amx_refusal();
    CHECK((bb_cpu_features() & BB_CPU_AMX_INT8) ? why == NULL : why != NULL && why[0],
          "AMX-INT8 feature bit and refusal reason disagree");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const bb_kernel *kern = bb_kernel_by_name(names[i]);
        CHECK(kern != NULL, "no kernel %s", names[i]);
        if (!kern) continue;
        const bb_variant *amx = variant_named(kern, "amx");
#if defined(__x86_64__)
        CHECK(amx && amx->requires == BB_ISA_AMX, "%s: no amx variant needing BB_ISA_AMX", names[i]);
#endif
        if (!amx) continue;
        if (!bb_variant_usable(amx)) {
            printf("%s@amx refused here: %s\n", names[i], why ? why : "(no reason)");
            continue;
        }
        int k = round_up(160, kern->k_multiple);
        check_equal(kern, amx, round_up(70, kern->m_multiple), k, 17, 11 + i);
        check_equal(kern, amx, round_up(64, kern->m_multiple), 2 * k, 33, 21 + i);
        check_equal(kern, amx, round_up(16, kern->m_multiple), k, 16, 31 + i);
        /* below 16 activation rows the AVX-512 fallback runs: bit-equal where that one is */
        if (!kern->float_accumulation) check_equal(kern, amx, round_up(24, kern->m_multiple), k, 5, 41 + i);
    }
    check_float_amx("f16", 3.0 / 128, INFINITY, -1e6f /* beyond binary16: -inf once prepared */);
    check_float_amx("bf16", 0.0, 1e-39f, -1e-39f /* float denormals, kept by bfloat16 */);
    return check_summary("amx");
}
