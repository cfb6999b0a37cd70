#include "bench/e2e_bench.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/logit_compare.h"
#include "kernels/cpu.h"
#include "kernels/kernel.h"
#include "models/kernel_choice.h"
#include "models/model_fit.h"
#include "models/model_load.h"
#include "models/synthetic.h"
#include "support/memory.h"
#include "support/sizes.h"
#include "support/stats.h"
#include "support/timer.h"

/* The data-dependent next token of a timed decode: a logit scaled and reduced modulo the vocabulary.
 * Through a 64-bit integer, so a negative, huge or non-finite logit gives a defined token
 * (converting a negative float straight to unsigned is undefined behaviour). */
static int next_token(float logit, int vocab_size)
{
    float v = logit * 1000.0f;
    long long i = (isfinite(v) && fabsf(v) < 1e18f) ? (long long)v : 0;
    return (int)((unsigned long long)i % (unsigned long long)vocab_size);
}

void bb_tf_dims_from_config(const bb_model_config *c, int seq_len, bb_tf_dims *d)
{
    bb_model_config_dims(c, seq_len, d);
}

/* The index of the median of v[0..n) (the lower middle one when n is even). */
static int median_rep(const double *v, int n)
{
    int best = 0;
    for (int i = 0; i < n; i++) {
        int below = 0, equal_before = 0;
        for (int j = 0; j < n; j++) {
            below += v[j] < v[i];
            equal_before += j < i && v[j] == v[i];
        }
        /* v[i] takes rank below + equal_before in a stable sort */
        if (below + equal_before == (n - 1) / 2) best = i;
    }
    return best;
}

/* A model file's own weights, each tensor through the kernel kernel_choice.h's rule gives it. */
static bb_transformer *build_file_model(const bb_e2e_spec *s, int seq, int max_batch, bb_e2e_result *r, char *err,
                                        size_t errlen)
{
    char e[BB_ERR_MAX], warn[512];
    bb_model_source *src = bb_model_source_open(s->model->path, NULL, e, sizeof e);
    if (!src) {
        snprintf(err, errlen, "%s", e);
        return NULL;
    }
    bb_transformer *tf = NULL;
    bb_tf_dims d;
    bb_kernel_choice kc = {0};
    if (bb_model_source_run_dims(src, seq, &d, warn, sizeof warn, e, sizeof e) ||
        bb_kernel_choose(src, &d, s->kernel, s->out_kernel, s->keep_layout, &kc, e, sizeof e)) {
        snprintf(err, errlen, "model %s: %s", s->model->name, e);
        goto done;
    }
    kc.opt.kv_k = s->kv_k;
    kc.opt.kv_v = s->kv_v;
    kc.opt.max_batch = max_batch;
    if (r) {
        snprintf(r->kernel_note, sizeof r->kernel_note, "%s", kc.note);
        snprintf(r->out_kernel, sizeof r->out_kernel, "%s", kc.opt.out_kernel);
    }
    if ((tf = bb_model_source_build(src, seq, &kc.opt, warn, sizeof warn, err, errlen)) && warn[0])
        fprintf(stderr, "warning: %s\n", warn);
done:
    bb_kernel_choice_free(&kc);
    bb_model_source_close(src);
    return tf;
}

/* The spec's model: a config's synthetic weights, or a model file's own, after checking it fits
 * in the available memory.  r (may be NULL) gets the classifier's kernel and the kernel note. */
