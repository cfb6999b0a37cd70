/* The engine's KV-cache types (f32, f16, bf16, q8_0) on a small synthetic model with grouped-query
 * attention (4 query heads on 2 KV heads): for each, a prefill of the prompt gives the logits of
 * token-by-token decode (same arithmetic per row, wherever it runs), and each cache stays close
 * to the f32 one (the f16 one, its keys and values rounded to 11 bits, with the same greedy
 * tokens), without being bit-identical to it (its own path ran). */
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
static bb_transformer *run(bb_kv_type kv, bb_pool *pool, float *out, int *tokens)
{
    char err[1024];
    bb_synthetic syn = {.dims = dims, .seed = 5};
    bb_weight_source src = bb_synthetic_source(&syn);
    bb_tf_options opt = {.kernel = "f32", .out_kernel = "f32", .kv_k = kv, .kv_v = kv, .max_batch = 8};
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

/* Relative RMS difference of two logit arrays. */
static double rel_rms(const float *a, const float *b, int n)
{
    double num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        num += (double)(a[i] - b[i]) * (a[i] - b[i]);
        den += (double)a[i] * a[i];
    }
    return sqrt(num / den);
}

int main(void)
{
    char err[1024];
    bb_pool *pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (!pool) return check_summary("kv_cache");
    int V = dims.vocab_size, n = STEPS - PROMPT;
    /* how far each type may move the logits from f32's: f16 keeps 11 bits of each key and value,
     * bf16 8, q8_0 about 8 (a block's absmax / 127 steps) */
    static const double tol[BB_KV_TYPES] = {0, 5e-3, 3e-2, 3e-2};
    float *logits[BB_KV_TYPES], pre[96];
    int tok[BB_KV_TYPES][STEPS];
    bb_transformer *m[BB_KV_TYPES];
    for (int k = 0; k < BB_KV_TYPES; k++) {
        static const int prompt[PROMPT] = {3, 14, 15, 92, 65, 35};
        memcpy(tok[k], prompt, sizeof prompt);
        logits[k] = malloc(sizeof(float) * n * V);
        m[k] = logits[k] ? run((bb_kv_type)k, pool, logits[k], tok[k]) : NULL;
    }
    for (int k = 1; k < BB_KV_TYPES; k++) {
        if (!m[0] || !m[k]) continue;
        const char *name = bb_kv_type_name((bb_kv_type)k);
        double e = rel_rms(logits[0], logits[k], n * V);
        CHECK(e < tol[k], "%s KV: relative RMS logit error %.3g against f32 (at most %.3g)", name, e, tol[k]);
        CHECK(e > 0, "%s KV gives bit-identical logits: the %s path was not taken", name, name);
        if (k == BB_KV_F16) CHECK(memcmp(tok[0], tok[k], sizeof tok[0]) == 0, "f16 KV changes the greedy tokens");
        printf("%s KV against f32: relative RMS logit error %.3g over %d positions\n", name, e, n);
    }
    /* prefill == token by token, for every cache type */
    for (int c = 0; c < BB_KV_TYPES; c++) {
        if (!m[c]) continue;
        memcpy(pre, bb_tf_forward(m[c], pool, tok[c], STEPS, 0, NULL), sizeof(float) * V);
        const float *l = NULL;
        for (int p = 0; p < STEPS; p++) l = bb_tf_forward(m[c], pool, &tok[c][p], 1, p, NULL);
        float diff = 0;
        for (int v = 0; v < V; v++) diff = fmaxf(diff, fabsf(pre[v] - l[v]));
        CHECK(diff <= 1e-5f, "kv %s: prefill and token-by-token logits differ by %.3g", bb_kv_type_name((bb_kv_type)c),
              diff);
    }
    for (int k = 0; k < BB_KV_TYPES; k++) {
        bb_tf_free(m[k]);
        free(logits[k]);
    }
    bb_pool_destroy(pool);
    return check_summary("kv_cache");
}
