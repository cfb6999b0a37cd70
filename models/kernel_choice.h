/* Which kernel each linear layer and the classifier of a run go through, from the run's options
 * and the model: the one rule `generate`, `e2e`, `perplexity` and the model sweeps share.
 *
 * A model file (GGUF, llama2.c checkpoint: its tensors have types) computes by default what
 * llama.cpp computes on it:
 *   - no kernel: every tensor through the kernel that stores its ggml type as it is (kernel.h
 *     gguf_type: F32 -> f32, F16 -> f16, Q8_0 -> q8_0, Q4_0 -> q4_0, TQ2_0 -> tq2_0, ...; the
 *     kernel named as the type when several store it, f32 rather than f32_blas).  A type that no
 *     kernel stores (Q6_K) is dequantized to f32, exactly, and the note says so.
 *     Where a kernel's layout rearranges the type's blocks (kernel.h gguf_repack_type: Q8_0 ->
 *     q8_0_x16, Q4_0 -> q4_0x8, IQ4_NL -> iq4_nl_x8, Q2_K -> q2_k_x16, TQ1_0 -> tq1_0_x16, TQ2_0 -> tq2_0_x16, the
 *     Arm paper's §4.1.1 SIMD-aware packing), that layout's best variant on this CPU is not its
 *     scalar reference, and the tensor's rows fill its row groups without padding (M a multiple of
 *     8 or 16, as llama.cpp's CPU_REPACK buffers require), the tensor goes through that kernel
 *     instead: its blocks are moved at load, every bit kept (the same weights and the stored
 *     kernel's reference numbers; bit for bit against the stored kernel's SIMD variants where these
 *     keep the reference's order, kernels/mad/q4_0.h, codebook/iq4_nl.h and mad/tq2_0.h say where
 *     they do not), and the note says so.  The
 *     classifier likewise.  keep_layout (--no-repack) keeps every tensor in its stored layout.
 *   - kernel K: the linear layers through K; those of another type are requantized and the note
 *     lists them ("--kernel q4_0 requantizes 35 tensors: 30 Q8_0 (attn_q, ...), 5 F32
 *     (ffn_down); the classifier stays Q8_0 (--out-kernel to change it)").
 *   - the classifier (output.weight, or the tied token embedding) as stored in both cases;
 *     out_kernel K puts it through K.
 * A llama2.c checkpoint's tensors are all F32.
 *
 * A model config (synthetic weights: no stored types) keeps one kernel for every linear layer:
 * kernel, or f32 when the caller gives none (`perplexity`'s default; `e2e` and sweeps require
 * one), and the classifier out_kernel, else f16, for every command. */
#ifndef BB_KERNEL_CHOICE_H
#define BB_KERNEL_CHOICE_H

#include <stdbool.h>
#include <stddef.h>

#include "model_load.h"
#include "transformer.h"

/* What a run with no kernel is called (results' kernel column, messages), and one that also
 * keeps the stored layouts (--no-repack). */
#define BB_KERNEL_AS_STORED "as-stored"
#define BB_KERNEL_STORED_LAYOUT "as-stored-no-repack"

typedef struct {
    /* kernel (the name of the run: the given kernel, or BB_KERNEL_AS_STORED), out_kernel and
     * tensor_kernels set, pointing to the given strings (which must outlive the build), the
     * registry's names and tensor_kernels; the caller adds kv_k, kv_v and max_batch */
    bb_tf_options opt;
    const char **tensor_kernels; /* BB_TF_LINEARS per layer, or NULL: opt.kernel for all */
    int requantized;             /* linear tensors not used as stored */
    int rearranged;              /* linear tensors whose blocks go into a faster layout, bits kept */
    char note[1024];             /* "" or one line for stderr: what is requantized or dequantized */
} bb_kernel_choice;

/* Decide for model m (open; d its run dimensions) and the options kernel and out_kernel (NULL:
 * not given) and keep_layout (--no-repack).  Returns 0, or -1 with one line in err (a kernel name
 * that is not one, out of memory).  Free with bb_kernel_choice_free, after the model is built. */
int bb_kernel_choose(const bb_model_source *m, const bb_tf_dims *d, const char *kernel, const char *out_kernel,
                     bool keep_layout, bb_kernel_choice *c, char *err, size_t errlen);
void bb_kernel_choice_free(bb_kernel_choice *c);

/* The kernel that stores ggml type `type` ("Q4_0") as it is, or NULL when none does. */
const char *bb_kernel_for_ggml_type(const char *type);

/* The kernel whose layout rearranges the blocks of ggml type `type` (kernel.h gguf_repack_type:
 * "Q4_0" -> "q4_0x8") when its best variant on this CPU is not the scalar reference, else NULL. */
const char *bb_kernel_fast_layout(const char *type);

#endif
