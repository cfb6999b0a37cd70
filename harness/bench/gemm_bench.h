/* Measured points of a kernel: random weights of the kernel's natural kind are packed, the
 * activations prepared, and prepare + matmul (split over the pool's threads) timed with warm-up
 * and repetitions.  Used by `bitbench gemm` (one point) and by the Lua sweep runner (many points,
 * reusing one packed set across batch sizes and thread counts).
 *
 * Cache modes (bench/cache_sizing.h): resident repeats one packed matrix (it stays in cache if it
 * fits); l1, l2, l3 rotate among as many copies as fit in that level for the point's threads;
 * dram rotates among enough copies that their total exceeds 4x the last-level cache, so every
 * call streams its weights from memory. */
#ifndef BB_GEMM_BENCH_H
#define BB_GEMM_BENCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/cache_sizing.h"
#include "kernels/kernel.h"
#include "meters/meter.h"
#include "support/machine.h"
#include "support/pool.h"

typedef struct {
    const bb_kernel *kernel;
    const bb_variant *variant;
    int m, k, n;
    bb_cache_mode cache;
    int threads;        /* of the pool: the cache levels' capacity depends on it */
    int warmup;         /* untimed calls first */
    int min_reps;       /* at least this many timed calls ... */
    double min_seconds; /* ... and at least this much timed time */
    int max_reps;       /* never more than this */
    uint64_t seed;
    bool verify;        /* also compare with the fp64 reference */
    bool read_alone;    /* also time a plain read of the same packed bytes (bb_measure_spec.read_alone) */
    bool keep_samples;  /* the result's samples: every timed call (bb_measure_spec.keep_samples) */
} bb_gemm_spec;

typedef struct {
    int reps, copies;
    double t_median, t_min, t_max, t_sd; /* seconds per call (prepare + matmul) */
    double t_q1, t_q3;                   /* first and third quartiles of the calls */
    double spread;                       /* (q3 - q1) / t_median, see stats.h */
    double gops;                         /* 2*M*K*N / t_median / 1e9 */
    double gbps;                         /* packed weight bytes / t_median / 1e9 */
    size_t packed_bytes, act_bytes;
    size_t rotated_bytes;                /* copies * packed_bytes: the working set the calls cycled through */
    char cache_source[8];                /* where the sizes of a sized mode came from (machine.h), "" resident */
    bool interrupted;                    /* *stop was raised: the point is incomplete */
    /* matmul calls (one per thread's slice) of the timed repetitions that ran other code than the
     * variant's for a reason outside its dispatch rule (kernel.h, bb_kernel_fallback_note) */
    uint64_t fallback_calls;
    double *samples;                     /* keep_samples: reps seconds, in the order the calls ran (malloc'd) */
    /* --verify (bb_gemm_verify): y is one call's output, y_ref = W_deq·x in fp64 with the kernel's own
     * dequantized weights W_deq = unpack(pack(W)), y_master = W·x in fp64 with the master weights W */
    bool verified;
    double max_abs_err;   /* max |y - y_ref| */
    double rel_err;       /* max |y - y_ref| / max |y_ref| */
    double bound_ratio;   /* max |y - y_ref| / bound, <= 1 when within the format's bound */
    double err_rel_rms;        /* ||y - y_ref|| / ||y_ref||: the error the kernel's arithmetic adds */
    double err_master_rel_rms; /* ||y - y_master|| / ||y_master||: the total error, weight format included */
    double weight_rel_rms;     /* ||W_deq - W|| / ||W||: the weight format's reconstruction error */
    /* read_alone (bb_measure_spec.read_alone): after every timed call, the next copies of the
     * same packed bytes read by the same pool with plain 64-byte loads and no arithmetic, once
     * with one stream per thread and once with BB_READ_STREAMS (support/memory.h): what the
     * memory system gives these bytes at that moment, beside which gbps is the kernel's share.
     * The figures below are of the read whose median was faster. */
    bool read_alone;                  /* the reads were taken (else the five below are 0) */
    int read_streams;                 /* streams per thread of that read: 1 or BB_READ_STREAMS */
    double read_t_median, read_t_min; /* seconds per copy read */
    double read_gbps;                 /* packed bytes / read_t_median / 1e9 */
    double read_ratio_paired;         /* median over the calls of call time / that read right after it */
} bb_gemm_result;

