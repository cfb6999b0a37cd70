#include "run/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "io/csv_append.h"
#include "io/json_read.h"
#include "io/jsonl.h"
#include "io/sha256.h"
#include "meters/meter.h"
#include "results/provenance.h"
#include "results/results.h"
#include "results/results_e2e.h"
#include "results/samples.h"
#include "run/progress.h"
#include "run/results_json.h"
#include "run/run_lock.h"
#include "run/sweep_state.h"
#include "support/output_dir.h"
#include "support/output_file.h"
#include "support/pool.h"
#include "support/term_text.h"
#include "support/timer.h"

#include "bb_git_commit.h" /* generated at build time: BB_GIT_COMMIT */

static void on_signal(int sig) { sweep_stop = sig; }

static int mkdir_p(const char *path)
{
    char buf[BB_RUN_DIR_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* Is `entry` a run directory of experiment `name`: name-YYYYmmdd-HHMMSS[-N]? */
static bool is_run_dir(const char *entry, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(entry, name, n) != 0 || entry[n] != '-') return false;
    const char *p = entry + n + 1;
    for (int i = 0; i < 15; i++) {
        if (i == 8 ? p[i] != '-' : (p[i] < '0' || p[i] > '9')) return false;
    }
    p += 15;
    if (!*p) return true;
    if (*p != '-' || !p[1]) return false;
    for (p++; *p; p++)
        if (*p < '0' || *p > '9') return false;
    return true;
}

/* Newer first: by timestamp, then by numeric suffix. */
static int run_dir_newer(const char *a, const char *b, size_t prefix)
{
    int c = strncmp(a + prefix, b + prefix, 15);
    if (c) return c > 0;
    long sa = a[prefix + 15] ? strtol(a + prefix + 16, NULL, 10) : 1;
    long sb = b[prefix + 15] ? strtol(b + prefix + 16, NULL, 10) : 1;
    return sa > sb;
}

/* Is the run in ex->out/entry the given shard's (for NULL: an unsharded run)?  A run without a
 * readable sidecar (killed before its first write) counts as unsharded. */
static bool run_is_shard(const bb_experiment *ex, const char *entry, const bb_shard *shard)
{
    char path[BB_RUN_DIR_MAX + 600], why[256];
    snprintf(path, sizeof path, "%s/%s/%s", ex->out, entry, JSON_NAME);
    bb_jv *json = bb_json_load(path, why, sizeof why);
    bool match = json ? bb_shard_json_matches(json, shard) : shard == NULL;
    bb_jv_free(json);
    return match;
}

static int find_latest_run(const bb_experiment *ex, const bb_shard *shard, char *dir, size_t len, char *err,
                           size_t errlen)
{
    DIR *d = opendir(ex->out);
    if (!d) {
        snprintf(err, errlen, "--resume: no run of experiment '%s' to resume: cannot open %s (%s)", ex->name,
                 ex->out, strerror(errno));
        return -1;
    }
    char best[512] = "";
    struct dirent *e;
    size_t prefix = strlen(ex->name) + 1;
    while ((e = readdir(d)))
        if (is_run_dir(e->d_name, ex->name) && (!best[0] || run_dir_newer(e->d_name, best, prefix)) &&
            run_is_shard(ex, e->d_name, shard))
            snprintf(best, sizeof best, "%s", e->d_name);
    closedir(d);
    if (!best[0] && shard) {
        snprintf(err, errlen, "--resume: no run of shard %d/%d%s%s of experiment '%s' under %s to resume",
                 shard->index, shard->count, shard->group[0] ? " of group " : "", shard->group, ex->name, ex->out);
        return -1;
    }
    if (!best[0]) {
        snprintf(err, errlen, "--resume: no run of experiment '%s' under %s to resume", ex->name, ex->out);
        return -1;
    }
    if ((size_t)snprintf(dir, len, "%s/%s", ex->out, best) >= len) {
        snprintf(err, errlen, "--resume: the run folder %s/%s is a longer path than bitbench keeps (%zu bytes)",
                 ex->out, best, len - 1);
        return -1;
    }
    return 0;
}

static int new_run_dir(const bb_experiment *ex, char *dir, size_t len, char *err, size_t errlen)
{
    if (mkdir_p(ex->out)) {
        snprintf(err, errlen, "cannot create the results directory %s: %s", ex->out, strerror(errno));
        return -1;
    }
    char stamp[16];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int i = 1; i < 1000; i++) {
        if (i == 1) snprintf(dir, len, "%s/%s-%s", ex->out, ex->name, stamp);
        else snprintf(dir, len, "%s/%s-%s-%d", ex->out, ex->name, stamp, i);
        if (mkdir(dir, 0777) == 0) return 0;
        if (errno != EEXIST) break;
    }
    snprintf(err, errlen, "cannot create a run directory under %s: %s", ex->out, strerror(errno));
    return -1;
}

