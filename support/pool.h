/* A persistent thread pool: threads are created once, each bound to one of the CPUs the process may
 * use (support/affinity.h: one per physical core first, then SMT siblings, or an explicit list), and woken for each job through a spin-then-sleep barrier, so that a
 * GEMV of a few microseconds is not dominated by thread start-up or futex wake-ups.
 * The calling thread is worker 0 and takes part in every job. */
#ifndef BB_POOL_H
#define BB_POOL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct bb_pool bb_pool;
typedef void (*bb_pool_fn)(void *ctx, int tid, int nthreads);

/* nthreads >= 1.  Returns NULL with a message in err when threads cannot be created. */
bb_pool *bb_pool_create(int nthreads, char *err, unsigned errlen);
/* The same with thread t on cpus[t] (ncpus of them; NULL: the process's --cpus list, else the
 * default placement).  More threads than CPUs wrap around: commands refuse them beforehand
 * (bb_affinity_check_threads). */
bb_pool *bb_pool_create_on(int nthreads, const int *cpus, int ncpus, char *err, unsigned errlen);
/* Was the pool placed as bb_pool_create_on(n, cpus, ncpus) would place it? */
bool bb_pool_placed_on(const bb_pool *p, const int *cpus, int ncpus);
void bb_pool_destroy(bb_pool *p);
int bb_pool_size(const bb_pool *p);
/* Run fn(ctx, tid, n) on every worker and return when all have finished. */
void bb_pool_run(bb_pool *p, bb_pool_fn fn, void *ctx);
/* A job of nchunks independent pieces: thread t first runs the chunks bb_split_rows gives it, in
 * increasing order (one forward stream through its share), then takes chunks from the far end of
 * the other threads' shares until none is left, so that a thread slowed by the machine (a memory
 * channel, a preempted vCPU) does not hold up the others at the barrier.  Every chunk runs
 * exactly once. */
typedef struct {
    int nchunks;
    void (*run)(void *ctx, int tid, int chunk);
    void (*own_done)(void *ctx, int tid, int nthreads); /* optional: tid has finished its own share */
    void *ctx;
} bb_pool_chunks;
void bb_pool_run_chunks(bb_pool *p, const bb_pool_chunks *job);
/* "t0:core0/pu0 t1:core1/pu2 ..." — where each thread was bound (hwloc's logical core index and the
 * OS CPU number; "t0:pu3" when hwloc does not place the CPU), or why it was not. */
const char *bb_pool_placement(const bb_pool *p);
/* "0;2;1;3": the OS index of the processing unit of each thread, in thread order ("-" when a
 * thread could not be bound). */
void bb_pool_cpus(const bb_pool *p, char *buf, size_t len);

/* The row slice [m0, m1) of worker tid when M rows are split in units of `multiple` rows,
 * as evenly as possible. */
void bb_split_rows(int m, int multiple, int tid, int nthreads, int *m0, int *m1);

#endif
