/* Building the engine (transformer.h): the shapes checked against the kernels, the memory
 * estimated from the dimensions alone, every weight packed (or copied as stored, padded in M and
 * K where the kernel's block asks), what became of each kind of weight, and the buffers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/ternary.h"
#include "support/memory.h"
#include "transformer_state.h"

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
    /* 0 means the llama2.c default (10000).  An infinite base leaves only the first pair of each
     * head rotating, NaN, zero or a negative base give NaN angles (llama.cpp loads such a file and
     * computes them): no position information either way, so refused whatever the source. */
    if (!(d->rope_theta == 0 || (d->rope_theta > 0 && isfinite(d->rope_theta)))) {
        snprintf(err, errlen, "rope_theta = %g: the RoPE base must be a finite positive number (0 = 10000)",
                 (double)d->rope_theta);
        return -1;
    }
    return 0;
}

const bb_tf_dims *bb_tf_get_dims(const bb_transformer *t) { return &t->d; }
int bb_tf_max_batch(const bb_transformer *t) { return t->max_batch; }

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

/* The kernel of layer l's i-th linear layer (linears() order). */
static const char *tensor_kernel(const bb_tf_options *opt, int l, int i)
{
    return opt->tensor_kernels ? opt->tensor_kernels[(size_t)l * BB_TF_LINEARS + i] : opt->kernel;
}

/* One linear layer of shape ld through kern, copies times, into the needs. */
static int add_needs(kernel_needs *kn, const bb_kernel *kern, const linear_desc *ld, const char *name, int nb,
                     size_t copies, char *err, size_t errlen)
{
    int kp = bb_tf_padded_k(kern, ld->k), mp = bb_tf_padded_m(kern, ld->m);
    if (check_linear(kern, name, ld->m, ld->k, err, errlen)) return -1;
    kn->weights += arena_piece(kern->packed_size(mp, kp)) * copies;
    /* nb rows for the classifier too: bb_tf_forward_all */
    size_t a = kern->act_size(nb, kp);
    if (a > kn->act) kn->act = a;
    if ((size_t)mp * kp > kn->largest) kn->largest = (size_t)mp * kp;
    if (kp != ld->k && (size_t)kp > kn->pad) kn->pad = (size_t)kp;
    if (mp != ld->m && (size_t)mp > kn->mpad) kn->mpad = (size_t)mp;
    return 0;
}

/* Resolve the classifier's kernel (into cls, m and k unset) and check every layer's shape
 * against its kernel. */
