/* Peers in model sweeps: the fields `peers`, `peer_timeout` (README.md, "Peers side
 * by side") and the peer points run beside bitbench's own.
 *
 * An entry of `peers` is "peer:type" (llama.cpp:q4_0) or just "peer", which stands for every type
 * among the sweep's kernels' GGUF types (kernel.h gguf_type, or gguf_repack_type for a layout
 * that rearranges a type's blocks: q2_k_x16 runs Q2_K) that the peer runs.  Each entry
 * becomes one peer point per (model, threads, prompt, gen) of the sweep: the model exported to
 * GGUF in that type (once per model and type, into RUN_DIR/peers/MODEL-TYPE.gguf, from the same
 * weights bitbench's points use: same seed and distinct_layers), then the peer's llama-bench on
 * it with the point's threads, lengths, repetitions and KV type, on bitbench's CPUs (the first
 * `threads` of the sweep's cpus, else the process's allowed CPUs: peer_exec.h).  Its row in e2e.csv
 * has kernel "peer:type", peer, peer_commit, the samples, the CPUs it was allowed, and the noise of
 * bitbench's own rows (harness/results/noise.h on the samples; a noisy point runs again, up to the sweep's
 * remeasure more times, its last run kept: attempts).
 *
 * Order: a peer point runs just before the bitbench point of the same (model, threads, prompt,
 * gen) whose kernel stores or rearranges its type (the last kernel of the sweep when none does),
 * so bitbench's and the peers' points alternate and see the same machine state (B A B A).  A resumed run runs
 * a peer point again only with its bitbench point. */
#ifndef BB_PEER_SWEEP_H
#define BB_PEER_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "plan/experiment.h"
#include "plan/plan.h"
#include "results/results_e2e.h"

#define BB_DEFAULT_PEER_TIMEOUT 900.0

struct lua_State;

/* Read the three fields of the sweep table at index t into sw (its kernels already read).
 * Returns 0, or -1 with one message (the field, what was wrong, what is valid). */
int bb_peer_read_fields(struct lua_State *L, int t, bb_sweep *sw, char *err, size_t errlen);

/* The same fields in a kernel sweep (harness/peers/peer_kernels.h): peers must have a kernel-level
 * program (llama.cpp), `--peer test-backend-ops=PATH` names that program; no kv. */
int bb_peer_read_kernel_fields(struct lua_State *L, int t, bb_sweep *sw, char *err, size_t errlen);

/* The kernel a peer entry ("peer:type") goes with: the sweep's first kernel whose GGUF type is the
 * entry's, else its last. */
int bb_peer_attached_kernel(const bb_sweep *sw, const char *entry);

/* bitbench.peer_available(name): true, or false and the reason (unknown peer, program not found;
 * the program is not run). */
int bb_lua_peer_available(struct lua_State *L);

/* Where peer rows go: emit writes a row (its prov's load fields filled: the load while the peer
 * ran; the sink adds the run's id, host and commit) (returns -1 when the results cannot be written: the run
 * stops), fail records a peer point that gave no row (the run goes on), note prints a line. */
typedef struct {
    const char *run_dir, *experiment;
    int nmeter;                     /* meter columns of e2e.csv (empty for peer rows) */
    bool quiet;
    int (*emit)(void *ctx, const bb_e2e_row *row);
    void (*fail)(void *ctx, const char *label, const char *why);
    void (*tried)(void *ctx);       /* a peer point begins (NULL: not counted) */
    void *ctx;
} bb_peer_sink;

/* The sweep's peer points that go with bitbench point p (see above), run one after the other.
 * Returns 0, or -1 when emit failed. */
int bb_peer_points_for(const bb_peer_sink *s, const bb_sweep *sw, const bb_e2e_point *p);

#endif
