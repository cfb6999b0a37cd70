/* The transformer engine: decoder-only Llama-style and BitNet-b1.58-style models, every linear
 * layer through the kernel interface (kernels/kernel.h), in the manner of llama2.c's run.c.
 *
 * Llama:  x += Wo·attn(rope(Wq·n(x)), rope(Wk·n(x)), Wv·n(x));  x += W2·(silu(W1·n(x)) * W3·n(x))
 * BitNet: the same, plus RMSNorm sub-norms before Wo (over dim) and before W2 (over hidden), and
 *         squared-ReLU or SiLU gating as the model says (BitNet b1.58 2B4T: relu², sub-norms);
 *         the per-token int8 activation quantization of BitLinear is the kernel's prepare()
 *         (BB_ACT_I8_ROW kernels such as i2_s, tl1_1, tl2_1 compute BitNet's arithmetic exactly).
 * n = RMSNorm with learned gain, eps as configured (llama2.c: 1e-5).  RoPE on pairs (2i, 2i+1)
 * within each head, theta as configured.  Grouped-query attention: head h reads KV head
 * h / (n_heads / n_kv_heads).  Prefill runs N prompt tokens as one GEMM per linear layer; decode
 * runs one GEMV per linear layer per token.  The KV cache is f32, f16, bf16 or q8_0, keys and values
 * each (models/kv_type.h).  The work between the matmuls (norms, RoPE, attention, activations,
 * residual adds) goes through the vector primitives of models/vec.h; attention is blocked with a
 * running softmax (models/attention.h): a prefill splits it over (KV head, tile of tokens), the
 * query heads of a KV head reading each chunk of its cache while it is in cache; a decode step
 * over (KV head, chunk of positions), so that a long cache streams on every thread whatever the
 * number of heads.  The row-wise stages split over tokens when a prefill has several.
 *
 * Weights come from a bb_weight_source (llama2.c checkpoint, synthetic generator, ...) one
 * tensor at a time into one reused f32 buffer, and each matrix is packed immediately, so the
 * float model is never held in memory whole.  A tied embedding with an f32/f16/bf16 classifier
 * is looked up in the packed classifier (bitnet.cpp's runs: a tied f16 embedding), so no f32
 * table is kept. */
#ifndef BB_TRANSFORMER_H
#define BB_TRANSFORMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"
#include "models/kv_type.h"
#include "support/pool.h"

typedef enum { BB_STYLE_LLAMA = 0, BB_STYLE_BITNET } bb_tf_style;
typedef enum { BB_FFN_SILU = 0, BB_FFN_RELU2 } bb_ffn_act;

typedef struct {
    int dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
    int head_dim;         /* 0 = dim / n_heads */
    bb_tf_style style;
    bool sub_norms;       /* BitNet's extra RMSNorms before Wo and W2 */
    bb_ffn_act ffn_act;
    float norm_eps;       /* 0 = 1e-5 */
    float rope_theta;     /* 0 = 10000 */
    bool tied_embedding;  /* classifier = token embedding */
} bb_tf_dims;

/* Check the dimensions; returns 0 or -1 with one line naming the field and what is valid. */
int bb_tf_dims_check(const bb_tf_dims *d, char *err, size_t errlen);
/* The dimension of one attention head: head_dim when the model gives one, else dim / n_heads.
 * Inline because both the builder (transformer_build.c) and the forward pass (transformer.c) use
 * it, and the builder calls the forward pass's file (tf_make_groups), not the reverse. */
static inline int bb_tf_head_dim(const bb_tf_dims *d) { return d->head_dim > 0 ? d->head_dim : d->dim / d->n_heads; }

/* A tensor as its source stores it (a GGUF file's bytes). */
typedef struct {
    const void *data;
    size_t bytes;
    const char *type; /* its ggml type, named as gguf_types.h names it: "TQ2_0", "F16", ... */
    float out_scale;  /* a per-tensor scale multiplying the layer's outputs; 1 when none */
} bb_stored_tensor;

