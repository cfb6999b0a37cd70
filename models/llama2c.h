/* llama2.c checkpoints (Karpathy's "legacy" version-0 format, as run.c reads it):
 *   7 int32: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size (negative = the
 *   classifier is stored separately), seq_len; then float32 tensors in this order:
 *   tok_embeddings [vocab][dim], rms_att [L][dim], wq [L][dim][dim], wk [L][kv][dim],
 *   wv [L][kv][dim], wo [L][dim][dim], rms_ffn [L][dim], w1 [L][hidden][dim],
 *   w2 [L][dim][hidden], w3 [L][hidden][dim], rms_final [dim], freq_cis_real and _imag
 *   [seq][head/2] (unused: RoPE is computed), then wcls [vocab][dim] when not shared.
 * The file is mapped read-only; its size must be exactly what the header implies. */
#ifndef BB_LLAMA2C_H
#define BB_LLAMA2C_H

#include <stddef.h>

#include "transformer.h"

typedef struct bb_llama2c bb_llama2c;

/* Open and validate; NULL with one line naming the file and what is wrong. */
bb_llama2c *bb_llama2c_open(const char *path, char *err, size_t errlen);
void bb_llama2c_close(bb_llama2c *c);
/* The dimensions from the header (Llama style, SiLU, tied when vocab_size > 0). */
const bb_tf_dims *bb_llama2c_dims(const bb_llama2c *c);
/* A weight source reading from the mapped file. */
bb_weight_source bb_llama2c_source(bb_llama2c *c);

/* The llama2.c tokenizer beside a checkpoint: tok<vocab>.bin, else tokenizer.bin, in the
 * model's directory.  Returns 0 with the path in out, or -1 when neither exists. */
int bb_llama2c_tokenizer_beside(const char *model, int vocab, char *out, size_t len);

#endif
