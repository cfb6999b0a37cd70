/* What the parts of the sweep runner share (not a public interface): the state of one run, and
 * the helpers every part uses (sweep_state.c).  sweep.c, the driver, opens the run (directory,
 * meters, --resume, sidecar), calls the measurers and closes it (status, markdown);
 * sweep_kernel.c measures the kernel points into results.csv, sweep_model.c the end-to-end points
 * into e2e.csv, with sweep_provenance.c and sweep_samples.c.  Calls go one way: the driver calls
 * the measurers, the measurers call sweep_state.c, never the driver. */
#ifndef BB_SWEEP_STATE_H
#define BB_SWEEP_STATE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/roof_ceiling.h"
#include "io/json_read.h"
#include "meters/meter.h"
#include "plan/experiment.h"
#include "plan/plan.h"
#include "results/results.h"
#include "results/results_e2e.h"
#include "run/progress.h"
#include "run/results_json.h"
#include "run/run_sources.h"
#include "run/sweep.h"
#include "support/machine.h"
#include "support/pool.h"
#include "support/sizes.h"

#define CSV_NAME "results.csv"
#define JSON_NAME "run.json"
#define MD_NAME "results.md"
#define E2E_NAME "e2e.csv"
#define JSONL_NAME "results.jsonl"  /* the same rows as JSON Lines (io/jsonl.h) */
#define E2E_JSONL_NAME "e2e.jsonl"
#define RUN_FILE_MAX (BB_RUN_DIR_MAX + 100) /* RUN_DIR/ and one of the names above */

/* The signal (SIGINT, SIGTERM) that asked the run to stop, 0 while none has. */
extern volatile sig_atomic_t sweep_stop;

/* Everything one run holds. */
typedef struct {
    const bb_experiment *ex;
    const bb_plan *plan;
    const bb_machine *mach;
    const bb_run_options *opt;
    char dir[BB_RUN_DIR_MAX], csv_path[RUN_FILE_MAX], json_path[RUN_FILE_MAX], md_path[RUN_FILE_MAX];
    bb_meter *meters;
    int nmeters;
    const char *meter_cols[BB_MAX_METER_VALUES];
    int nmeter_cols;
    bb_result_row *rows;       /* earlier sessions' rows, then this session's */
    int nrows, rows_cap;
    char **done_keys;          /* sorted keys of the rows, for --resume */
    /* the same rows' base keys (plan.h): a raw sample records no list settings, so samples.csv is
     * cut back by these; a point interrupted beside a finished one of other list settings keeps
     * its samples */
    char **done_base_keys;
    int ndone;
    bb_roof_ceilings *ceilings;         /* the machine profile's (sweep_roofline.c), NULL: none */
    char ceilings_note[4096];            /* results.md's line on roofline_fraction */
    bb_pool **pools;           /* indexed by thread count */
    int max_threads;
    bb_run_record rec;
    bb_run_sources sources;    /* the texts the run folder carries (run_sources.h) */
    bb_progress progress;
    char e2e_path[RUN_FILE_MAX];
    char e2e_header[8192];     /* bb_e2e_header of this run's meters */
    bb_e2e_row *e2e_rows;
    int ne2e_rows;
    struct ref_logits *refs;   /* compare_logits: reference logits computed so far in this run */
    int nrefs;
    FILE *samples, *e2e_samples; /* samples.h: every repetition of the kernel and end-to-end points */
    char samples_path[RUN_FILE_MAX], e2e_samples_path[RUN_FILE_MAX];
    bb_run_settings settings;  /* the command line's, completed (run_settings.h) */
    int peer_points, peer_rows; /* the run's peer points tried (an earlier session's too, on --resume), and
                                 * those that gave a row */
} sweep_state;

/* The logits of a model through a sweep's reference kernel, for every point that compares with it:
 * the same model config, weights (seed, distinct_layers), out_kernel, KV type and tokens give the
 * same logits, so each is computed once per run. */
struct ref_logits {
    char model[BB_NAME_MAX], kernel[BB_NAME_MAX], out_kernel[BB_NAME_MAX];
    uint64_t seed;
    int distinct_layers, ntokens;
    bb_kv_type kv_k, kv_v;
    float *logits;             /* ntokens × vocab */
};

