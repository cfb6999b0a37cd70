/* An experiment: what a Lua experiment file describes, checked and resolved into C.
 *
 * lua_experiment.c runs the file and fills this (every name resolved, every value checked, with
 * the file and line of the declaration kept for later messages); command-line overrides are
 * applied with bb_experiment_override; plan.c expands the sweeps into measured points.  Lua never
 * runs after loading: the runner only sees these structs. */
#ifndef BB_EXPERIMENT_H
#define BB_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/gemm_bench.h"
#include "kernels/kernel.h"
#include "models/kv_type.h"
#include "models/model_config.h"
#include "results/noise.h"      /* BB_DEFAULT_SPREAD_LIMIT, BB_DEFAULT_SD_LIMIT */
#include "results/result_row.h" /* BB_PHASE_* */
#include "support/machine.h"

#define BB_NAME_MAX 64
#define BB_SWEEP_MAX_LIST 64 /* entries of a scalar setting's list (warmup, reps, min_seconds, seed, delay) */
#define BB_SWEEP_MAX_ROUNDS 32 /* a sweep's `rounds` (the rounds_* columns' lists hold this many) */

/* An experiment file is a page or two of Lua; 16 MiB is far past any hand-written one and bounds
 * what a shared file costs to read before Lua's own memory bound applies. */
#define BB_EXPERIMENT_MAX_BYTES ((uint64_t)16 << 20)

typedef struct {
    char spec[BB_NAME_MAX];     /* as written: "i2_s" or "i2_s@avx2" */
    const bb_kernel *kernel;
    const bb_variant *variant;  /* what runs here (the best usable one when no @isa is given) */
} bb_kernel_choice;

typedef struct {
    int m, k;
    char model[BB_NAME_MAX];    /* "" for a literal shape */
    char roles[24];             /* the model's projections with this shape: "q+o", "gate+up" */
} bb_shape;

typedef enum { BB_UNSUPPORTED_SKIP = 0, BB_UNSUPPORTED_ERROR } bb_unsupported;

