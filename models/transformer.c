#include "transformer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/gemm_bench.h"
#include "harness/timer.h"
#include "kernels/common/fp16.h"

struct bb_transformer {
    bb_tf_dims d;
    bb_tf_options opt;
    float *tok_emb; /* vocab × dim, for the embedding lookup */
    float *rms_final;
    bb_linear cls;
    bb_tf_layer *layers;
    void *key_cache, *value_cache; /* [layer][seq][kv_dim], f32 or f16 */
    int max_batch;
    /* activations for up to max_batch tokens */
    float *x, *xb, *xb2, *q, *k, *v, *hb, *hb2, *att, *logits;
    float *rope_cs; /* [seq][head_dim/2][cos, sin], computed once with llama2.c's expressions */
    void *act;  /* the kernels' prepared activations, sized for the largest need */
    size_t act_bytes, footprint;
};

int bb_tf_head_dim(const bb_tf_dims *d) { return d->head_dim > 0 ? d->head_dim : d->dim / d->n_heads; }

int bb_tf_dims_check(const bb_tf_dims *d, char *err, size_t errlen)
{
    const struct { const char *name; int v; } pos[] = {
        {"dim", d->dim}, {"hidden_dim", d->hidden_dim}, {"n_layers", d->n_layers}, {"n_heads", d->n_heads},
        {"n_kv_heads", d->n_kv_heads}, {"vocab_size", d->vocab_size}, {"seq_len", d->seq_len}};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
        if (pos[i].v <= 0) {
            snprintf(err, errlen, "%s = %d: must be a positive integer", pos[i].name, pos[i].v);
            return -1;
        }
    if (d->head_dim <= 0 && d->dim % d->n_heads) {
        snprintf(err, errlen, "n_heads = %d does not divide dim = %d (or give head_dim)", d->n_heads, d->dim);
        return -1;
    }
    if (d->n_heads % d->n_kv_heads) {
        snprintf(err, errlen, "n_kv_heads = %d does not divide n_heads = %d", d->n_kv_heads, d->n_heads);
        return -1;
    }
    if (bb_tf_head_dim(d) % 2) {
        snprintf(err, errlen, "head dimension %d must be even for RoPE", bb_tf_head_dim(d));
        return -1;
    }
    return 0;
}

const bb_tf_dims *bb_tf_get_dims(const bb_transformer *t) { return &t->d; }

static float eps_of(const bb_tf_dims *d) { return d->norm_eps > 0 ? d->norm_eps : 1e-5f; }
static float theta_of(const bb_tf_dims *d) { return d->rope_theta > 0 ? d->rope_theta : 10000.0f; }

/* ---------------- building ---------------- */

static void rope_table(float *cs, int seq, int hd, float theta)
{
    for (int pos = 0; pos < seq; pos++)
        for (int i = 0; i < hd; i += 2) {
            float freq = 1.0f / powf(theta, (float)i / (float)hd);
            float val = pos * freq;
            cs[((size_t)pos * hd + i)] = cosf(val);
            cs[((size_t)pos * hd + i) + 1] = sinf(val);
        }
}


typedef struct {
    const char *name;
    int m, k;
    size_t off; /* offset of the bb_linear in bb_tf_layer */
} linear_desc;

static int linears(const bb_tf_dims *d, linear_desc out[7])
{
    int hd = bb_tf_head_dim(d), dq = d->n_heads * hd, kv = d->n_kv_heads * hd;
    linear_desc l[7] = {
        {"wq", dq, d->dim, offsetof(bb_tf_layer, wq)},         {"wk", kv, d->dim, offsetof(bb_tf_layer, wk)},
        {"wv", kv, d->dim, offsetof(bb_tf_layer, wv)},         {"wo", d->dim, dq, offsetof(bb_tf_layer, wo)},
        {"w1", d->hidden_dim, d->dim, offsetof(bb_tf_layer, w1)}, {"w2", d->dim, d->hidden_dim, offsetof(bb_tf_layer, w2)},
        {"w3", d->hidden_dim, d->dim, offsetof(bb_tf_layer, w3)}};
    memcpy(out, l, sizeof l);
    return 7;
}

static int resolve(const char *spec, bb_linear *lin, const char *what, char *err, size_t errlen)
{
    char e[1024];
    if (bb_kernel_resolve(spec, &lin->kern, &lin->var, e, sizeof e)) {
        snprintf(err, errlen, "%s: %s", what, e);
        return -1;
    }
    return 0;
}