static bb_transformer *build_model(const bb_e2e_spec *s, bb_e2e_result *r, char *err, size_t errlen)
{
    int seq = s->seq_len > 0 ? s->seq_len : s->depth + s->prompt_len + s->gen_len;
    if (seq < 1) seq = 1;
    if (s->depth < 0 || (long)s->depth + s->prompt_len + s->gen_len > seq) {
        snprintf(err, errlen, "depth %d + prompt %d + generation %d tokens exceed the context of %d (valid: depth + "
                 "prompt + gen <= the context)", s->depth, s->prompt_len, s->gen_len, seq);
        return NULL;
    }
    if (s->n_logit_tokens > seq) {
        snprintf(err, errlen, "%d compared tokens exceed the context of %d", s->n_logit_tokens, seq);
        return NULL;
    }
    int longest = s->prompt_len > s->depth ? s->prompt_len : s->depth;
    int max_batch = longest > 0 ? (longest < 512 ? longest : 512) : 1;
    if (s->model->path[0]) return build_file_model(s, seq, max_batch, r, err, errlen);
    if (!s->kernel) {
        snprintf(err, errlen, "model %s has synthetic weights: give a kernel", s->model->name);
        return NULL;
    }
    bb_tf_dims d;
    bb_tf_dims_from_config(s->model, seq, &d);
    /* the same defaults as every command's for a config (kernel_choice.h) */
    bb_tf_options opt = {.kernel = s->kernel, .out_kernel = s->out_kernel ? s->out_kernel : "f16", .kv_k = s->kv_k,
                         .kv_v = s->kv_v, .max_batch = max_batch};
    if (r) snprintf(r->out_kernel, sizeof r->out_kernel, "%s", opt.out_kernel);
    if (bb_model_check_fits(s->model->name, &d, &opt, err, errlen)) return NULL;
    bb_synthetic syn = {.dims = d, .seed = s->seed, .distinct_layers = s->distinct_layers};
    bb_weight_source src = bb_synthetic_source(&syn);
    char e[1024];
    bb_transformer *tf = bb_tf_create(&d, &src, &opt, e, sizeof e);
    if (!tf) snprintf(err, errlen, "model %s: %s", s->model->name, e);
    return tf;
}

static int run_logits(bb_transformer *tf, bb_pool *pool, const bb_e2e_spec *s, char *err, size_t errlen)
{
    if (!s->logit_tokens || s->n_logit_tokens < 1 || !s->logits_out) return 0;
    if (bb_tf_teacher_forced(tf, pool, s->logit_tokens, s->n_logit_tokens, s->logits_out) == 0) return 0;
    snprintf(err, errlen, "model %s with kernel %s: the %d compared tokens exceed its context", s->model->name,
             s->kernel ? s->kernel : s->keep_layout ? BB_KERNEL_STORED_LAYOUT : BB_KERNEL_AS_STORED, s->n_logit_tokens);
    return -1;
}

int bb_e2e_logits(bb_pool *pool, const bb_e2e_spec *s, char *err, size_t errlen)
{
    bb_transformer *tf = build_model(s, NULL, err, errlen);
    if (!tf) return -1;
    int rc = run_logits(tf, pool, s, err, errlen);
    bb_tf_free(tf);
    return rc;
}

/* What the linear layers' kernel ran in each measured phase (bb_e2e_result's pp/tg_variant_ran):
 * the prefill's GEMMs have N = max_batch for each full chunk and N = the rest for the last one. */
static void variants_ran(const bb_e2e_spec *s, int max_batch, bb_e2e_result *r)
{
    const bb_kernel *kern;
    const bb_variant *v;
    char e[256];
    if (!s->kernel) {
        /* a model file run as stored: each tensor through its own type's kernel at that kernel's
         * default variant (run.json's conversions list them); no single variant to name */
        if (s->prompt_len > 0) snprintf(r->pp_variant_ran, sizeof r->pp_variant_ran, "per-tensor");
        if (s->gen_len > 0) snprintf(r->tg_variant_ran, sizeof r->tg_variant_ran, "per-tensor");
        return;
    }
    if (bb_kernel_resolve(s->kernel, &kern, &v, e, sizeof e)) return; /* the build resolved it: not reached */
    if (s->prompt_len > 0) {
        int full = s->prompt_len < max_batch ? s->prompt_len : max_batch, rest = s->prompt_len % max_batch;
        const char *a = bb_variant_ran(v, full), *b = s->prompt_len > max_batch && rest ? bb_variant_ran(v, rest) : a;
        if (strcmp(a, b)) snprintf(r->pp_variant_ran, sizeof r->pp_variant_ran, "%s+%s", a, b);
        else snprintf(r->pp_variant_ran, sizeof r->pp_variant_ran, "%s", a);
    }
    if (s->gen_len > 0) snprintf(r->tg_variant_ran, sizeof r->tg_variant_ran, "%s", bb_variant_ran(v, 1));
}

