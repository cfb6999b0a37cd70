/* The engine's forward pass (transformer.h): the linear layers of a layer grouped into pool jobs,
 * the row-wise stages between them (norms, RoPE, the gate), attention over the KV cache, and the
 * classifier.  transformer_build.c builds what it runs on. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/prefetch.h"
#include "support/timer.h"
#include "attention.h"
#include "transformer_state.h"

static float eps_of(const bb_tf_dims *d) { return d->norm_eps > 0 ? d->norm_eps : 1e-5f; }

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
 * is cut into the chunks of bb_variant_chunk_rows (kernel.h: why chunks, and their sizes) run with
 * bb_pool_run_chunks, as `bitbench gemm` runs one matrix. */

typedef struct linear_group {
    const bb_linear *lin[3];
    float *y[3];
    int count, rows;             /* tensors, and their rows together */
    int chunk_rows, nchunks;     /* the range in chunks of chunk_rows rows (decode) */
    const float *x;              /* the input they share */
    int prefill_rows, prefill_chunks; /* the chunks for n > 1 (set with chunk_rows) */
    /* When the tensors do not share one kernel and one padded K (a model file's tensors of
     * different types, each through its own kernel), they cannot share prepared activations:
     * parts then holds count groups of one tensor each, run one after the other. */
    const struct linear_group *parts;
} linear_group;

typedef struct {
    const linear_group *g, *next; /* next: the group that runs after g (decode only), or NULL */
    const void *act;
    int n, chunk_rows;
    float *y[3]; /* where the kernels write: g->y, or a padded-M layer's scratch (ypad) */
    double *chunk_end; /* profiling: each thread's slot (PROF_STRIDE apart) gets the end of its chunks; else NULL */
} group_job;

/* The profile's per-thread slots are a cache line apart (transformer_profile.c). */
enum { PROF_STRIDE = 8 };

/* The profile's clock: 0 when no profile is set, so that an unprofiled pass reads no clock. */
static double prof_clock(const bb_transformer *t) { return t->prof ? bb_now() : 0; }

static void prof_stage(bb_transformer *t, bb_tf_stage s, double t0)
{
    if (t->prof) t->prof->stage[s] += bb_now() - t0;
}

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
    int r0 = c * j->chunk_rows, r1 = r0 + j->chunk_rows;
    group_rows(j, r0, r1 < j->g->rows ? r1 : j->g->rows);
    if (j->chunk_end) j->chunk_end[(size_t)tid * PROF_STRIDE] = bb_now();
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
                bb_prefetch_head((const char *)L->packed + at, all - at);
            return;
        }
        off += L->m;
    }
}

/* The matmul job just run: the dispatch at td, worker 0 back at tr, each thread's last chunk in
 * prof->chunk_end. */
static void prof_job(bb_tf_profile *prof, int kind, int nthreads, double td, double tr)
{
    double last = td;
    for (int i = 0; i < nthreads; i++)
        if (prof->chunk_end[(size_t)i * PROF_STRIDE] > last) last = prof->chunk_end[(size_t)i * PROF_STRIDE];
    for (int i = 0; i < nthreads; i++) prof->idle[i] += last - prof->chunk_end[(size_t)i * PROF_STRIDE];
    prof->matmul[kind] += last - td;
    prof->barrier[kind] += tr - last;
    prof->jobs++;
}

/* Group g (of kind BB_TF_GROUP_*) over n tokens; next (decode: the group that runs after it) is
 * prefetched or NULL. */
static void run_group_at(bb_transformer *t, bb_pool *pool, const linear_group *g, const linear_group *next, int n,
                         int kind, double *secs)
{
    if (g->parts) {
        for (int i = 0; i < g->count; i++)
            run_group_at(t, pool, &g->parts[i], i + 1 < g->count ? NULL : next, n, kind, secs);
        return;
    }
    int nthreads = bb_pool_size(pool);
    /* a profile sized for a smaller pool is not written past its end */
    bb_tf_profile *prof = t->prof && t->prof->nthreads >= nthreads ? t->prof : NULL;
    double t0 = secs || prof ? bb_now() : 0, td = 0, tr = 0;
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
    group_job j = {g, next, t->act, n, n > 1 ? g->prefill_rows : g->chunk_rows, {g->y[0], g->y[1], g->y[2]}, NULL};
    for (int i = 0; i < g->count; i++)
        if (g->lin[i]->m != g->lin[i]->m_real) j.y[i] = t->ypad[i];
    bb_pool_chunks job = {n > 1 ? g->prefill_chunks : g->nchunks, group_chunk, group_own_done, &j};
    if (prof) {
        j.chunk_end = prof->chunk_end;
        td = bb_now();
        for (int i = 0; i < nthreads; i++) j.chunk_end[(size_t)i * PROF_STRIDE] = td;
        prof->prepare[kind] += td - t0;
    }
    bb_pool_run_chunks(pool, &job);
    if (prof) {
        tr = bb_now();
        prof_job(prof, kind, nthreads, td, tr);
    }
    for (int i = 0; i < g->count; i++) /* (n, m) rows of a padded-M layer into (n, m_real) */
        if (j.y[i] != g->y[i])
            for (int c = 0; c < n; c++)
                memcpy(g->y[i] + (size_t)c * g->lin[i]->m_real, j.y[i] + (size_t)c * g->lin[i]->m,
                       sizeof(float) * g->lin[i]->m_real);
    if (secs || prof) {
        double t1 = bb_now();
        if (secs) *secs += t1 - t0;
        if (prof) prof->prepare[kind] += t1 - tr;
    }
}