int bb_tf_estimate_bytes(const bb_tf_dims *d, const bb_tf_options *opt, size_t *bytes, char *err, size_t errlen)
{
    if (bb_tf_dims_check(d, err, errlen)) return -1;
    bb_linear lin, cls;
    if (resolve(opt->kernel, &lin, "kernel", err, errlen)) return -1;
    if (resolve(opt->out_kernel ? opt->out_kernel : "f16", &cls, "output kernel", err, errlen)) return -1;
    linear_desc ld[7];
    int nl = linears(d, ld);
    size_t total = 0;
    for (int i = 0; i < nl; i++) {
        char e[512];
        if (bb_kernel_check_shape(lin.kern, ld[i].m, ld[i].k, 1, e, sizeof e)) {
            snprintf(err, errlen, "layer %s (M=%d, K=%d): %s", ld[i].name, ld[i].m, ld[i].k, e);
            return -1;
        }
        total += lin.kern->packed_size(ld[i].m, ld[i].k) * (size_t)d->n_layers;
    }
    char e[512];
    if (bb_kernel_check_shape(cls.kern, d->vocab_size, d->dim, 1, e, sizeof e)) {
        snprintf(err, errlen, "classifier (M=%d, K=%d): %s", d->vocab_size, d->dim, e);
        return -1;
    }
    int kv = d->n_kv_heads * bb_tf_head_dim(d);
    total += cls.kern->packed_size(d->vocab_size, d->dim);
    total += (size_t)d->vocab_size * d->dim * sizeof(float); /* embedding table */
    total += 2 * (size_t)d->n_layers * d->seq_len * kv * (opt->kv_f16 ? 2 : 4);
    *bytes = total;
    return 0;
}

static float *get_vec(const bb_weight_source *src, const char *name, int layer, size_t count, char *err, size_t errlen)
{
    float *v = bb_alloc(count * sizeof(float));
    if (!v) {
        snprintf(err, errlen, "out of memory for %s (%zu floats)", name, count);
        return NULL;
    }
    if (src->get(src->ctx, name, layer, v, count, err, errlen)) {
        free(v);
        return NULL;
    }
    return v;
}

static int build_linear(bb_linear *lin, const bb_weight_source *src, const char *name, int layer, int m, int k,
                        char *err, size_t errlen)
{
    float *w = get_vec(src, name, layer, (size_t)m * k, err, errlen);
    if (!w) return -1;
    lin->m = m;
    lin->k = k;
    lin->packed = bb_alloc(lin->kern->packed_size(m, k));
    int rc = -1;
    if (!lin->packed) {
        snprintf(err, errlen, "out of memory packing %s of layer %d", name, layer);
    } else {
        bb_weights bw = {.m = m, .k = k, .f32 = w};
        char e[512];
        rc = bb_kernel_pack(lin->kern, &bw, lin->packed, e, sizeof e);
        if (rc) snprintf(err, errlen, "packing %s of layer %d: %s", name, layer, e);
    }
    free(w);
    return rc;
}