/* One point's built model between its repetitions: bb_e2e_bench measures one, bb_e2e_bench_interleaved
 * several side by side. */
typedef struct {
    const bb_e2e_spec *s;
    bb_e2e_result *r;
    bb_transformer *tf;
    int reps;
    double *pp, *tg, *rd;  /* tokens/s of each repetition's prefill and generation; 1 / seconds of each read pass */
    int *tokens;           /* the depth's tokens, then the prompt's */
    const void **bufs;     /* what the read-alone bound reads: the weight buffers, then the KV rows */
    size_t *bytes, read_bytes;
    int nbuf, depth_tok;
    double mm_total, tg_total; /* the attempt's seconds in the linear layers and in generation */
    uint64_t fallbacks;        /* the attempt's fallback calls (kernel.h), counted around its own phases */
} e2e_model;

static void model_free(e2e_model *m)
{
    free(m->pp); free(m->tg); free(m->rd); free(m->tokens); free(m->bufs); free(m->bytes);
    bb_tf_free(m->tf);
    m->tf = NULL;
}

/* Build s's model into m, with what its read-alone bound reads, and fill the depth's tokens into its
 * KV cache.  Returns 0, or -1 with err and nothing held. */
static int model_open(e2e_model *m, bb_pool *pool, const bb_e2e_spec *s, bb_e2e_result *r, char *err, size_t errlen)
{
    *m = (e2e_model){.s = s, .r = r, .reps = s->reps > 0 ? s->reps : 1};
    memset(r, 0, sizeof *r);
    bb_pool_cpus(pool, r->cpus, sizeof r->cpus);
    snprintf(r->placement, sizeof r->placement, "%s", bb_pool_placement(pool));
    double t0 = bb_now();
    if (!(m->tf = build_model(s, r, err, errlen))) return -1;
    r->build_seconds = bb_now() - t0;
    r->weight_bytes_per_token = bb_tf_weight_bytes_per_token(m->tf);
    r->weight_pad_bytes_per_token = bb_tf_weight_pad_bytes_per_token(m->tf);
    snprintf(r->conversions, sizeof r->conversions, "%s", bb_tf_conversions(m->tf));
    snprintf(r->stream_prefetch, sizeof r->stream_prefetch, "%s",
             !bb_tf_stream_prefetch_readers(m->tf) ? "" : bb_cpu_stream_prefetch() ? "on" : "off");
    r->footprint = bb_tf_footprint(m->tf);
    variants_ran(s, bb_tf_max_batch(m->tf), r);
    int ntok = s->depth + s->prompt_len;
    /* the read-alone bound reads the weights and the KV rows of the middle generated token */
    int mid = s->depth + s->prompt_len + (s->gen_len > 0 ? (s->gen_len - 1) / 2 : 0);
    int nweights = bb_tf_weight_buffers(m->tf, NULL, NULL);
    m->nbuf = nweights + bb_tf_kv_buffers(m->tf, mid, NULL, NULL);
    m->pp = calloc((size_t)m->reps, sizeof(double));
    m->tg = calloc((size_t)m->reps, sizeof(double));
    m->rd = calloc((size_t)m->reps * BB_E2E_READ_PASSES, sizeof(double));
    m->tokens = calloc((size_t)(ntok > 0 ? ntok : 1), sizeof(int));
    m->bufs = calloc((size_t)m->nbuf, sizeof *m->bufs);
    m->bytes = calloc((size_t)m->nbuf, sizeof *m->bytes);
    if (!m->pp || !m->tg || !m->rd || !m->tokens || !m->bufs || !m->bytes) {
        snprintf(err, errlen, "out of memory");
        model_free(m);
        return -1;
    }
    bb_tf_weight_buffers(m->tf, m->bufs, m->bytes);
    if (s->gen_len > 0) {
        bb_tf_kv_buffers(m->tf, mid, m->bufs + nweights, m->bytes + nweights);
        r->kv_bytes_per_token = bb_tf_kv_bytes_per_token(m->tf, mid);
    }
    int vocab = bb_tf_get_dims(m->tf)->vocab_size;
    for (int i = 0; i < ntok; i++) m->tokens[i] = (int)((i * 7919u + 1) % (unsigned)vocab);
    /* the depth's tokens into the cache, untimed, as llama-bench fills its -d context; once: a
     * repetition writes only the positions after them, so the first depth rows stay what this
     * fill left (llama-bench clears its cache and fills again for each repetition, to the same
     * contents) */
    m->depth_tok = 1;
    if (s->depth > 0) {
        const float *l = bb_tf_forward(m->tf, pool, m->tokens, s->depth, 0, NULL);
        m->depth_tok = l ? (int)(l[0] > l[1]) : 1;
    }
    return 0;
}

