/* Loading a model for the engine from what a user names, for every command that runs one
 * (generate, e2e, perplexity, Lua model sweeps):
 *   - a path ending in .gguf: a GGUF file, architectures llama and bitnet (gguf_source.h);
 *   - any other existing file: a llama2.c checkpoint (llama2c.h);
 *   - otherwise a model config name (models/<name>.lua, model_config.h) with synthetic weights.
 * The dimensions come with the model; the context (seq_len) is the run's: 0 takes the model's
 * own (a file's training context; a config has none and needs one), and a longer one than the
 * file was trained at is allowed with a warning, as llama.cpp allows it (stories260K.gguf says
 * 128 because llama.cpp's converter writes 128, though the model was trained at 512). */
#ifndef BB_MODEL_LOAD_H
#define BB_MODEL_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "gguf.h"
#include "model_config.h"
#include "tokenizer.h"
#include "transformer.h"

typedef enum { BB_MODEL_FROM_GGUF = 0, BB_MODEL_FROM_LLAMA2C, BB_MODEL_FROM_CONFIG } bb_model_format;

typedef struct bb_model_source bb_model_source;

/* Synthetic weights for a config name (ignored for files). */
typedef struct {
    uint64_t seed;
    int distinct_layers; /* 0 = every layer generated */
} bb_synthetic_options;

/* Does the name look like a model file rather than a config name (ends in .gguf or .bin, or
 * holds a '/')? */
int bb_model_is_path(const char *what);

/* Open a model; NULL with one line naming the file or name and what is wrong. */
bb_model_source *bb_model_source_open(const char *what, const bb_synthetic_options *syn, char *err, size_t errlen);
void bb_model_source_close(bb_model_source *m);
bb_model_format bb_model_source_format(const bb_model_source *m);
/* A short name: the config name, or the file's name without its directory. */
const char *bb_model_source_name(const bb_model_source *m);
/* The model's dimensions; seq_len is its training context (0 for a config). */
const bb_tf_dims *bb_model_source_dims(const bb_model_source *m);
/* The GGUF file (its tokenizer metadata), or NULL when the model is not one. */
const bb_gguf *bb_model_source_gguf(const bb_model_source *m);

/* The model's tokenizer: tokpath when given (a .gguf's tokenizer metadata, else a llama2.c
 * tokenizer file), else a GGUF model's own, else tok<vocab>.bin or tokenizer.bin beside a
 * llama2.c checkpoint; NULL with one line when there is none (a config's synthetic model). */
bb_tokenizer *bb_model_source_tokenizer(const bb_model_source *m, const char *tokpath, char *err, size_t errlen);

/* The dimensions a run at context seq_len (0: the model's) uses; returns 0, or -1 when neither
 * gives one.  warn gets a line when seq_len exceeds the training context, else "". */
int bb_model_source_run_dims(const bb_model_source *m, int seq_len, bb_tf_dims *d, char *warn, size_t warnlen,
                             char *err, size_t errlen);

/* The model's weights for a run with dimensions d (from bb_model_source_run_dims; synthetic
 * weights are generated for them), tensor by tensor; valid while m is open. */
bb_weight_source bb_model_source_weights(bb_model_source *m, const bb_tf_dims *d);

/* Build the engine for a run at context seq_len (see bb_model_source_run_dims). */
bb_transformer *bb_model_source_build(bb_model_source *m, int seq_len, const bb_tf_options *opt, char *warn,
                                      size_t warnlen, char *err, size_t errlen);

/* Open, build, close: a model from what a user names in one call (the transformer keeps no
 * reference to the file). */
bb_transformer *bb_model_load_engine(const char *what, int seq_len, const bb_tf_options *opt,
                                     const bb_synthetic_options *syn, char *warn, size_t warnlen, char *err,
                                     size_t errlen);

/* A config for what a user names: a model file's dimensions (name = the file name, path set,
 * source = the path) or the named config (bb_model_load).  0, or -1 with one line. */
int bb_model_config_resolve(const char *what, bb_model_config *cfg, char *err, size_t errlen);

/* Engine dimensions of a model config at context seq_len. */
void bb_model_config_dims(const bb_model_config *c, int seq_len, bb_tf_dims *d);

#endif