typedef struct {
    char name[BB_NAME_MAX];
    int line;                   /* where it was declared (0: unknown) */
    bb_kernel_choice *kernels;
    int nkernels;
    bb_shape *shapes;
    int nshapes;
    int *n, nn;                 /* batch sizes N (activation rows) */
    int *threads, nthreads;
    bool threads_default;       /* `threads` not given: the allowed cores (or one per CPU of `cpus`) */
    /* `cpus = {0, 2, 3}` (or --cpus): thread t of every point on the t-th CPU, each one the process
     * may run on (support/affinity.h); NULL = one per allowed core first, then SMT siblings */
    int *cpus, ncpus;
    bb_cache_mode cache[BB_CACHE_NMODES]; /* resident, dram, l1, l2, l3 (bench/cache_sizing.h) */
    int ncache;
    int warmup, min_reps, max_reps;
    double min_seconds;
    /* A kernel sweep's scalar settings may each be a list, swept as a product like N and threads
     * (llama-bench's lists); warmup, min_reps, min_seconds, seed and delay above are the first
     * entry of each (what estimates and run.json's summary use), every point runs with its own
     * (plan.h, bb_point).  A given value is one entry. */
    int warmups[BB_SWEEP_MAX_LIST], nwarmups;
    int reps_list[BB_SWEEP_MAX_LIST], nreps_list;
    double min_seconds_list[BB_SWEEP_MAX_LIST];
    int nmin_seconds_list;
    uint64_t seeds[BB_SWEEP_MAX_LIST];
    int nseeds;
    double delays[BB_SWEEP_MAX_LIST];
    int ndelays;
    double spread_limit;        /* flag points whose interquartile range / median exceeds this ... */
    double sd_limit;            /* ... or whose standard deviation / median exceeds this */
    int remeasure;              /* measure a point so flagged again, up to this many more times */
    /* `spread_phases` (model sweeps): the phases whose spread decides the two above, BB_PHASE_*
     * (result_row.h); 0 or BB_PHASES_BOTH: both.  A decode experiment judges its points by "tg". */
    unsigned spread_phases;
    /* `rounds`: each point measured this many times, round by round over the sweep's points
     * (round 1 of every point, then round 2, ...), so that a slow spell of the host falls on every
     * kernel alike; the row is the median round (sweep_kernel.c: by read_ratio_paired, else
     * t_median_s; sweep_model.c: by the share of the read-alone bound).  0 or 1: one round. */
    int rounds;
    /* `interleave` (model sweeps): the points that differ only in their kernel measured side by
     * side, their models held together and each repetition running every one in turn
     * (bb_e2e_bench_interleaved), so that a ratio of two kernels' tokens/s is of the same seconds */
    bool interleave;
    double delay;               /* seconds of cool-down before each point */
    bb_unsupported on_unsupported;
    uint64_t seed;
    /* `verify`: each (kernel, shape, N) point's accuracy (bb_gemm_verify), computed once outside
     * the timed region, into results.csv's err_* and weight_rel_rms columns. */
    bool verify;
    /* `read`: after every timed call a plain read of the next copy of the same packed bytes
     * (bitbench gemm --read), into results.csv's read_* columns: each point's time as a multiple
     * of what the memory system gave its bytes at that moment. */
    bool read;
    /* A model sweep (field `models` instead of `shapes`): end-to-end points through bb_e2e_bench,
     * one row each in e2e.csv.  min_reps is its `reps` (repetitions of prefill + generation). */
    bool is_model;
    bb_model_config *models;
    int nmodels;
    char out_kernel[BB_NAME_MAX];
    int *prompt, nprompt;       /* prompt lengths (pp) */
    int *gen, ngen;             /* generation lengths (tg) */
    int *depth, ndepth;         /* context depths (tokens in the KV cache before the prompt; llama-bench's -d) */
    bb_kv_type kv_k, kv_v;      /* KV cache types (`kv`, or `kv_type_k` and `kv_type_v`) */
    int distinct_layers;        /* synthetic layers generated (the rest reuse them); 0 = all */
    /* `compare_logits`: after each point's timing, the logits of compare_tokens teacher-forced
     * tokens through the point's kernel are compared with those through this reference kernel
     * (same weights, same out_kernel); "" = off. */
    char compare_logits[BB_NAME_MAX];
    int compare_tokens;
    /* `perplexity = {file = TEXT, ctx = C, chunks = N, model = FILE.bin}`: after each point's
     * timing, perplexity (harness/bench/perplexity_job.h) through the point's kernel, out_kernel, kv and
     * threads, on the first N chunks of C tokens of TEXT (N 0 = all), of `model` (a llama2.c
     * checkpoint) or, without it, of the point's model with its synthetic weights (seed,
     * distinct_layers), the text fed as bytes; into e2e.csv's ppl columns.  ppl_file "" = off. */
    char ppl_file[1024], ppl_model[1024];
    int ppl_ctx, ppl_chunks;
    /* `peers = {"llama.cpp", "bitnet.cpp:i2_s"}`: other implementations run on the point's model
     * exported to GGUF (harness/peers/peer_sweep.h), each entry expanded to "peer:type"; their
     * programs from the command line (`bitbench run --peer llama.cpp=PATH`), else the environment,
     * else PATH, never from the file; each run ended after peer_timeout seconds.  In a kernel sweep: llama.cpp's test-backend-ops on the
     * sweep's types and shapes (harness/peers/peer_kernels.h). */
    char (*peers)[BB_NAME_MAX];
    int npeers;
    double peer_timeout;
} bb_sweep;

/* The phases whose spread judges the sweep's end-to-end points (0, unset: both). */
static inline unsigned bb_sweep_spread_phases(const bb_sweep *sw)
{
    return sw->spread_phases ? sw->spread_phases : BB_PHASES_BOTH;
}