bb_transformer *bb_tf_create(const bb_tf_dims *d, const bb_weight_source *src, const bb_tf_options *opt,
                             char *err, size_t errlen)
{
    size_t need;
    if (bb_tf_estimate_bytes(d, opt, &need, err, errlen)) return NULL;
    bb_transformer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->d = *d;
    t->opt = *opt;
    t->max_batch = opt->max_batch > 0 ? opt->max_batch : 64;
    if (t->max_batch > d->seq_len) t->max_batch = d->seq_len;
    bb_linear lin;
    resolve(opt->kernel, &lin, "kernel", err, errlen);
    resolve(opt->out_kernel ? opt->out_kernel : "f16", &t->cls, "output kernel", err, errlen);
    int hd = bb_tf_head_dim(d), dq = d->n_heads * hd, kv = d->n_kv_heads * hd, nb = t->max_batch;
    t->layers = calloc((size_t)d->n_layers, sizeof *t->layers);
    if (!t->layers) goto oom;
    t->tok_emb = get_vec(src, "tok_embeddings", -1, (size_t)d->vocab_size * d->dim, err, errlen);
    if (!t->tok_emb) goto fail;
    linear_desc ld[7];
    int nl = linears(d, ld);
    size_t act = 0;
    for (int l = 0; l < d->n_layers; l++) {
        bb_tf_layer *L = &t->layers[l];
        if (!(L->rms_att = get_vec(src, "rms_att", l, (size_t)d->dim, err, errlen))) goto fail;
        if (!(L->rms_ffn = get_vec(src, "rms_ffn", l, (size_t)d->dim, err, errlen))) goto fail;
        if (d->sub_norms) {
            if (!(L->attn_sub_norm = get_vec(src, "attn_sub_norm", l, (size_t)dq, err, errlen))) goto fail;
            if (!(L->ffn_sub_norm = get_vec(src, "ffn_sub_norm", l, (size_t)d->hidden_dim, err, errlen))) goto fail;
        }
        int same = src->alias ? src->alias(src->ctx, l) : -1;
        for (int i = 0; i < nl; i++) {
            bb_linear *li = (bb_linear *)((char *)L + ld[i].off);
            *li = lin;
            if (same >= 0 && same < l) {
                const bb_linear *from = (const bb_linear *)((const char *)&t->layers[same] + ld[i].off);
                size_t bytes = lin.kern->packed_size(ld[i].m, ld[i].k);
                li->m = ld[i].m;
                li->k = ld[i].k;
                if (!(li->packed = bb_alloc(bytes))) goto oom;
                memcpy(li->packed, from->packed, bytes);
            } else if (build_linear(li, src, ld[i].name, l, ld[i].m, ld[i].k, err, errlen)) {
                goto fail;
            }
            size_t a = lin.kern->act_size(nb, ld[i].k);
            if (a > act) act = a;
        }
    }
    if (!(t->rms_final = get_vec(src, "rms_final", -1, (size_t)d->dim, err, errlen))) goto fail;
    {
        /* the classifier: the embedding itself when tied, else its own tensor */
        bb_weights bw = {.m = d->vocab_size, .k = d->dim, .f32 = t->tok_emb};
        float *wcls = NULL;
        if (!d->tied_embedding) {
            if (!(wcls = get_vec(src, "wcls", -1, (size_t)d->vocab_size * d->dim, err, errlen))) goto fail;
            bw.f32 = wcls;
        }
        t->cls.m = d->vocab_size;
        t->cls.k = d->dim;
        t->cls.packed = bb_alloc(t->cls.kern->packed_size(d->vocab_size, d->dim));
        char e[512];
        int rc = t->cls.packed ? bb_kernel_pack(t->cls.kern, &bw, t->cls.packed, e, sizeof e) : -1;
        free(wcls);
        if (rc) {
            snprintf(err, errlen, "packing the classifier: %s", t->cls.packed ? e : "out of memory");
            goto fail;
        }
        size_t a = t->cls.kern->act_size(1, d->dim);
        if (a > act) act = a;
    }
    size_t es = opt->kv_f16 ? 2 : 4, cache = (size_t)d->n_layers * d->seq_len * kv * es;
    t->key_cache = bb_alloc(cache);
    t->value_cache = bb_alloc(cache);
    int widest = d->hidden_dim > dq ? d->hidden_dim : dq;
    if (widest < d->dim) widest = d->dim;
    t->x = bb_alloc(sizeof(float) * nb * d->dim);
    t->xb = bb_alloc(sizeof(float) * nb * widest);
    t->xb2 = bb_alloc(sizeof(float) * nb * widest);
    t->q = bb_alloc(sizeof(float) * nb * dq);
    t->k = bb_alloc(sizeof(float) * nb * kv);
    t->v = bb_alloc(sizeof(float) * nb * kv);
    t->hb = bb_alloc(sizeof(float) * nb * d->hidden_dim);
    t->hb2 = bb_alloc(sizeof(float) * nb * d->hidden_dim);
    t->att = bb_alloc(sizeof(float) * (size_t)nb * d->n_heads * d->seq_len);
    t->logits = bb_alloc(sizeof(float) * d->vocab_size);
    t->rope_cs = bb_alloc(sizeof(float) * (size_t)d->seq_len * hd);
    if (t->rope_cs) rope_table(t->rope_cs, d->seq_len, hd, theta_of(d));
    t->act = bb_alloc(act);
    t->act_bytes = act;
    if (!t->key_cache || !t->value_cache || !t->x || !t->xb || !t->xb2 || !t->q || !t->k || !t->v || !t->hb ||
        !t->hb2 || !t->att || !t->logits || !t->act || !t->rope_cs)
        goto oom;
    t->footprint = need + act + sizeof(float) * ((size_t)nb * (d->dim + 2 * widest + dq + 2 * kv + 2 * d->hidden_dim +
                                                               d->n_heads * d->seq_len) + d->vocab_size);
    return t;
oom:
    snprintf(err, errlen, "out of memory building the model (estimated %.2f GiB)", need / 1073741824.0);
fail:
    bb_tf_free(t);
    return NULL;
}

