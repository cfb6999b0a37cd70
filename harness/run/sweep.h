/* The sweep runner: executes a validated plan point by point.
 *
 * For each point: the thread pool of its thread count (created once, on first use, and kept),
 * the packed weights of its kernel and shape (built once and reused across N and thread
 * counts), then bb_gemm_measure with the run's meters.  Each finished row is appended to the CSV
 * and flushed, and the JSON sidecar rewritten, so that an interrupted run (Ctrl-C, SIGTERM, kill)
 * keeps every finished row and says it is incomplete; --resume continues the newest run of the
 * experiment, measuring only the points its CSV does not have yet.  At the end the markdown
 * table of all rows is printed on stdout and written next to the CSV. */
#ifndef BB_SWEEP_H
#define BB_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "plan/experiment.h"
#include "plan/plan.h"
#include "plan/run_settings.h"
#include "plan/shard.h"
#include "support/machine.h"

typedef struct {
    int argc;
    char **argv;      /* the command line, for the record */
    bool resume;
    bool quiet;       /* no progress line, no notes on stderr */
    char *run_dir;    /* if set, receives the run directory once it exists (run_dir_len bytes) */
    size_t run_dir_len;
    const bb_shard *shard; /* --shard: this run measures that share of the plan (NULL: all of it) */
    /* the command line's part of the run's settings (NULL: no option given); the rest is filled
     * in, all recorded in run.json, and --resume refuses a run begun with other settings */
    const bb_run_settings *settings;
    /* --allow-missing-peers: a run whose peer points gave no row may still be "complete" */
    bool allow_missing_peers;
    /* if set, receive the peer points this session tried and those that ran (gave a row) */
    int *peer_points, *peer_rows;
    /* `run --repeat RUN_DIR`: the run repeated (its folder, its run_id or NULL), for run.json's
     * sources.repeat_of; NULL for a run of a file */
    const char *repeat_of_dir, *repeat_of_id;
} bb_run_options;

/* The exit status of a run whose sweeps asked for peers and not all of them ran (no other
 * failure, not allowed by --allow-missing-peers): its results stand, but it is not the
 * comparison it was written to be. */
#define BB_EXIT_MISSING_PEERS 3

/* Returns the process exit status: 0 complete, 1 when points failed (a measurement, or a
 * verify: run.json's status "failed") or results could not be written, BB_EXIT_MISSING_PEERS
 * (3) when only peer points failed (status "incomplete", the reason "k of N peer points ran"),
 * 128 + signal number when interrupted. */
int bb_sweep_run(const bb_experiment *ex, const bb_plan *plan, const bb_machine *mach, const bb_run_options *opt);

#endif