/* groups[gi]: 4 per layer (BB_TF_GROUP_QKV .. W2), then the classifier */
static void run_group(bb_transformer *t, bb_pool *pool, int gi, int n, double *secs)
{
    int kind = gi < 4 * t->d.n_layers ? gi % 4 : BB_TF_GROUP_CLS;
    run_group_at(t, pool, &t->groups[gi], n == 1 ? &t->groups[(gi + 1) % t->ngroups] : NULL, n, kind, secs);
}

/* The group's chunks for decode and for prefill (bb_variant_chunk_rows). */
static void chunk_group(linear_group *g)
{
    const bb_linear *L = g->lin[0];
    g->chunk_rows = bb_variant_chunk_rows(L->kern, L->var, L->m, L->k, 1);
    g->nchunks = (g->rows + g->chunk_rows - 1) / g->chunk_rows;
    g->prefill_rows = bb_variant_chunk_rows(L->kern, L->var, L->m, L->k, 2);
    g->prefill_chunks = (g->rows + g->prefill_rows - 1) / g->prefill_rows;
}

/* Set up t->groups from the layers and the buffers. */
int tf_make_groups(bb_transformer *t)
{
    int nl = t->d.n_layers;
    t->ngroups = 4 * nl + 1;
    /* room after the ngroups groups for the one-tensor parts of groups that need them */
    if (!(t->groups = calloc(4 * (size_t)t->ngroups, sizeof *t->groups))) return -1;
    for (int l = 0; l < nl; l++) {
        const bb_tf_layer *L = &t->layers[l];
        linear_group *g = &t->groups[4 * l];
        g[0] = (linear_group){.lin = {&L->wq, &L->wk, &L->wv}, .y = {t->q, t->k, t->v}, .count = 3, .x = t->xb};
        g[1] = (linear_group){.lin = {&L->wo}, .y = {t->xb}, .count = 1, .x = t->xb2};
        g[2] = (linear_group){.lin = {&L->w1, &L->w3}, .y = {t->hb, t->hb2}, .count = 2, .x = t->xb};
        g[3] = (linear_group){.lin = {&L->w2}, .y = {t->xb}, .count = 1, .x = t->hb};
    }
    t->groups[4 * nl] = (linear_group){.lin = {&t->cls}, .y = {t->logits}, .count = 1, .x = t->xb};
    linear_group *spare = t->groups + t->ngroups;
    for (int i = 0; i < t->ngroups; i++) {
        linear_group *g = &t->groups[i];
        for (int k = 0; k < g->count; k++) g->rows += g->lin[k]->m;
        chunk_group(g);
        bool shared = true;
        for (int k = 1; k < g->count; k++)
            shared = shared && g->lin[k]->kern == g->lin[0]->kern && g->lin[k]->var == g->lin[0]->var &&
                     g->lin[k]->k == g->lin[0]->k;
        if (shared) continue;
        for (int k = 0; k < g->count; k++) {
            spare[k] = (linear_group){.lin = {g->lin[k]}, .y = {g->y[k]}, .count = 1, .x = g->x,
                                      .rows = g->lin[k]->m};
            chunk_group(&spare[k]);
        }
        g->parts = spare;
        spare += g->count;
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

int bb_tf_stream_prefetch_readers(const bb_transformer *t)
{
    int n = 0;
    for (int g = 0; g < t->ngroups; g++)
        for (int i = 0; i < t->groups[g].count; i++) {
            const bb_linear *L = t->groups[g].lin[i];
            n += bb_variant_follows_stream_prefetch(L->kern, L->var, 1);
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
        size_t row = ((size_t)j->layer * d->n_kv_heads + h) * d->seq_len + p;
        bb_kv_store_row(t->opt.kv_k, (char *)t->key_cache + row * t->k_row, k + (size_t)h * hd, hd, t->vec->to_f16);
        bb_kv_store_row(t->opt.kv_v, (char *)t->value_cache + row * t->v_row, v + (size_t)h * hd, hd, t->vec->to_f16);
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

/* Causal attention (models/attention.h): token i at pos + i attends over positions [0, pos + i],
 * chunk by chunk, each chunk's state folded into the running one in position order.
 *
 * Prefill (n > 1): a work item is one KV head and a tile of ATTN_TILE tokens; for each chunk of
 * that head's cache, every token of the tile and every query head of the group take their chunk
 * state while the chunk is in L1/L2 (a chunk of 256 positions of hd = 128 f16 is 64 KiB), so the
 * cache is read from memory once per tile instead of once per (token, head), and the running
 * state (acc in the output row, m and l in the scratch) is all that is kept: no n x n scores.
 *
 * Decode (n = 1): the few heads of one token would leave threads idle or unbalanced (a 2B4T layer
 * has 5 KV heads), so a work item is one KV head and one chunk of positions; each thread takes a
 * contiguous run of items (one forward stream through the cache), writes each chunk's state of
 * every query head of the group into att_part, and the calling thread folds them in order.  The
 * fold is the same as prefill's, so both compute the same bits. */
enum { ATTN_TILE = 16 };

static int chunks_of(int len) { return (len + BB_ATTN_CHUNK - 1) / BB_ATTN_CHUNK; }

static int group_of(const bb_tf_dims *d) { return d->n_heads / d->n_kv_heads; }

/* Scratch floats of one prefill item: a chunk's scores, its acc, and m, l of the tile's states. */
static size_t prefill_item_floats(const bb_tf_dims *d)
{
    return BB_ATTN_CHUNK + (size_t)bb_tf_head_dim(d) + 2 * (size_t)ATTN_TILE * group_of(d);
}

size_t tf_attn_scratch_floats(const bb_tf_dims *d, int max_batch)
{
    size_t tiles = (size_t)(max_batch + ATTN_TILE - 1) / ATTN_TILE;
    size_t prefill = max_batch > 1 ? (size_t)d->n_kv_heads * tiles * prefill_item_floats(d) : 0;
    size_t decode = (size_t)d->n_kv_heads * chunks_of(d->seq_len) * BB_ATTN_CHUNK;
    return prefill > decode ? prefill : decode;
}

size_t tf_attn_part_floats(const bb_tf_dims *d)
{
    return (size_t)d->n_heads * chunks_of(d->seq_len) * ((size_t)bb_tf_head_dim(d) + 2);
}

/* The cache of one layer's KV head, n positions of it written. */
static bb_attn_kv kv_of(const bb_transformer *t, int layer, int kv_head, int n)
{
    const bb_tf_dims *d = &t->d;
    size_t row = ((size_t)layer * d->n_kv_heads + kv_head) * d->seq_len;
    return (bb_attn_kv){(const char *)t->key_cache + row * t->k_row, (const char *)t->value_cache + row * t->v_row,
                        t->opt.kv_k, t->opt.kv_v, t->k_row, t->v_row, bb_tf_head_dim(d), n, NULL};
}

static void attention_prefill(void *ctx, int tid, int nthreads)
{
    const rows_job *j = ctx;
    bb_transformer *t = j->t;
    const bb_tf_dims *d = &t->d;
    int hd = bb_tf_head_dim(d), dq = d->n_heads * hd, g = group_of(d);
    int tiles = (j->n + ATTN_TILE - 1) / ATTN_TILE, total = d->n_kv_heads * tiles;
    float scale = 1.0f / sqrtf((float)hd);
    for (int w = tid; w < total; w += nthreads) {
        int kh = w / tiles, i0 = (w % tiles) * ATTN_TILE, i1 = i0 + ATTN_TILE < j->n ? i0 + ATTN_TILE : j->n;
        float *sc = t->att + (size_t)w * prefill_item_floats(d), *acc_c = sc + BB_ATTN_CHUNK;
        bb_attn_ml *ml = (bb_attn_ml *)(acc_c + hd), c;
        bb_attn_kv kv = kv_of(t, j->layer, kh, j->pos + i1);
        for (int i = i0; i < i1; i++)
            for (int hh = 0; hh < g; hh++)
                bb_attn_init(t->xb2 + (size_t)i * dq + (size_t)(kh * g + hh) * hd, &ml[(i - i0) * g + hh], hd);
        int longest = j->pos + i1;
        for (int s0 = 0; s0 < longest; s0 += BB_ATTN_CHUNK)
            for (int i = i0; i < i1; i++) {
                int len = j->pos + i + 1;
                if (len <= s0) continue;
                int s1 = len - s0 < BB_ATTN_CHUNK ? len : s0 + BB_ATTN_CHUNK;
                for (int hh = 0; hh < g; hh++) {
                    size_t h = (size_t)kh * g + hh;
                    bb_attn_chunk(t->vec, t->q + (size_t)i * dq + h * hd, &kv, s0, s1, scale, sc, acc_c, &c);
                    bb_attn_fold(t->xb2 + (size_t)i * dq + h * hd, &ml[(i - i0) * g + hh], acc_c, c, hd);
                }
            }
        for (int i = i0; i < i1; i++)
            for (int hh = 0; hh < g; hh++) {
                float *out = t->xb2 + (size_t)i * dq + (size_t)(kh * g + hh) * hd;
                bb_attn_finish(out, out, ml[(i - i0) * g + hh], hd);
            }
    }
}

/* att_part: (n_heads, chunks_of(seq_len)) states of hd + 2 floats (acc, then m and l). */
static float *part_of(const bb_transformer *t, int h, int c)
{
    int hd = bb_tf_head_dim(&t->d);
    return t->att_part + ((size_t)h * chunks_of(t->d.seq_len) + c) * ((size_t)hd + 2);
}

static void attention_decode(void *ctx, int tid, int nthreads)
{
    const rows_job *j = ctx;
    bb_transformer *t = j->t;
    const bb_tf_dims *d = &t->d;
    int hd = bb_tf_head_dim(d), g = group_of(d), len = j->pos + 1, nch = chunks_of(len);
    float scale = 1.0f / sqrtf((float)hd);
    int w0, w1;
    bb_split_rows(d->n_kv_heads * nch, 1, tid, nthreads, &w0, &w1);
    for (int w = w0; w < w1; w++) {
        int kh = w / nch, c = w % nch, s0 = c * BB_ATTN_CHUNK, s1 = len - s0 < BB_ATTN_CHUNK ? len : s0 + BB_ATTN_CHUNK;
        bb_attn_kv kv = kv_of(t, j->layer, kh, len), next;
        if (kh + 1 < d->n_kv_heads && (kh + 1) * nch < w1) { /* this thread goes on to the next head */
            next = kv_of(t, j->layer, kh + 1, len);
            kv.next = &next;
        }
        float *sc = t->att + (size_t)w * BB_ATTN_CHUNK;
        for (int hh = 0; hh < g; hh++) {
            int h = kh * g + hh;
            float *part = part_of(t, h, c);
            bb_attn_ml ml;
            bb_attn_chunk(t->vec, t->q + (size_t)h * hd, &kv, s0, s1, scale, sc, part, &ml);
            memcpy(part + hd, &ml, sizeof ml);
        }
    }
}

static void attention(bb_transformer *t, bb_pool *pool, rows_job *j)
{
    if (j->n > 1) {
        bb_pool_run(pool, attention_prefill, j);
        return;
    }
    bb_pool_run(pool, attention_decode, j);
    int hd = bb_tf_head_dim(&t->d), nch = chunks_of(j->pos + 1);
    for (int h = 0; h < t->d.n_heads; h++) {
        float *out = t->xb2 + (size_t)h * hd;
        bb_attn_ml ml, c;
        bb_attn_init(out, &ml, hd);
        for (int k = 0; k < nch; k++) {
            const float *part = part_of(t, h, k);
            memcpy(&c, part + hd, sizeof c);
            bb_attn_fold(out, &ml, part, c, hd);
        }
        bb_attn_finish(out, out, ml, hd);
    }
}

/* Bytes a decode step at pos reads from the cache: pos + 1 rows of keys and of values, per KV head
 * and layer. */
size_t bb_tf_kv_bytes_per_token(const bb_transformer *t, int pos)
{
    return (size_t)t->d.n_layers * t->d.n_kv_heads * (size_t)(pos + 1) * (t->k_row + t->v_row);
}

int bb_tf_kv_buffers(const bb_transformer *t, int pos, const void **bufs, size_t *bytes)
{
    int n = 0;
    for (int l = 0; l < t->d.n_layers; l++)
        for (int h = 0; h < t->d.n_kv_heads; h++, n += 2) {
            bb_attn_kv kv = kv_of(t, l, h, pos + 1);
            if (bufs) bufs[n] = kv.k, bufs[n + 1] = kv.v;
            if (bytes) bytes[n] = (size_t)(pos + 1) * t->k_row, bytes[n + 1] = (size_t)(pos + 1) * t->v_row;
        }
    return n;
}

/* Every layer for n <= max_batch tokens at pos..: the keys and values into the cache; x holds the
 * residual stream before the last FFN output (xb) is added. */
static void forward_layers(bb_transformer *t, bb_pool *pool, const int *tokens, int n, int pos, double *secs)
{
    const bb_tf_dims *d = &t->d;
    int dim = d->dim;
    double c = prof_clock(t);
    for (int i = 0; i < n; i++) {
        float *x = t->x + (size_t)i * dim;
        if (t->tok_emb) {
            memcpy(x, t->tok_emb + (size_t)tokens[i] * dim, sizeof(float) * dim);
        } else { /* one row of the plain row-major classifier */
            size_t row = t->cls.kern->packed_size(1, dim);
            t->cls.kern->unpack((const char *)t->cls.packed + (size_t)tokens[i] * row, 1, dim, x);
        }
    }
    prof_stage(t, BB_TF_STAGE_EMBED, c);
    rows_job j = {.t = t, .n = n, .pos = pos};
    for (int l = 0; l < d->n_layers; l++) {
        const bb_tf_layer *L = &t->layers[l];
        j.L = L;
        j.layer = l;
        /* x += (previous layer's FFN output), then the attention norm */
        j.add_residual = l > 0;
        j.norm = L->rms_att;
        c = prof_clock(t);
        for_rows(&j, pool, row_resid_norm);
        prof_stage(t, BB_TF_STAGE_RESID_NORM, c);
        run_group(t, pool, 4 * l, n, secs); /* q, k, v */
        c = prof_clock(t);
        for_rows(&j, pool, row_rope_store);
        prof_stage(t, BB_TF_STAGE_ROPE_STORE, c);
        c = prof_clock(t);
        attention(t, pool, &j);
        prof_stage(t, BB_TF_STAGE_ATTENTION, c);
        c = prof_clock(t);
        if (d->sub_norms) for_rows(&j, pool, row_attn_sub_norm);
        prof_stage(t, BB_TF_STAGE_SUB_NORM, c);
        run_group(t, pool, 4 * l + 1, n, secs); /* wo */
        j.add_residual = true;
        j.norm = L->rms_ffn;
        c = prof_clock(t);
        for_rows(&j, pool, row_resid_norm);
        prof_stage(t, BB_TF_STAGE_RESID_NORM, c);
        run_group(t, pool, 4 * l + 2, n, secs); /* w1, w3 */
        c = prof_clock(t);
        for_rows(&j, pool, row_gate);
        prof_stage(t, BB_TF_STAGE_GATE, c);
        run_group(t, pool, 4 * l + 3, n, secs); /* w2 */
    }
}

const float *bb_tf_forward(bb_transformer *t, bb_pool *pool, const int *tokens, int n, int pos, double *secs)
{
    const bb_tf_dims *d = &t->d;
    if (n < 1 || pos < 0 || pos + n > d->seq_len) return NULL;
    double start = prof_clock(t);
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
    double c = prof_clock(t);
    t->vec->add(last, lastb, dim);
    rmsnorm(t->vec, t->xb, last, t->rms_final, dim, eps_of(d));
    prof_stage(t, BB_TF_STAGE_FINAL_NORM, c);
    run_group(t, pool, 4 * d->n_layers, 1, secs); /* the classifier */
    if (t->prof) {
        t->prof->total += bb_now() - start;
        t->prof->calls++;
    }
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
    double start = prof_clock(t);
    for (int c = 0; c < n; c += t->max_batch) {
        int m = n - c < t->max_batch ? n - c : t->max_batch;
        forward_layers(t, pool, tokens + c, m, pos + c, secs);
        rows_job j = {.t = t, .n = m, .pos = pos + c};
        double c0 = prof_clock(t);
        for_rows(&j, pool, row_final_norm);
        prof_stage(t, BB_TF_STAGE_FINAL_NORM, c0);
        /* the classifier as one GEMM over the chunk, straight into the caller's rows */
        linear_group cls = t->groups[4 * d->n_layers];
        cls.y[0] = logits + (size_t)c * d->vocab_size;
        run_group_at(t, pool, &cls, NULL, m, BB_TF_GROUP_CLS, secs);
    }
    if (t->prof) {
        t->prof->total += bb_now() - start;
        t->prof->calls++;
    }
    return 0;
}
