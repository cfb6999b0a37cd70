/* The lossless property of BitNet b1.58 arithmetic (bitnet.cpp Table 2; docs/papers.md): for ternary
 * weights and activations that int8 represents exactly (integers in [-127, 127] with one at
 * ±127, so the activation scale is exactly 1), every lossless ternary kernel returns
 * (float)(exact integer dot product) * weight scale, and all of them agree bit for bit.
 * Iterates over the registry: tl1_1, tl2_1 ... are covered when they register. */
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "check.h"
#include "kernels/common/act_quant.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

enum { PATTERN_RANDOM, PATTERN_ALL_NEG, PATTERN_ALL_POS, PATTERN_ALTERNATING, PATTERN_COUNT };

static void make_case(int pattern, int m, int k, int n, uint64_t seed, float *w, int8_t *t, float *x, int8_t *q)
{
    bb_rng r;
    bb_rng_seed(&r, seed);
    const float ws = 0.731f;
    for (size_t i = 0; i < (size_t)m * k; i++) {
        int v;
        switch (pattern) {
        case PATTERN_ALL_NEG: v = -1; break;
        case PATTERN_ALL_POS: v = 1; break;
        case PATTERN_ALTERNATING: v = (i % 2) ? 1 : -1; break;
        default: v = (int)(bb_rng_next(&r) % 3) - 1;
        }
        t[i] = (int8_t)v;
        w[i] = (float)v * ws;
    }
    for (int c = 0; c < n; c++) {
        for (int i = 0; i < k; i++) {
            int v = pattern == PATTERN_RANDOM ? (int)(bb_rng_next(&r) % 255) - 127 : (pattern == PATTERN_ALL_NEG ? -127 : 127);
            q[(size_t)c * k + i] = (int8_t)v;
            x[(size_t)c * k + i] = (float)v;
        }
        q[(size_t)c * k] = 127;
        x[(size_t)c * k] = 127.0f;
    }
}

int main(void)
{
    const int shapes[][3] = {{8, 128, 1}, {37, 384, 1}, {16, 1536, 3}, {5, 2560, 2}, {3, 6912, 1}};
    int lossless_kernels = 0;
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
        for (int pattern = 0; pattern < PATTERN_COUNT; pattern++) {
            int m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
            float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
            int8_t *t = malloc((size_t)m * k), *q = malloc((size_t)n * k);
            float *y = malloc(sizeof(float) * (size_t)n * m), *yfirst = malloc(sizeof(float) * (size_t)n * m);
            make_case(pattern, m, k, n, 77 + (uint64_t)s, w, t, x, q);
            const char *first = NULL;
            for (int i = 0; i < bb_kernel_count(); i++) {
                const bb_kernel *kern = bb_kernel_at(i);
                if (!kern->lossless || kern->weights != BB_WEIGHTS_TERNARY) continue;
                char err[512];
                if (bb_kernel_check_shape(kern, m, k, n, err, sizeof err)) continue;
                if (s == 0 && pattern == 0) lossless_kernels++;
                void *packed = bb_alloc(kern->packed_size(m, k)), *act = bb_alloc(kern->act_size(n, k));
                bb_weights bw = {.m = m, .k = k, .f32 = w, .ternary = t, .ternary_scale = 0.731f};
                CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s pack: %s", kern->name, err);
                for (int v = 0; v < bb_variant_count(kern); v++) {
                    const bb_variant *var = &kern->variants[v];
                    if (!bb_variant_usable(var)) continue;
                    (var->prepare ? var->prepare : kern->prepare)(x, n, k, act);
                    var->matmul(packed, act, y, m, k, n, 0, m);
                    int bad = 0;
                    for (int c = 0; c < n; c++)
                        for (int row = 0; row < m; row++) {
                            int32_t dot = 0;
                            for (int j = 0; j < k; j++) dot += t[(size_t)row * k + j] * q[(size_t)c * k + j];
                            float expect = bb_i8_dequant(dot, 1.0f, 0.731f);
                            if (memcmp(&expect, &y[(size_t)c * m + row], 4) && bad++ < 2)
                                CHECK(0, "%s@%s pattern %d M=%d K=%d: y[%d][%d]=%.9g, exact %.9g", kern->name,
                                      var->isa, pattern, m, k, c, row, y[(size_t)c * m + row], expect);
                        }
                    if (!bad) PASS();
                    if (!first) {
                        first = kern->name;
                        memcpy(yfirst, y, sizeof(float) * (size_t)n * m);
                    } else {
                        CHECK(memcmp(yfirst, y, sizeof(float) * (size_t)n * m) == 0, "%s@%s differs from %s",
                              kern->name, var->isa, first);
                    }
                }
                free(packed);
                free(act);
            }
            free(w); free(x); free(t); free(q); free(y); free(yfirst);
        }
    CHECK(lossless_kernels >= 1, "no lossless ternary kernel registered");
    printf("lossless ternary kernels checked: %d\n", lossless_kernels);
    return check_summary("lossless");
}