/* Per-tensor weight provider.  Names: "tok_embeddings" (vocab×dim), "rms_att" (dim),
 * "wq" (dim_q×dim), "wk"/"wv" (kv_dim×dim), "wo" (dim×dim_q), "rms_ffn" (dim), "w1"/"w3"
 * (hidden×dim), "w2" (dim×hidden), "attn_sub_norm" (dim_q), "ffn_sub_norm" (hidden),
 * "rms_final" (dim), "wcls" (vocab×dim, only when not tied).  layer is -1 for global tensors.
 * Fills count floats; returns 0, or -1 with a message. */
typedef struct {
    void *ctx;
    int (*get)(void *ctx, const char *name, int layer, float *dst, size_t count, char *err, size_t errlen);
    /* Optional: an earlier layer whose tensors are identical to `layer`'s, or -1.  The engine
     * then copies that layer's packed bytes instead of packing again (every layer still has its
     * own memory, so the bytes read per token are real).  Synthetic models use it. */
    int (*alias)(void *ctx, int layer);
    /* Optional: the stored form of a linear tensor (returns 0 and fills out, or -1 when there is
     * none).  When its type is the one the run's kernel stores (bb_kernel.gguf_type) the engine
     * copies these bytes as they are, with out_scale applied to the outputs; otherwise it packs
     * what get() returns (out_scale already multiplied in).  Either way the engine records which
     * (bb_tf_conversions). */
    int (*stored)(void *ctx, const char *name, int layer, bb_stored_tensor *out);
} bb_weight_source;

/* One linear layer: y (m_real,) = W (m_real, k_real) x (k_real,).  When the kernel's block does
 * not divide k_real, W is packed with k columns, the last k - k_real zero, and the input is
 * copied into a k-wide row with a zero tail before prepare(): zero weights times zero
 * activations add nothing, and zeros change neither a per-row nor a per-block activation
 * absmax, so the result is the kernel's arithmetic on the unpadded layer (a ternary kernel's
 * absmean scale is taken over the real weights).  When its m_multiple does not divide m_real, W
 * gets zero rows up to m, the kernel writes m outputs into a scratch row and the first m_real
 * are copied out. */
typedef struct {
    const bb_kernel *kern;
    const bb_variant *var;
    void *packed;
    int m, k;         /* as packed: m_real and k_real rounded up to the kernel's multiples */
    int m_real, k_real; /* the model's rows and columns */
    float out_scale;  /* outputs are multiplied by this when it is not 1 (a stored scale tensor) */
} bb_linear;

typedef struct {
    float *rms_att, *rms_ffn, *attn_sub_norm, *ffn_sub_norm;
    bb_linear wq, wk, wv, wo, w1, w2, w3;
} bb_tf_layer;

/* The seven linear layers of a layer, in the order bb_tf_options.tensor_kernels lists them. */
enum { BB_TF_LINEARS = 7 };

typedef struct {
    const char *kernel;     /* linear layers: "i2_s", "q4_0@avx2", ... */
    const char *out_kernel; /* classifier; NULL = "f16" */
    /* When not NULL: each linear tensor's own kernel, layer by layer, BB_TF_LINEARS per layer in
     * the order wq wk wv wo w1 w3 w2 (entry 7 * layer + i), in place of kernel (which then only
     * names the run).  A model file's tensors each go through the kernel that stores their type
     * this way (models/kernel_choice.h); read only while building. */
    const char *const *tensor_kernels;
    /* The KV cache's element types, keys and values separately (llama.cpp's -ctk / -ctv); the
     * zero value is f32.  q8_0 needs a head dimension that is a multiple of 32. */
    bb_kv_type kv_k, kv_v;
    int max_batch;          /* largest prefill chunk (N of the GEMM); 0 = 64 */
} bb_tf_options;

typedef struct bb_transformer bb_transformer;

/* Build a model: check every linear layer's shape against the kernels (refusing, before any
 * allocation, with the layer and the reason), pack all weights from src.  NULL on error. */
bb_transformer *bb_tf_create(const bb_tf_dims *d, const bb_weight_source *src, const bb_tf_options *opt,
                             char *err, size_t errlen);