/* Print a note on stderr (unless quiet), keeping the progress line intact. */
void sweep_note(sweep_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append a formatted line to a list of lines (run.json's failed and warnings). */
void sweep_add_line(char ***v, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Rewrite the sidecar (updated_at now).  Returns 0, or -1 after saying why on stderr. */
int sweep_write_json(sweep_state *st);
/* The pool of `threads` threads placed as the sweep says (its cpus, else the default placement),
 * created on first use and kept until a sweep wants that count placed elsewhere; its placement is
 * recorded. */
bb_pool *sweep_pool_for(sweep_state *st, const bb_sweep *sw, int threads, char *err, size_t errlen);
/* Count a row whose spread exceeds its sweep's spread_limit, with a line in run.json's warnings
 * (sweep_kernel.c, as the next; the driver also counts an earlier session's rows with them). */
void sweep_note_flagged(sweep_state *st, const bb_result_row *r, double limit);
/* Count a row whose verify FAILED (its error beyond its format's bound; bound_ratio how far, NAN
 * when an earlier session measured it): a line on stderr and in run.json's failed. */
void sweep_verify_failed(sweep_state *st, const bb_result_row *r, double bound_ratio);
/* Did an earlier session of a resumed run measure this kernel point? */
bool sweep_point_done(const sweep_state *st, const bb_point *p);

/* The kernel points into results.csv (sweep_kernel.c).  Returns 0, or -1 when a row could not be
 * written; failed points are counted in st->rec. */
int sweep_measure_points(sweep_state *st, FILE *csv);
/* The end-to-end points into e2e.csv (sweep_model.c), after the kernel points. */
int sweep_measure_e2e(sweep_state *st);
/* Record what became of each kind of weight for a model built for a kernel (run.json's
 * conversions; sweep_model.c), once per model, kernel and out_kernel.  Returns 0 or -1. */
int sweep_note_conversions(sweep_state *st, const char *model, const char *kernel, const char *out_kernel,
                           const char *lines);
/* A results file of a resumed run must hold each point once: the first point id `ids` repeats
 * (count of them, points of the plan: kernel rows or end-to-end rows, not peers'), or 0 when none
 * does. */
int sweep_repeated_point(const int *ids, int count);
/* A sweep's `rounds`: which of a point's n rounds (keys[r] the figure that judges round r, n at
 * most BB_SWEEP_MAX_ROUNDS) is its row: the median, of an even count the slower of the two middle
 * ones, slower meaning a higher key when higher_is_slower (a time) and a lower one otherwise (a
 * share of a bound). */
int sweep_median_round(const double *keys, int n, bool higher_is_slower);
/* The conversions an earlier session's run.json lists (its "conversions" array), for --resume. */
void sweep_resume_conversions(sweep_state *st, const bb_jv *list);
/* Open samples.csv beside results.csv (sweep_samples.c); on --resume keep the samples of the
 * points results.csv has.  Returns 0, or -1 after saying why on stderr. */
int sweep_open_samples(sweep_state *st);
/* The same for e2e_samples.csv, once the end-to-end rows of an earlier session are read. */
int sweep_open_e2e_samples(sweep_state *st);
/* Write a kernel point's samples (before its row).  Returns 0, or -1 after saying why. */
int sweep_write_samples(sweep_state *st, const bb_result_row *row, const double *seconds, int count);
/* Write an end-to-end point's samples of both phases (before its row).  Returns 0, or -1. */
int sweep_write_e2e_samples(sweep_state *st, const bb_e2e_row *row, const double *pp_seconds,
                            const double *tg_seconds, int reps);
/* The provenance columns of a row (sweep_provenance.c): run id, host, commit, and the load since
 * `before`; a busy point gets a line in run.json's warnings, named by label. */
void sweep_provenance(sweep_state *st, const bb_load_reading *before, const char *label, bb_row_provenance *p);
/* Only the run's part (the load's cells empty). */
void sweep_provenance_run(const sweep_state *st, bb_row_provenance *p);
/* The run's part, keeping the load p has (a peer's row, measured around the peer program); a
 * busy point gets its line in run.json's warnings as bitbench's own. */
void sweep_provenance_keep_load(sweep_state *st, const char *label, bb_row_provenance *p);
/* Sleep `seconds` before a point (a sweep's delay: the machine cools down and its clocks recover
 * from the previous point, as llama-bench's --delay), returning early when the run is stopped. */
void sweep_cool_down(sweep_state *st, double seconds);
/* llama-bench's table of the end-to-end rows. */
void sweep_e2e_markdown(FILE *f, const sweep_state *st);

/* sweep_roofline.c: find the machine profile (st->ceilings, st->ceilings_note), and fill a kernel
 * row's roofline_fraction and roofline_ceiling (its cache mode: the level whose bandwidth applies). */
void sweep_load_ceilings(sweep_state *st);
void sweep_row_roofline(const sweep_state *st, bb_result_row *row, bb_cache_mode mode);

#endif
