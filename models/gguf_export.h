/* Exporting a model to GGUF, as llama.cpp lays out the architectures `llama` and `bitnet`
 * (gguf_names.h), from any weight source (transformer.h): synthetic paper models, llama2.c
 * checkpoints, other GGUF files.  One tensor at a time: it is fetched as f32, packed through the
 * kernel whose packed bytes are the target ggml type (kernel.h gguf_type) and written, so the
 * float model is never in memory whole (the largest tensor is; row-independent types are packed
 * and written in slices of rows).  The file's tensors are then the very bytes the engine packs
 * for that kernel, and the engine reading the file (gguf_source.h) copies them as they are.
 *
 * Tensor types, per llama-quantize's rules (src/llama-quant.cpp) where bitbench can write the
 * type it picks, and the nearest type it can write where not:
 *   norms (1-D)             F32, always;
 *   the 7 linear matrices   the target type (for tq1_0, tq2_0, i2_s ternary: absmean-ternarized
 *                           as the kernel packs, exact for BitNet weights);
 *   output (the classifier: output.weight, or token_embd when it is tied)
 *                           f32/f16/bf16: the target; q8_0: Q8_0; q4_0, q2_k, iq4_nl: Q8_0
 *                           (llama-quantize picks Q6_K, which bitbench does not write; Q8_0 is its
 *                           own fallback for Q6_K); tq1_0, tq2_0, i2_s: F16 (as bitnet.cpp's
 *                           conversions and `--output-tensor-type f16` keep it);
 *   token_embd, untied      the target, except F16 for the ternary types (llama-quantize picks
 *                           Q4_K for TQ1_0/TQ2_0, which bitbench does not write);
 *   a matrix whose row length the chosen type's block does not divide: F32, as the golden
 *   llama.cpp files do (llama-quantize itself aborts for Q4_0/Q8_0 there; its later F16 second
 *   fallback runs wrongly in llama.cpp c392e50 for such rows, shared/golden/gguf/README.md §1.2).
 *   Every fallback is listed in the report.
 * No Q3_K/Q4_K "mix" bumps of llama-quantize's Q2_K (attn_v, ffn_down, attn_output): one type
 * per kernel, as with --pure.
 *
 * I2_S is bitnet.cpp's x86 layout (gguf_types.h): the i2_s kernel's codes and scale, n/4 + 32
 * bytes.  For `bitnet`, Q and K rows are written in llama.cpp's NEOX order (gguf_names.h).
 *
 * Metadata: general.architecture ("llama" or "bitnet" from the model's style), general.name,
 * general.file_type (llama_ftype of the target; I2_S is bitnet.cpp's 40),
 * general.quantization_version 2, ARCH.{context_length, embedding_length, block_count,
 * feed_forward_length, attention.head_count, attention.head_count_kv, vocab_size,
 * rope.dimension_count, rope.freq_base, attention.layer_norm_rms_epsilon},
 * ARCH.attention.key_length / value_length when the head dimension is not dim / n_heads,
 * bitnet.hidden_activation = "relu2" for a squared-ReLU FFN (absent means SiLU), and a
 * vocabulary (gguf_vocab.h, or another GGUF file's tokenizer.* keys copied). */
#ifndef BB_GGUF_EXPORT_H
#define BB_GGUF_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "gguf.h"
#include "gguf_vocab.h"
#include "transformer.h"

typedef struct {
    const char *type;            /* "f32", "q4_0", "i2_s", ... (bb_gguf_export_types) */
    const char *name;            /* general.name */
    const bb_gguf_vocab *vocab;  /* the vocabulary, or */
    const bb_gguf *vocab_from;   /* a GGUF file whose tokenizer.* keys are copied; neither: a
                                    byte-level vocabulary sized to the model (gguf_vocab.h) */
} bb_gguf_export_options;

#define BB_GGUF_EXPORT_MAX_TYPES 4

typedef struct {
    struct {
        char type[8]; /* ggml type name */
        int tensors;
        uint64_t bytes;
    } per_type[BB_GGUF_EXPORT_MAX_TYPES];
    int n_types;
    int n_tensors;
    uint64_t file_bytes;
    double seconds;
    /* Tensors not in their rule's type, one line each (a kind of tensor, every layer alike):
     * "blk.*.ffn_down.weight [172, 64]: F32 (Q4_0's block 32 does not divide 172), 5 tensors";
     * "" when none. */
    char fallbacks[1024];
} bb_gguf_export_report;

/* The target types, comma separated, and whether name is one of them. */
const char *bb_gguf_export_types(void);
int bb_gguf_export_type_valid(const char *name);

/* Write the model with dimensions d (seq_len = the context length the file declares, > 0) and
 * weights src to path.  Returns 0 with rep filled, or -1 with one line in err naming the file
 * and the tensor or key (the partial file removed). */
int bb_gguf_export(const char *path, const bb_tf_dims *d, const bb_weight_source *src,
                   const bb_gguf_export_options *opt, bb_gguf_export_report *rep, char *err, size_t errlen);

#endif