static int plan_kernels(const bb_tf_dims *d, const bb_tf_options *opt, bb_linear *cls, kernel_needs *kn, char *err,
                        size_t errlen)
{
    memset(kn, 0, sizeof *kn);
    if (!opt->tensor_kernels && !opt->kernel) {
        snprintf(err, errlen, "no kernel for the linear layers");
        return -1;
    }
    if (resolve(opt->out_kernel ? opt->out_kernel : "f16", cls, "output kernel", err, errlen)) return -1;
    linear_desc ld[7];
    int nl = linears(d, ld), nb = batch_of(d, opt);
    /* with one kernel for every layer, layer 0 stands for all of them */
    int layers = opt->tensor_kernels ? d->n_layers : 1;
    size_t copies = opt->tensor_kernels ? 1 : (size_t)d->n_layers;
    for (int l = 0; l < layers; l++)
        for (int i = 0; i < nl; i++) {
            bb_linear lin;
            char name[48], what[64];
            if (opt->tensor_kernels) {
                snprintf(name, sizeof name, "%s of layer %d", ld[i].name, l);
                snprintf(what, sizeof what, "kernel of %s", name);
            } else {
                snprintf(name, sizeof name, "%s", ld[i].name);
                snprintf(what, sizeof what, "kernel");
            }
            if (resolve(tensor_kernel(opt, l, i), &lin, what, err, errlen) ||
                add_needs(kn, lin.kern, &ld[i], name, nb, copies, err, errlen))
                return -1;
        }
    linear_desc c = {"classifier", d->vocab_size, d->dim, 0};
    return add_needs(kn, cls->kern, &c, c.name, nb, 1, err, errlen);
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
    size_t heads = (size_t)d->n_layers * seq * d->n_kv_heads;
    const buffer_desc table[] = {
        {offsetof(bb_transformer, key_cache), heads * bb_kv_row_bytes(opt->kv_k, (int)hd), true},
        {offsetof(bb_transformer, value_cache), heads * bb_kv_row_bytes(opt->kv_v, (int)hd), true},
        {offsetof(bb_transformer, x), f * nb * (size_t)d->dim, false},
        {offsetof(bb_transformer, xb), f * nb * w, false},
        {offsetof(bb_transformer, xb2), f * nb * w, false},
        {offsetof(bb_transformer, q), f * nb * dq, false},
        {offsetof(bb_transformer, k), f * nb * kv, false},
        {offsetof(bb_transformer, v), f * nb * kv, false},
        {offsetof(bb_transformer, hb), f * nb * hid, false},
        {offsetof(bb_transformer, hb2), f * nb * hid, false},
        {offsetof(bb_transformer, att), f * tf_attn_scratch_floats(d, (int)nb), false},
        {offsetof(bb_transformer, att_part), f * tf_attn_part_floats(d), false},
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
    if (bb_kv_type_check(opt->kv_k, bb_tf_head_dim(d), err, errlen) ||
        bb_kv_type_check(opt->kv_v, bb_tf_head_dim(d), err, errlen))
        return -1;
    bb_linear cls;
    kernel_needs kn;
    if (plan_kernels(d, opt, &cls, &kn, err, errlen)) return -1;
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
    /* The KV cache is streamed by every decode step as the weights are, so it goes on memory
     * advised for huge pages too (bb_alloc_stream): on 4 KiB pages each page boundary restarts
     * the hardware streamer and costs a TLB miss, and at depth the cache outweighs the weights
     * (docs/measurements/2026-11-28-decode.md, "Attention at depth"). */
    for (int i = 0; i < nbuf; i++) {
        void **p = (void **)((char *)t + b[i].field);
        if (b[i].bytes && !(*p = b[i].kv ? bb_alloc_stream(b[i].bytes) : bb_alloc(b[i].bytes))) return -1;
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
typedef enum { CONV_PACKED = 0, CONV_AS_STORED, CONV_REARRANGED } conv_way;

typedef struct {
    char type[16];  /* the source's stored type, or "f32" when the source has no stored form */
    char kernel[32]; /* the kernel it went through (tensor_kernels may differ by layer) */
    conv_way way;   /* packed from floats, its bytes copied as they are, or its blocks rearranged */
    bool mixed;     /* another layer's tensor of this kind went another way */
    bool seen;
} conversion;

static void note_conversion(conversion *c, const char *type, const char *kernel, conv_way way)
{
    if (c->seen && (strcmp(c->type, type) || strcmp(c->kernel, kernel) || c->way != way)) c->mixed = true;
    if (c->seen) return;
    snprintf(c->type, sizeof c->type, "%s", type);
    snprintf(c->kernel, sizeof c->kernel, "%s", kernel);
    c->way = way;
    c->seen = true;
}

/* How the tensor's stored bytes can serve the kernel: as they are (they are its packed bytes,
 * kernel.h gguf_type), rearranged (kernel.h gguf_repack_type: an interleaved layout of exactly
 * those blocks, unpadded), or not at all. */
static conv_way stored_way(const bb_linear *lin, const bb_stored_tensor *st)
{
    if (lin->k != lin->k_real || lin->m != lin->m_real) return CONV_PACKED;
    const bb_kernel *k = lin->kern;
    if (k->gguf_type && !strcmp(k->gguf_type, st->type) && st->bytes <= k->packed_size(lin->m, lin->k))
        return CONV_AS_STORED;
    if (k->gguf_repack_type && !strcmp(k->gguf_repack_type, st->type) && st->bytes == k->packed_size(lin->m, lin->k))
        return CONV_REARRANGED;
    return CONV_PACKED;
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
    bool have = src->stored && src->stored(src->ctx, name, layer, &st) == 0;
    conv_way way = have ? stored_way(lin, &st) : CONV_PACKED;
    note_conversion(how, have ? st.type : "f32", lin->kern->name, way);
    if (way == CONV_AS_STORED) {
        memcpy(dst, st.data, st.bytes);
        memset((char *)dst + st.bytes, 0, lin->kern->packed_size(m, lin->k) - st.bytes);
        lin->out_scale = st.out_scale;
        return 0;
    }
    if (way == CONV_REARRANGED) {
        lin->kern->repack_stored(st.data, m, lin->k, dst);
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
    note_conversion(&how[CONV_EMBEDDING], have ? st.type : "f32", "", CONV_PACKED);
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
static int build_layer(bb_transformer *t, int l, const bb_weight_source *src, float *scratch, char **next,
                       conversion *how, char *err, size_t errlen)
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
        memset(li, 0, sizeof *li);
        if (resolve(tensor_kernel(&t->opt, l, i), li, "kernel", err, errlen)) return -1;
        li->m_real = ld[i].m;
        li->k_real = ld[i].k;
        size_t bytes = li->kern->packed_size(bb_tf_padded_m(li->kern, ld[i].m), bb_tf_padded_k(li->kern, ld[i].k));
        const bb_linear *earlier = same >= 0 && same < l ? (const bb_linear *)((const char *)&t->layers[same] + ld[i].off)
                                                         : NULL;
        if (earlier && earlier->kern == li->kern && earlier->var == li->var) {
            *li = *earlier;
            li->packed = *next;
            memcpy(li->packed, earlier->packed, bytes);
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
                              c->way == CONV_AS_STORED     ? "used as stored by"
                              : c->way == CONV_REARRANGED  ? "blocks rearranged (not requantized) for"
                              : strcmp(c->type, "f32")     ? "dequantized to f32, packed into"
                                                           : "packed into",
                              L->kern->name);
        if (o < cap && (L->k != L->k_real || L->m != L->m_real))
            o += (size_t)snprintf(t->conversions + o, cap - o, " (%d x %d padded to %d x %d)", L->m_real, L->k_real, L->m, L->k);
        if (o < cap && c->mixed) o += (size_t)snprintf(t->conversions + o, cap - o, " (other layers differ)");
        if (o < cap) o += (size_t)snprintf(t->conversions + o, cap - o, "\n");
    }
    if (o > 0 && o < cap) t->conversions[o - 1] = 0;
}

const char *bb_tf_conversions(const bb_transformer *t) { return t->conversions; }


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
    t->k_row = bb_kv_row_bytes(opt->kv_k, bb_tf_head_dim(d));
    t->v_row = bb_kv_row_bytes(opt->kv_v, bb_tf_head_dim(d));
    kernel_needs kn;
    plan_kernels(d, opt, &t->cls, &kn, err, errlen);
    conversion how[CONV_KINDS] = {0};
    /* Packed weights are streamed once per generated token: one allocation advised for huge
     * pages (bb_alloc_stream: on 4 KiB pages a 70B decode was markedly slower; the figures are in
     * docs/measurements/2026-11-22.md). */
    if (!(t->layers = calloc((size_t)d->n_layers, sizeof *t->layers)) || !(t->weight_arena = bb_alloc_stream(mem.weights)) ||
        !(scratch = bb_alloc(mem.build_scratch)))
        goto oom;
    if (build_embedding(t, src, scratch, mem.weights, how, err, errlen)) goto fail;
    char *next = t->weight_arena;
    for (int l = 0; l < d->n_layers; l++)
        if (build_layer(t, l, src, scratch, &next, how, err, errlen)) goto fail;
    if (!(t->rms_final = get_vec(src, "rms_final", -1, (size_t)d->dim, err, errlen))) goto fail;
    free(scratch);
    scratch = NULL;
    if (alloc_buffers(t, &kn) || tf_make_groups(t)) goto oom;
    describe_conversions(t, how);
    t->opt.tensor_kernels = NULL; /* the caller's, valid only while building */
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
