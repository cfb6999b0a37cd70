#include "bench/perplexity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/timer.h"

double bb_ppl_token_nll(const float *logits, int vocab, int target)
{
    float max = logits[0];
    for (int i = 1; i < vocab; i++)
        if (logits[i] > max) max = logits[i];
    double sum = 0;
    for (int i = 0; i < vocab; i++) sum += expf(logits[i] - max);
    return -((double)(logits[target] - max) - log(sum));
}

int bb_ppl_chunk_count(int n_tokens, int ctx, int max_chunks)
{
    int n = ctx > 0 ? n_tokens / ctx : 0;
    return max_chunks > 0 && max_chunks < n ? max_chunks : n;
}

int bb_ppl_scored_per_chunk(int ctx) { return ctx - 1 - ctx / 2; }

int bb_ppl_check(int n_tokens, int ctx, int seq_len, char *err, size_t errlen)
{
    if (ctx < 4) {
        snprintf(err, errlen, "--ctx %d: must be at least 4 (the second half of each chunk is scored)", ctx);
        return -1;
    }
    if (ctx > seq_len) {
        snprintf(err, errlen, "--ctx %d exceeds the model's context (seq_len %d)", ctx, seq_len);
        return -1;
    }
    if (n_tokens < ctx) {
        snprintf(err, errlen, "the text is %d tokens, less than one chunk of --ctx %d", n_tokens, ctx);
        return -1;
    }
    return 0;
}

/* One chunk: run it whole, then score positions ctx/2 .. ctx-2 against the next token. */
static int run_chunk(bb_transformer *tf, bb_pool *pool, const int *chunk, int ctx, int bos, float *logits,
                     bb_ppl_sums *s, bb_ppl_chunk *c, char *err, size_t errlen)
{
    int vocab = bb_tf_get_dims(tf)->vocab_size, first = ctx / 2;
    int *in = malloc(sizeof(int) * (size_t)ctx);
    if (!in) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(in, chunk, sizeof(int) * (size_t)ctx);
    in[0] = bos;
    for (int i = 0; i < ctx; i++)
        if (in[i] < 0 || in[i] >= vocab) {
            snprintf(err, errlen, "token %d of chunk %d is %d, outside the model's vocabulary (%d)", i, c->index,
                     in[i], vocab);
            free(in);
            return -1;
        }
    double t0 = bb_now();
    int rc = bb_tf_forward_all(tf, pool, in, ctx, 0, logits, NULL);
    c->seconds = bb_now() - t0;
    free(in);
    if (rc) {
        snprintf(err, errlen, "the model refused a chunk of %d tokens", ctx);
        return -1;
    }
    double nll = 0;
    for (int i = first; i < ctx - 1; i++) {
        double v = bb_ppl_token_nll(logits + (size_t)i * vocab, vocab, chunk[i + 1]);
        nll += v;
        s->nll2 += v * v;
    }
    c->scored = ctx - 1 - first;
    s->nll += nll;
    s->count += c->scored;
    s->chunks++;
    s->seconds += c->seconds;
    s->tokens_run += ctx;
    c->nll = nll / c->scored;
    c->ppl = exp(s->nll / s->count);
    return 0;
}

int bb_ppl_run(bb_transformer *tf, bb_pool *pool, const int *tokens, int chunks, int ctx, int bos, float *logits,
               bb_ppl_sums *sums, bb_ppl_chunk_fn fn, void *fn_ctx, char *err, size_t errlen)
{
    for (int i = 0; i < chunks; i++) {
        bb_ppl_chunk c = {.index = sums->chunks + 1};
        if (run_chunk(tf, pool, tokens + (size_t)i * ctx, ctx, bos, logits, sums, &c, err, errlen)) return -1;
        if (fn) fn(fn_ctx, &c);
    }
    return 0;
}

double bb_ppl_value(const bb_ppl_sums *s) { return s->count > 0 ? exp(s->nll / s->count) : NAN; }

double bb_ppl_error(const bb_ppl_sums *s)
{
    if (s->count < 2) return NAN;
    double mean = s->nll / s->count, var = s->nll2 / s->count - mean * mean;
    return var > 0 ? sqrt(var / (s->count - 1)) * exp(mean) : NAN;
}
