/* What the harness itself costs per measured call, so that it can be stated next to results:
 *
 *   barrier: one empty job through bb_pool_run — waking the workers, running nothing, and waiting
 *            for all of them (the pool's dispatch + barrier round trip);
 *   call:    one measured call of a kernel that does nothing, through exactly the runner's timing
 *            path (bb_gemm_measure: clock reads, prepare call, row split, pool job, barrier) —
 *            the time every measured median contains on top of the kernel's own work.
 *
 * Both are medians over batches: a batch of calls is timed as a whole (clock resolution and the
 * clock read itself then vanish), the per-call mean of each batch is one sample. */
#ifndef BB_OVERHEAD_H
#define BB_OVERHEAD_H

#include <stddef.h>

typedef struct {
    int threads;
    int samples;          /* batches */
    int batch;            /* calls per batch */
    double barrier_ns;    /* median over batches of ns per empty bb_pool_run */
    double barrier_min_ns;
    double call_ns;       /* median ns per measured no-op call via bb_gemm_measure */
    double call_min_ns;
    char placement[256];
} bb_overhead;

/* Returns 0, or -1 with err when the pool cannot be created. */
int bb_measure_overhead(int threads, int samples, int batch, bb_overhead *out, char *err, size_t errlen);

#endif
