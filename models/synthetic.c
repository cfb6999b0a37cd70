#include "synthetic.h"

#include <math.h>
#include <string.h>

#include "support/rng.h"

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int is_linear(const char *name)
{
    return !strcmp(name, "wq") || !strcmp(name, "wk") || !strcmp(name, "wv") || !strcmp(name, "wo") ||
           !strcmp(name, "w1") || !strcmp(name, "w2") || !strcmp(name, "w3");
}

static int get(void *ctx, const char *name, int layer, float *dst, size_t count, char *err, size_t errlen)
{
    bb_synthetic *s = ctx;
    if (layer >= 0 && s->distinct_layers > 0) layer %= s->distinct_layers;
    bb_rng r;
    bb_rng_seed(&r, s->seed ^ name_hash(name) ^ ((uint64_t)(layer + 1) * 0x9e3779b97f4a7c15ull));
    if (strstr(name, "rms") || strstr(name, "norm")) {
        for (size_t i = 0; i < count; i++) dst[i] = 1.0f;
    } else if (!strcmp(name, "tok_embeddings") || !strcmp(name, "wcls")) {
        bb_fill_gauss(&r, dst, count, 1.0f);
    } else if (is_linear(name)) {
        int k = !strcmp(name, "w2") ? s->dims.hidden_dim : (!strcmp(name, "wo") ? s->dims.n_heads * bb_tf_head_dim(&s->dims) : s->dims.dim);
        float sd = 1.0f / sqrtf((float)k);
        if (s->dims.style == BB_STYLE_BITNET) bb_fill_ternary(&r, dst, count, sd * 1.2247449f); /* var of {-s,0,s} w.p. 1/3 = 2s²/3 */
        else bb_fill_gauss(&r, dst, count, sd);
    } else {
        (void)err; (void)errlen;
        bb_fill_gauss(&r, dst, count, 1.0f);
    }
    return 0;
}

static int alias(void *ctx, int layer)
{
    bb_synthetic *s = ctx;
    return s->distinct_layers > 0 && layer >= s->distinct_layers ? layer % s->distinct_layers : -1;
}

bb_weight_source bb_synthetic_source(bb_synthetic *s)
{
    bb_weight_source w = {.ctx = s, .get = get, .alias = alias};
    return w;
}
