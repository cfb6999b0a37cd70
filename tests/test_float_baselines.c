/* Properties of the float baselines (baselines/, family "float") that the conformance suite does
 * not reach:
 *  - every variant's own prepare writes the reference prepare's bytes, for every kind of float
 *    (round-to-nearest-even ties, fp16 overflow and subnormal boundaries, inf, NaN payloads), so
 *    the variants really read one prepared layout;
 *  - row slices stay bit-exact on shapes that take the paths small shapes do not: several
 *    K-blocks (parked accumulators), several column blocks and a lone last activation row
 *    (N = 17, 33), padded tiles (N = 2, 3, 5), odd M; and, for f32_blas, slices that cut its
 *    OpenBLAS chunks anywhere;
 *  - every variant agrees with the scalar reference within float reordering on those shapes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "check.h"
#include "kernels/common/fp16.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

static float from_bits(uint32_t u) { return bb_bits_f32(u); }

/* Inputs that exercise every branch of the fp16 / bf16 rounding. */
static size_t special_inputs(float *x, size_t cap, bb_rng *r)
{
    size_t n = 0;
    static const uint32_t bits[] = {
        0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, /* zeros, infinities */
        0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa5a5a5u, 0xffbfffffu, 0x7fffffffu, /* NaNs */
        0x00000001u, 0x807fffffu, 0x00800000u,              /* float subnormals, min normal */
        0x477fe000u, 0x477fefffu, 0x477ff000u, 0xc77ff000u, 0x47800000u, /* fp16 max / overflow */
        0x38800000u, 0x387fe000u, 0x33800000u, 0x33000000u, 0x33000001u, 0xb3000000u, /* fp16 subnormal range */
        0x3f801000u, 0x3f803000u, 0x3f801001u, 0x3f800fffu, /* fp16 ties to even and near ties */
        0x3f808000u, 0x3f818000u, 0x3f808001u, 0x3f807fffu, /* bf16 ties to even and near ties */
        0x7f7f8000u, 0x7f7fffffu, 0xff7fffffu,              /* bf16 rounding to infinity */
    };
    for (size_t i = 0; i < sizeof bits / sizeof bits[0] && n < cap; i++) x[n++] = from_bits(bits[i]);
    while (n < cap) { /* random bit patterns: every exponent, NaNs included */
        uint64_t v = bb_rng_next(r);
        x[n++] = from_bits((uint32_t)v);
        if (n < cap) x[n++] = (float)bb_rng_gauss(r) * (v >> 40 & 1 ? 1e-6f : 100.0f);
    }
    return n;
}

static void check_prepares(const bb_kernel *kern)
{
    enum { K = 37, N = 29 }; /* K*N not a multiple of any vector width: tails everywhere */
    float x[N * K];
    bb_rng r;
    bb_rng_seed(&r, 99);
    special_inputs(x, N * K, &r);
    size_t asize = kern->act_size(N, K);
    uint8_t *ref = malloc(asize), *got = malloc(asize);
    kern->prepare(x, N, K, ref);
    for (int v = 0; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        if (!var->prepare || !bb_variant_usable(var)) continue;
        memset(got, 0x5a, asize);
        var->prepare(x, N, K, got);
        size_t bad = asize;
        for (size_t i = 0; i < asize && bad == asize; i++)
            if (got[i] != ref[i]) bad = i;
        CHECK(bad == asize, "%s@%s prepare differs from the reference at byte %zu (input %a)", kern->name,
              var->isa, bad, bad < asize ? (double)x[bad / (asize / (N * K))] : 0.0);
    }
    free(ref);
    free(got);
}

/* y from variant v over the cuts [0, c1), [c1, c2), [c2, m) against the whole [0, m) */
static void check_case(const bb_kernel *kern, int m, int k, int n, uint64_t seed)
{
    float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
    float *wdeq = malloc(sizeof(float) * (size_t)m * k);
    float *yref = malloc(sizeof(float) * (size_t)n * m), *y = malloc(sizeof(float) * (size_t)n * m);
    float *ys = malloc(sizeof(float) * (size_t)n * m);
    void *packed = bb_alloc(kern->packed_size(m, k)), *act = bb_alloc(kern->act_size(n, k));
    bb_random_weights(kern, m, k, seed, w);
    bb_rng r;
    bb_rng_seed(&r, seed + 17);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    char err[256];
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s: pack: %s", kern->name, err);
    kern->unpack(packed, m, k, wdeq);
    kern->prepare(x, n, k, act);
    kern->variants[0].matmul(packed, act, yref, m, k, n, 0, m);
    for (int v = 1; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        if (!bb_variant_usable(var)) continue;
        (var->prepare ? var->prepare : kern->prepare)(x, n, k, act);
        var->matmul(packed, act, y, m, k, n, 0, m);
        int far = 0;
        for (int c = 0; c < n && far < 3; c++)
            for (int row = 0; row < m && far < 3; row++) {
                double sum = 0;
                for (int j = 0; j < k; j++) sum += fabs((double)wdeq[(size_t)row * k + j] * x[(size_t)c * k + j]);
                size_t i = (size_t)c * m + row;
                if (!(fabs((double)y[i] - yref[i]) <= 2.0 * (k + 16) * 0x1p-23 * sum + 1e-30)) {
                    far++;
                    CHECK(0, "%s@%s M=%d K=%d N=%d: y[%d][%d]=%.9g, reference %.9g", kern->name, var->isa, m, k, n,
                          c, row, y[i], yref[i]);
                }
            }
        if (!far) PASS();
        for (int trial = 0; trial < 4; trial++) {
            int c1 = (int)(bb_rng_next(&r) % (uint64_t)m), c2 = (int)(bb_rng_next(&r) % (uint64_t)m);
            if (c1 > c2) { int t = c1; c1 = c2; c2 = t; }
            int cuts[4] = {0, c1, c2, m};
            for (size_t i = 0; i < (size_t)n * m; i++) ys[i] = NAN;
            for (int p = 0; p < 3; p++)
                if (cuts[p + 1] > cuts[p]) var->matmul(packed, act, ys, m, k, n, cuts[p], cuts[p + 1]);
            CHECK(memcmp(ys, y, sizeof(float) * (size_t)n * m) == 0,
                  "%s@%s M=%d K=%d N=%d: slices [0,%d) [%d,%d) [%d,%d) differ from [0,%d)", kern->name, var->isa, m,
                  k, n, c1, c1, c2, c2, m, m);
        }
    }
    free(w); free(x); free(wdeq); free(yref); free(y); free(ys); free(packed); free(act);
}

int main(void)
{
    int kernels = 0;
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *kern = bb_kernel_at(i);
        if (strcmp(kern->family, "float") != 0) continue;
        kernels++;
        check_prepares(kern);
        /* K = 4500 floats / 9001 bf16 are three 8 KiB K-blocks; N = 17 and 33 end on a lone
         * activation row, N = 2, 3, 5 pad tiles; M = 203 cuts OpenBLAS's 64/128-row chunks */
        static const struct { int m, k, n; } shapes[] = {
            {203, 4500, 1}, {203, 4500, 2}, {203, 4500, 5}, {203, 4500, 17}, {61, 9001, 33}, {97, 9001, 3}, {33, 8, 2},
        };
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            check_case(kern, shapes[s].m, shapes[s].k, shapes[s].n, 5000 + 31 * (uint64_t)i + s);
        printf("%-10s checked\n", kern->name);
    }
    CHECK(kernels >= 4, "expected f32, f32_blas, f16, bf16 in the registry, found %d float kernels", kernels);
    return check_summary("float_baselines");
}
