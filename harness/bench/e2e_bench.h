/* One end-to-end measured point: a model (a config with synthetic weights, or a model file's own
 * weights when its config has a path: bb_model_config_resolve) through a kernel —
 * prompt processing (one prefill of P tokens) and token generation (G decode steps) timed over
 * repetitions, as llama-bench's pp/tg and the papers' tokens/s.  Used by `bitbench e2e` and the
 * Lua runner's model sweeps. */
#ifndef BB_E2E_BENCH_H
#define BB_E2E_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "models/model_config.h"
#include "models/transformer.h"
#include "support/pool.h"

typedef struct {
    const bb_model_config *model;
    /* NULL: not given; models/kernel_choice.h's rule then decides (a model file's tensors and
     * classifier as stored; a config needs a kernel, its classifier f16) */
    const char *kernel, *out_kernel;
    bool keep_layout;                /* --no-repack: a model file's tensors in their stored layouts */
    int prompt_len, gen_len;         /* either may be 0 */
    /* Tokens put in the KV cache before the repetitions, untimed, once (llama-bench's -d; each
     * repetition writes only positions depth.., so the cache before them is the same for every
     * one): the prompt is then prefilled and the tokens generated at positions depth.. */
    int depth;
    int reps;                        /* repetitions of (prefill + generation) */
    int distinct_layers;             /* synthetic layers actually generated; 0 = all */
    int seq_len;                     /* context; 0 = depth + prompt_len + gen_len (at least 1) */
    bb_kv_type kv_k, kv_v;           /* the KV cache's types (models/kv_type.h) */
    uint64_t seed;
    /* Optional: called just before and just after each repetition's token generation, outside its
     * timing (the runner brackets it with the experiment's meters; models/ stays free of them).
     * rep is 0-based; tokens is gen_len.  Not called when gen_len is 0. */
    void (*gen_begin)(void *ctx, int rep);
    void (*gen_end)(void *ctx, int rep, int tokens);
    void *hook_ctx;
    /* Optional: after the timed repetitions, the logits of these tokens fed one at a time
     * (bb_tf_teacher_forced) into logits_out (n_logit_tokens × vocab floats); seq_len must hold
     * them. */
    const int *logit_tokens;
    int n_logit_tokens;
    float *logits_out;
    /* Optional: the seconds of each repetition's prefill and generation (reps entries each; the raw
     * samples of samples.h) */
    double *pp_seconds, *tg_seconds;
    /* Optional: called after the timed repetitions, outside their timing; when it returns true the
     * repetitions are timed again on the same built model (a point measured again because its
     * repetitions disagreed: harness/results/noise.h), the seconds, hooks and results overwritten, so the
     * last attempt is what is reported. */
    bool (*again)(void *ctx);
    void *again_ctx;
    /* Optional (bitbench e2e --breakdown): where the timed generations' time went, summed over
     * every repetition's decode steps (of the last attempt), the classifier's included; sized for
     * the pool's threads (bb_tf_profile_new).  The prefills are not recorded. */
    bb_tf_profile *profile;
} bb_e2e_spec;

