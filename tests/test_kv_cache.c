/* The engine's two KV-cache types on a small synthetic model with grouped-query attention (4 query
 * heads on 2 KV heads): for each, a prefill of the prompt gives the logits of token-by-token
 * decode (same arithmetic per row, wherever it runs), and the f16 cache stays close to the f32 one
 * (its keys and values are rounded to 11 bits), with the same greedy tokens. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "models/synthetic.h"

#define PROMPT 6
#define STEPS 10

static const bb_tf_dims dims = {.dim = 128, .hidden_dim = 320, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2,
                                .vocab_size = 96, .seq_len = 24, .style = BB_STYLE_BITNET, .sub_norms = true,
                                .ffn_act = BB_FFN_SILU, .tied_embedding = true};

static int argmax(const float *x, int n)
{
    int b = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[b]) b = i;
    return b;
}

/* Greedy decode after the prompt; logits of every decoded position into out. */
static bb_transformer *run(bool kv_f16, bb_pool *pool, float *out, int *tokens)
{
    char err[1024];
    bb_synthetic syn = {.dims = dims, .seed = 5};
    bb_weight_source src = bb_synthetic_source(&syn);
    bb_tf_options opt = {.kernel = "f32", .out_kernel = "f32", .kv_f16 = kv_f16, .max_batch = 8};
    bb_transformer *t = bb_tf_create(&dims, &src, &opt, err, sizeof err);
    CHECK(t != NULL, "%s", err);
    if (!t) return NULL;
    const float *l = bb_tf_forward(t, pool, tokens, PROMPT, 0, NULL);
    for (int p = PROMPT; p < STEPS; p++) {
        memcpy(out + (size_t)(p - PROMPT) * dims.vocab_size, l, sizeof(float) * dims.vocab_size);
        tokens[p] = argmax(l, dims.vocab_size);
        l = bb_tf_forward(t, pool, &tokens[p], 1, p, NULL);
    }
    return t;
}

int main(void)
{
    char err[1024];
    bb_pool *pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (!pool) return check_summary("kv_cache");
    int V = dims.vocab_size, n = STEPS - PROMPT;
    float *l32 = malloc(sizeof(float) * n * V), *l16 = malloc(sizeof(float) * n * V), pre[96];
    int t32[STEPS] = {3, 14, 15, 92, 65, 35}, t16[STEPS] = {3, 14, 15, 92, 65, 35};
    bb_transformer *a = run(false, pool, l32, t32), *b = run(true, pool, l16, t16);
    if (a && b) {
        double num = 0, den = 0;
        for (int i = 0; i < n * V; i++) {
            num += (double)(l32[i] - l16[i]) * (l32[i] - l16[i]);
            den += (double)l32[i] * l32[i];
        }
        CHECK(sqrt(num / den) < 5e-3, "f16 KV: relative RMS logit error %.3g against f32", sqrt(num / den));
        CHECK(sqrt(num / den) > 0, "f16 KV gives bit-identical logits: the f16 path was not taken");
        CHECK(memcmp(t32, t16, sizeof t32) == 0, "f16 KV changes the greedy tokens");
        printf("f16 KV against f32: relative RMS logit error %.3g over %d positions\n", sqrt(num / den), n);
        /* prefill == token by token, for both cache types */
        bb_transformer *m[2] = {a, b};
        int *tok[2] = {t32, t16};
        for (int c = 0; c < 2; c++) {
            memcpy(pre, bb_tf_forward(m[c], pool, tok[c], STEPS, 0, NULL), sizeof(float) * V);
            const float *l = NULL;
            for (int p = 0; p < STEPS; p++) l = bb_tf_forward(m[c], pool, &tok[c][p], 1, p, NULL);
            float diff = 0;
            for (int v = 0; v < V; v++) diff = fmaxf(diff, fabsf(pre[v] - l[v]));
            CHECK(diff <= 1e-5f, "kv %s: prefill and token-by-token logits differ by %.3g", c ? "f16" : "f32", diff);
        }
    }
    bb_tf_free(a);
    bb_tf_free(b);
    free(l32);
    free(l16);
    bb_pool_destroy(pool);
    return check_summary("kv_cache");
}
