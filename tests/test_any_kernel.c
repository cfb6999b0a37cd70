/* Any kernel on any model: every registered kernel runs stories260K (dim 64, hidden 172: K
 * padded to the kernel's block where it does not divide) and the tiny BitNet (TQ2_0 weights,
 * dequantized and repacked for every kernel but tq2_0) from their GGUF files, and gives finite
 * logits; where kernels are lossless with respect to the same arithmetic they agree bit for bit:
 *   - i2_s, tl1_1 and tl2_1 (BitNet b1.58's per-tensor int8 activations and ternary weights) on
 *     both models, padded or not (padding adds zero weights times zero activations, and the
 *     absmean scale is the real weights');
 *   - and i2_s's scalar reference with the SIMD variant this CPU runs.
 * Kernels whose shape rules a model cannot meet even padded are refused before loading, with
 * the layer and the reason; the test prints which. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "files.h"
#include "models/model_load.h"

static char shared[1024];

/* The logits of 6 tokens fed one at a time into out (6 x vocab), or -1 when the build failed. */
static int run(bb_pool *pool, const char *model, const char *kernel, float *out, char *err, size_t errlen)
{
    char path[1200], warn[256];
    snprintf(path, sizeof path, "%s/golden/gguf/%s", shared, model);
    bb_tf_options opt = {.kernel = kernel, .out_kernel = "f32", .max_batch = 4};
    bb_transformer *tf = bb_model_load_engine(path, 8, &opt, NULL, warn, sizeof warn, err, errlen);
    if (!tf) return -1;
    static const int ids[] = {1, 403, 407, 261, 378, 414};
    int vocab = bb_tf_get_dims(tf)->vocab_size;
    const float *l = bb_tf_forward(tf, pool, ids, 3, 0, NULL); /* a prefill (GEMM) ... */
    memcpy(out + 2 * (size_t)vocab, l, sizeof(float) * vocab);
    for (int i = 3; i < 6; i++) { /* ... then decode (GEMV) */
        l = bb_tf_forward(tf, pool, &ids[i], 1, i, NULL);
        memcpy(out + (size_t)i * vocab, l, sizeof(float) * vocab);
    }
    memset(out, 0, sizeof(float) * 2 * vocab);
    bb_tf_free(tf);
    return 0;
}

static bool all_finite(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return false;
    return true;
}

static void every_kernel(bb_pool *pool, const char *model)
{
    static float logits[6 * 512];
    char err[1024];
    int ran = 0, refused = 0;
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *k = bb_kernel_at(i);
        if (run(pool, model, k->name, logits, err, sizeof err)) {
            /* only a shape refusal, said before loading, is acceptable */
            CHECK(strstr(err, "layer ") != NULL, "%s with %s: %s", model, k->name, err);
            printf("  %-8s refused: %s\n", k->name, err);
            refused++;
            continue;
        }
        ran++;
        CHECK(all_finite(logits, sizeof logits / sizeof logits[0]), "%s with %s: non-finite logits", model, k->name);
    }
    printf("%s: %d kernels ran, %d refused\n", model, ran, refused);
    CHECK(ran == bb_kernel_count(), "%s: only %d of %d kernels ran", model, ran, bb_kernel_count());
}

static void same_logits(bb_pool *pool, const char *model, const char *const *kernels, int n)
{
    static float a[6 * 512], b[6 * 512];
    char err[1024];
    if (run(pool, model, kernels[0], a, err, sizeof err)) {
        CHECK(0, "%s with %s: %s", model, kernels[0], err);
        return;
    }
    for (int i = 1; i < n; i++) {
        if (run(pool, model, kernels[i], b, err, sizeof err)) {
            CHECK(0, "%s with %s: %s", model, kernels[i], err);
            continue;
        }
        CHECK(memcmp(a, b, sizeof a) == 0, "%s: %s and %s give different logits", model, kernels[0], kernels[i]);
    }
}

int main(void)
{
    shared_dir(shared, sizeof shared);
    char err[256];
    bb_pool *pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (!pool) return check_summary("any_kernel");
    every_kernel(pool, "stories260K/stories260K.gguf");
    every_kernel(pool, "bitnet/tiny-bitnet-tq2_0-embf16.gguf");
    static const char *const lossless[] = {"i2_s", "tl1_1", "tl2_1", "i2_s@scalar"};
    same_logits(pool, "stories260K/stories260K.gguf", lossless, 4);
    same_logits(pool, "bitnet/tiny-bitnet-tq2_0-embf16.gguf", lossless, 4);
    bb_pool_destroy(pool);
    return check_summary("any_kernel");
}
