/* The results database: one SQLite file (Debian's libsqlite3) into which runs of many commits and
 * machines accumulate — `--db FILE.sqlite` on run, gemm and e2e, `bitbench db import RUN_DIR` for
 * runs written before — and from which `bitbench compare` and `bitbench db export` read them.
 *
 * Schema (docs/results.md, "Results database", documents every table):
 *   schema_version (version)                    one row; a file of a newer version is refused, one
 *                                               of version 1 is migrated (e2e_points gains cpus)
 *   runs (run PRIMARY KEY, run_id, experiment, commit, dirty, host, cpu_model, cpu_flags, compiler,
 *         c_flags, started_at, ended_at, status, source, imported_at, files, result_meters,
 *         e2e_meters, run_json)
 *   points      (run, seq, then results.csv's columns)       one row per results.csv row
 *   e2e_points  (run, seq, then e2e.csv's columns)           one row per e2e.csv row
 *   meters      (run, tbl, seq, name, value)                 the meter cells of both
 *   samples     (run, seq, then samples.csv's columns)
 *   e2e_samples (run, seq, then e2e_samples.csv's columns)
 *   run_files   (run, name, sha256, text)                    the run folder's texts (run_texts.h)
 * `run` is the run's key: its run.json run_id (the directory's name for runs from before run ids);
 * `seq` the row's place in its file.  PRAGMA application_id is BB_DB_APPLICATION_ID, so a foreign
 * SQLite file is told apart from a bitbench one.  Storing a run again replaces it. */
#ifndef BB_RESULTS_DB_H
#define BB_RESULTS_DB_H

#include <stddef.h>
#include <stdio.h>

#include "results/run_tables.h"

/* 3: points has results.csv's verify column, e2e_points e2e.csv's cpus
 * 4: points has variant_ran and fallback_calls, e2e_points variant_ran_pp, variant_ran_tg and
 *    fallback_calls (the code that ran, kernel.h's bb_variant)
 * 6: e2e_points has pp_spread, tg_spread, spread_flag and attempts (harness/results/noise.h)
 * 7: points has the working set and the sweep's settings (rotated_bytes, cache_source, min_reps,
 *    min_seconds, seed, delay_s) and roofline_fraction, roofline_ceiling (results_db.c)
 * 8: points and e2e_points have cpu_model; run_files (run, name, sha256, text) holds the texts a run
 *    carries (results/run_texts.h: experiment.lua, models/NAME.lua, source.diff)
 * 9: points has read_t_median_s, read_t_min_s, read_gbps and read_ratio_paired (a kernel sweep's read)
 * 10: a sweep's rounds: e2e_points has rounds, round, rounds_pp_tps, rounds_tg_tps and
 *    rounds_tg_of_read, points rounds, round, rounds_t_median_s and rounds_read_ratio_paired
 * 11: e2e_points has interleaved (a model sweep's interleave)
 * 12: points and e2e_points have read_streams (which of the read-alone bound's reads counted)
 * 13: points and e2e_points have stream_prefetch (a one-stream kernel's software prefetch, kernels/cpu.h)
 * (files of 1 to 12 are brought up to it when opened to write, the new cells empty in their rows; a
 *  reader does it in memory) */
#define BB_DB_SCHEMA_VERSION 13
#define BB_DB_APPLICATION_ID 0x62626462 /* "bbdb" */
#define BB_DB_KEY_MAX 128

typedef struct bb_db bb_db;

/* Open a results database, creating it (with the schema) when the file does not exist or is
 * empty.  A file that is not SQLite, is corrupt, is another application's SQLite database, or
 * has a newer schema is refused: NULL with one line in err naming the file. */
bb_db *bb_db_open(const char *path, char *err, size_t errlen);
/* The same for a command that only reads (report, compare, db list, db export): the file must
 * exist and is opened read-only; one of an older schema is brought up to date in a copy in
 * memory, never in place (it may be someone else's file, or shared with an older bitbench). */
bb_db *bb_db_open_read(const char *path, char *err, size_t errlen);
void bb_db_close(bb_db *db);

/* Store a run's tables under the key (its run_id, else `fallback_key`), replacing an earlier copy;
 * source says where it came from (a run directory, "bitbench gemm").  The key goes to run_out.
 * Returns 0, or -1 with err. */
int bb_db_put_run(bb_db *db, const bb_run_tables *t, const char *fallback_key, const char *source, char *run_out,
                  size_t run_len, char *err, size_t errlen);
/* A run directory, read and stored (bb_run_tables_read + bb_db_put_run). */
int bb_db_import_dir(bb_db *db, const char *dir, char *run_out, size_t run_len, char *err, size_t errlen);
/* A stored run back into tables.  Returns 0, or -1 with err (no such run). */
int bb_db_load_run(bb_db *db, const char *run, bb_run_tables *t, char *err, size_t errlen);
/* The runs an id names: the run with that key, else the runs whose commit starts with it (newest
 * first).  *runs is malloc'd (free each, then it).  Returns the count (0: none), or -1 with err. */
int bb_db_find_runs(bb_db *db, const char *id, char ***runs, char *err, size_t errlen);
/* Every run's key, oldest first (by started_at, then key), for `bitbench report`'s history.
 * *runs as in bb_db_find_runs.  Returns the count, or -1 with err. */
int bb_db_runs(bb_db *db, char ***runs, char *err, size_t errlen);
/* One line per run ("run commit host experiment started_at points") on f. */
int bb_db_list(bb_db *db, FILE *f, char *err, size_t errlen);

#endif
