/* The conformance suite: every registered kernel and every variant this CPU can run, with no
 * per-kernel code — a kernel added to the registry is tested here automatically.
 *
 * For each kernel: packed and prepared buffers stay within their declared sizes (guard bytes),
 * the stored size matches bits_per_weight, the scalar reference is within the format's error
 * bound of the fp64 product of the dequantized weights, every SIMD variant equals the reference
 * (bit for bit unless the kernel declares float accumulation), any split of M into row slices
 * gives the same bits and writes only its rows, N = 1, 3, 5, 8, 16, 17, 33, all-zero activations and
 * every weight and activation at its extreme over a long K work, and illegal shapes are refused
 * with a message. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "check.h"
#include "variant_check.h"
#include "kernels/common/error_bound.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

#define GUARD 64
#define GUARD_BYTE 0xa5

static int legal(const bb_kernel *kern, int m, int k)
{
    char err[512];
    return bb_kernel_check_shape(kern, m, k, 1, err, sizeof err) == 0;
}

/* The smallest legal K at or above `at_least`. */
static int legal_k(const bb_kernel *kern, int m, int at_least)
{
    int k = (at_least + kern->k_multiple - 1) / kern->k_multiple * kern->k_multiple;
    if (k == 0) k = kern->k_multiple;
    for (int i = 0; i < 64; i++, k += kern->k_multiple)
        if (legal(kern, m, k)) return k;
    return 0;
}

static int guard_ok(const uint8_t *p, size_t size)
{
    for (size_t i = 0; i < GUARD; i++)
        if (p[size + i] != GUARD_BYTE) return 0;
    return 1;
}

static void *guarded(size_t size)
{
    uint8_t *p = bb_alloc(size + GUARD);
    if (p) memset(p + size, GUARD_BYTE, GUARD);
    return p;
}

/* Activations: gaussian; the first row all zero; or every weight +1 and the activation rows
 * alternately all +1 and all -1, each at its format's extreme (the largest partial sums a SIMD
 * variant's narrow accumulators must hold). */
enum act_fill { ACT_GAUSS, ACT_FIRST_ZERO, ACT_EXTREME };

