/* The plan of a run: an experiment's sweeps expanded into measured points, in the order they run
 * (sweep, kernel, shape, cache mode, N, threads, then warmup, reps, min_seconds, seed and delay
 * when the sweep lists several: the packed weights of one kernel and shape are built once and
 * reused across N and thread counts, rebuilt per thread count for a cache level).  Building the plan is the last validation
 * step before any work: each (kernel, shape) is checked against the kernel's constraints and is
 * skipped or refused as the sweep's on_unsupported says, and every DRAM-mode working set must fit
 * in memory. */
#ifndef BB_PLAN_H
#define BB_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "plan/experiment.h"

typedef struct {
    int index;          /* 1-based, in run order */
    int sweep, kernel, shape;
    int n, threads;
    bb_cache_mode cache;
    /* the values of the sweep's scalar lists this point runs with (experiment.h) */
    int warmup, min_reps;
    double min_seconds, delay;
    uint64_t seed;
} bb_point;

/* One end-to-end point of a model sweep (run after the kernel points). */
typedef struct {
    int index;          /* 1-based among the e2e points */
    int sweep, kernel, model;
    int prompt, gen, threads;
    int depth;          /* tokens in the KV cache before the prompt */
} bb_e2e_point;

typedef struct {
    bb_point *points;
    int npoints;
    bb_e2e_point *e2e;
    int ne2e;
    char **skipped;     /* one message per skipped (kernel, shape) */
    int nskipped;
} bb_plan;

/* Returns 0, or -1 with err ("FILE:LINE: sweep 'x': ..."). */
int bb_plan_build(const bb_experiment *ex, const bb_machine *mach, bb_plan *plan, char *err, size_t errlen);
void bb_plan_free(bb_plan *plan);

/* Plans larger than this are refused unless the user confirms them (bitbench run --max-points N):
 * a list comprehension gone wrong should not start a week of measurements or a long --dry-run. */
#define BB_PLAN_DEFAULT_MAX_POINTS 100000
/* The number of points (kernel and end-to-end) the plan will have, counted from the sweeps'
 * lists without building it: combinations a kernel's shape constraints skip are left out; model
 * points that do not fit in memory are counted. */
uint64_t bb_plan_count(const bb_experiment *ex);
/* 0, or -1 with "FILE: the plan has N points, more than the M allowed ...; pass --max-points N". */
int bb_plan_check_size(const bb_experiment *ex, uint64_t max_points, char *err, size_t errlen);

/* The identity of a measured point across runs (for --resume): sweep, kernel, variant, M, K, N,
 * threads, cache mode (the base key: what a raw sample records), then the settings of the sweep's
 * scalar lists it ran with, "|w3|r10|t0.1|s42|d0" (warmup, reps, min_seconds, seed and delay as
 * results.csv writes them, so that a row read back gives its point's key). */
void bb_point_base_key(const char *sweep, const char *kernel, const char *variant, int m, int k, int n, int threads,
                       const char *cache, char *buf, size_t len);
void bb_point_key(const char *sweep, const char *kernel, const char *variant, int m, int k, int n, int threads,
                  const char *cache, int warmup, int min_reps, double min_seconds, const char *seed, double delay,
                  char *buf, size_t len);
void bb_plan_point_key(const bb_experiment *ex, const bb_point *p, char *buf, size_t len);

#endif
