/* One measured point of a kernel: random weights of the kernel's natural kind are packed, the
 * activations prepared, and prepare + matmul (split over the pool's threads) timed with warm-up
 * and repetitions.  Used by `bitbench gemm` and by the Lua sweep runner.
 *
 * Cache modes: resident repeats one packed matrix (it stays in cache if it fits); dram rotates
 * among enough copies of the packed weights that their total exceeds twice the last-level cache,
 * so every call streams its weights from memory. */
#ifndef BB_GEMM_BENCH_H
#define BB_GEMM_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"
#include "pool.h"

typedef enum { BB_CACHE_RESIDENT = 0, BB_CACHE_DRAM } bb_cache_mode;

typedef struct {
    const bb_kernel *kernel;
    const bb_variant *variant;
    int m, k, n;
    bb_cache_mode cache;
    int warmup;         /* untimed calls first */
    int min_reps;       /* at least this many timed calls ... */
    double min_seconds; /* ... and at least this much timed time */
    int max_reps;       /* never more than this */
    uint64_t seed;
    bool verify;        /* also compare with the fp64 reference */
} bb_gemm_spec;

typedef struct {
    int reps, copies;
    double t_median, t_min, t_max, t_sd; /* seconds per call (prepare + matmul) */
    double gops;                         /* 2*M*K*N / t_median / 1e9 */
    double gbps;                         /* packed weight bytes / t_median / 1e9 */
    size_t packed_bytes, act_bytes;
    /* --verify */
    bool verified;
    double max_abs_err;   /* max |y - y_ref| */
    double rel_err;       /* max |y - y_ref| / max |y_ref| */
    double bound_ratio;   /* max |y - y_ref| / bound, <= 1 when within the format's bound */
} bb_gemm_result;

const char *bb_cache_mode_name(bb_cache_mode c);
int bb_cache_mode_parse(const char *s, bb_cache_mode *c);

int bb_gemm_bench(bb_pool *pool, const bb_gemm_spec *spec, bb_gemm_result *res, char *err, size_t errlen);

/* Run variant->matmul over [0, m) split across the pool along the kernel's row multiple. */
void bb_matmul_pool(bb_pool *pool, const bb_kernel *kern, const bb_variant *v, const void *w,
                    const void *act, float *y, int m, int k, int n);

/* Random weights of the kernel's natural kind (ternary or Gaussian), M×K. */
void bb_random_weights(const bb_kernel *kern, int m, int k, uint64_t seed, float *w);

/* 64-byte aligned allocation; NULL on failure. */
void *bb_alloc(size_t bytes);

#endif