typedef struct {
    char name[BB_NAME_MAX];
    char description[256];
    char file[1024];            /* the experiment file as given */
    int line;                   /* of the bitbench.experiment call */
    char out[1024];             /* results directory */
    bb_sweep *sweeps;
    int nsweeps;
    char (*meters)[BB_NAME_MAX];  /* meter names; "timer" is always first */
    int nmeters;
    char **warnings;            /* notes found while loading (duplicates merged, ...) */
    int nwarnings;
    char size[16];              /* "smoke", "default" or "full": bitbench.size, from --smoke / --full */
    char (*plots)[BB_NAME_MAX]; /* `bitbench plot` kinds drawn into RUN_DIR/plots when the run ends */
    int nplots;
    /* `profile`: measure the machine profile (bitbench roofline) into RUN_DIR/machine-profile.json
     * after the sweeps; profile_kernels is a comma list ("" = every kernel), profile_threads 0 =
     * the physical cores. */
    bool profile;
    char profile_kernels[512];
    int profile_threads;
    bool unsafe_lua;            /* loaded with every Lua library (bitbench run --unsafe-lua) */
    /* The model configs the sweeps name (`shapes` and `models` entries that are config names, not
     * model files), each once: models/<name>.lua in bb_model_dir(), stored with the run
     * (run/run_sources.h). */
    char (*model_configs)[BB_NAME_MAX];
    int nmodel_configs;
} bb_experiment;

/* Defaults of a sweep's optional fields (also documented in README.md). */
#define BB_DEFAULT_WARMUP 3
#define BB_DEFAULT_MIN_REPS 10
#define BB_DEFAULT_MAX_REPS 100000
#define BB_DEFAULT_MIN_SECONDS 0.1
#define BB_DEFAULT_REMEASURE 2
#define BB_REMEASURE_MIN_REPS 5 /* fewer timed calls than this: no re-measurement (sweep_kernel.c) */
#define BB_DEFAULT_SEED 42
#define BB_DEFAULT_OUT "results"
#define BB_DEFAULT_E2E_REPS 3
#define BB_DEFAULT_DISTINCT_LAYERS 2
#define BB_DEFAULT_COMPARE_TOKENS 16

/* Run the Lua file and fill ex.  Returns 0, or -1 with one message in err: "FILE:LINE: what was
 * wrong; what is valid" (a Lua syntax or run-time error keeps Lua's own file:line). */
int bb_experiment_load(const char *file, const bb_machine *mach, bb_experiment *ex, char *err, size_t errlen);
/* The same with bitbench.size set to size ("smoke", "default" or "full"; NULL = "default"). */
int bb_experiment_load_sized(const char *file, const bb_machine *mach, const char *size, bb_experiment *ex,
                             char *err, size_t errlen);
void bb_experiment_free(bb_experiment *ex);
/* Load experiment files from now on with every Lua library instead of the sandbox's
 * (support/lua_sandbox.h): bitbench run --unsafe-lua. */
void bb_experiment_set_unsafe_lua(bool on);

/* Command-line overrides; unset fields leave the file's values. */
typedef struct {
    const int *threads;       /* --threads: replaces every sweep's thread list */
    int nthreads;
    const int *cpus;          /* --cpus: replaces every sweep's cpus (and a defaulted thread list: {ncpus}) */
    int ncpus;
    int reps;                 /* --reps: minimum repetitions (0: unset) */
    double min_seconds;       /* --min-time (< 0: unset) */
    const char *out;          /* --out */
    const char *const *only;  /* --only: keep only these kernels ("i2_s" keeps i2_s and i2_s@isa) */
    int nonly;
} bb_overrides;

/* Returns 0, or -1 with err (an --only that matches nothing, out of memory).  Thread counts and CPUs
 * are checked against the process's affinity mask when the plan is built (bb_plan_build). */
int bb_experiment_override(bb_experiment *ex, const bb_overrides *o, const bb_machine *mach, char *err,
                           size_t errlen);

/* "FILE:LINE: " or "FILE: " when the line is unknown. */
void bb_experiment_where(const bb_experiment *ex, int line, char *buf, size_t len);

#endif