/* A new attempt: its repetitions' figures replace the last attempt's. */
static void model_attempt(e2e_model *m)
{
    m->mm_total = m->tg_total = 0;
    m->fallbacks = 0;
    if (m->s->profile) bb_tf_profile_reset(m->s->profile);
}

/* Repetition rep: the prompt's prefill, the generation (with the spec's hooks around it), then the
 * read-alone bound's passes over the same buffers by the same pool, so that they see the machine as
 * the generation did. */
static void model_rep(e2e_model *m, bb_pool *pool, int rep)
{
    const bb_e2e_spec *s = m->s;
    int vocab = bb_tf_get_dims(m->tf)->vocab_size;
    int pos = s->depth, tok = m->depth_tok;
    uint64_t fallbacks_before = bb_kernel_fallback_calls();
    if (s->prompt_len > 0) {
        double a = bb_now();
        const float *l = bb_tf_forward(m->tf, pool, m->tokens + s->depth, s->prompt_len, s->depth, NULL);
        double dt = bb_now() - a;
        m->pp[rep] = s->prompt_len / dt;
        if (s->pp_seconds) s->pp_seconds[rep] = dt;
        pos = s->depth + s->prompt_len;
        tok = l ? (int)(l[0] > l[1]) : 1; /* a data-dependent next token */
    }
    if (s->gen_len > 0 && s->gen_begin) s->gen_begin(s->hook_ctx, rep);
    bb_tf_set_profile(m->tf, s->profile);
    double mm = 0, a = bb_now();
    for (int g = 0; g < s->gen_len; g++) {
        const float *l = bb_tf_forward(m->tf, pool, &tok, 1, pos + g, &mm);
        tok = l ? next_token(l[g % vocab], vocab) : 1;
    }
    double dt = bb_now() - a;
    bb_tf_set_profile(m->tf, NULL);
    m->fallbacks += bb_kernel_fallback_calls() - fallbacks_before; /* the read passes run no kernel */
    if (s->gen_len > 0 && s->gen_end) s->gen_end(s->hook_ctx, rep, s->gen_len);
    if (s->gen_len > 0) {
        m->tg[rep] = s->gen_len / dt;
        if (s->tg_seconds) s->tg_seconds[rep] = dt;
        m->mm_total += mm;
        m->tg_total += dt;
        /* the passes alternate one stream per thread and BB_READ_STREAMS, each repetition
         * starting with the other; m->rd holds the one-stream passes, then the others */
        const int half = BB_E2E_READ_PASSES / 2;
        for (int p = 0; p < BB_E2E_READ_PASSES; p++) {
            int kind = (p + rep) % 2;
            double t = bb_read_buffers(pool, m->bufs, m->bytes, m->nbuf, kind ? BB_READ_STREAMS : 1, &m->read_bytes);
            m->rd[(size_t)kind * m->reps * half + (size_t)rep * half + p / 2] = 1.0 / t;
        }
    }
}