static void check_shape_case(const bb_kernel *kern, int m, int k, int n, uint64_t seed, enum act_fill fill)
{
    int zero_act = fill == ACT_FIRST_ZERO;
    const char *kn = kern->name;
    size_t psize = kern->packed_size(m, k), asize = kern->act_size(n, k);
    float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
    float *wdeq = malloc(sizeof(float) * (size_t)m * k);
    float *yref = malloc(sizeof(float) * (size_t)n * m), *y = malloc(sizeof(float) * (size_t)n * m);
    uint8_t *packed = guarded(psize), *act = guarded(asize);
    if (!w || !x || !wdeq || !yref || !y || !packed || !act) {
        CHECK(0, "%s: out of memory", kn);
        goto done;
    }
    bb_random_weights(kern, m, k, seed, w);
    bb_rng r;
    bb_rng_seed(&r, seed * 7 + 1);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    if (zero_act) memset(x, 0, sizeof(float) * (size_t)k); /* first activation row all zero */
    if (fill == ACT_EXTREME) {
        for (size_t i = 0; i < (size_t)m * k; i++) w[i] = 1.0f;
        for (size_t i = 0; i < (size_t)n * k; i++) x[i] = i / k % 2 ? -1.0f : 1.0f;
    }
    char err[512] = "";
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    int rc = bb_kernel_pack(kern, &bw, packed, err, sizeof err);
    CHECK(rc == 0, "%s M=%d K=%d: pack failed: %s", kn, m, k, err);
    if (rc) goto done;
    CHECK(guard_ok(packed, psize), "%s M=%d K=%d: pack wrote past packed_size=%zu", kn, m, k, psize);
    kern->unpack(packed, m, k, wdeq);

    const bb_variant *ref = &kern->variants[0];
    CHECK(strcmp(ref->isa, "scalar") == 0 && ref->requires == 0, "%s: variants[0] must be the scalar reference", kn);
    (ref->prepare ? ref->prepare : kern->prepare)(x, n, k, act);
    CHECK(guard_ok(act, asize), "%s K=%d N=%d: prepare wrote past act_size=%zu", kn, k, n, asize);
    for (size_t i = 0; i < (size_t)n * m; i++) yref[i] = NAN;
    ref->matmul(packed, act, yref, m, k, n, 0, m);

    /* reference vs fp64 of the dequantized weights */
    int bad = 0;
    for (int c = 0; c < n && bad < 3; c++)
        for (int row = 0; row < m && bad < 3; row++) {
            const float *wr = wdeq + (size_t)row * k, *xr = x + (size_t)c * k;
            double ref64 = 0;
            for (int i = 0; i < k; i++) ref64 += (double)wr[i] * xr[i];
            double got = yref[(size_t)c * m + row], bound = bb_error_bound(kern, wr, xr, k);
            if (!(fabs(got - ref64) <= bound)) {
                bad++;
                CHECK(0, "%s M=%d K=%d N=%d: y[%d][%d]=%.9g, fp64 %.9g, |err| %.3g > bound %.3g", kn, m, k, n,
                      c, row, got, ref64, fabs(got - ref64), bound);
            }
        }
    if (!bad) PASS();
    if (zero_act)
        for (int row = 0; row < m; row++)
            if (yref[row] != 0.0f) {
                CHECK(0, "%s: all-zero activations gave y[0][%d]=%g", kn, row, yref[row]);
                break;
            }

    for (int v = 0; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        if (!bb_variant_usable(var)) continue;
        (var->prepare ? var->prepare : kern->prepare)(x, n, k, act);
        for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
        var->matmul(packed, act, y, m, k, n, 0, m);
        variant_matches_reference(kern, var, y, yref, wdeq, x, m, k, n, "");

        /* row slices: three uneven pieces along the row multiple give the same bits and touch
         * only their rows */
        int units = m / kern->m_multiple;
        int cut1 = units / 3 * kern->m_multiple, cut2 = (units * 3 / 4) * kern->m_multiple;
        int cuts[4] = {0, cut1, cut2, m};
        float *ys = malloc(sizeof(float) * (size_t)n * m);
        if (!ys) { CHECK(0, "oom"); continue; }
        for (size_t i = 0; i < (size_t)n * m; i++) ys[i] = NAN;
        for (int p = 0; p < 3; p++) {
            if (cuts[p + 1] <= cuts[p]) continue;
            var->matmul(packed, act, ys, m, k, n, cuts[p], cuts[p + 1]);
            for (int c = 0; c < n; c++)
                for (int row = cuts[p + 1]; row < m; row++)
                    if (!isnan(ys[(size_t)c * m + row])) {
                        CHECK(0, "%s@%s: slice [%d,%d) wrote row %d", kn, var->isa, cuts[p], cuts[p + 1], row);
                        c = n;
                        break;
                    }
        }
        CHECK(memcmp(ys, y, sizeof(float) * (size_t)n * m) == 0, "%s@%s M=%d K=%d N=%d: sliced result differs",
              kn, var->isa, m, k, n);
        free(ys);
    }
done:
    free(w); free(x); free(wdeq); free(yref); free(y); free(packed); free(act);
}