static int cmp_key(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void row_key(const bb_result_row *r, char *buf, size_t len)
{
    bb_point_key(r->sweep, r->kernel, r->variant, r->m, r->k, r->n, r->threads, r->cache, r->warmup, r->min_reps,
                 r->min_seconds, r->seed, r->delay_s, buf, len);
}

static int open_meters(sweep_state *st)
{
    st->meters = calloc((size_t)st->ex->nmeters, sizeof *st->meters);
    if (!st->meters) return -1;
    for (int i = 0; i < st->ex->nmeters; i++) {
        const bb_meter_type *t = bb_meter_type_by_name(st->ex->meters[i]);
        if (bb_meter_open(&st->meters[i], t)) {
            fprintf(stderr, "bitbench run: meter %s: %s\n", t->name, st->meters[i].reason);
            return -1;
        }
        st->nmeters++;
        if (!st->meters[i].available)
            sweep_note(st, "bitbench run: meter %s is unavailable (%s: %s); its columns stay empty; to make it work: %s",
                 t->name, st->meters[i].reason_code, st->meters[i].reason, bb_meter_remedy(st->meters[i].reason_code));
        for (int c = 0; c < t->ncolumns && st->nmeter_cols < BB_MAX_METER_VALUES; c++)
            st->meter_cols[st->nmeter_cols++] = t->columns[c];
    }
    return 0;
}

/* The plan's rows of results.csv (peers' rows share their point's id): each point once, or the
 * file is not one run's and is not extended. */
static int duplicate_point(sweep_state *st, char *err, size_t errlen)
{
    int *ids = malloc(sizeof *ids * (size_t)(st->nrows ? st->nrows : 1)), n = 0;
    if (!ids) {
        snprintf(err, errlen, "out of memory reading %s", st->csv_path);
        return -1;
    }
    for (int i = 0; i < st->nrows; i++)
        if (strcmp(st->rows[i].family, "peer")) ids[n++] = st->rows[i].point;
    int repeated = sweep_repeated_point(ids, n);
    free(ids);
    if (!repeated) return 0;
    snprintf(err, errlen, "--resume: %s holds point %d more than once, so it is not the rows of one run; it is not "
                          "extended (run without --resume for a new run)", st->csv_path, repeated);
    return -1;
}

/* Earlier rows of a resumed run: read them, remember their keys. */
static int load_previous(sweep_state *st, const char *header, char *err, size_t errlen)
{
    bb_result_row *rows;
    int n;
    if (bb_csv_read(st->csv_path, header, st->nmeter_cols, &rows, &n, err, errlen)) return -1;
    st->rows = rows;
    st->nrows = st->rows_cap = n;
    if (duplicate_point(st, err, errlen)) return -1;
    st->done_keys = calloc((size_t)n + 1, sizeof *st->done_keys);
    st->done_base_keys = calloc((size_t)n + 1, sizeof *st->done_base_keys);
    if (!st->done_keys || !st->done_base_keys) return -1;
    for (int i = 0; i < n; i++) {
        char key[512];
        row_key(&rows[i], key, sizeof key);
        if (!(st->done_keys[i] = strdup(key))) return -1;
        const bb_result_row *r = &rows[i];
        bb_point_base_key(r->sweep, r->kernel, r->variant, r->m, r->k, r->n, r->threads, r->cache, key, sizeof key);
        if (!(st->done_base_keys[i] = strdup(key))) return -1;
        st->ndone++;
    }
    qsort(st->done_keys, (size_t)st->ndone, sizeof *st->done_keys, cmp_key);
    qsort(st->done_base_keys, (size_t)st->ndone, sizeof *st->done_base_keys, cmp_key);
    return 0;
}

/* What the sidecar of the run being resumed says: a complete run is not resumed, nor one begun
 * with other settings (run_settings.h); its start time and session count carry on.  A missing or
 * unreadable sidecar (killed before its first write) starts the count afresh; *have_sidecar says
 * whether there was one. */
static int resume_record(sweep_state *st, bool *have_sidecar, char *err, size_t errlen)
{
    char why[512];
    bb_jv *json = bb_json_load(st->json_path, why, sizeof why);
    *have_sidecar = json != NULL;
    if (!json) return 0;
    const char *status = bb_jv_str(json, "status"), *started = bb_jv_str(json, "started_at");
    double sessions = bb_jv_num(json, "sessions");
    int rc = 0;
    if (status && !strcmp(status, "complete")) {
        snprintf(err, errlen, "--resume: the newest run of '%s', %s, is complete; nothing to resume (run "
                              "without --resume for a new run)", st->ex->name, st->dir);
        rc = -1;
    }
    if (rc == 0 && st->opt->shard && bb_shard_check_resume(json, st->opt->shard, err, errlen)) rc = -1;
    if (rc == 0 && bb_run_settings_check_resume(json, &st->settings, st->dir, err, errlen)) rc = -1;
    if (started) snprintf(st->rec.started_at, sizeof st->rec.started_at, "%s", started);
    const char *run_id = bb_jv_str(json, "run_id"); /* absent in runs from before run ids */
    if (run_id) snprintf(st->rec.run_id, sizeof st->rec.run_id, "%s", run_id);
    if (sessions > 0) st->rec.sessions = (int)sessions + 1;
    sweep_resume_conversions(st, bb_jv_get(json, "conversions"));
    bb_jv_free(json);
    return rc;
}

/* One writer per run directory (run_lock.h). */
static int lock_dir(sweep_state *st, char *err, size_t errlen)
{
    char note[512];
    if (bb_run_dir_lock(st->dir, note, sizeof note, err, errlen)) {
        st->dir[0] = 0; /* not ours: nothing to unlock */
        return -1;
    }
    if (note[0]) sweep_note(st, "bitbench run: note: %s", note);
    return 0;
}

static int prepare_dir(sweep_state *st, FILE **csv, char *err, size_t errlen)
{
    const bb_experiment *ex = st->ex;
    char header[8192];
    bb_csv_header(st->meter_cols, st->nmeter_cols, header, sizeof header);
    st->rec.sessions = 1;
    bb_iso_time(st->rec.started_at);
    if (st->opt->resume) {
        if (find_latest_run(ex, st->opt->shard, st->dir, sizeof st->dir, err, errlen)) return -1;
        /* locked before its rows are read: a second --resume would measure the same points again */
        if (lock_dir(st, err, errlen)) return -1;
        /* the files a resumed run replaces, checked before it measures anything */
        static const char *const replaced[] = {JSON_NAME,  MD_NAME,         BB_SAMPLES_NAME, BB_E2E_SAMPLES_NAME,
                                               JSONL_NAME, E2E_JSONL_NAME, BB_RUN_EXPERIMENT_TEXT,
                                               BB_RUN_DIFF_TEXT, NULL};
        if (bb_output_dir_check(st->dir, false, replaced, err, errlen)) return -1;
        snprintf(st->csv_path, sizeof st->csv_path, "%s/%s", st->dir, CSV_NAME);
        snprintf(st->json_path, sizeof st->json_path, "%s/%s", st->dir, JSON_NAME);
        bool have_sidecar;
        if (resume_record(st, &have_sidecar, err, errlen)) return -1;
        if (bb_csv_append_unstarted(st->csv_path)) { /* its header never got written: no rows yet */
            *csv = bb_csv_append_start(st->csv_path, header, err, errlen);
        } else {
            if (load_previous(st, header, err, errlen)) return -1;
            /* the sidecar is written before the first point: rows without one are no run's to continue */
            if (!have_sidecar && st->nrows) {
                snprintf(err, errlen, "--resume: %s has rows but no readable %s, so the settings it was run with are "
                                      "unknown; run without --resume for a new run", st->csv_path, JSON_NAME);
                return -1;
            }
            if (!(*csv = fopen(st->csv_path, "a")))
                snprintf(err, errlen, "cannot append to %s: %s", st->csv_path, strerror(errno));
        }
    } else {
        if (new_run_dir(ex, st->dir, sizeof st->dir, err, errlen) || lock_dir(st, err, errlen)) return -1;
        snprintf(st->csv_path, sizeof st->csv_path, "%s/%s", st->dir, CSV_NAME);
        snprintf(st->json_path, sizeof st->json_path, "%s/%s", st->dir, JSON_NAME);
        *csv = bb_csv_append_start(st->csv_path, header, err, errlen);
    }
    snprintf(st->md_path, sizeof st->md_path, "%s/%s", st->dir, MD_NAME);
    return *csv ? 0 : -1;
}

static void finish_record(sweep_state *st, int write_failed)
{
    bb_run_record *rec = &st->rec;
    int total = st->plan->npoints, finished = rec->points_done;
    if (sweep_stop) {
        rec->status = "incomplete";
        snprintf(rec->status_reason, sizeof rec->status_reason,
                 "interrupted by %s after %d of %d points; run again with --resume to continue",
                 sweep_stop == SIGINT ? "SIGINT (Ctrl-C)" : sweep_stop == SIGTERM ? "SIGTERM" : "a signal",
                 finished, total);
    } else if (write_failed) {
        rec->status = "incomplete";
        snprintf(rec->status_reason, sizeof rec->status_reason,
                 "results could not be written after %d of %d points; " BB_CSV_APPEND_REMEDY, finished, total);
    } else if (rec->verify_failed) {
        /* before the failed points: --resume measures those again but cannot make a wrong result right */
        rec->status = "failed";
        snprintf(rec->status_reason, sizeof rec->status_reason,
                 "%d point%s failed verify: an output's error exceeds its format's bound (see \"failed\" and the "
                 "verify column)", rec->verify_failed, rec->verify_failed == 1 ? "" : "s");
    } else if (rec->points_failed) {
        rec->status = "incomplete";
        snprintf(rec->status_reason, sizeof rec->status_reason,
                 "%d of %d points failed (see \"failed\"); --resume retries them", rec->points_failed, total);
    } else if (rec->e2e_failed) {
        rec->status = "incomplete";
        snprintf(rec->status_reason, sizeof rec->status_reason,
                 "%d of %d end-to-end points failed (see \"failed\"); --resume retries them", rec->e2e_failed,
                 st->plan->ne2e);
    } else if (st->peer_rows < st->peer_points && !st->opt->allow_missing_peers) {
        /* the peers are what such a run compares against: without them it is not what it says */
        rec->status = "incomplete";
        snprintf(rec->status_reason, sizeof rec->status_reason,
                 "%d of %d peer points ran (see \"failed\"); --allow-missing-peers accepts a run without them",
                 st->peer_rows, st->peer_points);
    } else {
        rec->status = "complete";
        rec->status_reason[0] = 0;
    }
    bb_iso_time(rec->ended_at);
}

static void write_markdown(sweep_state *st)
{
    char err[BB_RUN_DIR_MAX + 600];
    bb_output_file o;
    FILE *f = bb_output_begin(&o, st->md_path, err, sizeof err);
    if (!f) sweep_note(st, "bitbench run: %s", err);
    if (f) {
        fprintf(f, "# %s\n\n", st->ex->name);
        if (st->nrows || !st->ne2e_rows) bb_markdown_table(f, st->rows, st->nrows);
        if (st->ne2e_rows) {
            fprintf(f, "%sEnd-to-end (%s):\n\n", st->nrows ? "\n" : "", E2E_NAME);
            sweep_e2e_markdown(f, st);
        }
        if (st->nrows) fprintf(f, "\n%s\n", st->ceilings_note);
        fprintf(f, "\nMachine: %s, %d cores. Build: %s. Experiment: %s (sha256 %.16s). Status: %s%s%s.\n",
                st->mach->cpu_model, st->mach->cores, BB_GIT_COMMIT, st->ex->file, st->rec.sha256,
                st->rec.status, st->rec.status_reason[0] ? ": " : "", st->rec.status_reason);
        if (bb_output_commit(&o, err, sizeof err))
            sweep_note(st, "bitbench run: %s; the results are in %s (bitbench merge or compare read them)", err,
                       st->csv_path);
    }
    /* the tables again on stdout, for a terminal: names from the experiment file (sweeps, models)
     * shown through bb_term_text's rules, line breaks kept */
    char *tables = NULL;
    size_t tlen = 0;
    FILE *m = open_memstream(&tables, &tlen);
    if (m) {
        if (st->nrows) {
            fprintf(m, "\n");
            bb_markdown_table(m, st->rows, st->nrows);
            fprintf(m, "\n");
        }
        if (st->ne2e_rows) {
            fprintf(m, "\n");
            sweep_e2e_markdown(m, st);
            fprintf(m, "\n");
        }
        if (fclose(m) == 0) bb_term_fputs_lines(tables, stdout);
        free(tables);
    }
    fflush(stdout);
}

/* results.jsonl and e2e.jsonl (io/jsonl.h): the rows of results.csv and e2e.csv, earlier sessions'
 * included, written whole when the run ends (a run killed outright has its CSV files; they are
 * appended as each point finishes).  A failure is a note: the CSV files hold the same rows. */
static void write_jsonl(sweep_state *st)
{
    char path[RUN_FILE_MAX + 32], err[RUN_FILE_MAX + 600];
    if (st->plan->npoints || st->nrows) {
        snprintf(path, sizeof path, "%s/%s", st->dir, JSONL_NAME);
        if (bb_jsonl_write_file(path, bb_result_columns, bb_result_ncolumns, st->rows, st->nrows, sizeof *st->rows,
                                st->meter_cols, st->nmeter_cols, (long)offsetof(bb_result_row, meter), err,
                                sizeof err))
            sweep_note(st, "bitbench run: %s; results.csv has the same rows", err);
    }
    if (st->plan->ne2e || st->ne2e_rows) {
        snprintf(path, sizeof path, "%s/%s", st->dir, E2E_JSONL_NAME);
        if (bb_jsonl_write_file(path, bb_e2e_columns, bb_e2e_ncolumns, st->e2e_rows, st->ne2e_rows,
                                sizeof *st->e2e_rows, st->meter_cols, st->nmeter_cols,
                                (long)offsetof(bb_e2e_row, meter), err, sizeof err))
            sweep_note(st, "bitbench run: %s; e2e.csv has the same rows", err);
    }
}

/* What earlier sessions of a resumed run already measured counts as done; their flagged rows and
 * the rows that failed verify are counted again (a resumed run stays failed).  Returns the number
 * of points done. */
static int count_done(sweep_state *st)
{
    const bb_experiment *ex = st->ex;
    int already = 0;
    for (int i = 0; i < st->plan->npoints; i++) already += sweep_point_done(st, &st->plan->points[i]);
    st->rec.points_done = already;
    for (int i = 0; i < st->nrows; i++)
        if (!strcmp(st->rows[i].verify, "FAILED")) sweep_verify_failed(st, &st->rows[i], NAN);
    for (int i = 0; i < st->nrows; i++)
        if (st->rows[i].spread_flag) {
            double limit = NAN;
            for (int s = 0; s < ex->nsweeps; s++)
                if (!strcmp(ex->sweeps[s].name, st->rows[i].sweep)) limit = ex->sweeps[s].spread_limit;
            sweep_note_flagged(st, &st->rows[i], limit);
        }
    return already;
}

/* The kernel points, then the end-to-end points, with SIGINT/SIGTERM asking for a clean stop.
 * Returns the signal that stopped the run (0 for none); *failed_write when a row could not be
 * written. */
static int measure_all(sweep_state *st, FILE *csv, int already, int *failed_write)
{
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends the process at once */
    sigemptyset(&sa.sa_mask);
    sweep_stop = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    bb_progress_init(&st->progress, st->plan->npoints, already, !st->opt->quiet);
    *failed_write = sweep_measure_points(st, csv) != 0;
    bb_progress_clear(&st->progress);
    if (st->plan->ne2e && !*failed_write && !sweep_stop) *failed_write = sweep_measure_e2e(st) != 0;
    int sig = sweep_stop;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return sig;
}

static void state_free(sweep_state *st)
{
    for (int t = 0; st->pools && t <= st->max_threads; t++)
        if (st->pools[t]) bb_pool_destroy(st->pools[t]);
    free(st->pools);
    for (int i = 0; i < st->nmeters; i++) bb_meter_close(&st->meters[i]);
    free(st->meters);
    free(st->rows);
    free(st->e2e_rows);
    for (int i = 0; i < st->nrefs; i++) free(st->refs[i].logits);
    free(st->refs);
    free(st->ceilings);
    for (int i = 0; i < st->ndone; i++) free(st->done_keys[i]);
    free(st->done_keys);
    for (int i = 0; i < st->ndone && st->done_base_keys; i++) free(st->done_base_keys[i]);
    free(st->done_base_keys);
    for (int t = 0; st->rec.placement && t <= st->max_threads; t++) free(st->rec.placement[t]);
    free(st->rec.placement);
    for (int i = 0; i < st->rec.nfailures; i++) free(st->rec.failures[i]);
    free(st->rec.failures);
    free(st->rec.conversions);
    for (int i = 0; i < st->rec.nflagged; i++) free(st->rec.flagged[i]);
    free(st->rec.flagged);
    bb_run_sources_free(&st->sources);
}

int bb_sweep_run(const bb_experiment *ex, const bb_plan *plan, const bb_machine *mach, const bb_run_options *opt)
{
    sweep_state st = {.ex = ex, .plan = plan, .mach = mach, .opt = opt};
    char err[4096];
    int exit_code = 1;
    FILE *csv = NULL;
    st.max_threads = 1;
    for (int i = 0; i < plan->npoints; i++)
        if (plan->points[i].threads > st.max_threads) st.max_threads = plan->points[i].threads;
    for (int i = 0; i < plan->ne2e; i++)
        if (plan->e2e[i].threads > st.max_threads) st.max_threads = plan->e2e[i].threads;
    st.pools = calloc((size_t)st.max_threads + 1, sizeof *st.pools);
    st.rec.placement = calloc((size_t)st.max_threads + 1, sizeof *st.rec.placement);
    if (!st.pools || !st.rec.placement) {
        fprintf(stderr, "bitbench run: out of memory\n");
        goto done;
    }
    st.rec = (bb_run_record){.ex = ex, .mach = mach, .plan = plan, .argc = opt->argc, .argv = opt->argv,
                             .status = "incomplete", .placement = st.rec.placement, .max_threads = st.max_threads,
                             .csv_file = CSV_NAME, .md_file = MD_NAME, .e2e_file = E2E_NAME,
                             .shard = opt->shard, .settings = &st.settings};
    snprintf(st.rec.status_reason, sizeof st.rec.status_reason, "running (or killed before it could finish)");
    bb_run_id_new(st.rec.run_id, sizeof st.rec.run_id);
    bb_host_name(st.rec.host, sizeof st.rec.host);
    /* the experiment's text read once: its hash in run.json is the hash of the copy the folder keeps */
    if (bb_run_sources_take(ex, &st.sources, err, sizeof err)) {
        fprintf(stderr, "bitbench run: %s\n", err);
        goto done;
    }
    snprintf(st.rec.sha256, sizeof st.rec.sha256, "%s", bb_run_sources_sha256(&st.sources));
    if (opt->repeat_of_dir) {
        snprintf(st.sources.repeat_of_id, sizeof st.sources.repeat_of_id, "%s",
                 opt->repeat_of_id ? opt->repeat_of_id : "");
        snprintf(st.sources.repeat_of_dir, sizeof st.sources.repeat_of_dir, "%s", opt->repeat_of_dir);
    }
    st.rec.sources = &st.sources;
    if (opt->settings) st.settings = *opt->settings;
    bb_run_settings_complete(&st.settings, ex, plan);
    if (open_meters(&st)) goto done;
    st.rec.meters = st.meters;
    st.rec.nmeters = st.nmeters;
    if (prepare_dir(&st, &csv, err, sizeof err)) {
        fprintf(stderr, "bitbench run: %s\n", err);
        goto done;
    }
    if (opt->run_dir) snprintf(opt->run_dir, opt->run_dir_len, "%s", st.dir);
    if (bb_run_sources_write(st.dir, &st.sources, err, sizeof err)) {
        fprintf(stderr, "bitbench run: %s\n", err);
        goto done;
    }
    if (sweep_open_samples(&st)) goto done;
    sweep_load_ceilings(&st);
    int already = count_done(&st);
    if (!opt->quiet)
        fprintf(stderr, "bitbench run: %s: %d points%s -> %s\n", ex->name, plan->npoints,
                plan->ne2e ? " + end-to-end points" : "", st.dir);
    if (opt->resume) sweep_note(&st, "bitbench run: resuming: %d of %d points already measured", already, plan->npoints);
    if (sweep_write_json(&st)) goto done;
    int failed_write;
    int sig = measure_all(&st, csv, already, &failed_write);
    finish_record(&st, failed_write);
    if (sweep_write_json(&st)) failed_write = 1;
    write_markdown(&st);
    write_jsonl(&st);
    if (!opt->quiet) {
        fprintf(stderr, "bitbench run: %s: %s%s%s\n", st.rec.status, st.dir, st.rec.status_reason[0] ? ": " : "",
                st.rec.status_reason);
        if (st.rec.points_flagged)
            fprintf(stderr, "bitbench run: %d point%s flagged for a large spread (see the spread_flag column)\n",
                    st.rec.points_flagged, st.rec.points_flagged == 1 ? "" : "s");
        if (st.rec.e2e_flagged)
            fprintf(stderr, "bitbench run: %d end-to-end row%s flagged for a large spread after re-measuring (see "
                    "e2e.csv's spread_flag column)\n", st.rec.e2e_flagged, st.rec.e2e_flagged == 1 ? "" : "s");
    }
    if (sig) exit_code = 128 + sig;
    else if (failed_write || st.rec.points_failed || st.rec.e2e_failed || st.rec.verify_failed) exit_code = 1;
    else if (st.peer_rows < st.peer_points && !opt->allow_missing_peers) exit_code = BB_EXIT_MISSING_PEERS;
    else exit_code = 0;
    if (opt->peer_points) *opt->peer_points = st.peer_points;
    if (opt->peer_rows) *opt->peer_rows = st.peer_rows;
done:
    if (csv) fclose(csv);
    bb_run_dir_unlock(st.dir);
    if (st.samples) fclose(st.samples);
    if (st.e2e_samples) fclose(st.e2e_samples);
    state_free(&st);
    return exit_code;
}
