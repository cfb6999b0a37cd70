/* Perplexity of a model on a text, chunked as llama.cpp's llama-perplexity does it, so the two
 * programs' numbers can be set side by side:
 *
 *   - the whole text is tokenized once, BOS first;
 *   - it is cut into floor(n_tokens / ctx) chunks of ctx tokens (the tail is dropped), each run
 *     from position 0 with an empty KV cache, its first token replaced by BOS;
 *   - in each chunk only the second half is scored: the logits at positions ctx/2 .. ctx-2
 *     predict the tokens at ctx/2+1 .. ctx-1, ctx - 1 - ctx/2 tokens per chunk;
 *   - a token's NLL is -log softmax(logits)[target], the softmax with the maximum logit
 *     subtracted (in float) and the sum of exponentials in double;
 *   - after chunk i the running value exp(sum NLL / count) is printed as "[i]%.4f,";
 *   - at the end PPL = exp(mean NLL) +/- PPL * sqrt((mean NLL² - mean NLL²) / (count - 1)), the
 *     standard error of the mean NLL carried through exp to first order ("Final estimate: PPL =
 *     %.4f +/- %.5f").
 *
 * The engine runs each chunk as one prefill through bb_tf_forward_all (in max_batch pieces). */
#ifndef BB_PERPLEXITY_H
#define BB_PERPLEXITY_H

#include <stddef.h>

#include "models/transformer.h"

/* Sums over the scored tokens so far. */
typedef struct {
    double nll, nll2; /* sum of NLL and of NLL² */
    long count;       /* tokens scored */
    int chunks;       /* chunks done */
    double seconds;   /* wall time of the forward passes */
    long tokens_run;  /* tokens through the model (ctx per chunk) */
} bb_ppl_sums;

/* One chunk's figures, handed to the per-chunk callback. */
typedef struct {
    int index;        /* 1-based, as llama-perplexity prints it */
    double ppl;       /* running value after this chunk */
    double nll;       /* this chunk's mean NLL */
    int scored;       /* this chunk's scored tokens */
    double seconds;   /* this chunk's forward time */
} bb_ppl_chunk;

typedef void (*bb_ppl_chunk_fn)(void *ctx, const bb_ppl_chunk *c);

/* -log softmax(logits)[target] over vocab logits. */
double bb_ppl_token_nll(const float *logits, int vocab, int target);

/* Chunks a text of n_tokens gives at ctx (n_tokens / ctx), at most max_chunks when > 0. */
int bb_ppl_chunk_count(int n_tokens, int ctx, int max_chunks);

/* Scored tokens per chunk: ctx - 1 - ctx / 2. */
int bb_ppl_scored_per_chunk(int ctx);

/* Check ctx against the text and the model: ctx >= 4 (at least one scored token after the
 * first half), ctx <= the model's seq_len, and at least one chunk in the text.  Returns 0 or -1
 * with one line saying which and what is valid. */
int bb_ppl_check(int n_tokens, int ctx, int seq_len, char *err, size_t errlen);

/* Run `chunks` chunks of ctx tokens of tokens[] (BOS replacing each chunk's first), adding to
 * sums and calling fn (when not NULL) after each chunk.  logits: ctx × vocab floats of scratch.
 * Returns 0, or -1 with err. */
int bb_ppl_run(bb_transformer *tf, bb_pool *pool, const int *tokens, int chunks, int ctx, int bos, float *logits,
               bb_ppl_sums *sums, bb_ppl_chunk_fn fn, void *fn_ctx, char *err, size_t errlen);

/* exp(mean NLL), and llama-perplexity's +/- (NaN when the spread cannot be estimated). */
double bb_ppl_value(const bb_ppl_sums *s);
double bb_ppl_error(const bb_ppl_sums *s);

#endif