void bb_tf_free(bb_transformer *t)
{
    if (!t) return;
    if (t->layers)
        for (int l = 0; l < t->d.n_layers; l++) {
            bb_tf_layer *L = &t->layers[l];
            free(L->rms_att); free(L->rms_ffn); free(L->attn_sub_norm); free(L->ffn_sub_norm);
            free(L->wq.packed); free(L->wk.packed); free(L->wv.packed); free(L->wo.packed);
            free(L->w1.packed); free(L->w2.packed); free(L->w3.packed);
        }
    free(t->layers);
    free(t->tok_emb); free(t->rms_final); free(t->cls.packed);
    free(t->key_cache); free(t->value_cache);
    free(t->x); free(t->xb); free(t->xb2); free(t->q); free(t->k); free(t->v);
    free(t->hb); free(t->hb2); free(t->att); free(t->logits); free(t->act); free(t->rope_cs);
    free(t);
}

size_t bb_tf_weight_bytes_per_token(const bb_transformer *t)
{
    size_t s = t->cls.kern->packed_size(t->cls.m, t->cls.k);
    const bb_tf_layer *L = &t->layers[0];
    const bb_linear *all[7] = {&L->wq, &L->wk, &L->wv, &L->wo, &L->w1, &L->w2, &L->w3};
    for (int i = 0; i < 7; i++) s += all[i]->kern->packed_size(all[i]->m, all[i]->k) * (size_t)t->d.n_layers;
    return s;
}

size_t bb_tf_footprint(const bb_transformer *t) { return t->footprint; }

/* ---------------- the forward pass ---------------- */

/* llama2.c's rmsnorm: o = w * (x / sqrt(mean(x^2) + eps)), per row. */
static void rmsnorm(float *o, const float *x, const float *w, int size, float eps)
{
    float ss = 0.0f;
    for (int j = 0; j < size; j++) ss += x[j] * x[j];
    ss = 1.0f / sqrtf(ss / size + eps);
    for (int j = 0; j < size; j++) o[j] = w[j] * (ss * x[j]);
}

/* Rotate pairs (2i, 2i+1) of every head by the position's angles. */
static void rope(float *vec, int n_heads, int hd, const float *cs)
{
    for (int h = 0; h < n_heads; h++)
        for (int i = 0; i < hd; i += 2) {
            float fcr = cs[i], fci = cs[i + 1];
            float *p = vec + h * hd + i;
            float v0 = p[0], v1 = p[1];
            p[0] = v0 * fcr - v1 * fci;
            p[1] = v0 * fci + v1 * fcr;
        }
}

static void matmul(bb_transformer *t, bb_pool *pool, const bb_linear *lin, const float *x, float *y, int n,
                   double *secs)
{
    double t0 = secs ? bb_now() : 0;
    (lin->var->prepare ? lin->var->prepare : lin->kern->prepare)(x, n, lin->k, t->act);
    bb_matmul_pool(pool, lin->kern, lin->var, lin->packed, t->act, y, lin->m, lin->k, n);
    if (secs) *secs += bb_now() - t0;
}

static inline float kv_load(const bb_transformer *t, const void *cache, size_t i)
{
    return t->opt.kv_f16 ? bb_fp16_to_fp32(((const uint16_t *)cache)[i]) : ((const float *)cache)[i];
}

static inline void kv_store(const bb_transformer *t, void *cache, size_t i, float v)
{
    if (t->opt.kv_f16) ((uint16_t *)cache)[i] = bb_fp32_to_fp16(v);
    else ((float *)cache)[i] = v;
}

typedef struct {
    bb_transformer *t;
    int layer, n, pos;
} attn_job;

/* Causal attention for n tokens at pos.., split over (token, head) pairs across the pool. */
static void attention_fn(void *ctx, int tid, int nthreads)
{
    attn_job *j = ctx;
    bb_transformer *t = j->t;
    const bb_tf_dims *d = &t->d;
    int hd = bb_tf_head_dim(d), kvdim = d->n_kv_heads * hd, dq = d->n_heads * hd;
    int group = d->n_heads / d->n_kv_heads, total = j->n * d->n_heads;
    size_t loff = (size_t)j->layer * d->seq_len * kvdim;
    float scale = 1.0f / sqrtf((float)hd);
    for (int w = tid; w < total; w += nthreads) {
        int i = w / d->n_heads, h = w % d->n_heads, p = j->pos + i;
        const float *q = t->q + (size_t)i * dq + h * hd;
        float *att = t->att + (size_t)w * d->seq_len;
        int kvh = h / group;
        float max = -INFINITY;
        for (int s = 0; s <= p; s++) {
            size_t base = loff + (size_t)s * kvdim + kvh * hd;
            float score = 0.0f;
            for (int e = 0; e < hd; e++) score += q[e] * kv_load(t, t->key_cache, base + e);
            att[s] = score * scale;
            if (att[s] > max) max = att[s];
        }
        float sum = 0.0f;
        for (int s = 0; s <= p; s++) {
            att[s] = expf(att[s] - max);
            sum += att[s];
        }
        for (int s = 0; s <= p; s++) att[s] /= sum;
        float *out = t->xb2 + (size_t)i * dq + h * hd;
        memset(out, 0, sizeof(float) * hd);
        for (int s = 0; s <= p; s++) {
            size_t base = loff + (size_t)s * kvdim + kvh * hd;
            for (int e = 0; e < hd; e++) out[e] += att[s] * kv_load(t, t->value_cache, base + e);
        }
    }
}