/* The attempt's figures into the result. */
static void model_summarize(e2e_model *m)
{
    const bb_e2e_spec *s = m->s;
    bb_e2e_result *r = m->r;
    r->fallback_calls = m->fallbacks;
    if (s->prompt_len > 0) {
        bb_stats st = bb_stats_of(m->pp, m->reps);
        r->pp_tps_median = st.median; r->pp_tps_min = st.min; r->pp_tps_max = st.max;
    }
    r->tg_median_rep = -1;
    if (s->gen_len > 0) {
        r->tg_median_rep = median_rep(m->tg, m->reps);
        bb_stats st = bb_stats_of(m->tg, m->reps);
        r->tg_tps_median = st.median; r->tg_tps_min = st.min; r->tg_tps_max = st.max;
        r->tg_ms_per_token = 1000.0 / st.median;
        r->matmul_share = m->tg_total > 0 ? m->mm_total / m->tg_total : 0;
        r->tg_gbps = r->weight_bytes_per_token * st.median / 1e9;
        /* the bound: the faster of the two reads by median */
        const int npass = m->reps * (BB_E2E_READ_PASSES / 2);
        bb_stats s1 = bb_stats_of(m->rd, npass), sn = bb_stats_of(m->rd + npass, npass);
        bool many = sn.median > s1.median;
        bb_stats sr = many ? sn : s1;
        r->read_streams = many ? BB_READ_STREAMS : 1;
        r->read_tps_median = sr.median;
        r->read_tps_max = sr.max;
        r->read_gbps = m->read_bytes * sr.median / 1e9;
        r->tg_of_read = st.median / sr.median;
    }
}

/* The logits the spec asks for, after the timing; then the model is freed.  Returns 0 or -1 with err. */
static int model_close(e2e_model *m, bb_pool *pool, char *err, size_t errlen)
{
    int rc = run_logits(m->tf, pool, m->s, err, errlen);
    model_free(m);
    return rc;
}

int bb_e2e_bench(bb_pool *pool, const bb_e2e_spec *s, bb_e2e_result *r, char *err, size_t errlen)
{
    /* one model side by side with none; s->again asks for another attempt (the last kept) */
    return bb_e2e_bench_interleaved(pool, s, 1, r, s->again, s->again_ctx, NULL, err, errlen);
}

int bb_e2e_bench_interleaved(bb_pool *pool, const bb_e2e_spec *specs, int n, bb_e2e_result *res,
                             bool (*again)(void *ctx), void *again_ctx, char *failed, char *err, size_t errlen)
{
    e2e_model *m = calloc((size_t)(n > 0 ? n : 1), sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        if (failed) memset(failed, 1, (size_t)n);
        return -1;
    }
    int built = 0, reps = 0, rc = 0;
    for (; built < n; built++) {
        if (model_open(&m[built], pool, &specs[built], &res[built], err, errlen)) break;
        if (m[built].reps > reps) reps = m[built].reps;
    }
    if (built < n) {
        /* the models built so far are freed unmeasured: no point of the group is measured without
         * its partners (a model that does not fit beside the others is the usual cause) */
        for (int i = 0; i < built; i++) model_free(&m[i]);
        if (failed)
            for (int i = 0; i < n; i++) failed[i] = i == built;
        free(m);
        return -1;
    }
    do {
        for (int i = 0; i < n; i++) model_attempt(&m[i]);
        /* repetition rep starts at model rep mod n: each model takes its turn first, none always
         * runs right after the same partner's read passes (a model given fewer reps than another,
         * which the sweeps never do, sits out the rest) */
        for (int rep = 0; rep < reps; rep++)
            for (int k = 0; k < n; k++)
                if (rep < m[(rep + k) % n].reps) model_rep(&m[(rep + k) % n], pool, rep);
        for (int i = 0; i < n; i++) model_summarize(&m[i]);
    } while (again && again(again_ctx));
    if (failed) memset(failed, 0, (size_t)n);
    for (int i = 0; i < n; i++) {
        char e[1024];
        if (model_close(&m[i], pool, e, sizeof e)) {
            if (!rc) snprintf(err, errlen, "%s", e);
            if (failed) failed[i] = 1;
            rc = -1;
        }
    }
    free(m);
    return rc;
}
