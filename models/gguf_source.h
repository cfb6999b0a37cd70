/* GGUF models for the engine: the dimensions from a GGUF file's metadata and a weight source
 * (transformer.h) over its tensors, for the architectures `llama` and `bitnet` as llama.cpp
 * names and runs them.
 *
 * Metadata (ARCH = general.architecture), as llama.cpp's loader reads it (src/llama-arch.cpp
 * LLM_KV_*): ARCH.context_length, ARCH.embedding_length, ARCH.block_count,
 * ARCH.feed_forward_length, ARCH.attention.head_count, ARCH.attention.head_count_kv (default:
 * head_count), ARCH.attention.layer_norm_rms_epsilon, ARCH.rope.freq_base (default 10000),
 * ARCH.rope.dimension_count (default and only accepted value: the head dimension; a partial
 * rotation is refused), ARCH.attention.key_length / value_length (default embedding /
 * head_count), ARCH.vocab_size (default: token_embd's rows), and for bitnet
 * ARCH.hidden_activation ("relu2" = squared ReLU, "silu"; default SiLU: llama.cpp's bitnet graph
 * before the key existed computed SiLU, and newer ones default to it).
 *
 * Tensors (llama.cpp names, ggml shapes [ne0 = K, ne1 = M]): token_embd, output_norm, output
 * (absent: the classifier is the embedding, as llama.cpp then does), blk.N.{attn_norm, attn_q,
 * attn_k, attn_v, attn_output, ffn_norm, ffn_gate, ffn_up, ffn_down} and for bitnet
 * blk.N.{attn_sub_norm, ffn_sub_norm}, all with the suffix ".weight".  bitnet may carry a
 * one-element per-tensor scale blk.N.<linear>.scale that llama.cpp multiplies into the matmul's
 * output (upstream's converter folds it into the weights instead, so it is usually absent).
 *
 * RoPE: llama.cpp runs `llama` in its NORM mode, rotating adjacent pairs (2i, 2i+1) of each head
 * (its HF converter permutes Q and K rows so that this is right, and llama2.c checkpoints, which
 * convert-llama2c-to-ggml copies unchanged, were exported with the same pairing): the engine's
 * RoPE, so Q and K are used as stored.  `bitnet` it runs in NEOX mode (llama_model_rope_type
 * lists LLM_ARCH_BITNET with the NEOX architectures), rotating pairs (i, i + head_dim/2); the
 * source then hands out wq and wk with the rows of each head reordered (row 2i = row i, row
 * 2i+1 = row i + head_dim/2), which turns NEOX pairs into adjacent ones.  Attention scores are
 * dot products of q and k under the same permutation, so they are unchanged (up to the order of
 * the float sum), and v is not touched.  Stored bytes are reordered the same way, whole rows
 * (every GGUF type stores a row in its own blocks), so the as-stored path stays lossless.  (The
 * golden README says NORM for bitnet; llama.cpp's logits for the tiny BitNet agree only with
 * NEOX: 3.6e-6 against 1.2 with adjacent pairs.)
 *
 * Names, shapes and the NEOX row order come from gguf_names.h, which the exporter shares.
 *
 * Every tensor the model needs is checked at open, with its shape against the metadata and its
 * type against what can be decoded; the first problem is the one error line.  The metadata is
 * checked against itself as llama.cpp's loader checks it: block_count against the blocks the
 * tensors belong to (none missing, none past it), the token list (when the file has one) against
 * vocab_size, the embedding's rows; and rope.freq_base and layer_norm_rms_epsilon must be finite
 * and positive (llama.cpp takes any value, and computes NaN or meaningless angles from them). */
#ifndef BB_GGUF_SOURCE_H
#define BB_GGUF_SOURCE_H

#include <stddef.h>

#include "gguf.h"
#include "transformer.h"

typedef struct bb_gguf_model bb_gguf_model;

/* Open, validate the file and the model in it; NULL with one line naming the file and what is
 * wrong (unknown architecture with the valid ones, a missing key or tensor, a shape that
 * disagrees with the metadata, an undecodable type). */
bb_gguf_model *bb_gguf_model_open(const char *path, char *err, size_t errlen);
void bb_gguf_model_close(bb_gguf_model *m);
/* The dimensions; seq_len is the file's context_length (its training context). */
const bb_tf_dims *bb_gguf_model_dims(const bb_gguf_model *m);
const char *bb_gguf_model_arch(const bb_gguf_model *m); /* "llama" or "bitnet" */
const bb_gguf *bb_gguf_model_file(const bb_gguf_model *m);
/* A weight source over the mapped tensors: get() decodes to f32 (a scale tensor multiplied in),
 * stored() hands over the tensor's bytes as the file holds them. */
bb_weight_source bb_gguf_model_source(bb_gguf_model *m);

#endif