const float *bb_tf_forward(bb_transformer *t, bb_pool *pool, const int *tokens, int n, int pos, double *secs)
{
    const bb_tf_dims *d = &t->d;
    if (n < 1 || pos < 0 || pos + n > d->seq_len) return NULL;
    /* Longer inputs are run in chunks of max_batch tokens. */
    while (n > t->max_batch) {
        bb_tf_forward(t, pool, tokens, t->max_batch, pos, secs);
        tokens += t->max_batch;
        n -= t->max_batch;
        pos += t->max_batch;
    }
    int hd = bb_tf_head_dim(d), dq = d->n_heads * hd, kvdim = d->n_kv_heads * hd, hid = d->hidden_dim, dim = d->dim;
    float eps = eps_of(d);
    for (int i = 0; i < n; i++) memcpy(t->x + (size_t)i * dim, t->tok_emb + (size_t)tokens[i] * dim, sizeof(float) * dim);
    for (int l = 0; l < d->n_layers; l++) {
        bb_tf_layer *L = &t->layers[l];
        for (int i = 0; i < n; i++) rmsnorm(t->xb + (size_t)i * dim, t->x + (size_t)i * dim, L->rms_att, dim, eps);
        matmul(t, pool, &L->wq, t->xb, t->q, n, secs);
        matmul(t, pool, &L->wk, t->xb, t->k, n, secs);
        matmul(t, pool, &L->wv, t->xb, t->v, n, secs);
        size_t loff = (size_t)l * d->seq_len * kvdim;
        for (int i = 0; i < n; i++) {
            const float *cs = t->rope_cs + (size_t)(pos + i) * hd;
            rope(t->q + (size_t)i * dq, d->n_heads, hd, cs);
            rope(t->k + (size_t)i * kvdim, d->n_kv_heads, hd, cs);
            for (int e = 0; e < kvdim; e++) {
                kv_store(t, t->key_cache, loff + (size_t)(pos + i) * kvdim + e, t->k[(size_t)i * kvdim + e]);
                kv_store(t, t->value_cache, loff + (size_t)(pos + i) * kvdim + e, t->v[(size_t)i * kvdim + e]);
            }
        }
        attn_job aj = {t, l, n, pos};
        bb_pool_run(pool, attention_fn, &aj);
        if (d->sub_norms)
            for (int i = 0; i < n; i++)
                rmsnorm(t->xb2 + (size_t)i * dq, t->xb2 + (size_t)i * dq, L->attn_sub_norm, dq, eps);
        matmul(t, pool, &L->wo, t->xb2, t->xb, n, secs);
        for (size_t i = 0; i < (size_t)n * dim; i++) t->x[i] += t->xb[i];

        for (int i = 0; i < n; i++) rmsnorm(t->xb + (size_t)i * dim, t->x + (size_t)i * dim, L->rms_ffn, dim, eps);
        matmul(t, pool, &L->w1, t->xb, t->hb, n, secs);
        matmul(t, pool, &L->w3, t->xb, t->hb2, n, secs);
        for (size_t i = 0; i < (size_t)n * hid; i++) {
            float g = t->hb[i];
            if (d->ffn_act == BB_FFN_RELU2) g = g > 0.0f ? g * g : 0.0f;
            else g = g * (1.0f / (1.0f + expf(-g)));
            t->hb[i] = g * t->hb2[i];
        }
        if (d->sub_norms)
            for (int i = 0; i < n; i++)
                rmsnorm(t->hb + (size_t)i * hid, t->hb + (size_t)i * hid, L->ffn_sub_norm, hid, eps);
        matmul(t, pool, &L->w2, t->hb, t->xb, n, secs);
        for (size_t i = 0; i < (size_t)n * dim; i++) t->x[i] += t->xb[i];
    }
    float *last = t->x + (size_t)(n - 1) * dim;
    rmsnorm(t->xb, last, t->rms_final, dim, eps);
    matmul(t, pool, &t->cls, t->xb, t->logits, 1, secs);
    return t->logits;
}