typedef struct {
    double pp_tps_median, pp_tps_min, pp_tps_max;  /* prompt tokens per second */
    double tg_tps_median, tg_tps_min, tg_tps_max;  /* generated tokens per second */
    double tg_ms_per_token;                        /* median */
    double matmul_share;      /* fraction of decode time in linear layers (kernels) */
    size_t weight_bytes_per_token; /* packed linear + classifier bytes read per generated token */
    size_t weight_pad_bytes_per_token; /* of which zeros added to pad M and K to the kernel's blocks */
    /* KV cache bytes a generated token reads, at the middle of the generation (position depth +
     * prompt_len + (gen_len - 1) / 2); 0 when gen_len is 0 */
    size_t kv_bytes_per_token;
    char conversions[1024];   /* bb_tf_conversions: what became of each kind of weight */
    char out_kernel[64];      /* the classifier's kernel */
    char kernel_note[1024];   /* "" or what the kernel requantizes (kernel_choice.h), for stderr */
    double tg_gbps;           /* weight_bytes_per_token * tg tokens/s (derived) */
    /* The bound of token generation measured in the same run: the same packed weight buffers and the
     * KV cache rows a generated token attends over (kv_bytes_per_token) read once per "token" by the
     * same pool with plain loads and no arithmetic (bb_read_buffers),
     * BB_E2E_READ_PASSES times after each repetition's generation, so that it sees the machine as
     * the generation did: half the passes with one stream per thread, half with BB_READ_STREAMS
     * (support/memory.h), alternating, and the faster by median is the bound (read_streams says
     * which).  Tokens/s = 1 / seconds per pass; read_gbps = bytes / median seconds.
     * tg_of_read = tg_tps_median / read_tps_median.  All 0 when gen_len is 0. */
    double read_tps_median, read_tps_max, read_gbps, tg_of_read;
    int read_streams;
    /* "on"/"off" (bb_cpu_stream_prefetch) when a linear layer or the classifier runs a kernel that
     * follows it (bb_tf_stream_prefetch_readers); "" when none does */
    char stream_prefetch[4];
    size_t footprint;         /* model bytes in memory */
    double build_seconds;
    int tg_median_rep;        /* the repetition whose generation speed is tg_tps_median (the lower of the two
                               * middle ones for an even count); -1 when gen_len is 0 */
    /* The code the linear layers' kernel ran (bb_variant_ran): in the prefill at each chunk's N,
     * "amx" or, when the chunks' N fall on both sides of the variant's rule, "amx+avx512" (full
     * chunks first); in the decode at N = 1.  Empty for a phase not measured. */
    char pp_variant_ran[40], tg_variant_ran[16];
    /* matmul calls of any kernel (linear layers and classifier) in the timed prefills and
     * generations that ran other code for a reason outside the dispatch rule (kernel.h) */
    uint64_t fallback_calls;
    char cpus[128];           /* bb_pool_cpus of the pool it ran on: the CPU of each thread, "0;1" */
    char placement[1024];     /* bb_pool_placement of that pool */
} bb_e2e_result;

/* even: as many passes of each read */
#define BB_E2E_READ_PASSES 4

/* Convert a model config to engine dimensions for a given context length. */
void bb_tf_dims_from_config(const bb_model_config *c, int seq_len, bb_tf_dims *d);

/* Refuses up front (with the numbers) a model that does not fit in available memory. */
int bb_e2e_bench(bb_pool *pool, const bb_e2e_spec *spec, bb_e2e_result *res, char *err, size_t errlen);

/* Several points side by side (a model sweep's interleave): the specs' models built and held
 * together, then each repetition runs every model's prefill, generation and read passes in turn,
 * repetition r starting at model r mod n, so a slow spell of the host falls on every model alike
 * and each takes its turn first.  The specs share the pool and, in the sweeps, their reps;
 * their own `again` is not asked: after each attempt again(again_ctx) decides for the group, and
 * every model is timed again.  res[i] is specs[i]'s result.  Returns 0, or -1 with err when one
 * model could not be built or run its logits; then no result is to be kept, and failed[i] (n
 * bytes; may be NULL) is 1 only for the point err is about. */
int bb_e2e_bench_interleaved(bb_pool *pool, const bb_e2e_spec *specs, int n, bb_e2e_result *res,
                             bool (*again)(void *ctx), void *again_ctx, char *failed, char *err, size_t errlen);

/* Only the logits: build the spec's model (the same synthetic weights bb_e2e_bench uses for that
 * spec; its kernel, out_kernel, kv, seed and distinct_layers), run the spec's logit_tokens through
 * it into logits_out, free it.  Nothing is timed. */
int bb_e2e_logits(bb_pool *pool, const bb_e2e_spec *spec, char *err, size_t errlen);

#endif
