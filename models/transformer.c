#include "transformer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/prefetch.h"
#include "kernels/common/ternary.h"
#include "support/memory.h"
#include "support/timer.h"
#include "vec.h"

/* Sizes in comments: nb = max_batch, dq = n_heads * head_dim, kv = n_kv_heads * head_dim,
 * widest = max(dim, dq, hidden_dim) (widest_of), kpad = the widest padded K, mpad = the largest
 * padded M. */
struct bb_transformer {
    bb_tf_dims d;
    bb_tf_options opt;
    const bb_vec_ops *vec; /* the non-matmul arithmetic: scalar, AVX2 or AVX-512, chosen from CPUID */
    float *tok_emb;        /* (vocab, dim) for the embedding lookup; NULL when read from the classifier */
    float *rms_final;      /* (dim,) */
    bb_linear cls;         /* (vocab, dim) */
    bb_tf_layer *layers;   /* (n_layers,) */
    /* Every packed weight tensor, in the order a decode step reads them, on one allocation
     * advised for huge pages (see arena_piece). */
    void *weight_arena;
    /* (n_layers, n_kv_heads, seq_len, head_dim), f32 or f16: one head's positions are one
     * contiguous run, which decode attention streams through (a [seq][kv_dim] layout puts each
     * head's rows a kv_dim apart, a page or more, where the hardware prefetcher does not follow) */
    void *key_cache, *value_cache;
    int max_batch;
    /* activations for up to max_batch tokens (allocated from buffer_table) */
    float *x;        /* (nb, dim) the residual stream */
    float *xb;       /* (nb, widest) a block's normed input; a matmul's output */
    float *xb2;      /* (nb, widest) the attention output, wo's input */
    float *q;        /* (nb, dq) */
    float *k, *v;    /* (nb, kv) */
    float *hb, *hb2; /* (nb, hidden_dim) the FFN's gate and up outputs */
    float *att;      /* (nb, n_heads, seq_len) attention scores */
    float *logits;   /* (vocab,) */
    float *rope_cs;  /* (seq_len, head_dim / 2, 2) cos and sin, computed once with llama2.c's expressions */
    void *act;       /* the kernels' prepared activations, sized for the largest need */
    float *xpad;     /* (nb, kpad) a padded layer's input with its zero tail; NULL when no K is padded */
    float *ypad[3];  /* (nb, mpad) the outputs of a group's padded-M layers, before their real rows are
                      * copied out; NULL when no M is padded */
    /* The matmuls of one forward pass in order, 4 per layer then the classifier (see
     * linear_group) */
    struct linear_group *groups;
    int ngroups;
    size_t footprint;
    char conversions[1024]; /* bb_tf_conversions */
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

/* A layer's linear layers in the order the forward pass runs them (w3 before w2: the gate needs
 * both w1 and w3), which is also their order in the weight arena. */
static int linears(const bb_tf_dims *d, linear_desc out[7])
{
    int hd = bb_tf_head_dim(d), dq = d->n_heads * hd, kv = d->n_kv_heads * hd;
    linear_desc l[7] = {
        {"wq", dq, d->dim, offsetof(bb_tf_layer, wq)},         {"wk", kv, d->dim, offsetof(bb_tf_layer, wk)},
        {"wv", kv, d->dim, offsetof(bb_tf_layer, wv)},         {"wo", d->dim, dq, offsetof(bb_tf_layer, wo)},
        {"w1", d->hidden_dim, d->dim, offsetof(bb_tf_layer, w1)}, {"w3", d->hidden_dim, d->dim, offsetof(bb_tf_layer, w3)},
        {"w2", d->dim, d->hidden_dim, offsetof(bb_tf_layer, w2)}};
    memcpy(out, l, sizeof l);
    return 7;
}

/* Tokens per prefill chunk, as bb_tf_create sizes the activation buffers. */
static int batch_of(const bb_tf_dims *d, const bb_tf_options *opt)
{
    int nb = opt->max_batch > 0 ? opt->max_batch : 64;
    return nb > d->seq_len ? d->seq_len : nb;
}

/* The widest row of xb / xb2 (they hold the normed input, attention output and FFN input). */
static int widest_of(const bb_tf_dims *d)
{
    int dq = d->n_heads * bb_tf_head_dim(d), w = d->hidden_dim > dq ? d->hidden_dim : dq;
    return w < d->dim ? d->dim : w;
}

/* Can the token embedding be looked up in the packed classifier?  Yes when the embedding is tied
 * and the classifier's kernel stores plain rows (the float kernels: one row unpacks alone), as
 * bitnet.cpp's runs do with their tied f16 embedding; the f32 table (1 GiB for the 70B model) is
 * then not kept. */
static bool embedding_in_classifier(const bb_tf_dims *d, const bb_kernel *cls)
{
    return d->tied_embedding && cls->plain_rows && bb_tf_padded_k(cls, d->dim) == d->dim;
}

static int round_up(int v, int q) { return q > 1 ? (v + q - 1) / q * q : v; }
int bb_tf_padded_k(const bb_kernel *kern, int k_real) { return round_up(k_real, kern->k_multiple); }
int bb_tf_padded_m(const bb_kernel *kern, int m_real) { return round_up(m_real, kern->m_multiple); }

/* Can the kernel take an m x k layer once M and K are padded?  A kernel's own shape rules (beyond
 * the multiples) are not relaxed. */
static int check_linear(const bb_kernel *kern, const char *name, int m, int k, char *err, size_t errlen)
{
    char e[512];
    int mp = bb_tf_padded_m(kern, m), kp = bb_tf_padded_k(kern, k);
    if (!bb_kernel_check_shape(kern, mp, kp, 1, e, sizeof e)) return 0;
    if (mp != m || kp != k)
        snprintf(err, errlen, "layer %s (M=%d, K=%d, padded to %d x %d for %s): %s", name, m, k, mp, kp, kern->name, e);
    else
        snprintf(err, errlen, "layer %s (M=%d, K=%d): %s", name, m, k, e);
    return -1;
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

/* The weight arena holds every packed tensor back to back, each starting on a cache line, in decode
 * order (layer by layer as linears() lists them, then the classifier): a decode step reads the
 * whole model as one forward stream, so the software prefetch at the end of one matrix already
 * fetches the head of the next, and one allocation of hundreds of MB is advised for huge pages as
 * a whole (small matrices allocated one by one stay on 4 KiB pages, a TLB miss every 4 KiB). */
static size_t arena_piece(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* ---- memory: one table of buffers for the estimate and the allocation ---- */

/* What the kernels need beyond the dimensions, found while checking every layer against them. */
typedef struct {
    size_t weights; /* the weight arena */
    size_t act;     /* the largest prepared activations */
    size_t pad;     /* the widest padded K, 0 when no layer's K is padded */
    size_t mpad;    /* the most padded M, 0 when no layer's M is padded */
    size_t largest; /* floats of the largest tensor as packed (padded), the build scratch */
} kernel_needs;

/* Resolve the kernels (into lin and cls, m and k unset) and check every layer's shape. */
static int plan_kernels(const bb_tf_dims *d, const bb_tf_options *opt, bb_linear *lin, bb_linear *cls,
                        kernel_needs *kn, char *err, size_t errlen)
{
    memset(kn, 0, sizeof *kn);
    if (resolve(opt->kernel, lin, "kernel", err, errlen)) return -1;
    if (resolve(opt->out_kernel ? opt->out_kernel : "f16", cls, "output kernel", err, errlen)) return -1;
    linear_desc ld[8];
    int nl = linears(d, ld), nb = batch_of(d, opt);
    ld[nl] = (linear_desc){"classifier", d->vocab_size, d->dim, 0};
    for (int i = 0; i <= nl; i++) {
        const bb_kernel *kern = i < nl ? lin->kern : cls->kern;
        int kp = bb_tf_padded_k(kern, ld[i].k), mp = bb_tf_padded_m(kern, ld[i].m);
        if (check_linear(kern, ld[i].name, ld[i].m, ld[i].k, err, errlen)) return -1;
        kn->weights += arena_piece(kern->packed_size(mp, kp)) * (size_t)(i < nl ? d->n_layers : 1);
        /* nb rows for the classifier too: bb_tf_forward_all */
        size_t a = kern->act_size(nb, kp);
        if (a > kn->act) kn->act = a;
        if ((size_t)mp * kp > kn->largest) kn->largest = (size_t)mp * kp;
        if (kp != ld[i].k && (size_t)kp > kn->pad) kn->pad = (size_t)kp;
        if (mp != ld[i].m && (size_t)mp > kn->mpad) kn->mpad = (size_t)mp;
    }
    return 0;
}

typedef struct {
    size_t field; /* offsetof the pointer in bb_transformer */
    size_t bytes; /* 0: not allocated (the pointer stays NULL) */
    bool kv;      /* counted as KV cache, else as buffers */
} buffer_desc;

enum { MAX_BUFFERS = 20 };

/* Every buffer bb_tf_create allocates besides the weights and the norms (see the struct). */
static int buffer_table(const bb_tf_dims *d, const bb_tf_options *opt, const kernel_needs *kn, buffer_desc *b)
{
    size_t nb = (size_t)batch_of(d, opt), f = sizeof(float), hd = (size_t)bb_tf_head_dim(d);
    size_t dq = (size_t)d->n_heads * hd, kv = (size_t)d->n_kv_heads * hd, w = (size_t)widest_of(d);
    size_t hid = (size_t)d->hidden_dim, seq = (size_t)d->seq_len;
    size_t cache = (size_t)d->n_layers * seq * kv * (opt->kv_f16 ? 2 : 4);
    const buffer_desc table[] = {
        {offsetof(bb_transformer, key_cache), cache, true},
        {offsetof(bb_transformer, value_cache), cache, true},
        {offsetof(bb_transformer, x), f * nb * (size_t)d->dim, false},
        {offsetof(bb_transformer, xb), f * nb * w, false},
        {offsetof(bb_transformer, xb2), f * nb * w, false},
        {offsetof(bb_transformer, q), f * nb * dq, false},
        {offsetof(bb_transformer, k), f * nb * kv, false},
        {offsetof(bb_transformer, v), f * nb * kv, false},
        {offsetof(bb_transformer, hb), f * nb * hid, false},
        {offsetof(bb_transformer, hb2), f * nb * hid, false},
        {offsetof(bb_transformer, att), f * nb * (size_t)d->n_heads * seq, false},
        {offsetof(bb_transformer, logits), f * (size_t)d->vocab_size, false},
        {offsetof(bb_transformer, rope_cs), f * seq * hd, false},
        {offsetof(bb_transformer, act), kn->act, false},
        {offsetof(bb_transformer, xpad), f * nb * kn->pad, false},
        {offsetof(bb_transformer, ypad[0]), f * nb * kn->mpad, false},
        {offsetof(bb_transformer, ypad[1]), f * nb * kn->mpad, false},
        {offsetof(bb_transformer, ypad[2]), f * nb * kn->mpad, false},
    };
    memcpy(b, table, sizeof table);
    return (int)(sizeof table / sizeof table[0]);
}

/* Floats of the norm gains, allocated one vector at a time. */
static size_t norm_floats(const bb_tf_dims *d)
{
    size_t dq = (size_t)d->n_heads * bb_tf_head_dim(d);
    return (size_t)d->n_layers * (2 * (size_t)d->dim + (d->sub_norms ? dq + d->hidden_dim : 0)) + d->dim;
}

/* Every allocation bb_tf_create makes, from the dimensions alone, so that a model that cannot fit
 * is refused before anything is allocated, and the footprint reported is the same arithmetic. */
int bb_tf_estimate_memory(const bb_tf_dims *d, const bb_tf_options *opt, bb_tf_memory *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (bb_tf_dims_check(d, err, errlen)) return -1;
    bb_linear lin, cls;
    kernel_needs kn;
    if (plan_kernels(d, opt, &lin, &cls, &kn, err, errlen)) return -1;
    m->weights = kn.weights;
    m->embedding = embedding_in_classifier(d, cls.kern) ? 0 : (size_t)d->vocab_size * d->dim * sizeof(float);
    buffer_desc b[MAX_BUFFERS] = {{0}};
    int nbuf = buffer_table(d, opt, &kn, b);
    for (int i = 0; i < nbuf; i++) *(b[i].kv ? &m->kv_cache : &m->buffers) += b[i].bytes;
    m->buffers += sizeof(float) * norm_floats(d);
    size_t emb = (size_t)d->vocab_size * d->dim;
    m->build_scratch = (kn.largest > emb ? kn.largest : emb) * sizeof(float);
    /* bb_tf_create frees the scratch before it allocates the KV cache */
    m->total = m->weights + m->embedding + m->buffers + (m->kv_cache > m->build_scratch ? m->kv_cache : m->build_scratch);
    return 0;
}

int bb_tf_estimate_bytes(const bb_tf_dims *d, const bb_tf_options *opt, size_t *bytes, char *err, size_t errlen)
{
    bb_tf_memory m;
    if (bb_tf_estimate_memory(d, opt, &m, err, errlen)) return -1;
    *bytes = m.total;
    return 0;
}

static int alloc_buffers(bb_transformer *t, const kernel_needs *kn)
{
    buffer_desc b[MAX_BUFFERS] = {{0}};
    int nbuf = buffer_table(&t->d, &t->opt, kn, b);
    for (int i = 0; i < nbuf; i++) {
        void **p = (void **)((char *)t + b[i].field);
        if (b[i].bytes && !(*p = bb_alloc(b[i].bytes))) return -1;
    }
    rope_table(t->rope_cs, t->d.seq_len, bb_tf_head_dim(&t->d), theta_of(&t->d));
    return 0;
}

static void free_buffers(bb_transformer *t)
{
    kernel_needs none = {0};
    buffer_desc b[MAX_BUFFERS] = {{0}};
    int nbuf = buffer_table(&t->d, &t->opt, &none, b);
    for (int i = 0; i < nbuf; i++) free(*(void **)((char *)t + b[i].field));
}

/* ---- weights ---- */

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

/* m_real rows of k_real values at w become mp rows of kp, the new columns and rows zero, in
 * place (w holds mp * kp values of size bytes each). */
static void pad_matrix(void *w, size_t size, int m_real, int k_real, int mp, int kp)
{
    char *b = w;
    for (int r = m_real - 1; r >= 0; r--) {
        memmove(b + (size_t)r * kp * size, b + (size_t)r * k_real * size, (size_t)k_real * size);
        memset(b + ((size_t)r * kp + k_real) * size, 0, (size_t)(kp - k_real) * size);
    }
    memset(b + (size_t)m_real * kp * size, 0, (size_t)(mp - m_real) * kp * size);
}

/* How one kind of tensor reached its kernel, for bb_tf_conversions. */
typedef struct {
    char type[16];  /* the source's stored type, or "f32" when the source has no stored form */
    bool as_stored; /* its bytes were copied as they are */
    bool mixed;     /* another layer's tensor of this kind went another way */
    bool seen;
} conversion;

static void note_conversion(conversion *c, const char *type, bool as_stored)
{
    if (c->seen && (strcmp(c->type, type) || c->as_stored != as_stored)) c->mixed = true;
    if (c->seen) return;
    snprintf(c->type, sizeof c->type, "%s", type);
    c->as_stored = as_stored;
    c->seen = true;
}

/* The tensor's stored bytes, when they are the kernel's packed bytes (kernel.h gguf_type). */
static bool use_stored(const bb_linear *lin, const bb_stored_tensor *st)
{
    return lin->k == lin->k_real && lin->m == lin->m_real && lin->kern->gguf_type && !strcmp(lin->kern->gguf_type, st->type) &&
           st->bytes <= lin->kern->packed_size(lin->m, lin->k);
}

/* Fill one linear layer at dst: the source's stored bytes copied when the kernel stores that
 * type, else its f32 weights (fetched into scratch w, sized once for the largest padded tensor: a
 * 70B model's 560 tensors would otherwise each fault in hundreds of MB of fresh pages) padded to
 * the kernel's M and K and packed.  lin has kern, var, m_real and k_real set. */
static int build_linear(bb_linear *lin, void *dst, const bb_weight_source *src, const char *name, int layer,
                        float *w, conversion *how, char *err, size_t errlen)
{
    int m = lin->m_real, k_real = lin->k_real;
    lin->k = bb_tf_padded_k(lin->kern, k_real);
    lin->m = bb_tf_padded_m(lin->kern, m);
    lin->packed = dst;
    lin->out_scale = 1.0f;
    bb_stored_tensor st;
    bool have = src->stored && src->stored(src->ctx, name, layer, &st) == 0, as_stored = have && use_stored(lin, &st);
    note_conversion(how, have ? st.type : "f32", as_stored);
    if (as_stored) {
        memcpy(dst, st.data, st.bytes);
        memset((char *)dst + st.bytes, 0, lin->kern->packed_size(m, lin->k) - st.bytes);
        lin->out_scale = st.out_scale;
        return 0;
    }
    if (src->get(src->ctx, name, layer, w, (size_t)m * k_real, err, errlen)) return -1;
    bb_weights bw = {.m = lin->m, .k = lin->k, .f32 = w};
    int8_t *tern = NULL;
    if (lin->k != k_real || lin->m != m) {
        /* a ternary kernel's absmean scale is the real weights', not diluted by the zero padding */
        if (lin->kern->weights == BB_WEIGHTS_TERNARY) {
            if (!(tern = malloc((size_t)lin->m * lin->k))) {
                snprintf(err, errlen, "out of memory ternarizing %s", name);
                return -1;
            }
            bw.ternary_scale = bb_ternarize(w, (size_t)m * k_real, tern);
            pad_matrix(tern, 1, m, k_real, lin->m, lin->k);
            bw.ternary = tern;
        }
        pad_matrix(w, sizeof(float), m, k_real, lin->m, lin->k);
    }
    char e[512];
    int rc = bb_kernel_pack(lin->kern, &bw, lin->packed, e, sizeof e);
    free(tern);
    if (rc && layer < 0) snprintf(err, errlen, "packing the classifier (%s): %s", name, e);
    else if (rc) snprintf(err, errlen, "packing %s of layer %d: %s", name, layer, e);
    return rc;
}

/* Conversion kinds: the embedding, the seven linears in linears() order, the classifier. */
enum { CONV_EMBEDDING = 0, CONV_LINEAR = 1, CONV_CLASSIFIER = 8, CONV_KINDS = 9 };

/* The embedding (through scratch) and the classifier first, so that when the classifier holds
 * the embedding no f32 table is ever allocated beside the packed layers.  The classifier is read
 * last in a decode step: the arena's last piece. */
static int build_embedding(bb_transformer *t, const bb_weight_source *src, float *scratch, size_t arena_bytes,
                           conversion *how, char *err, size_t errlen)
{
    const bb_tf_dims *d = &t->d;
    size_t emb = (size_t)d->vocab_size * d->dim;
    bb_stored_tensor st;
    bool have = src->stored && src->stored(src->ctx, "tok_embeddings", -1, &st) == 0;
    note_conversion(&how[CONV_EMBEDDING], have ? st.type : "f32", false);
    if (!embedding_in_classifier(d, t->cls.kern)) {
        if (src->get(src->ctx, "tok_embeddings", -1, scratch, emb, err, errlen)) return -1;
        if (!(t->tok_emb = bb_alloc(emb * sizeof(float)))) {
            snprintf(err, errlen, "out of memory for the embedding (%zu floats)", emb);
            return -1;
        }
        memcpy(t->tok_emb, scratch, emb * sizeof(float));
    }
    t->cls.m_real = d->vocab_size;
    t->cls.k_real = d->dim;
    size_t bytes = t->cls.kern->packed_size(bb_tf_padded_m(t->cls.kern, d->vocab_size), bb_tf_padded_k(t->cls.kern, d->dim));
    char *dst = (char *)t->weight_arena + arena_bytes - arena_piece(bytes);
    const char *name = d->tied_embedding ? "tok_embeddings" : "wcls";
    return build_linear(&t->cls, dst, src, name, -1, scratch, &how[CONV_CLASSIFIER], err, errlen);
}

/* Layer l's norms and linear layers, the linears at *next in the arena (advanced past them).  A
 * layer the source says is identical to an earlier one copies that one's packed bytes. */
static int build_layer(bb_transformer *t, int l, const bb_linear *lin, const bb_weight_source *src, float *scratch,
                       char **next, conversion *how, char *err, size_t errlen)
{
    const bb_tf_dims *d = &t->d;
    bb_tf_layer *L = &t->layers[l];
    int dq = d->n_heads * bb_tf_head_dim(d);
    if (!(L->rms_att = get_vec(src, "rms_att", l, (size_t)d->dim, err, errlen))) return -1;
    if (!(L->rms_ffn = get_vec(src, "rms_ffn", l, (size_t)d->dim, err, errlen))) return -1;
    if (d->sub_norms) {
        if (!(L->attn_sub_norm = get_vec(src, "attn_sub_norm", l, (size_t)dq, err, errlen))) return -1;
        if (!(L->ffn_sub_norm = get_vec(src, "ffn_sub_norm", l, (size_t)d->hidden_dim, err, errlen))) return -1;
    }
    linear_desc ld[7];
    int nl = linears(d, ld), same = src->alias ? src->alias(src->ctx, l) : -1;
    for (int i = 0; i < nl; i++) {
        bb_linear *li = (bb_linear *)((char *)L + ld[i].off);
        *li = *lin;
        li->m_real = ld[i].m;
        li->k_real = ld[i].k;
        size_t bytes = lin->kern->packed_size(bb_tf_padded_m(lin->kern, ld[i].m), bb_tf_padded_k(lin->kern, ld[i].k));
        if (same >= 0 && same < l) {
            *li = *(const bb_linear *)((const char *)&t->layers[same] + ld[i].off);
            li->packed = *next;
            memcpy(li->packed, ((const bb_linear *)((const char *)&t->layers[same] + ld[i].off))->packed, bytes);
        } else if (build_linear(li, *next, src, ld[i].name, l, scratch, &how[CONV_LINEAR + i], err, errlen)) {
            return -1;
        }
        *next += arena_piece(bytes);
    }
    return 0;
}

/* bb_tf_conversions' text, one line per kind of tensor. */
static void describe_conversions(bb_transformer *t, const conversion *how)
{
    static const char *const kinds[CONV_KINDS] = {"embedding", "wq", "wk", "wv", "wo", "w1", "w3", "w2", "classifier"};
    linear_desc ld[7];
    linears(&t->d, ld);
    size_t o = 0, cap = sizeof t->conversions;
    for (int i = 0; i < CONV_KINDS && o < cap; i++) {
        const conversion *c = &how[i];
        const bb_linear *L = i == CONV_CLASSIFIER ? &t->cls : i == CONV_EMBEDDING ? NULL
                           : (const bb_linear *)((const char *)&t->layers[0] + ld[i - CONV_LINEAR].off);
        if (!L) {
            o += (size_t)snprintf(t->conversions + o, cap - o, "embedding: %s %s\n", c->type,
                                  t->tok_emb ? "dequantized to an f32 table" : "rows read from the classifier (tied)");
            continue;
        }
        o += (size_t)snprintf(t->conversions + o, cap - o, "%s: %s %s %s", kinds[i], c->type,
                              c->as_stored ? "used as stored by" : strcmp(c->type, "f32") ? "dequantized to f32, packed into" : "packed into",
                              L->kern->name);
        if (o < cap && (L->k != L->k_real || L->m != L->m_real))
            o += (size_t)snprintf(t->conversions + o, cap - o, " (%d x %d padded to %d x %d)", L->m_real, L->k_real, L->m, L->k);
        if (o < cap && c->mixed) o += (size_t)snprintf(t->conversions + o, cap - o, " (other layers differ)");
        if (o < cap) o += (size_t)snprintf(t->conversions + o, cap - o, "\n");
    }
    if (o > 0 && o < cap) t->conversions[o - 1] = 0;
}

const char *bb_tf_conversions(const bb_transformer *t) { return t->conversions; }

static int make_groups(bb_transformer *t); /* with the forward pass */

/* Build the model: estimate (refusing what cannot fit or run), allocate the arena, fill it layer
 * by layer from the source, then the buffers. */
bb_transformer *bb_tf_create(const bb_tf_dims *d, const bb_weight_source *src, const bb_tf_options *opt,
                             char *err, size_t errlen)
{
    bb_tf_memory mem;
    if (bb_tf_estimate_memory(d, opt, &mem, err, errlen)) return NULL;
    bb_transformer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    float *scratch = NULL;
    t->d = *d;
    t->opt = *opt;
    t->vec = bb_vec_best();
    t->max_batch = batch_of(d, opt);
    bb_linear lin;
    kernel_needs kn;
    plan_kernels(d, opt, &lin, &t->cls, &kn, err, errlen);
    conversion how[CONV_KINDS] = {0};
    /* Packed weights are streamed once per generated token: one allocation advised for huge
     * pages (bb_alloc_stream; on 4 KiB pages 70B i2_s decode took 1.45 instead of 1.19 s/token). */
    if (!(t->layers = calloc((size_t)d->n_layers, sizeof *t->layers)) || !(t->weight_arena = bb_alloc_stream(mem.weights)) ||
        !(scratch = bb_alloc(mem.build_scratch)))
        goto oom;
    if (build_embedding(t, src, scratch, mem.weights, how, err, errlen)) goto fail;
    char *next = t->weight_arena;
    for (int l = 0; l < d->n_layers; l++)
        if (build_layer(t, l, &lin, src, scratch, &next, how, err, errlen)) goto fail;
    if (!(t->rms_final = get_vec(src, "rms_final", -1, (size_t)d->dim, err, errlen))) goto fail;
    free(scratch);
    scratch = NULL;
    if (alloc_buffers(t, &kn) || make_groups(t)) goto oom;
    describe_conversions(t, how);
    t->footprint = mem.weights + mem.embedding + mem.kv_cache + mem.buffers;
    return t;
oom:
    snprintf(err, errlen, "out of memory building the model (estimated %.2f GiB)", mem.total / 1073741824.0);
fail:
    free(scratch);
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
        }
    free(t->layers);
    free(t->groups);
    free(t->weight_arena);
    free(t->tok_emb); free(t->rms_final);
    free_buffers(t);
    free(t);
}

size_t bb_tf_footprint(const bb_transformer *t) { return t->footprint; }

/* ---------------- the forward pass ---------------- */

/* llama2.c's rmsnorm: o = w * (x / sqrt(mean(x^2) + eps)), one row; o may be x. */
static void rmsnorm(const bb_vec_ops *v, float *o, const float *x, const float *w, int size, float eps)
{
    float ss = v->sum_squares(x, size);
    ss = 1.0f / sqrtf(ss / size + eps);
    v->scale_mul(o, x, w, ss, size);
}

/* Linear layers that read the same input run as one pool job (wq wk wv; w1 w3): the input is
 * prepared once, and the rows of all of them are one range, so that each thread streams one
 * contiguous run of the arena (the tensors lie there in this order) and the pool synchronizes once
 * instead of three times.  A decode step is then 4 jobs per layer plus the classifier.  The range
 * is cut into chunks of about GROUP_CHUNK_BYTES of weights run with bb_pool_run_chunks: each
 * thread streams its own share forward, then helps with what is left of the others'.  Every row
 * is computed by the same kernel on row slices whose ends are multiples of m_multiple, so the
 * result is the same bits however the chunks fall.  Why: with one fixed slice per thread the
 * threads of a 700M decode step waited for each other 5-6 % of the matmul time (a thread's DRAM
 * stream runs faster or slower from one call to the next); 700M i2_s, 2 threads, tg over the
 * read-alone bound in alternating runs: 0.69 -> 0.74 (f32 KV), 0.70 -> 0.72 (f16); chunks of
 * 16 or 64 KiB were no different from 32. */
#define GROUP_CHUNK_BYTES 32768

typedef struct linear_group {
    const bb_linear *lin[3];
    float *y[3];
    int count, rows;             /* tensors, and their rows together */
    int chunk_rows, nchunks;     /* the range in chunks of chunk_rows rows */
    const float *x;              /* the input they share */
} linear_group;

typedef struct {
    const linear_group *g, *next; /* next: the group that runs after g (decode only), or NULL */
    const void *act;
    int n;
    float *y[3]; /* where the kernels write: g->y, or a padded-M layer's scratch (ypad) */
} group_job;

/* Rows [r0, r1) of the group's concatenated range, tensor by tensor. */
static void group_rows(const group_job *j, int r0, int r1)
{
    const linear_group *g = j->g;
    int off = 0;
    for (int i = 0; i < g->count; i++) {
        const bb_linear *L = g->lin[i];
        int a = r0 - off > 0 ? r0 - off : 0, b = r1 - off < L->m ? r1 - off : L->m;
        if (b > a) {
            L->var->matmul(L->packed, j->act, j->y[i], L->m, L->k, j->n, a, b);
            if (L->out_scale != 1.0f)
                for (int c = 0; c < j->n; c++)
                    for (int r = a; r < b; r++) j->y[i][(size_t)c * L->m + r] *= L->out_scale;
        }
        off += L->m;
    }
}

static void group_chunk(void *ctx, int tid, int c)
{
    (void)tid;
    const group_job *j = ctx;
    int r0 = c * j->g->chunk_rows, r1 = r0 + j->g->chunk_rows;
    group_rows(j, r0, r1 < j->g->rows ? r1 : j->g->rows);
}

/* A thread done with its own share prefetches the head of its share of the next matmul: the
 * kernels prefetch BB_PREFETCH_BYTES ahead of where they read, so without this the first lines
 * after the barrier (and after the row-wise work in between) would be demand misses on a cold
 * stream. */
static void group_own_done(void *ctx, int tid, int nthreads)
{
    const group_job *j = ctx;
    const linear_group *g = j->next;
    if (!g) return;
    int c0, c1, r0, off = 0;
    bb_split_rows(g->nchunks, 1, tid, nthreads, &c0, &c1);
    if (c1 <= c0) return;
    r0 = c0 * g->chunk_rows;
    for (int i = 0; i < g->count; i++) {
        const bb_linear *L = g->lin[i];
        if (r0 < off + L->m) {
            /* packed_size of whole rows is each kernel's row stride times rows (plus, for some,
             * a small trailer): close enough for a prefetch hint */
            size_t at = L->kern->packed_size(r0 - off, L->k), all = L->kern->packed_size(L->m, L->k);
            if (at < all)
                bb_prefetch_lines((const char *)L->packed + at, all - at < BB_PREFETCH_BYTES ? all - at : BB_PREFETCH_BYTES);
            return;
        }
        off += L->m;
    }
}

/* Group g over n tokens; next (decode: the group that runs after it) is prefetched or NULL. */
static void run_group_at(bb_transformer *t, bb_pool *pool, const linear_group *g, const linear_group *next, int n,
                         double *secs)
{
    double t0 = secs ? bb_now() : 0;
    const bb_linear *L = g->lin[0];
    const float *x = g->x;
    if (L->k != L->k_real) { /* (n, k_real) rows into (n, k) rows with zero tails */
        for (int i = 0; i < n; i++) {
            memcpy(t->xpad + (size_t)i * L->k, g->x + (size_t)i * L->k_real, sizeof(float) * L->k_real);
            memset(t->xpad + (size_t)i * L->k + L->k_real, 0, sizeof(float) * (L->k - L->k_real));
        }
        x = t->xpad;
    }
    (L->var->prepare ? L->var->prepare : L->kern->prepare)(x, n, L->k, t->act);
    group_job j = {g, next, t->act, n, {g->y[0], g->y[1], g->y[2]}};
    for (int i = 0; i < g->count; i++)
        if (g->lin[i]->m != g->lin[i]->m_real) j.y[i] = t->ypad[i];
    bb_pool_chunks job = {g->nchunks, group_chunk, group_own_done, &j};
    bb_pool_run_chunks(pool, &job);
    for (int i = 0; i < g->count; i++) /* (n, m) rows of a padded-M layer into (n, m_real) */
        if (j.y[i] != g->y[i])
            for (int c = 0; c < n; c++)
                memcpy(g->y[i] + (size_t)c * g->lin[i]->m_real, j.y[i] + (size_t)c * g->lin[i]->m,
                       sizeof(float) * g->lin[i]->m_real);
    if (secs) *secs += bb_now() - t0;
}

static void run_group(bb_transformer *t, bb_pool *pool, int gi, int n, double *secs)
{
    run_group_at(t, pool, &t->groups[gi], n == 1 ? &t->groups[(gi + 1) % t->ngroups] : NULL, n, secs);
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

/* Rows per chunk: about GROUP_CHUNK_BYTES of the group's weights, a multiple of the kernel's
 * m_multiple and of 16 (whole register tiles of every kernel). */
static void chunk_group(linear_group *g)
{
    const bb_linear *L = g->lin[0];
    int unit = L->kern->m_multiple / gcd(L->kern->m_multiple, 16) * 16;
    double row_bytes = (double)L->kern->packed_size(L->m, L->k) / L->m;
    int units = (int)(GROUP_CHUNK_BYTES / (row_bytes * unit) + 0.5);
    g->chunk_rows = unit * (units > 1 ? units : 1);
    g->nchunks = (g->rows + g->chunk_rows - 1) / g->chunk_rows;
}

/* Set up t->groups from the layers and the buffers. */
static int make_groups(bb_transformer *t)
{
    int nl = t->d.n_layers;
    t->ngroups = 4 * nl + 1;
    if (!(t->groups = calloc((size_t)t->ngroups, sizeof *t->groups))) return -1;
    for (int l = 0; l < nl; l++) {
        const bb_tf_layer *L = &t->layers[l];
        linear_group *g = &t->groups[4 * l];
        g[0] = (linear_group){{&L->wq, &L->wk, &L->wv}, {t->q, t->k, t->v}, 3, 0, 0, 0, t->xb};
        g[1] = (linear_group){{&L->wo}, {t->xb}, 1, 0, 0, 0, t->xb2};
        g[2] = (linear_group){{&L->w1, &L->w3}, {t->hb, t->hb2}, 2, 0, 0, 0, t->xb};
        g[3] = (linear_group){{&L->w2}, {t->xb}, 1, 0, 0, 0, t->hb};
    }
    t->groups[4 * nl] = (linear_group){{&t->cls}, {t->logits}, 1, 0, 0, 0, t->xb};
    for (int i = 0; i < t->ngroups; i++) {
        for (int k = 0; k < t->groups[i].count; k++) t->groups[i].rows += t->groups[i].lin[k]->m;
        chunk_group(&t->groups[i]);
    }
    return 0;
}

/* The groups list every linear layer once, in the order a decode step reads them. */
int bb_tf_weight_buffers(const bb_transformer *t, const void **bufs, size_t *bytes)
{
    int n = 0;
    for (int g = 0; g < t->ngroups; g++)
        for (int i = 0; i < t->groups[g].count; i++, n++) {
            const bb_linear *L = t->groups[g].lin[i];
            if (bufs) bufs[n] = L->packed;
            if (bytes) bytes[n] = L->kern->packed_size(L->m, L->k);
        }
    return n;
}

size_t bb_tf_weight_pad_bytes_per_token(const bb_transformer *t)
{
    size_t s = 0;
    for (int g = 0; g < t->ngroups; g++)
        for (int i = 0; i < t->groups[g].count; i++) {
            const bb_linear *L = t->groups[g].lin[i];
            double real = (double)L->m_real * L->k_real / ((double)L->m * L->k);
            s += (size_t)((double)L->kern->packed_size(L->m, L->k) * (1.0 - real) + 0.5);
        }
    return s;
}

size_t bb_tf_weight_bytes_per_token(const bb_transformer *t)
{
    size_t s = 0;
    for (int g = 0; g < t->ngroups; g++)
        for (int i = 0; i < t->groups[g].count; i++) {
            const bb_linear *L = t->groups[g].lin[i];
            s += L->kern->packed_size(L->m, L->k);
        }
    return s;
}

/* One stage of the per-token (row-wise) work between two matmuls. */
typedef struct rows_job rows_job;
typedef void (*row_fn)(const rows_job *j, int i);
struct rows_job {
    bb_transformer *t;
    const bb_tf_layer *L;
    int layer, n, pos;
    const float *norm;    /* resid_norm: the RMSNorm gain */
    bool add_residual;    /* resid_norm: x += xb first */
    row_fn fn;
};

static void rows_run(void *ctx, int tid, int nthreads)
{
    const rows_job *j = ctx;
    int i0, i1;
    bb_split_rows(j->n, 1, tid, nthreads, &i0, &i1);
    for (int i = i0; i < i1; i++) j->fn(j, i);
}

/* A stage over n token rows: spread over the pool when there are several (prefill), done on the
 * calling thread for one (decode), where waking the pool would cost more than a row of a few
 * thousand floats.  Each row goes through the same code whichever thread runs it, so prefill and
 * token-by-token decode compute the same bits. */
static void for_rows(rows_job *j, bb_pool *pool, row_fn fn)
{
    j->fn = fn;
    if (j->n == 1 || bb_pool_size(pool) == 1) {
        for (int i = 0; i < j->n; i++) fn(j, i);
    } else {
        bb_pool_run(pool, rows_run, j);
    }
}

/* x += xb (the previous block's output) when asked, then xb = RMSNorm(x): the residual add of
 * one block fused with the input norm of the next. */
static void row_resid_norm(const rows_job *j, int i)
{
    bb_transformer *t = j->t;
    int dim = t->d.dim;
    float *x = t->x + (size_t)i * dim, *xb = t->xb + (size_t)i * dim;
    if (j->add_residual) t->vec->add(x, xb, dim);
    rmsnorm(t->vec, xb, x, j->norm, dim, eps_of(&t->d));
}

/* RoPE on q and k of the row's position, then k and v into the cache. */
static void row_rope_store(const rows_job *j, int i)
{
    bb_transformer *t = j->t;
    const bb_tf_dims *d = &t->d;
    int hd = bb_tf_head_dim(d), dq = d->n_heads * hd, kvdim = d->n_kv_heads * hd, p = j->pos + i;
    const float *cs = t->rope_cs + (size_t)p * hd;
    float *k = t->k + (size_t)i * kvdim, *v = t->v + (size_t)i * kvdim;
    t->vec->rope(t->q + (size_t)i * dq, d->n_heads, hd, cs);
    t->vec->rope(k, d->n_kv_heads, hd, cs);
    for (int h = 0; h < d->n_kv_heads; h++) {
        size_t at = (((size_t)j->layer * d->n_kv_heads + h) * d->seq_len + p) * hd;
        if (t->opt.kv_f16) {
            t->vec->to_f16((uint16_t *)t->key_cache + at, k + (size_t)h * hd, hd);
            t->vec->to_f16((uint16_t *)t->value_cache + at, v + (size_t)h * hd, hd);
        } else {
            memcpy((float *)t->key_cache + at, k + (size_t)h * hd, sizeof(float) * hd);
            memcpy((float *)t->value_cache + at, v + (size_t)h * hd, sizeof(float) * hd);
        }
    }
}

/* BitNet's sub-norm before Wo. */
static void row_attn_sub_norm(const rows_job *j, int i)
{
    bb_transformer *t = j->t;
    int dq = t->d.n_heads * bb_tf_head_dim(&t->d);
    float *o = t->xb2 + (size_t)i * dq;
    rmsnorm(t->vec, o, o, j->L->attn_sub_norm, dq, eps_of(&t->d));
}

/* hb = act(W1 x) * (W3 x), then BitNet's sub-norm before W2. */
static void row_gate(const rows_job *j, int i)
{
    bb_transformer *t = j->t;
    int hid = t->d.hidden_dim;
    float *h = t->hb + (size_t)i * hid;
    const float *g = t->hb2 + (size_t)i * hid;
    if (t->d.ffn_act == BB_FFN_RELU2) t->vec->relu2_mul(h, g, hid);
    else t->vec->silu_mul(h, g, hid);
    if (t->d.sub_norms) rmsnorm(t->vec, h, h, j->L->ffn_sub_norm, hid, eps_of(&t->d));
}

/* Causal attention for n tokens at pos.., split over (token, head) pairs across the pool: scores
 * q·k_s for s <= position, softmax, weighted sum of v_s, each a vector primitive reading the f32
 * or f16 cache directly (the cache type is fixed per model, so the choice is made per head, not
 * per element). */
static void attention_fn(void *ctx, int tid, int nthreads)
{
    const rows_job *j = ctx;
    bb_transformer *t = j->t;
    const bb_tf_dims *d = &t->d;
    const bb_vec_ops *v = t->vec;
    int hd = bb_tf_head_dim(d), dq = d->n_heads * hd;
    int group = d->n_heads / d->n_kv_heads, total = j->n * d->n_heads;
    float scale = 1.0f / sqrtf((float)hd);
    for (int w = tid; w < total; w += nthreads) {
        int i = w / d->n_heads, h = w % d->n_heads, len = j->pos + i + 1;
        const float *q = t->q + (size_t)i * dq + (size_t)h * hd;
        float *att = t->att + (size_t)w * d->seq_len, *out = t->xb2 + (size_t)i * dq + (size_t)h * hd;
        size_t base = ((size_t)j->layer * d->n_kv_heads + h / group) * d->seq_len * hd;
        if (t->opt.kv_f16) {
            v->scores_f16(q, (const uint16_t *)t->key_cache + base, (size_t)hd, hd, len, scale, att);
            v->softmax(att, len);
            v->wsum_f16(out, att, (const uint16_t *)t->value_cache + base, (size_t)hd, hd, len);
        } else {
            v->scores_f32(q, (const float *)t->key_cache + base, (size_t)hd, hd, len, scale, att);
            v->softmax(att, len);
            v->wsum_f32(out, att, (const float *)t->value_cache + base, (size_t)hd, hd, len);
        }
    }
}

/* Every layer for n <= max_batch tokens at pos..: the keys and values into the cache; x holds the
 * residual stream before the last FFN output (xb) is added. */
static void forward_layers(bb_transformer *t, bb_pool *pool, const int *tokens, int n, int pos, double *secs)
{
    const bb_tf_dims *d = &t->d;
    int dim = d->dim;
    for (int i = 0; i < n; i++) {
        float *x = t->x + (size_t)i * dim;
        if (t->tok_emb) {
            memcpy(x, t->tok_emb + (size_t)tokens[i] * dim, sizeof(float) * dim);
        } else { /* one row of the plain row-major classifier */
            size_t row = t->cls.kern->packed_size(1, dim);
            t->cls.kern->unpack((const char *)t->cls.packed + (size_t)tokens[i] * row, 1, dim, x);
        }
    }
    rows_job j = {.t = t, .n = n, .pos = pos};
    for (int l = 0; l < d->n_layers; l++) {
        const bb_tf_layer *L = &t->layers[l];
        j.L = L;
        j.layer = l;
        /* x += (previous layer's FFN output), then the attention norm */
        j.add_residual = l > 0;
        j.norm = L->rms_att;
        for_rows(&j, pool, row_resid_norm);
        run_group(t, pool, 4 * l, n, secs); /* q, k, v */
        for_rows(&j, pool, row_rope_store);
        bb_pool_run(pool, attention_fn, &j);
        if (d->sub_norms) for_rows(&j, pool, row_attn_sub_norm);
        run_group(t, pool, 4 * l + 1, n, secs); /* wo */
        j.add_residual = true;
        j.norm = L->rms_ffn;
        for_rows(&j, pool, row_resid_norm);
        run_group(t, pool, 4 * l + 2, n, secs); /* w1, w3 */
        for_rows(&j, pool, row_gate);
        run_group(t, pool, 4 * l + 3, n, secs); /* w2 */
    }
}

const float *bb_tf_forward(bb_transformer *t, bb_pool *pool, const int *tokens, int n, int pos, double *secs)
{
    const bb_tf_dims *d = &t->d;
    if (n < 1 || pos < 0 || pos + n > d->seq_len) return NULL;
    /* Longer inputs are run in chunks of max_batch tokens. */
    while (n > t->max_batch) {
        forward_layers(t, pool, tokens, t->max_batch, pos, secs);
        tokens += t->max_batch;
        n -= t->max_batch;
        pos += t->max_batch;
    }
    forward_layers(t, pool, tokens, n, pos, secs);
    int dim = d->dim;
    /* the last layer's residual and the final norm, for the last token only (the only logits
     * returned; the other rows of x are rebuilt from the embedding on the next call) */
    float *last = t->x + (size_t)(n - 1) * dim, *lastb = t->xb + (size_t)(n - 1) * dim;
    t->vec->add(last, lastb, dim);
    rmsnorm(t->vec, t->xb, last, t->rms_final, dim, eps_of(d));
    run_group(t, pool, 4 * d->n_layers, 1, secs); /* the classifier */
    return t->logits;
}

/* The last layer's residual add and the final norm of one row. */
static void row_final_norm(const rows_job *j, int i)
{
    bb_transformer *t = j->t;
    int dim = t->d.dim;
    float *x = t->x + (size_t)i * dim;
    t->vec->add(x, t->xb + (size_t)i * dim, dim);
    rmsnorm(t->vec, t->xb + (size_t)i * dim, x, t->rms_final, dim, eps_of(&t->d));
}

int bb_tf_forward_all(bb_transformer *t, bb_pool *pool, const int *tokens, int n, int pos, float *logits, double *secs)
{
    const bb_tf_dims *d = &t->d;
    if (n < 1 || pos < 0 || pos + n > d->seq_len) return -1;
    for (int c = 0; c < n; c += t->max_batch) {
        int m = n - c < t->max_batch ? n - c : t->max_batch;
        forward_layers(t, pool, tokens + c, m, pos + c, secs);
        rows_job j = {.t = t, .n = m, .pos = pos + c};
        for_rows(&j, pool, row_final_norm);
        /* the classifier as one GEMM over the chunk, straight into the caller's rows */
        linear_group cls = t->groups[4 * d->n_layers];
        cls.y[0] = logits + (size_t)c * d->vocab_size;
        run_group_at(t, pool, &cls, NULL, m, secs);
    }
    return 0;
}