void bb_tf_free(bb_transformer *t);
const bb_tf_dims *bb_tf_get_dims(const bb_transformer *t);
/* The largest prefill chunk: a forward of n tokens runs GEMMs of N = this, then one of the rest. */
int bb_tf_max_batch(const bb_transformer *t);

/* The K a layer of k_real columns is packed with for a kernel: k_real rounded up to its
 * k_multiple. */
int bb_tf_padded_k(const bb_kernel *kern, int k_real);
/* The same for M and the kernel's m_multiple. */
int bb_tf_padded_m(const bb_kernel *kern, int m_real);

/* What became of each kind of weight (embedding, wq, wk, wv, wo, w1, w3, w2, classifier and, as
 * one kind, the norms): one line per kind, "wq: TQ2_0 used as stored by tq2_0" or
 * "w2: F32 dequantized to f32, packed into q4_0 (K 172 padded to 192)", separated by '\n'. */
const char *bb_tf_conversions(const bb_transformer *t);

/* Of bb_tf_weight_bytes_per_token, the bytes of the zeros added by padding (each padded layer's
 * packed bytes times the share of its m x k that is padding). */
size_t bb_tf_weight_pad_bytes_per_token(const bb_transformer *t);

/* Bytes of the KV cache a decode step reads at position pos (attending over pos + 1 positions):
 * every layer's keys and values of every KV head. */
size_t bb_tf_kv_bytes_per_token(const bb_transformer *t, int pos);
/* Those bytes as the buffers a decode step at pos reads (per layer and KV head, its pos + 1 key
 * rows, then its value rows): pointers and sizes into bufs/bytes when not NULL; returns their
 * count, 2 * n_layers * n_kv_heads. */
int bb_tf_kv_buffers(const bb_transformer *t, int pos, const void **bufs, size_t *bytes);

/* Bytes of packed linear weights read per generated token (all layers + classifier), and the
 * model's total resident bytes (weights, embedding, KV cache, buffers: bb_tf_memory without the
 * build scratch). */
size_t bb_tf_weight_bytes_per_token(const bb_transformer *t);
/* The packed buffers a decode step reads, in the order it reads them (per layer wq wk wv wo w1 w3
 * w2, then the classifier): pointers and sizes into bufs/bytes when they are not NULL; returns
 * their count, 7 * n_layers + 1.  Their sizes add up to bb_tf_weight_bytes_per_token. */
int bb_tf_weight_buffers(const bb_transformer *t, const void **bufs, size_t *bytes);
/* How many of those buffers a decode step reads with code that follows the CPU's software-prefetch
 * rule for one stream (bb_variant_follows_stream_prefetch at N = 1; kernels/cpu.h). */
int bb_tf_stream_prefetch_readers(const bb_transformer *t);
size_t bb_tf_footprint(const bb_transformer *t);
/* What bb_tf_create will allocate for a model, from its dimensions alone (the KV cache and the
 * attention buffers at d->seq_len: size it to the run's context).  build_scratch is held only
 * while building (one f32 tensor, the largest, before it is packed) and freed before the KV
 * cache is allocated; total is the peak, weights + embedding + buffers + max(kv_cache,
 * build_scratch). */
typedef struct {
    size_t weights;       /* packed linear layers of every layer and the classifier */
    size_t embedding;     /* f32 token embedding table; 0 when tied and read from an f32/f16/bf16 classifier */
    size_t kv_cache;      /* keys and values, every layer, seq_len positions */
    size_t buffers;       /* activations for max_batch tokens, prepared activations, norms, RoPE table */
    size_t build_scratch; /* the largest f32 tensor (embedding included), while it is packed */
    size_t total;
} bb_tf_memory;
int bb_tf_estimate_memory(const bb_tf_dims *d, const bb_tf_options *opt, bb_tf_memory *m, char *err, size_t errlen);
/* bb_tf_estimate_memory's total. */
int bb_tf_estimate_bytes(const bb_tf_dims *d, const bb_tf_options *opt, size_t *bytes, char *err, size_t errlen);

