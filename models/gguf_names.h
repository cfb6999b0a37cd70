/* llama.cpp's names for the engine's tensors and dimensions, for the architectures `llama` and
 * `bitnet`: one table for reading GGUF models (gguf_source.c) and writing them (gguf_export.c).
 *
 * Tensors (src/llama-arch.cpp LLM_TENSOR_NAMES; ggml shapes [ne0 = columns, ne1 = rows]):
 *     token_embd, output_norm, output, blk.N.{attn_norm, attn_q, attn_k, attn_v, attn_sub_norm,
 *     attn_output, ffn_norm, ffn_gate, ffn_up, ffn_sub_norm, ffn_down}, each "<name>.weight"
 * (the sub-norms bitnet only; output absent when the classifier is the embedding).  The table
 * lists them in that order, the order a forward pass reads them.
 *
 * Metadata (ARCH = general.architecture; LLM_KV_*): the integer dimensions below, plus
 * ARCH.rope.dimension_count, ARCH.attention.key_length / value_length,
 * ARCH.attention.layer_norm_rms_epsilon, ARCH.rope.freq_base and, for bitnet,
 * ARCH.hidden_activation.
 *
 * RoPE pairs: llama.cpp runs `bitnet` in its NEOX mode (pairs (i, i + head_dim/2) of each head)
 * and `llama` in NORM mode (adjacent pairs, the engine's).  A bitnet file's Q and K rows are
 * therefore permuted against the engine's: engine row j of a head is file row
 * bb_gguf_neox_file_row(j). */
#ifndef BB_GGUF_NAMES_H
#define BB_GGUF_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "transformer.h"

typedef struct {
    const char *engine; /* the weight source's name (transformer.h): "wq" */
    const char *file;   /* llama.cpp's: "attn_q" */
    bool global;        /* one tensor for the model, not one per layer */
    bool linear;        /* one of the seven projections of a layer */
    bool sub_norm;      /* BitNet's extra norms: present only when the model has sub-norms */
} bb_gguf_role;

int bb_gguf_role_count(void);
const bb_gguf_role *bb_gguf_role_at(int i);
/* The role of an engine name; NULL when it has none. */
const bb_gguf_role *bb_gguf_role_of(const char *engine);
/* Does a model with dims d have this tensor (sub-norms, an untied classifier)? */
bool bb_gguf_role_present(const bb_gguf_role *r, const bb_tf_dims *d);
/* "blk.3.attn_q.weight" / "output_norm.weight" (suffix "weight" or "scale"); layer ignored for
 * global roles. */
void bb_gguf_tensor_name(char *out, size_t len, const bb_gguf_role *r, int layer, const char *suffix);
/* The engine-side shape: rows x cols (rows 1 for a vector; ggml's ne = {cols, rows}). */
void bb_gguf_role_shape(const bb_gguf_role *r, const bb_tf_dims *d, size_t *rows, size_t *cols);

/* The integer dimensions stored as ARCH.<key>, and where they live in bb_tf_dims. */
typedef struct {
    const char *key;  /* "embedding_length" */
    size_t offset;    /* offsetof(bb_tf_dims, dim) */
} bb_gguf_dim_key;
int bb_gguf_dim_key_count(void);
const bb_gguf_dim_key *bb_gguf_dim_key_at(int i);

/* NEOX RoPE order: the file row holding engine row r of a Q or K matrix with heads of hd rows
 * (the engine's pair (2i, 2i+1) is the file's (i, i + hd/2)). */
size_t bb_gguf_neox_file_row(size_t r, size_t hd);
/* Does an architecture's RoPE run in NEOX mode (its Q/K rows permuted)? */
bool bb_gguf_arch_neox(bb_tf_style style);

#endif