static void check_refusals(const bb_kernel *kern)
{
    char err[512];
    int m = kern->m_multiple, k = legal_k(kern, m, 1);
    err[0] = 0;
    CHECK(bb_kernel_check_shape(kern, 0, k, 1, err, sizeof err) != 0 && err[0], "%s: M=0 accepted", kern->name);
    CHECK(bb_kernel_check_shape(kern, m, -k, 1, err, sizeof err) != 0, "%s: negative K accepted", kern->name);
    CHECK(bb_kernel_check_shape(kern, m, k, 0, err, sizeof err) != 0, "%s: N=0 accepted", kern->name);
    if (kern->k_multiple > 1) {
        err[0] = 0;
        int rc = bb_kernel_check_shape(kern, m, k + 1, 1, err, sizeof err);
        CHECK(rc != 0 && strstr(err, kern->name), "%s: K=%d accepted or message lacks the kernel name: '%s'",
              kern->name, k + 1, err);
    }
    if (kern->m_multiple > 1) {
        err[0] = 0;
        int rc = bb_kernel_check_shape(kern, m + 1, k, 1, err, sizeof err);
        CHECK(rc != 0 && strstr(err, kern->name), "%s: M=%d accepted", kern->name, m + 1);
    }
}

static void check_size(const bb_kernel *kern)
{
    int m = 256 / kern->m_multiple * kern->m_multiple;
    if (m == 0) m = kern->m_multiple;
    int k = legal_k(kern, m, 4096);
    double bpw = kern->packed_size(m, k) * 8.0 / ((double)m * k);
    CHECK(fabs(bpw - kern->bits_per_weight) <= 0.05 * kern->bits_per_weight,
          "%s: stored %.3f bits/weight at M=%d K=%d, declared %.3f", kern->name, bpw, m, k, kern->bits_per_weight);
}

int main(void)
{
    CHECK(bb_kernel_count() > 0, "empty registry");
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *kern = bb_kernel_at(i);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(bb_kernel_at(j)->name, kern->name) != 0, "duplicate kernel name %s", kern->name);
        CHECK(kern->k_multiple >= 1 && kern->m_multiple >= 1 && kern->pack && kern->unpack && kern->prepare &&
                  kern->packed_size && kern->act_size && kern->variants[0].matmul,
              "%s: incomplete kernel description", kern->name);
        check_refusals(kern);
        check_size(kern);
        int mm = kern->m_multiple;
        int k1 = legal_k(kern, mm, 1), k3 = legal_k(kern, 7 * mm, 3 * kern->k_multiple + 1);
        int kbig = legal_k(kern, 5 * mm, 1000);
        uint64_t seed = 1000 + (uint64_t)i;
        check_shape_case(kern, mm, k1, 1, seed, ACT_GAUSS);                  /* smallest legal */
        check_shape_case(kern, 7 * mm, k3, 1, seed + 1, ACT_GAUSS);          /* non-power-of-two M, GEMV */
        check_shape_case(kern, 7 * mm, k3, 3, seed + 2, ACT_FIRST_ZERO);     /* N = 3, first row all zero */
        check_shape_case(kern, 5 * mm, kbig, 8, seed + 3, ACT_GAUSS);
        check_shape_case(kern, 13 * mm, k1, 1, seed + 4, ACT_FIRST_ZERO);
        /* every weight and activation at its extreme over a long K (about 41 blocks of 128),
         * GEMV and a group of 4 activation rows plus one */
        int klong = legal_k(kern, mm, 5200);
        check_shape_case(kern, mm, klong, 1, seed + 8, ACT_EXTREME);
        check_shape_case(kern, mm, klong, 5, seed + 9, ACT_EXTREME);
        /* N >= 16: the tile variants' own path (@amx; smaller N runs their AVX-512 fallback) with
         * N = 16, a padded 16 + 1 and 32 + 1, M over two 32-row strips with a tail, and K = 160
         * (an odd number of 32-weight steps where the kernel allows it) */
        int k160 = legal_k(kern, 37 * mm, 160);
        check_shape_case(kern, 37 * mm, k160, 17, seed + 5, ACT_FIRST_ZERO);
        check_shape_case(kern, 3 * mm, kbig, 33, seed + 6, ACT_GAUSS);
        check_shape_case(kern, 2 * mm, k160, 16, seed + 7, ACT_GAUSS);
        printf("%-10s checked (%d variants usable)\n", kern->name, bb_variant_count(kern));
    }
    return check_summary("conformance");
}