/* Run tokens[0..n) at positions pos..pos+n-1 (prefill when n > 1, decode when n == 1); returns
 * the logits (vocab floats) of the last of them, valid until the next call; NULL when pos + n
 * exceeds seq_len or n < 1.  Time spent in linear layers is added to *matmul_seconds when not NULL. */
const float *bb_tf_forward(bb_transformer *t, bb_pool *pool, const int *tokens, int n, int pos,
                           double *matmul_seconds);
/* The same run, keeping the logits of every token (perplexity scores each position): row i of
 * logits (n × vocab floats, the caller's) is the prediction after tokens[i].  The classifier runs as
 * one GEMM per prefill chunk of max_batch tokens.  Returns 0, or -1 when pos + n exceeds seq_len
 * or n < 1. */
int bb_tf_forward_all(bb_transformer *t, bb_pool *pool, const int *tokens, int n, int pos, float *logits,
                      double *matmul_seconds);

/* Where the forward passes' time goes (bitbench e2e --breakdown), added up over every
 * bb_tf_forward / bb_tf_forward_all call while a profile is set.  Every field but idle is a
 * stretch of the calling thread's (worker 0's) timeline, and they do not overlap, so
 * total - (the sum of the others) is what none of them covers (the calls' entry and exit); idle
 * is each thread's view of the same matmuls.  The linear layers are counted per group, in the
 * order a layer runs them (BB_TF_GROUP_*): the classifier is a group of its own.
 * Costs nothing while no profile is set but a test of a pointer per stage and chunk; set, it
 * reads the clock twice per stage and group and once per chunk (about 20 ns each). */
enum { BB_TF_GROUP_QKV = 0, BB_TF_GROUP_WO, BB_TF_GROUP_W13, BB_TF_GROUP_W2, BB_TF_GROUP_CLS, BB_TF_GROUP_KINDS };
typedef enum {
    BB_TF_STAGE_EMBED = 0,   /* the token's embedding row (a classifier row dequantized when tied) */
    BB_TF_STAGE_RESID_NORM,  /* x += the block's output, then the RMSNorm of the next block's input */
    BB_TF_STAGE_ROPE_STORE,  /* RoPE on q and k, k and v converted into the KV cache */
    BB_TF_STAGE_ATTENTION,   /* the pool job over (KV head, chunk of positions) and the fold */
    BB_TF_STAGE_SUB_NORM,    /* BitNet's sub-norm before Wo */
    BB_TF_STAGE_GATE,        /* act(W1 x) * W3 x and BitNet's sub-norm before W2 */
    BB_TF_STAGE_FINAL_NORM,  /* the last residual add and the final norm */
    BB_TF_STAGES
} bb_tf_stage;
typedef struct {
    /* per group kind: worker 0's work before and after the pool job (a padded layer's input and
     * output copies and the kernel's prepare: activation quantization, table building) */
    double prepare[BB_TF_GROUP_KINDS];
    /* from the dispatch of the pool job to the end of its last chunk on any thread */
    double matmul[BB_TF_GROUP_KINDS];
    /* from the end of the last chunk to worker 0's return from the pool (the barrier) */
    double barrier[BB_TF_GROUP_KINDS];
    double stage[BB_TF_STAGES];
    double total;            /* the forward calls, whole */
    long calls;              /* forward calls counted */
    long jobs;               /* matmul pool jobs counted */
    /* per thread (nthreads of them, the caller's): over every matmul job, from the end of the
     * thread's last chunk (or the dispatch, when it ran none) to the end of the job's last chunk */
    double *idle;
    int nthreads;
    double *chunk_end;       /* scratch: per thread, a cache line apart (8 doubles) */
} bb_tf_profile;
/* A zeroed profile for a pool of nthreads; NULL when out of memory. */
bb_tf_profile *bb_tf_profile_new(int nthreads);
void bb_tf_profile_free(bb_tf_profile *p);
/* Zero the sums (the thread count stays). */
void bb_tf_profile_reset(bb_tf_profile *p);
/* Record into p from now on; NULL stops.  p's nthreads must be the size of the pools passed to
 * the forward calls. */
void bb_tf_set_profile(bb_transformer *t, bb_tf_profile *p);

#endif
