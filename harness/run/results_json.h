/* The JSON sidecar of a run (run.json): what ran, where, with what, and how far it got.
 *
 *   schema_version, tool {name, version, git_commit}, build {compiler, c_flags, lua, hwloc, papi},
 *   command_line [argv...], experiment {name, description, file, sha256}, sources {experiment,
 *   models, source_diff, repeat_of} (run_sources.h: the texts the folder carries), run_settings {...}
 *   (run_settings.h: what --resume must find the same), shard {index, count,
 *   group, settings, plan_sha256, ...} (shard.h; null unless --shard),
 *   status ("incomplete" | "complete" | "failed": a point failed its verify), status_reason, started_at, updated_at, ended_at,
 *   sessions (1 + the number of --resume runs), points {total, done, failed, flagged, skipped,
 *   verify_failed},
 *   machine {cpu_model, vendor, family, model, stepping, flags, virtualized, hypervisor, sockets,
 *            cores, pus, allowed_cpus ("0-3": the affinity mask the process started with),
 *            allowed_cpu_count, allowed_cores, caches [...], numa [...], mem_total, mem_available, os},
 *   placement {"<threads>": "t0:core0/pu0 ..."} (hwloc's core, the OS CPU; where a sweep's own
 *   `cpus` placed the same thread count elsewhere, the placements joined by " | "), meters [{name, available, reason_code, reason,
 *   columns}], kernels [...], sweeps [...], csv, markdown, skipped [...], failed [...],
 *   warnings [...], conversions [{model, kernel, out_kernel, weights {"<kind>": "<what became of
 *   it>"}}] (model sweeps: one per model, kernel and out_kernel built)
 *
 * It is rewritten (to a temporary file, then renamed) after every point, so a run killed at any
 * moment leaves a well-formed sidecar whose status says "incomplete". */
#ifndef BB_RESULTS_JSON_H
#define BB_RESULTS_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "io/json.h"
#include "meters/meter.h"
#include "plan/experiment.h"
#include "plan/plan.h"
#include "plan/run_settings.h"
#include "plan/shard.h"
#include "run/run_sources.h"
#include "support/machine.h"

/* What became of each kind of weight when a model was built for a kernel (bb_tf_conversions'
 * lines "kind: description", separated by '\n'). */
typedef struct {
    char model[256], kernel[64], out_kernel[64];
    char lines[1024];
} bb_run_conversion;

typedef struct {
    const bb_experiment *ex;
    const bb_machine *mach;
    const bb_plan *plan;
    int argc;
    char **argv;
    char run_id[48];             /* provenance.h: unique per run, kept by --resume */
    char host[64];
    char sha256[65];
    char started_at[32], updated_at[32], ended_at[32]; /* ISO 8601 UTC; ended_at "" while running */
    int sessions;
    const char *status;          /* "incomplete", "complete" or "failed" */
    char status_reason[512];
    int points_done, points_failed, points_flagged;
    int verify_failed;           /* rows whose verify FAILED: the run's status is then "failed" */
    bb_meter *meters;
    int nmeters;
    char **placement;            /* indexed by thread count; NULL where unused */
    int max_threads;
    char **failures, **flagged;  /* one line each */
    int nfailures, nflagged;
    const char *csv_file, *md_file;
    const char *e2e_file;        /* model sweeps' CSV (null in run.json when there are none) */
    int e2e_done, e2e_failed;
    int e2e_flagged;             /* e2e.csv rows (bitbench's and the peers') with spread_flag 1 */
    bb_run_conversion *conversions; /* model sweeps, in the order first built */
    int nconversions;
    const bb_shard *shard;       /* --shard: which share of the plan this run measures; NULL: all */
    const bb_run_settings *settings; /* what --resume must find the same (run_settings.h) */
    const bb_run_sources *sources;   /* the texts the folder carries (run_sources.h); NULL: none */
} bb_run_record;

/* Write the sidecar atomically.  Returns 0 or -1 with err. */
int bb_run_json_write(const char *path, const bb_run_record *r, char *err, size_t errlen);

/* The members "tool", "build" and "machine" of run.json, into the open object of another sidecar
 * (bitbench perplexity's). */
void bb_json_write_provenance(bb_json *j, const bb_machine *m);

/* bb_tf_conversions' lines as the object member `key`: {"embedding": "Q4_0 dequantized to an f32
 * table", "wq": "TQ2_0 used as stored by tq2_0", ...}.  Used by run.json and bitbench
 * perplexity's sidecar. */
void bb_json_write_conversions(bb_json *j, const char *key, const char *lines);

#define BB_VERSION "0.1"

/* `bitbench --version`: the version, build commit, compiler, C flags, Lua and database support. */
void bb_version_print(FILE *f);

/* Now as ISO 8601 UTC: "2026-11-21T20:30:00Z". */
void bb_iso_time(char buf[32]);

#endif
