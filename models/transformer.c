#include "transformer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/prefetch.h"
#include "support/memory.h"
#include "support/timer.h"
#include "vec.h"

struct bb_transformer {
    bb_tf_dims d;
    bb_tf_options opt;
    const bb_vec_ops *vec; /* the non-matmul arithmetic: scalar, AVX2 or AVX-512, chosen from CPUID */
    float *tok_emb; /* vocab × dim, for the embedding lookup; NULL when it is read from the classifier */
    float *rms_final;
    bb_linear cls;
    bb_tf_layer *layers;
    /* Every packed weight tensor, in the order a decode step reads them, on one allocation
     * advised for huge pages (see arena_piece). */
    void *weight_arena;
    /* [layer][kv head][seq][head_dim], f32 or f16: one head's positions are one contiguous run,
     * which decode attention streams through (a [seq][kv_dim] layout puts each head's rows a
     * kv_dim apart, a page or more, where the hardware prefetcher does not follow) */
    void *key_cache, *value_cache;
    int max_batch;
    /* activations for up to max_batch tokens */
    float *x, *xb, *xb2, *q, *k, *v, *hb, *hb2, *att, *logits;
    float *rope_cs; /* [seq][head_dim/2][cos, sin], computed once with llama2.c's expressions */
    /* The matmuls of one forward pass in order, 4 per layer then the classifier (see
     * linear_group) */
    struct linear_group *groups;
    int ngroups;
    void *act;  /* the kernels' prepared activations, sized for the largest need */
    size_t footprint;
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
    return d->tied_embedding && cls->plain_rows;
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

/* Every allocation bb_tf_create makes, from the dimensions alone, so that a model that cannot fit
 * is refused before anything is allocated, and the footprint reported is the same arithmetic. */
int bb_tf_estimate_memory(const bb_tf_dims *d, const bb_tf_options *opt, bb_tf_memory *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (bb_tf_dims_check(d, err, errlen)) return -1;
    bb_linear lin, cls;
    if (resolve(opt->kernel, &lin, "kernel", err, errlen)) return -1;
    if (resolve(opt->out_kernel ? opt->out_kernel : "f16", &cls, "output kernel", err, errlen)) return -1;
    linear_desc ld[7];
    int nl = linears(d, ld), nb = batch_of(d, opt);
    size_t act = 0, largest = 0;
    for (int i = 0; i < nl; i++) {
        char e[512];
        if (bb_kernel_check_shape(lin.kern, ld[i].m, ld[i].k, 1, e, sizeof e)) {
            snprintf(err, errlen, "layer %s (M=%d, K=%d): %s", ld[i].name, ld[i].m, ld[i].k, e);
            return -1;
        }
        m->weights += arena_piece(lin.kern->packed_size(ld[i].m, ld[i].k)) * (size_t)d->n_layers;
        size_t a = lin.kern->act_size(nb, ld[i].k);
        if (a > act) act = a;
        if ((size_t)ld[i].m * ld[i].k > largest) largest = (size_t)ld[i].m * ld[i].k;
    }
    char e[512];
    if (bb_kernel_check_shape(cls.kern, d->vocab_size, d->dim, 1, e, sizeof e)) {
        snprintf(err, errlen, "classifier (M=%d, K=%d): %s", d->vocab_size, d->dim, e);
        return -1;
    }
    int hd = bb_tf_head_dim(d), dq = d->n_heads * hd, kv = d->n_kv_heads * hd;
    m->weights += arena_piece(cls.kern->packed_size(d->vocab_size, d->dim));
    size_t a = cls.kern->act_size(nb, d->dim); /* nb rows: bb_tf_forward_all */
    if (a > act) act = a;
    m->embedding = embedding_in_classifier(d, cls.kern) ? 0 : (size_t)d->vocab_size * d->dim * sizeof(float);
    if ((size_t)d->vocab_size * d->dim > largest) largest = (size_t)d->vocab_size * d->dim;
    m->kv_cache = 2 * (size_t)d->n_layers * d->seq_len * kv * (opt->kv_f16 ? 2 : 4);
    size_t norms = (size_t)d->n_layers * (2 * (size_t)d->dim + (d->sub_norms ? (size_t)dq + d->hidden_dim : 0)) + d->dim;
    m->buffers = act + sizeof(float) * ((size_t)nb * (d->dim + 2 * (size_t)widest_of(d) + dq + 2 * (size_t)kv +
                                                       2 * (size_t)d->hidden_dim + (size_t)d->n_heads * d->seq_len) +
                                        d->vocab_size + (size_t)d->seq_len * hd + norms);
    m->build_scratch = largest * sizeof(float);
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

/* Fetch one f32 tensor into scratch (sized for the largest, allocated once: a 70B model's 560
 * tensors would otherwise each fault in hundreds of MB of fresh pages) and pack it into dst. */
static int build_linear(bb_linear *lin, void *dst, const bb_weight_source *src, const char *name, int layer, int m,
                        int k, float *w, char *err, size_t errlen)
{
    if (src->get(src->ctx, name, layer, w, (size_t)m * k, err, errlen)) return -1;
    lin->m = m;
    lin->k = k;
    lin->packed = dst;
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    char e[512];
    int rc = bb_kernel_pack(lin->kern, &bw, lin->packed, e, sizeof e);
    if (rc) snprintf(err, errlen, "packing %s of layer %d: %s", name, layer, e);
    return rc;
}

static int make_groups(bb_transformer *t); /* with the forward pass */

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
    resolve(opt->kernel, &lin, "kernel", err, errlen);
    resolve(opt->out_kernel ? opt->out_kernel : "f16", &t->cls, "output kernel", err, errlen);
    int hd = bb_tf_head_dim(d), dq = d->n_heads * hd, kv = d->n_kv_heads * hd, nb = t->max_batch;
    t->layers = calloc((size_t)d->n_layers, sizeof *t->layers);
    if (!t->layers) goto oom;
    /* Packed weights are streamed once per generated token: one allocation advised for huge
     * pages (bb_alloc_stream; on 4 KiB pages 70B i2_s decode took 1.45 instead of 1.19 s/token). */
    if (!(t->weight_arena = bb_alloc_stream(mem.weights))) goto oom;
    char *next = t->weight_arena; /* the next layer tensor's place in the arena */
    if (!(scratch = bb_alloc(mem.build_scratch))) goto oom;
    /* The embedding (through scratch) and the classifier first, so that when the classifier holds
     * the embedding no f32 table is ever allocated beside the packed layers. */
    size_t emb = (size_t)d->vocab_size * d->dim;
    if (src->get(src->ctx, "tok_embeddings", -1, scratch, emb, err, errlen)) goto fail;
    if (!embedding_in_classifier(d, t->cls.kern)) {
        if (!(t->tok_emb = bb_alloc(emb * sizeof(float)))) goto oom;
        memcpy(t->tok_emb, scratch, emb * sizeof(float));
        if (!d->tied_embedding && src->get(src->ctx, "wcls", -1, scratch, emb, err, errlen)) goto fail;
    }
    {
        bb_weights bw = {.m = d->vocab_size, .k = d->dim, .f32 = scratch};
        t->cls.m = d->vocab_size;
        t->cls.k = d->dim;
        /* the classifier is read last: the arena's last piece */
        t->cls.packed = (char *)t->weight_arena + mem.weights - arena_piece(t->cls.kern->packed_size(d->vocab_size, d->dim));
        char e[512];
        if (bb_kernel_pack(t->cls.kern, &bw, t->cls.packed, e, sizeof e)) {
            snprintf(err, errlen, "packing the classifier: %s", e);
            goto fail;
        }
    }
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
            size_t bytes = lin.kern->packed_size(ld[i].m, ld[i].k);
            if (same >= 0 && same < l) {
                const bb_linear *from = (const bb_linear *)((const char *)&t->layers[same] + ld[i].off);
                li->m = ld[i].m;
                li->k = ld[i].k;
                li->packed = next;
                memcpy(li->packed, from->packed, bytes);
            } else if (build_linear(li, next, src, ld[i].name, l, ld[i].m, ld[i].k, scratch, err, errlen)) {
                goto fail;
            }
            next += arena_piece(bytes);
            size_t a = lin.kern->act_size(nb, ld[i].k);
            if (a > act) act = a;
        }
    }
    if (!(t->rms_final = get_vec(src, "rms_final", -1, (size_t)d->dim, err, errlen))) goto fail;
    {
        size_t a = t->cls.kern->act_size(nb, d->dim);
        if (a > act) act = a;
    }
    free(scratch);
    scratch = NULL;
    size_t es = opt->kv_f16 ? 2 : 4, cache = (size_t)d->n_layers * d->seq_len * kv * es;
    t->key_cache = bb_alloc(cache);
    t->value_cache = bb_alloc(cache);
    int widest = widest_of(d);
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
    if (!t->key_cache || !t->value_cache || !t->x || !t->xb || !t->xb2 || !t->q || !t->k || !t->v || !t->hb ||
        !t->hb2 || !t->att || !t->logits || !t->act || !t->rope_cs || make_groups(t))
        goto oom;
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
    free(t->key_cache); free(t->value_cache);
    free(t->x); free(t->xb); free(t->xb2); free(t->q); free(t->k); free(t->v);
    free(t->hb); free(t->hb2); free(t->att); free(t->logits); free(t->act); free(t->rope_cs);
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
} group_job;

/* Rows [r0, r1) of the group's concatenated range, tensor by tensor. */
static void group_rows(const group_job *j, int r0, int r1)
{
    const linear_group *g = j->g;
    int off = 0;
    for (int i = 0; i < g->count; i++) {
        const bb_linear *L = g->lin[i];
        int a = r0 - off > 0 ? r0 - off : 0, b = r1 - off < L->m ? r1 - off : L->m;
        if (b > a) L->var->matmul(L->packed, j->act, g->y[i], L->m, L->k, j->n, a, b);
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
    (L->var->prepare ? L->var->prepare : L->kern->prepare)(g->x, n, L->k, t->act);
    group_job j = {g, next, t->act, n};
    bb_pool_chunks job = {g->nchunks, group_chunk, group_own_done, &j};
    bb_pool_run_chunks(pool, &job);
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
