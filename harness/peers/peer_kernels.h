/* Peers in kernel sweeps: `peers = {"llama.cpp"}` beside a sweep's kernels and shapes runs
 * llama.cpp's test-backend-ops (harness/peers/backend_ops.h) once per sweep and writes, for each
 * of the sweep's (type, shape, N) it has a case for, one row into results.csv beside bitbench's
 * (README.md, "Peers side by side").
 *
 * An entry is "llama.cpp:type" or "llama.cpp" (every GGUF type among the sweep's kernels that
 * llama.cpp runs), as in model sweeps; `bitbench run --peer test-backend-ops=PATH` names the
 * test-backend-ops program (else $BITBENCH_TEST_BACKEND_OPS, else test-backend-ops on PATH);
 * peer_timeout bounds its run (all its MUL_MAT cases, each timed for at least 1 s: minutes).
 *
 * The row: kernel "llama.cpp:q4_0", variant and family "peer", the shape and N, threads = the
 * CPUs test-backend-ops gives its CPU backend (every online CPU; it has no option), cpus = the CPUs
 * it was allowed to run on (bitbench's own: the sweep's cpus, else the start-up mask; peer_exec.h),
 * reps = its runs, t_median_s = its mean time per run (it prints no spread: t_min/t_max/t_sd/spread
 * empty, spread_flag 0, attempts 1: nothing to judge or re-measure by harness/results/noise.h's rule),
 * gops and gbps from that time (weight bytes = M*K at the GGUF type's size).  Order: the peer
 * program runs when the sweep's first point that has a peer row is reached; each row is written
 * right after bitbench's point of the same shape and N whose kernel stores that type (the sweep's
 * last kernel when none does), at its first thread count.  A (type, shape, N) the program has no
 * case for, and a program that is missing, fails, hangs or prints garbage, is a note and a line in
 * run.json's failed, never a failed run. */
#ifndef BB_PEER_KERNELS_H
#define BB_PEER_KERNELS_H

#include "plan/experiment.h"
#include "plan/plan.h"
#include "results/results.h"

typedef struct {
    const char *experiment;
    int nmeter;                     /* meter columns of results.csv (empty for peer rows) */
    /* -1: results cannot be written.  The row's prov has the load while the program ran (one run
     * for all its rows); the sink adds the run's id, host and commit. */
    int (*emit)(void *ctx, const bb_result_row *row);
    void (*fail)(void *ctx, const char *label, const char *why);
    void (*running)(void *ctx, const char *label);         /* the peer program starts */
    void (*tried)(void *ctx);                               /* a peer row is sought (NULL: not counted) */
    void *ctx;
} bb_kernel_peer_sink;

typedef struct bb_kernel_peers bb_kernel_peers;

/* The peer state of a run (which sweeps ran their program, what it printed, which rows were
 * written).  NULL when out of memory. */
bb_kernel_peers *bb_kernel_peers_new(const bb_experiment *ex);
void bb_kernel_peers_free(bb_kernel_peers *kp);

/* --resume: point p was measured by an earlier session, so the peer rows that go after it were
 * sought then: they are marked as such (not sought again) and counted: returns how many, with
 * *found the number of them that rows[0..nrows) (the earlier sessions' results.csv) holds. */
int bb_kernel_peer_resumed(bb_kernel_peers *kp, const bb_point *p, const bb_result_row *rows, int nrows, int *found);

/* The peer rows that go after bitbench's point p (see above).  Returns 0, or -1 when emit failed. */
int bb_kernel_peer_rows_after(bb_kernel_peers *kp, const bb_kernel_peer_sink *s, const bb_point *p);

#endif
