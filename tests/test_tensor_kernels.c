/* A kernel per linear tensor (bb_tf_options.tensor_kernels, as a GGUF file of mixed types gets
 * them from models/kernel_choice.h) on a small synthetic model: every tensor naming f32 gives the
 * logits of kernel f32 bit for bit; a mix inside the groups that share an input (wq f32, wk q8_0,
 * wv f16; w1 q8_0, w3 f32) runs each tensor through its own kernel, close to all-f32 but not equal
 * to it, with prefill and token-by-token decode giving the same logits; and an unknown kernel for
 * one tensor is refused naming the tensor and its layer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "models/synthetic.h"

#define STEPS 6

static const bb_tf_dims dims = {.dim = 64, .hidden_dim = 160, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2,
                                .vocab_size = 80, .seq_len = 16, .style = BB_STYLE_LLAMA, .ffn_act = BB_FFN_SILU};

static bb_transformer *build(const char *const *tensor_kernels, char *err, size_t errlen)
{
    bb_synthetic syn = {.dims = dims, .seed = 9};
    bb_weight_source src = bb_synthetic_source(&syn);
    bb_tf_options opt = {.kernel = "f32", .out_kernel = "f32", .tensor_kernels = tensor_kernels, .max_batch = 8};
    return bb_tf_create(&dims, &src, &opt, err, errlen);
}

/* The last position's logits after a prefill of STEPS tokens into pre, after decoding them one by
 * one into dec. */
static void logits(bb_transformer *t, bb_pool *pool, float *pre, float *dec)
{
    int tokens[STEPS] = {1, 17, 33, 5, 60, 42};
    memcpy(pre, bb_tf_forward(t, pool, tokens, STEPS, 0, NULL), sizeof(float) * dims.vocab_size);
    const float *l = NULL;
    for (int p = 0; p < STEPS; p++) l = bb_tf_forward(t, pool, &tokens[p], 1, p, NULL);
    memcpy(dec, l, sizeof(float) * dims.vocab_size);
}

int main(void)
{
    char err[1024];
    bb_pool *pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (!pool) return check_summary("tensor_kernels");
    enum { N = 2 * BB_TF_LINEARS, V = 80 };
    const char *all_f32[N], *mixed[N], *bad[N];
    /* wq wk wv wo w1 w3 w2 */
    static const char *const mix[BB_TF_LINEARS] = {"f32", "q8_0", "f16", "f32", "q8_0", "f32", "f16"};
    for (int i = 0; i < N; i++) {
        all_f32[i] = "f32";
        mixed[i] = mix[i % BB_TF_LINEARS];
        bad[i] = "f32";
    }
    bad[BB_TF_LINEARS + 2] = "no_such_kernel";
    float ref_pre[V], ref_dec[V], a_pre[V], a_dec[V], m_pre[V], m_dec[V];
    bb_transformer *ref = build(NULL, err, sizeof err);
    CHECK(ref != NULL, "%s", err);
    bb_transformer *a = build(all_f32, err, sizeof err);
    CHECK(a != NULL, "%s", err);
    bb_transformer *m = build(mixed, err, sizeof err);
    CHECK(m != NULL, "%s", err);
    if (ref && a && m) {
        logits(ref, pool, ref_pre, ref_dec);
        logits(a, pool, a_pre, a_dec);
        logits(m, pool, m_pre, m_dec);
        CHECK(!memcmp(ref_pre, a_pre, sizeof ref_pre) && !memcmp(ref_dec, a_dec, sizeof ref_dec),
              "tensor_kernels all f32 differs from kernel f32");
        double num = 0, den = 0, pd = 0;
        for (int v = 0; v < V; v++) {
            num += (double)(m_dec[v] - ref_dec[v]) * (m_dec[v] - ref_dec[v]);
            den += (double)ref_dec[v] * ref_dec[v];
            pd = fmax(pd, fabs(m_pre[v] - m_dec[v]));
        }
        double rel = sqrt(num / den);
        CHECK(rel > 0 && rel < 2e-2, "mixed kernels against f32: relative RMS logit error %.3g (want (0, 0.02))", rel);
        CHECK(pd <= 1e-4, "mixed kernels: prefill and token-by-token logits differ by %.3g", pd);
        const char *conv = bb_tf_conversions(m);
        CHECK(strstr(conv, "wk: f32 packed into q8_0") && strstr(conv, "wv: f32 packed into f16") &&
              strstr(conv, "w2: f32 packed into f16"), "conversions: %s", conv);
        printf("mixed kernels against f32: relative RMS logit error %.3g; prefill vs decode %.3g\n", rel, pd);
    }
    bb_transformer *b = build(bad, err, sizeof err);
    CHECK(b == NULL && strstr(err, "wv of layer 1") && strstr(err, "no_such_kernel"), "unknown tensor kernel: %s",
          b ? "built" : err);
    bb_tf_free(b);
    bb_tf_free(ref);
    bb_tf_free(a);
    bb_tf_free(m);
    bb_pool_destroy(pool);
    return check_summary("tensor_kernels");
}
