#include "perplexity_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_bench.h"
#include "models/kernel_choice.h"
#include "models/model_fit.h"
#include "models/model_load.h"
#include "support/input_file.h"
#include "models/tokenizer.h"
#include "support/memory.h"
#include "support/sizes.h"
#include "support/timer.h"

/* The text file whole, NUL-terminated (llama-perplexity reads it whole too), at most max_bytes
 * (0: BB_PPL_DEFAULT_MAX_TEXT_BYTES). */
static char *read_text(const char *path, uint64_t max_bytes, size_t *len, char *err, size_t errlen)
{
    uint64_t bound = max_bytes ? max_bytes : BB_PPL_DEFAULT_MAX_TEXT_BYTES, size = 0;
    /* First only what the file is and its size, for a refusal that says how to raise the bound;
     * the read itself is bounded again (the file may have grown since). */
    FILE *f = bb_input_open(path, "perplexity text", BB_INPUT_ANY_SIZE, &size, err, errlen);
    if (!f) return NULL;
    fclose(f);
    if (size > bound) {
        snprintf(err, errlen, "%s: %llu bytes, more than the %llu bytes a perplexity text may have (raise the bound "
                 "with --max-text-bytes N)", path, (unsigned long long)size, (unsigned long long)bound);
        return NULL;
    }
    size_t n = 0;
    char *buf = bb_input_read_all(path, "perplexity text", bound, &n, err, errlen);
    if (!buf) return NULL;
    if (strlen(buf) != n) {
        snprintf(err, errlen, "%s: the text holds a NUL byte at offset %zu; give a text file", path, strlen(buf));
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* What a job's model is made of while it runs. */
typedef struct {
    bb_model_source *src;
    bb_tf_dims dims; /* the run's: seq_len = ctx, so the KV cache holds one chunk */
    int *tokens;
    int n_tokens;
} job_model;

/* The text as tokens: the model's tokenizer, or bytes for a synthetic model (token = byte + 3,
 * the byte-fallback ids <0x00>..<0xFF> of llama2.c and Llama vocabularies; BOS = 1). */
static int tokenize(const bb_ppl_job *job, const char *text, size_t len, job_model *m, bb_ppl_outcome *out,
                    char *err, size_t errlen)
{
    if (!(m->tokens = malloc(sizeof(int) * (size_t)bb_tokenizer_cap(len)))) {
        snprintf(err, errlen, "out of memory for %d tokens", bb_tokenizer_cap(len));
        return -1;
    }
    if (bb_model_source_format(m->src) == BB_MODEL_FROM_CONFIG && !job->tokenizer) {
        if (m->dims.vocab_size < 259) {
            snprintf(err, errlen, "model %s: vocabulary of %d tokens; byte tokens need at least 259", job->model,
                     m->dims.vocab_size);
            return -1;
        }
        m->tokens[0] = 1;
        for (size_t i = 0; i < len; i++) m->tokens[i + 1] = (unsigned char)text[i] + 3;
        m->n_tokens = (int)len + 1;
        snprintf(out->tokenization, sizeof out->tokenization, "bytes");
        return 0;
    }
    char e[BB_ERR_MAX];
    bb_tokenizer *tok = bb_model_source_tokenizer(m->src, job->tokenizer, e, sizeof e);
    if (!tok) {
        snprintf(err, errlen, "%s", e);
        return -1;
    }
    double t0 = bb_now();
    m->n_tokens = bb_tokenizer_encode(tok, text, m->tokens, bb_tokenizer_cap(len), e, sizeof e);
    out->tokenize_seconds = bb_now() - t0;
    snprintf(out->tokenization, sizeof out->tokenization, "%s", bb_tokenizer_describe(tok));
    bb_tokenizer_free(tok);
    if (m->n_tokens < 0) {
        snprintf(err, errlen, "%s: %s", job->text_file, e);
        return -1;
    }
    return 0;
}

/* The kernel of every tensor of the job's model (kernel_choice.h's rule) and the engine options
 * of its run. */
static int job_kernels(const bb_ppl_job *job, const job_model *m, bb_kernel_choice *kc, char *err, size_t errlen)
{
    char e[BB_ERR_MAX];
    if (bb_kernel_choose(m->src, &m->dims, job->kernel, job->out_kernel, kc, e, sizeof e)) {
        snprintf(err, errlen, "%s: %s", job->model, e);
        return -1;
    }
    kc->opt.kv_k = job->kv_k;
    kc->opt.kv_v = job->kv_v;
    kc->opt.max_batch = job->batch > 0 ? job->batch : job->ctx;
    return 0;
}

/* The model (a .gguf, a llama2.c checkpoint or a config name, models/model_load.h) at context
 * ctx, and the text as tokens. */
static int open_model(const bb_ppl_job *job, const char *text, size_t len, job_model *m, bb_ppl_outcome *out,
                      char *err, size_t errlen)
{
    char e[BB_ERR_MAX];
    bb_synthetic_options syn = {.seed = job->seed, .distinct_layers = job->distinct_layers};
    if (!(m->src = bb_model_source_open(job->model, &syn, e, sizeof e))) {
        snprintf(err, errlen, "--model %s: %s", job->model, e);
        return -1;
    }
    if (job->ctx < 1 || bb_model_source_run_dims(m->src, job->ctx, &m->dims, out->warning, sizeof out->warning, e,
                                                 sizeof e)) {
        snprintf(err, errlen, "--ctx %d: %s", job->ctx, job->ctx < 1 ? "must be at least 4" : e);
        return -1;
    }
    /* before the tokens and the model are allocated: one that cannot fit is refused now, with the
     * kernels the run will use (kernel_choice.h) */
    bb_kernel_choice kc;
    if (job_kernels(job, m, &kc, err, errlen)) return -1;
    int fits = bb_model_check_fits(job->model, &m->dims, &kc.opt, err, errlen);
    bb_kernel_choice_free(&kc);
    if (fits) return -1;
    return tokenize(job, text, len, m, out, err, errlen);
}

static int run_model(bb_pool *pool, const bb_ppl_job *job, job_model *m, bb_ppl_outcome *out, char *err,
                     size_t errlen)
{
    if (bb_ppl_check(m->n_tokens, job->ctx, m->dims.seq_len, err, errlen)) return -1;
    char e[BB_ERR_MAX];
    bb_kernel_choice kc;
    if (job_kernels(job, m, &kc, err, errlen)) return -1;
    snprintf(out->kernel, sizeof out->kernel, "%s", kc.opt.kernel);
    snprintf(out->out_kernel, sizeof out->out_kernel, "%s", kc.opt.out_kernel);
    snprintf(out->kernel_note, sizeof out->kernel_note, "%s", kc.note);
    double t0 = bb_now();
    bb_weight_source src = bb_model_source_weights(m->src, &m->dims);
    bb_transformer *tf = bb_tf_create(&m->dims, &src, &kc.opt, e, sizeof e);
    bb_kernel_choice_free(&kc);
    if (!tf) {
        snprintf(err, errlen, "%s with kernel %s: %s", job->model, out->kernel, e);
        return -1;
    }
    out->build_seconds = bb_now() - t0;
    snprintf(out->conversions, sizeof out->conversions, "%s", bb_tf_conversions(tf));
    out->chunks = bb_ppl_chunk_count(m->n_tokens, job->ctx, job->max_chunks);
    float *logits = bb_alloc(sizeof(float) * (size_t)job->ctx * m->dims.vocab_size);
    int rc = -1;
    if (!logits) snprintf(err, errlen, "out of memory for %d x %d logits", job->ctx, m->dims.vocab_size);
    else rc = bb_ppl_run(tf, pool, m->tokens, out->chunks, job->ctx, 1, logits, &out->sums, job->on_chunk,
                         job->on_chunk_ctx, err, errlen);
    free(logits);
    bb_tf_free(tf);
    return rc;
}

int bb_ppl_job_run(bb_pool *pool, const bb_ppl_job *job, bb_ppl_outcome *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t len = 0;
    char *text = read_text(job->text_file, job->max_text_bytes, &len, err, errlen);
    if (!text) return -1;
    job_model m = {0};
    int rc = open_model(job, text, len, &m, out, err, errlen);
    free(text);
    if (!rc) rc = run_model(pool, job, &m, out, err, errlen);
    out->n_tokens = m.n_tokens;
    free(m.tokens);
    bb_model_source_close(m.src);
    if (rc) return -1;
    out->ppl = bb_ppl_value(&out->sums);
    out->ppl_err = bb_ppl_error(&out->sums);
    out->tokens_per_second = out->sums.seconds > 0 ? out->sums.tokens_run / out->sums.seconds : 0;
    return 0;
}
