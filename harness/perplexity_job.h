/* One perplexity measurement from names: a model, a text file, a kernel; used by `bitbench
 * perplexity` and by model sweeps with a `perplexity` field.
 *
 * The model is
 *   - a GGUF file (*.gguf), tokenized with its own tokenizer (tokenizer.ggml.*) unless
 *     --tokenizer names another;
 *   - a llama2.c checkpoint (*.bin), tokenized with its llama2.c tokenizer (--tokenizer, or
 *     tok<vocab>.bin / tokenizer.bin beside it), BOS = 1;
 *   - or a model config name (models/<name>.lua) with synthetic weights, for speed: such a
 *     model has no text tokenizer, so the text is fed as bytes, token = byte + 3 (the
 *     SentencePiece byte-fallback ids <0x00>..<0xFF> of llama2.c and Llama vocabularies), BOS = 1.
 *     Its perplexity is that of random weights; only its tokens/s mean something.
 * The context of the engine is the chunk size (ctx), so the KV cache holds one chunk. */
#ifndef BB_PERPLEXITY_JOB_H
#define BB_PERPLEXITY_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perplexity.h"
#include "support/pool.h"

/* A perplexity text is read whole (with its tokens, about five times its size in memory): 256 MiB
 * is several times WikiText-103 and bounds what a wrong --file (/dev/zero, a disk image) costs. */
#define BB_PPL_DEFAULT_MAX_TEXT_BYTES ((uint64_t)256 << 20)

typedef struct {
    const char *model;      /* FILE.gguf, FILE.bin or a model config name */
    const char *tokenizer;  /* NULL: beside the model */
    const char *text_file;
    uint64_t max_text_bytes; /* the text's bound; 0 = BB_PPL_DEFAULT_MAX_TEXT_BYTES */
    int ctx, max_chunks;    /* max_chunks 0 = every chunk of the text */
    /* NULL: not given; which kernels a run then takes is models/kernel_choice.h's rule (a model
     * file's tensors as stored, the classifier as stored; a config's f32 and f16) */
    const char *kernel, *out_kernel;
    bb_kv_type kv_k, kv_v;  /* KV cache types (models/kv_type.h) */
    int batch;              /* prefill piece (the engine's max_batch); 0 = ctx */
    uint64_t seed;          /* synthetic weights */
    int distinct_layers;    /* synthetic weights: 0 = every layer distinct */
    bb_ppl_chunk_fn on_chunk; /* after each chunk, when not NULL */
    void *on_chunk_ctx;
} bb_ppl_job;

typedef struct {
    bb_ppl_sums sums;
    double ppl, ppl_err;
    int n_tokens;           /* the whole text, BOS included */
    int chunks;             /* chunks run */
    char tokenization[128]; /* the tokenizer (bb_tokenizer_describe), or "bytes" */
    char warning[256];      /* "" or why the run differs from the file (ctx past its training context) */
    double tokens_per_second; /* tokens through the model (ctx per chunk) / forward time */
    double tokenize_seconds, build_seconds;
    char conversions[1024]; /* bb_tf_conversions: what became of each kind of weight */
    char kernel[64], out_kernel[64]; /* the run's kernel (or "as-stored") and the classifier's */
    char kernel_note[1024];  /* "" or what the kernels requantize (kernel_choice.h), for stderr */
} bb_ppl_outcome;

/* Tokenize, build the model with the job's kernel, run the chunks.  Returns 0, or -1 with one
 * line in err (the model, the tokenizer, the text, ctx against the text or the model, the
 * kernel). */
int bb_ppl_job_run(bb_pool *pool, const bb_ppl_job *job, bb_ppl_outcome *out, char *err, size_t errlen);

#endif