/* A packed weight matrix, repeated `copies` times (see the cache modes). */
typedef struct {
    const bb_kernel *kernel;
    int m, k;
    uint64_t seed;   /* of the master weights (bb_random_weights), for bb_gemm_verify */
    bb_cache_mode cache;
    int threads;     /* the copies were sized for (cache levels) */
    char cache_source[8]; /* machine.h's cache_source when the mode is sized from the caches */
    size_t psize;    /* bytes of one packed copy */
    int copies;
    uint8_t *packed; /* copies * psize bytes */
} bb_packed_set;

/* Random weights from seed, packed and copied for the cache mode and thread count.  Returns 0 or
 * -1 with err (a working set the mode cannot make here: bb_cache_copies). */
int bb_packed_set_make(const bb_kernel *kern, int m, int k, bb_cache_mode cache, int threads, uint64_t seed,
                       const bb_machine *mach, bb_packed_set *ps, char *err, size_t errlen);
void bb_packed_set_free(bb_packed_set *ps);

/* How one point is timed. */
typedef struct {
    const bb_variant *variant;
    int n;
    int warmup, min_reps, max_reps;
    double min_seconds;
    uint64_t seed;                     /* activations */
    bb_meter *meters;                  /* begun/ended around the timed repetitions */
    int nmeters;
    double *meter_values;              /* out: the meters' columns, in order */
    const volatile sig_atomic_t *stop; /* checked between calls; NULL = never */
    bool keep_samples;                 /* res->samples: every timed call's seconds (the caller frees it) */
    /* after every timed call, time a plain read of the next copy (bb_read_buffers), so that call
     * and read alternate through the point; the reads are not in the call times */
    bool read_alone;
} bb_measure_spec;

/* Time prepare + matmul of ms->n activation rows against ps.  Returns 0 or -1 with err. */
int bb_gemm_measure(bb_pool *pool, const bb_packed_set *ps, const bb_measure_spec *ms, bb_gemm_result *res,
                    char *err, size_t errlen);

/* The accuracy of one call of ms_variant on ps with n activation rows (the activations bb_gemm_measure
 * times, from seed): fills res's verify fields.  The fp64 reference products run on the pool; the
 * master weights are regenerated from ps->seed.  Never inside a timed region.  Returns 0 or -1
 * with err (out of memory). */
int bb_gemm_verify(bb_pool *pool, const bb_packed_set *ps, const bb_variant *variant, int n, uint64_t seed,
                   bb_gemm_result *res, char *err, size_t errlen);

/* Did a verified result stay within its format's bound (bb_error_bound, kernels/common/error_bound.h)
 * at every output?  The one pass/fail decision of `bitbench gemm --verify` and of a sweep's
 * `verify` (a NaN error fails). */
bool bb_gemm_verify_passed(const bb_gemm_result *res);

/* One point, start to end (bitbench gemm). */
int bb_gemm_bench(bb_pool *pool, const bb_gemm_spec *spec, bb_gemm_result *res, char *err, size_t errlen);

/* Run variant->matmul over [0, m) shared by the pool as the engine shares a linear layer: in
 * chunks of bb_variant_chunk_rows rows (kernel.h), each thread its own share first, then what is
 * left of the others' (when that makes fewer chunks than threads: one slice of whole row units
 * per thread).  bb_matmul_pool_chunks takes the rows per chunk (a multiple of the kernel's
 * m_multiple). */
void bb_matmul_pool(bb_pool *pool, const bb_kernel *kern, const bb_variant *v, const void *w,
                    const void *act, float *y, int m, int k, int n);
void bb_matmul_pool_chunks(bb_pool *pool, const bb_variant *v, const void *w, const void *act, float *y, int m,
                           int k, int n, int chunk_rows);

/* Random weights of the kernel's natural kind (ternary or Gaussian), M×K. */
void bb_random_weights(const bb_kernel *kern, int m, int k, uint64_t seed, float *w);

#endif
