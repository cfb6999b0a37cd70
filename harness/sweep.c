#include "sweep.h"

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

#include "e2e_bench.h"
#include "energy.h"
#include "gemm_bench.h"
#include "json_read.h"
#include "logit_compare.h"
#include "perplexity_job.h"
#include "peers/peer_sweep.h"
#include "meter.h"
#include "progress.h"
#include "results.h"
#include "results_e2e.h"
#include "results_json.h"
#include "sha256.h"
#include "support/pool.h"
#include "support/timer.h"

#include "bb_git_commit.h" /* generated at build time: BB_GIT_COMMIT */

#define CSV_NAME "results.csv"
#define JSON_NAME "run.json"
#define MD_NAME "results.md"
#define E2E_NAME "e2e.csv"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

/* Everything one run holds. */
typedef struct {
    const bb_experiment *ex;
    const bb_plan *plan;
    const bb_machine *mach;
    const bb_run_options *opt;
    char dir[1200], csv_path[1300], json_path[1300], md_path[1300];
    bb_meter *meters;
    int nmeters;
    const char *meter_cols[BB_MAX_METER_VALUES];
    int nmeter_cols;
    bb_result_row *rows;       /* earlier sessions' rows, then this session's */
    int nrows, rows_cap;
    char **done_keys;          /* sorted keys of the rows, for --resume */
    int ndone;
    bb_pool **pools;           /* indexed by thread count */
    int max_threads;
    bb_run_record rec;
    bb_progress progress;
    char e2e_path[1300];
    char e2e_header[8192];     /* bb_e2e_header of this run's meters */
    bb_e2e_row *e2e_rows;
    int ne2e_rows;
    struct ref_logits *refs;   /* compare_logits: reference logits computed so far in this run */
    int nrefs;
} run_state;

/* The logits of a model through a sweep's reference kernel, for every point that compares with it:
 * the same model config, weights (seed, distinct_layers), out_kernel, KV type and tokens give the
 * same logits, so each is computed once per run. */
struct ref_logits {
    char model[BB_NAME_MAX], kernel[BB_NAME_MAX], out_kernel[BB_NAME_MAX];
    uint64_t seed;
    int distinct_layers, ntokens;
    bool kv_f16;
    float *logits;             /* ntokens × vocab */
};

static int mkdir_p(const char *path)
{
    char buf[1200];
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

static int find_latest_run(const bb_experiment *ex, char *dir, size_t len, char *err, size_t errlen)
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
        if (is_run_dir(e->d_name, ex->name) && (!best[0] || run_dir_newer(e->d_name, best, prefix)))
            snprintf(best, sizeof best, "%s", e->d_name);
    closedir(d);
    if (!best[0]) {
        snprintf(err, errlen, "--resume: no run of experiment '%s' under %s to resume", ex->name, ex->out);
        return -1;
    }
    snprintf(dir, len, "%s/%s", ex->out, best);
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
    bb_point_key(r->sweep, r->kernel, r->variant, r->m, r->k, r->n, r->threads, r->cache, buf, len);
}

static bool point_done(const run_state *st, const bb_point *p)
{
    char key[512], *kp = key;
    bb_plan_point_key(st->ex, p, key, sizeof key);
    return st->ndone && bsearch(&kp, st->done_keys, (size_t)st->ndone, sizeof *st->done_keys, cmp_key);
}

static int add_row(run_state *st, const bb_result_row *r)
{
    if (st->nrows == st->rows_cap) {
        int cap = st->rows_cap ? 2 * st->rows_cap : 64;
        bb_result_row *v = realloc(st->rows, sizeof *v * (size_t)cap);
        if (!v) return -1;
        st->rows = v;
        st->rows_cap = cap;
    }
    st->rows[st->nrows++] = *r;
    return 0;
}

static void add_line(char ***v, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_line(char ***v, int *n, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nv = realloc(*v, sizeof **v * (size_t)(*n + 1));
    if (!nv) return;
    *v = nv;
    if ((nv[*n] = strdup(buf))) (*n)++;
}

/* Print a note on stderr (unless quiet), keeping the progress line intact. */
static void note(run_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(run_state *st, const char *fmt, ...)
{
    if (st->opt->quiet) return;
    bb_progress_clear(&st->progress);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int write_json(run_state *st)
{
    char err[512];
    bb_iso_time(st->rec.updated_at);
    if (bb_run_json_write(st->json_path, &st->rec, err, sizeof err)) {
        bb_progress_clear(&st->progress);
        fprintf(stderr, "bitbench run: %s\n", err);
        return -1;
    }
    return 0;
}

static int open_meters(run_state *st)
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
            note(st, "bitbench run: meter %s is unavailable (%s: %s); its columns stay empty; to make it work: %s",
                 t->name, st->meters[i].reason_code, st->meters[i].reason, bb_meter_remedy(st->meters[i].reason_code));
        for (int c = 0; c < t->ncolumns && st->nmeter_cols < BB_MAX_METER_VALUES; c++)
            st->meter_cols[st->nmeter_cols++] = t->columns[c];
    }
    return 0;
}

/* Earlier rows of a resumed run: read them, remember their keys. */
static int load_previous(run_state *st, const char *header, char *err, size_t errlen)
{
    bb_result_row *rows;
    int n;
    if (bb_csv_read(st->csv_path, header, st->nmeter_cols, &rows, &n, err, errlen)) return -1;
    st->rows = rows;
    st->nrows = st->rows_cap = n;
    st->done_keys = calloc((size_t)n + 1, sizeof *st->done_keys);
    if (!st->done_keys) return -1;
    for (int i = 0; i < n; i++) {
        char key[512];
        row_key(&rows[i], key, sizeof key);
        if (!(st->done_keys[i] = strdup(key))) return -1;
        st->ndone++;
    }
    qsort(st->done_keys, (size_t)st->ndone, sizeof *st->done_keys, cmp_key);
    return 0;
}

/* What the sidecar of the run being resumed says: a complete run is not resumed; its start time
 * and session count carry on; a changed experiment file is worth a note.  A missing or unreadable
 * sidecar (killed before its first write) starts the count afresh. */
static int resume_record(run_state *st, char *err, size_t errlen)
{
    char why[512];
    bb_jv *json = bb_json_load(st->json_path, why, sizeof why);
    if (!json) return 0;
    const char *status = bb_jv_str(json, "status"), *started = bb_jv_str(json, "started_at");
    const char *sha = bb_jv_str(bb_jv_get(json, "experiment"), "sha256");
    double sessions = bb_jv_num(json, "sessions");
    int rc = 0;
    if (status && !strcmp(status, "complete")) {
        snprintf(err, errlen, "--resume: the newest run of '%s', %s, is complete; nothing to resume (run "
                              "without --resume for a new run)", st->ex->name, st->dir);
        rc = -1;
    }
    if (started) snprintf(st->rec.started_at, sizeof st->rec.started_at, "%s", started);
    if (sessions > 0) st->rec.sessions = (int)sessions + 1;
    if (rc == 0 && sha && strcmp(sha, st->rec.sha256))
        note(st, "bitbench run: note: %s has changed since the run began; points are matched by sweep, "
                 "kernel, variant, shape, N, threads and cache mode", st->ex->file);
    bb_jv_free(json);
    return rc;
}

static int prepare_dir(run_state *st, FILE **csv, char *err, size_t errlen)
{
    const bb_experiment *ex = st->ex;
    char header[8192];
    bb_csv_header(st->meter_cols, st->nmeter_cols, header, sizeof header);
    st->rec.sessions = 1;
    bb_iso_time(st->rec.started_at);
    if (st->opt->resume) {
        if (find_latest_run(ex, st->dir, sizeof st->dir, err, errlen)) return -1;
        snprintf(st->csv_path, sizeof st->csv_path, "%s/%s", st->dir, CSV_NAME);
        snprintf(st->json_path, sizeof st->json_path, "%s/%s", st->dir, JSON_NAME);
        if (resume_record(st, err, errlen)) return -1;
        if (load_previous(st, header, err, errlen)) return -1;
        *csv = fopen(st->csv_path, "a");
    } else {
        if (new_run_dir(ex, st->dir, sizeof st->dir, err, errlen)) return -1;
        snprintf(st->csv_path, sizeof st->csv_path, "%s/%s", st->dir, CSV_NAME);
        snprintf(st->json_path, sizeof st->json_path, "%s/%s", st->dir, JSON_NAME);
        *csv = fopen(st->csv_path, "w");
        if (*csv && (fprintf(*csv, "%s\n", header) < 0 || fflush(*csv) != 0)) {
            fclose(*csv);
            *csv = NULL;
        }
    }
    snprintf(st->md_path, sizeof st->md_path, "%s/%s", st->dir, MD_NAME);
    if (!*csv) {
        snprintf(err, errlen, "cannot write %s: %s", st->csv_path, strerror(errno));
        return -1;
    }
    return 0;
}

static bb_pool *pool_for(run_state *st, int threads, char *err, size_t errlen)
{
    if (!st->pools[threads]) {
        st->pools[threads] = bb_pool_create(threads, err, (unsigned)errlen);
        if (!st->pools[threads]) return NULL;
        free(st->rec.placement[threads]);
        st->rec.placement[threads] = strdup(bb_pool_placement(st->pools[threads]));
    }
    return st->pools[threads];
}

static void fill_row(run_state *st, const bb_point *p, bb_pool *pool, const bb_gemm_result *r,
                     const double *meter_values, bb_result_row *row)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    const bb_kernel_choice *kc = &sw->kernels[p->kernel];
    const bb_shape *sh = &sw->shapes[p->shape];
    memset(row, 0, sizeof *row);
    snprintf(row->experiment, sizeof row->experiment, "%s", st->ex->name);
    snprintf(row->sweep, sizeof row->sweep, "%s", sw->name);
    row->point = p->index;
    snprintf(row->kernel, sizeof row->kernel, "%s", kc->kernel->name);
    snprintf(row->variant, sizeof row->variant, "%s", kc->variant->isa);
    snprintf(row->family, sizeof row->family, "%s", kc->kernel->family);
    row->bits_per_weight = kc->kernel->bits_per_weight;
    row->lossless = kc->kernel->lossless;
    snprintf(row->model, sizeof row->model, "%s", sh->model);
    snprintf(row->roles, sizeof row->roles, "%s", sh->model[0] ? sh->roles : "");
    row->m = sh->m;
    row->k = sh->k;
    row->n = p->n;
    row->threads = p->threads;
    bb_pool_cpus(pool, row->cpus, sizeof row->cpus);
    snprintf(row->cache, sizeof row->cache, "%s", bb_cache_mode_name(p->cache));
    row->warmup = sw->warmup;
    row->reps = r->reps;
    row->t_median_s = r->t_median;
    row->t_min_s = r->t_min;
    row->t_max_s = r->t_max;
    row->t_sd_s = r->t_sd;
    row->spread = r->spread;
    row->spread_flag = r->spread > sw->spread_limit;
    row->gops = r->gops;
    row->weight_bytes = (double)r->packed_bytes;
    row->gbps = r->gbps;
    row->err_max_abs = r->verified ? r->max_abs_err : NAN;
    row->err_rel_rms = r->verified ? r->err_rel_rms : NAN;
    row->err_master_rel_rms = r->verified ? r->err_master_rel_rms : NAN;
    row->weight_rel_rms = r->verified ? r->weight_rel_rms : NAN;
    row->nmeter = st->nmeter_cols;
    for (int i = 0; i < st->nmeter_cols; i++) row->meter[i] = meter_values[i];
}

/* A flagged row, for the sidecar's warnings. */
static void note_flagged(run_state *st, const bb_result_row *r, double limit)
{
    char why[64] = "its sweep's spread_limit";
    if (isfinite(limit)) snprintf(why, sizeof why, "the sweep's spread_limit %.1f%%", limit * 100);
    st->rec.points_flagged++;
    add_line(&st->rec.flagged, &st->rec.nflagged,
             "point %d (%s: %s@%s M=%d K=%d N=%d threads=%d %s): spread %.1f%% (interquartile range / median) "
             "exceeds %s",
             r->point, r->sweep, r->kernel, r->variant, r->m, r->k, r->n, r->threads, r->cache, r->spread * 100, why);
}

static void point_label(const run_state *st, const bb_point *p, char *buf, size_t len)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    const bb_kernel_choice *kc = &sw->kernels[p->kernel];
    const bb_shape *sh = &sw->shapes[p->shape];
    snprintf(buf, len, "%s: %s@%s M=%d K=%d N=%d threads=%d %s", sw->name, kc->kernel->name, kc->variant->isa,
             sh->m, sh->k, p->n, p->threads, bb_cache_mode_name(p->cache));
}

/* The packed weights currently built, and for which point. */
typedef struct {
    bool valid, failed;
    int sweep, kernel, shape;
    bb_cache_mode cache;
    bb_packed_set set;
    char why[1024];
} weights_slot;

static bool same_weights(const weights_slot *w, const bb_point *p)
{
    return (w->valid || w->failed) && w->sweep == p->sweep && w->kernel == p->kernel && w->shape == p->shape &&
           w->cache == p->cache;
}

/* Accuracy of the points of one (sweep, kernel, shape) verified so far, by N: the plan runs a
 * (kernel, shape) over cache modes, N and thread counts together, and the output of one call does
 * not depend on the cache mode or the thread count, so each N is verified once. */
typedef struct {
    int sweep, kernel, shape;
    int count;
    int n[64];
    bb_gemm_result r[64];
} verify_cache;

static const bb_gemm_result *verified_before(const verify_cache *vc, const bb_point *p)
{
    if (vc->sweep != p->sweep || vc->kernel != p->kernel || vc->shape != p->shape) return NULL;
    for (int i = 0; i < vc->count; i++)
        if (vc->n[i] == p->n) return &vc->r[i];
    return NULL;
}

static void remember_verified(verify_cache *vc, const bb_point *p, const bb_gemm_result *r)
{
    if (vc->sweep != p->sweep || vc->kernel != p->kernel || vc->shape != p->shape) {
        *vc = (verify_cache){.sweep = p->sweep, .kernel = p->kernel, .shape = p->shape};
    }
    if (vc->count < (int)(sizeof vc->n / sizeof vc->n[0])) {
        vc->n[vc->count] = p->n;
        vc->r[vc->count++] = *r;
    }
}

/* Fill r's verify fields for point p (computed after its timing, never inside it). */
static int verify_point(verify_cache *vc, bb_pool *pool, const weights_slot *ws, const bb_point *p,
                        const bb_sweep *sw, bb_gemm_result *r, char *err, size_t errlen)
{
    const bb_gemm_result *done = verified_before(vc, p);
    bb_gemm_result v = {0};
    if (!done) {
        if (bb_gemm_verify(pool, &ws->set, sw->kernels[p->kernel].variant, p->n, sw->seed, &v, err, errlen))
            return -1;
        remember_verified(vc, p, &v);
        done = &v;
    }
    r->verified = true;
    r->max_abs_err = done->max_abs_err;
    r->rel_err = done->rel_err;
    r->bound_ratio = done->bound_ratio;
    r->err_rel_rms = done->err_rel_rms;
    r->err_master_rel_rms = done->err_master_rel_rms;
    r->weight_rel_rms = done->weight_rel_rms;
    return 0;
}

static int measure_all(run_state *st, FILE *csv)
{
    const bb_experiment *ex = st->ex;
    weights_slot ws = {0};
    verify_cache *vc = calloc(1, sizeof *vc);
    double meter_values[BB_MAX_METER_VALUES];
    if (!vc) return -1;
    vc->sweep = -1;
    int rc = 0;
    for (int i = 0; i < st->plan->npoints && !stop_signal; i++) {
        const bb_point *p = &st->plan->points[i];
        if (point_done(st, p)) continue;
        const bb_sweep *sw = &ex->sweeps[p->sweep];
        const bb_kernel_choice *kc = &sw->kernels[p->kernel];
        const bb_shape *sh = &sw->shapes[p->shape];
        char label[256], err[1024];
        point_label(st, p, label, sizeof label);
        bb_progress_show(&st->progress, label);
        if (!same_weights(&ws, p)) {
            if (ws.valid) bb_packed_set_free(&ws.set);
            ws = (weights_slot){.sweep = p->sweep, .kernel = p->kernel, .shape = p->shape, .cache = p->cache};
            if (bb_packed_set_make(kc->kernel, sh->m, sh->k, p->cache, sw->seed, st->mach, &ws.set, ws.why,
                                   sizeof ws.why))
                ws.failed = true;
            else ws.valid = true;
        }
        if (stop_signal) break;
        bb_pool *pool = ws.failed ? NULL : pool_for(st, p->threads, err, sizeof err);
        if (!pool) {
            const char *why = ws.failed ? ws.why : err;
            note(st, "bitbench run: point %d (%s) failed: %s", p->index, label, why);
            add_line(&st->rec.failures, &st->rec.nfailures, "point %d (%s): %s", p->index, label, why);
            st->rec.points_failed++;
            bb_progress_step(&st->progress);
            continue;
        }
        bb_measure_spec ms = {.variant = kc->variant, .n = p->n, .warmup = sw->warmup, .min_reps = sw->min_reps,
                              .max_reps = sw->max_reps, .min_seconds = sw->min_seconds, .seed = sw->seed,
                              .meters = st->meters, .nmeters = st->nmeters, .meter_values = meter_values,
                              .stop = &stop_signal};
        bb_gemm_result r;
        if (bb_gemm_measure(pool, &ws.set, &ms, &r, err, sizeof err)) {
            note(st, "bitbench run: point %d (%s) failed: %s", p->index, label, err);
            add_line(&st->rec.failures, &st->rec.nfailures, "point %d (%s): %s", p->index, label, err);
            st->rec.points_failed++;
            bb_progress_step(&st->progress);
            continue;
        }
        if (r.interrupted) break; /* an unfinished point is not a result */
        if (sw->verify && verify_point(vc, pool, &ws, p, sw, &r, err, sizeof err)) {
            note(st, "bitbench run: point %d (%s) failed: verify: %s", p->index, label, err);
            add_line(&st->rec.failures, &st->rec.nfailures, "point %d (%s): verify: %s", p->index, label, err);
            st->rec.points_failed++;
            bb_progress_step(&st->progress);
            continue;
        }
        bb_result_row row;
        fill_row(st, p, pool, &r, meter_values, &row);
        if (bb_csv_write_row(csv, &row)) {
            bb_progress_clear(&st->progress);
            fprintf(stderr, "bitbench run: cannot write %s: %s\n", st->csv_path, strerror(errno));
            rc = -1;
            break;
        }
        if (add_row(st, &row)) {
            rc = -1;
            break;
        }
        if (row.spread_flag) note_flagged(st, &row, sw->spread_limit);
        st->rec.points_done++;
        bb_progress_step(&st->progress);
        if (write_json(st)) {
            rc = -1;
            break;
        }
    }
    if (ws.valid) bb_packed_set_free(&ws.set);
    free(vc);
    return rc;
}

static void finish_record(run_state *st, int write_failed)
{
    bb_run_record *rec = &st->rec;
    int total = st->plan->npoints, finished = rec->points_done;
    if (stop_signal) {
        rec->status = "incomplete";
        snprintf(rec->status_reason, sizeof rec->status_reason,
                 "interrupted by %s after %d of %d points; run again with --resume to continue",
                 stop_signal == SIGINT ? "SIGINT (Ctrl-C)" : stop_signal == SIGTERM ? "SIGTERM" : "a signal",
                 finished, total);
    } else if (write_failed) {
        rec->status = "incomplete";
        snprintf(rec->status_reason, sizeof rec->status_reason, "results could not be written after %d of %d points",
                 finished, total);
    } else if (rec->points_failed) {
        rec->status = "incomplete";
        snprintf(rec->status_reason, sizeof rec->status_reason,
                 "%d of %d points failed (see \"failed\"); --resume retries them", rec->points_failed, total);
    } else if (rec->e2e_failed) {
        rec->status = "incomplete";
        snprintf(rec->status_reason, sizeof rec->status_reason,
                 "%d of %d end-to-end points failed (see \"failed\"); --resume retries them", rec->e2e_failed,
                 st->plan->ne2e);
    } else {
        rec->status = "complete";
        rec->status_reason[0] = 0;
    }
    bb_iso_time(rec->ended_at);
}

/* ---------------------------------------------------------------- model sweeps ---- */

static bool e2e_same(const bb_e2e_row *r, const char *sweep, const char *model, const char *kernel, const char *variant,
                     int threads, int prompt, int gen)
{
    return !strcmp(r->sweep, sweep) && !strcmp(r->model, model) && !strcmp(r->kernel, kernel) &&
           !strcmp(r->variant, variant) && r->threads == threads && r->prompt == prompt && r->gen == gen;
}

static bool e2e_done(const run_state *st, const bb_e2e_point *p)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    const bb_kernel_choice *kc = &sw->kernels[p->kernel];
    for (int i = 0; i < st->ne2e_rows; i++)
        if (e2e_same(&st->e2e_rows[i], sw->name, sw->models[p->model].name, kc->kernel->name, kc->variant->isa,
                     p->threads, p->prompt, p->gen))
            return true;
    return false;
}

static int e2e_add(run_state *st, const bb_e2e_row *r)
{
    bb_e2e_row *v = realloc(st->e2e_rows, sizeof *v * (size_t)(st->ne2e_rows + 1));
    if (!v) return -1;
    st->e2e_rows = v;
    v[st->ne2e_rows++] = *r;
    return 0;
}

static FILE *e2e_open(run_state *st, char *err, size_t errlen)
{
    snprintf(st->e2e_path, sizeof st->e2e_path, "%s/%s", st->dir, E2E_NAME);
    bb_e2e_header(st->meter_cols, st->nmeter_cols, st->e2e_header, sizeof st->e2e_header);
    FILE *f = NULL;
    if (st->opt->resume && (f = fopen(st->e2e_path, "r"))) {
        fclose(f);
        if (bb_e2e_read(st->e2e_path, st->e2e_header, st->nmeter_cols, &st->e2e_rows, &st->ne2e_rows, err, errlen))
            return NULL;
        f = fopen(st->e2e_path, "a");
    } else {
        f = fopen(st->e2e_path, "w");
        if (f && (fprintf(f, "%s\n", st->e2e_header) < 0 || fflush(f) != 0)) {
            fclose(f);
            f = NULL;
        }
    }
    if (!f) snprintf(err, errlen, "cannot write %s: %s", st->e2e_path, strerror(errno));
    return f;
}

static void e2e_fail(run_state *st, const bb_e2e_point *p, const char *label, const char *why)
{
    note(st, "bitbench run: e2e point %d (%s) failed: %s", p->index, label, why);
    add_line(&st->rec.failures, &st->rec.nfailures, "e2e point %d (%s): %s", p->index, label, why);
    st->rec.e2e_failed++;
}

/* The meters around each repetition's token generation: one set of values per repetition, of which
 * the row keeps the median repetition's (the one tg_tps reports). */
typedef struct {
    run_state *st;
    double *values;            /* [rep][meter column] */
    int reps;
} gen_meters;

static void gen_begin(void *ctx, int rep)
{
    gen_meters *g = ctx;
    (void)rep;
    for (int i = 0; i < g->st->nmeters; i++) bb_meter_begin(&g->st->meters[i]);
}

static void gen_end(void *ctx, int rep, int tokens)
{
    gen_meters *g = ctx;
    if (rep < 0 || rep >= g->reps) return;
    double *v = g->values + (size_t)rep * (size_t)g->st->nmeter_cols;
    for (int i = 0; i < g->st->nmeters; i++) {
        bb_meter_end(&g->st->meters[i], tokens, v);
        v += g->st->meters[i].type->ncolumns;
    }
}

static const float *reference_logits(run_state *st, bb_pool *pool, const bb_sweep *sw, const bb_model_config *cfg,
                                     const int *tokens, char *err, size_t errlen)
{
    for (int i = 0; i < st->nrefs; i++) {
        const struct ref_logits *r = &st->refs[i];
        if (!strcmp(r->model, cfg->name) && !strcmp(r->kernel, sw->compare_logits) &&
            !strcmp(r->out_kernel, sw->out_kernel) && r->seed == sw->seed &&
            r->distinct_layers == sw->distinct_layers && r->ntokens == sw->compare_tokens && r->kv_f16 == sw->kv_f16)
            return r->logits;
    }
    struct ref_logits *v = realloc(st->refs, sizeof *v * (size_t)(st->nrefs + 1));
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    st->refs = v;
    struct ref_logits *r = &v[st->nrefs];
    memset(r, 0, sizeof *r);
    snprintf(r->model, sizeof r->model, "%s", cfg->name);
    snprintf(r->kernel, sizeof r->kernel, "%s", sw->compare_logits);
    snprintf(r->out_kernel, sizeof r->out_kernel, "%s", sw->out_kernel);
    r->seed = sw->seed;
    r->distinct_layers = sw->distinct_layers;
    r->ntokens = sw->compare_tokens;
    r->kv_f16 = sw->kv_f16;
    r->logits = malloc(sizeof(float) * (size_t)sw->compare_tokens * (size_t)cfg->vocab_size);
    if (!r->logits) {
        snprintf(err, errlen, "out of memory for %d x %d reference logits", sw->compare_tokens, cfg->vocab_size);
        return NULL;
    }
    bb_e2e_spec spec = {.model = cfg, .kernel = sw->compare_logits, .out_kernel = sw->out_kernel,
                        .seq_len = sw->compare_tokens, .distinct_layers = sw->distinct_layers, .kv_f16 = sw->kv_f16,
                        .seed = sw->seed, .logit_tokens = tokens, .n_logit_tokens = sw->compare_tokens,
                        .logits_out = r->logits};
    char e[1536];
    if (bb_e2e_logits(pool, &spec, e, sizeof e)) {
        snprintf(err, errlen, "compare_logits: reference %s: %s", sw->compare_logits, e);
        free(r->logits);
        return NULL;
    }
    st->nrefs++;
    return r->logits;
}

static void fill_e2e_row(const run_state *st, const bb_e2e_point *p, const bb_e2e_result *r,
                         const bb_logit_diff *diff, double energy, const double *meter_values, bb_e2e_row *row)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    const bb_kernel_choice *kc = &sw->kernels[p->kernel];
    memset(row, 0, sizeof *row);
    snprintf(row->experiment, sizeof row->experiment, "%s", st->ex->name);
    snprintf(row->sweep, sizeof row->sweep, "%s", sw->name);
    row->point = p->index;
    snprintf(row->model, sizeof row->model, "%s", sw->models[p->model].name);
    snprintf(row->kernel, sizeof row->kernel, "%s", kc->kernel->name);
    snprintf(row->variant, sizeof row->variant, "%s", kc->variant->isa);
    snprintf(row->family, sizeof row->family, "%s", kc->kernel->family);
    row->bits_per_weight = kc->kernel->bits_per_weight;
    snprintf(row->out_kernel, sizeof row->out_kernel, "%s", sw->out_kernel);
    row->threads = p->threads;
    row->prompt = p->prompt;
    row->gen = p->gen;
    row->reps = sw->min_reps;
    row->pp_tps = r->pp_tps_median;
    row->pp_tps_min = r->pp_tps_min;
    row->pp_tps_max = r->pp_tps_max;
    row->tg_tps = r->tg_tps_median;
    row->tg_tps_min = r->tg_tps_min;
    row->tg_tps_max = r->tg_tps_max;
    row->ms_per_token = r->tg_ms_per_token;
    row->matmul_share = r->matmul_share;
    row->weight_bytes_per_token = (double)r->weight_bytes_per_token;
    row->tg_gbps_derived = r->tg_gbps;
    row->read_tps = r->read_tps_median;
    row->read_tps_max = r->read_tps_max;
    row->read_gbps = r->read_gbps;
    row->tg_of_read = r->tg_of_read;
    row->footprint_bytes = (double)r->footprint;
    snprintf(row->ref_kernel, sizeof row->ref_kernel, "%s", diff ? sw->compare_logits : "");
    row->logit_max_abs_err = diff ? diff->max_abs_err : NAN;
    row->logit_rel_rms_err = diff ? diff->rel_rms_err : NAN;
    row->top1_agreement = diff ? diff->top1_agreement : NAN;
    row->logits_identical = diff ? diff->identical : NAN;
    row->ppl = row->ppl_err = row->ppl_tokens = row->ppl_tps = NAN; /* set by e2e_perplexity */
    row->energy_per_token_j = energy;
    row->nmeter = st->nmeter_cols;
    for (int c = 0; c < st->nmeter_cols; c++) row->meter[c] = meter_values ? meter_values[c] : NAN;
}

/* The sweep's `perplexity` through the point's kernel, out_kernel, kv and threads, into row's ppl
 * columns. */
static int e2e_perplexity(bb_pool *pool, const bb_sweep *sw, const bb_model_config *cfg, const bb_kernel_choice *kc,
                          bb_e2e_row *row, char *err, size_t errlen)
{
    bb_ppl_job job = {.model = sw->ppl_model[0] ? sw->ppl_model : cfg->name, .text_file = sw->ppl_file,
                      .ctx = sw->ppl_ctx, .max_chunks = sw->ppl_chunks, .kernel = kc->spec,
                      .out_kernel = sw->out_kernel, .kv_f16 = sw->kv_f16, .seed = sw->seed,
                      .distinct_layers = sw->distinct_layers};
    bb_ppl_outcome o;
    char e[1536];
    if (bb_ppl_job_run(pool, &job, &o, e, sizeof e)) {
        snprintf(err, errlen, "perplexity: %s", e);
        return -1;
    }
    const char *base = strrchr(job.model, '/');
    snprintf(row->ppl_model, sizeof row->ppl_model, "%s", base ? base + 1 : job.model);
    row->ppl = o.ppl;
    row->ppl_err = o.ppl_err;
    row->ppl_tokens = (double)o.sums.count;
    row->ppl_tps = o.tokens_per_second;
    return 0;
}

/* Peer rows (harness/peers/peer_sweep.h) go into e2e.csv as bitbench's own do; a peer point that
 * gives no row is a note and a line in run.json's "failed", not a failed point: bitbench's own
 * measurements stand without it. */
typedef struct {
    run_state *st;
    FILE *f;
    const bb_e2e_point *p;
} peer_ctx;

static int peer_emit(void *ctx, const bb_e2e_row *row)
{
    peer_ctx *pc = ctx;
    if (bb_e2e_write_row(pc->f, row)) {
        fprintf(stderr, "bitbench run: cannot write %s: %s\n", pc->st->e2e_path, strerror(errno));
        return -1;
    }
    return e2e_add(pc->st, row) || write_json(pc->st) ? -1 : 0;
}

static void peer_fail(void *ctx, const char *label, const char *why)
{
    peer_ctx *pc = ctx;
    note(pc->st, "bitbench run: peer point (%s) skipped: %s", label, why);
    add_line(&pc->st->rec.failures, &pc->st->rec.nfailures, "peer point (%s) skipped: %s", label, why);
}

static int peer_points(run_state *st, FILE *f, const bb_e2e_point *p)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    if (!sw->npeers) return 0;
    peer_ctx pc = {.st = st, .f = f, .p = p};
    bb_peer_sink sink = {.run_dir = st->dir, .experiment = st->ex->name, .nmeter = st->nmeter_cols,
                         .quiet = st->opt->quiet, .emit = peer_emit, .fail = peer_fail, .ctx = &pc};
    return bb_peer_points_for(&sink, sw, p);
}

/* The end-to-end points, after the kernel points: one bb_e2e_bench each (it builds the model's
 * synthetic weights, times prefill and decode over the sweep's repetitions, and frees it). */
static int measure_e2e(run_state *st)
{
    const bb_plan *plan = st->plan;
    char err[2048];
    FILE *f = e2e_open(st, err, sizeof err);
    if (!f) {
        fprintf(stderr, "bitbench run: %s\n", err);
        return -1;
    }
    for (int i = 0; i < plan->ne2e; i++)
        st->rec.e2e_done += e2e_done(st, &plan->e2e[i]);
    int rc = 0;
    for (int i = 0; i < plan->ne2e && !stop_signal; i++) {
        const bb_e2e_point *p = &plan->e2e[i];
        if (e2e_done(st, p)) continue;
        if (peer_points(st, f, p)) {
            rc = -1;
            break;
        }
        const bb_sweep *sw = &st->ex->sweeps[p->sweep];
        const bb_kernel_choice *kc = &sw->kernels[p->kernel];
        const bb_model_config *cfg = &sw->models[p->model];
        char label[256];
        snprintf(label, sizeof label, "%s %s %s pp%d tg%d t%d", sw->name, cfg->name, kc->spec, p->prompt, p->gen,
                 p->threads);
        if (!st->opt->quiet) fprintf(stderr, "bitbench run: e2e %d/%d: %s\n", p->index, plan->ne2e, label);
        bb_pool *pool = pool_for(st, p->threads, err, sizeof err);
        if (!pool) {
            e2e_fail(st, p, label, err);
            continue;
        }
        gen_meters gm = {.st = st, .reps = sw->min_reps > 0 ? sw->min_reps : 1};
        gm.values = malloc(sizeof *gm.values * (size_t)gm.reps * (size_t)(st->nmeter_cols ? st->nmeter_cols : 1));
        if (!gm.values) {
            e2e_fail(st, p, label, "out of memory");
            continue;
        }
        for (size_t v = 0; v < (size_t)gm.reps * (size_t)st->nmeter_cols; v++) gm.values[v] = NAN;
        /* compare_logits: the point's own logits of the compared tokens, taken after its timing */
        bool compare = sw->compare_logits[0] != 0;
        int ntok = compare ? sw->compare_tokens : 0;
        int *ctokens = compare ? malloc(sizeof *ctokens * (size_t)ntok) : NULL;
        float *clogits = compare ? malloc(sizeof *clogits * (size_t)ntok * (size_t)cfg->vocab_size) : NULL;
        if (compare && (!ctokens || !clogits)) {
            free(ctokens);
            free(clogits);
            free(gm.values);
            e2e_fail(st, p, label, "out of memory for the compared logits");
            continue;
        }
        if (compare) bb_logit_tokens(sw->seed, cfg->vocab_size, ntok, ctokens);
        bb_e2e_spec spec = {.model = cfg, .kernel = kc->spec, .out_kernel = sw->out_kernel, .prompt_len = p->prompt,
                            .gen_len = p->gen, .reps = sw->min_reps, .distinct_layers = sw->distinct_layers,
                            .kv_f16 = sw->kv_f16, .seed = sw->seed, .gen_begin = gen_begin, .gen_end = gen_end,
                            .hook_ctx = &gm, .logit_tokens = ctokens, .n_logit_tokens = ntok,
                            .logits_out = clogits,
                            .seq_len = p->prompt + p->gen > ntok ? p->prompt + p->gen : ntok};
        bb_e2e_result r;
        bb_logit_diff diff = {0};
        const float *ref = NULL;
        int bench_rc = bb_e2e_bench(pool, &spec, &r, err, sizeof err);
        if (bench_rc == 0 && compare) {
            ref = reference_logits(st, pool, sw, cfg, ctokens, err, sizeof err);
            if (ref) bb_logits_compare(ref, clogits, ntok, cfg->vocab_size, &diff);
        }
        free(ctokens);
        free(clogits);
        if (bench_rc || (compare && !ref)) {
            free(gm.values);
            e2e_fail(st, p, label, err);
            continue;
        }
        const double *mv = NULL; /* the median repetition's meter values; none without generation */
        if (r.tg_median_rep >= 0 && r.tg_median_rep < gm.reps)
            mv = gm.values + (size_t)r.tg_median_rep * (size_t)st->nmeter_cols;
        double energy = mv ? bb_energy_per_unit(st->meters, st->nmeters, mv, p->gen) : NAN;
        bb_e2e_row row;
        fill_e2e_row(st, p, &r, compare ? &diff : NULL, energy, mv, &row);
        free(gm.values);
        if (sw->ppl_file[0] && e2e_perplexity(pool, sw, cfg, kc, &row, err, sizeof err)) {
            e2e_fail(st, p, label, err);
            continue;
        }
        if (bb_e2e_write_row(f, &row)) {
            fprintf(stderr, "bitbench run: cannot write %s: %s\n", st->e2e_path, strerror(errno));
            rc = -1;
            break;
        }
        if (e2e_add(st, &row)) {
            rc = -1;
            break;
        }
        st->rec.e2e_done++;
        if (write_json(st)) {
            rc = -1;
            break;
        }
    }
    fclose(f);
    return rc;
}

/* llama-bench's table: one line per test (pp<P>, tg<G>) with tokens/s, median (min-max). */
static void e2e_markdown(FILE *f, const run_state *st)
{
    fprintf(f, "| model | kernel | threads | test | t/s (median) | min - max |\n");
    fprintf(f, "|---|---|---:|---|---:|---:|\n");
    for (int i = 0; i < st->ne2e_rows; i++) {
        const bb_e2e_row *r = &st->e2e_rows[i];
        if (r->prompt > 0)
            fprintf(f, "| %s | %s@%s | %d | pp%d | %.2f | %.2f - %.2f |\n", r->model, r->kernel, r->variant,
                    r->threads, r->prompt, r->pp_tps, r->pp_tps_min, r->pp_tps_max);
        if (r->gen > 0)
            fprintf(f, "| %s | %s@%s | %d | tg%d | %.2f | %.2f - %.2f |\n", r->model, r->kernel, r->variant,
                    r->threads, r->gen, r->tg_tps, r->tg_tps_min, r->tg_tps_max);
    }
}

static void write_markdown(run_state *st)
{
    FILE *f = fopen(st->md_path, "w");
    if (f) {
        fprintf(f, "# %s\n\n", st->ex->name);
        if (st->nrows || !st->ne2e_rows) bb_markdown_table(f, st->rows, st->nrows);
        if (st->ne2e_rows) {
            fprintf(f, "%sEnd-to-end (%s):\n\n", st->nrows ? "\n" : "", E2E_NAME);
            e2e_markdown(f, st);
        }
        fprintf(f, "\nMachine: %s, %d cores. Build: %s. Experiment: %s (sha256 %.16s). Status: %s%s%s.\n",
                st->mach->cpu_model, st->mach->cores, BB_GIT_COMMIT, st->ex->file, st->rec.sha256,
                st->rec.status, st->rec.status_reason[0] ? ": " : "", st->rec.status_reason);
        fclose(f);
    }
    if (st->nrows) {
        printf("\n");
        bb_markdown_table(stdout, st->rows, st->nrows);
        printf("\n");
    }
    if (st->ne2e_rows) {
        printf("\n");
        e2e_markdown(stdout, st);
        printf("\n");
    }
    fflush(stdout);
}

int bb_sweep_run(const bb_experiment *ex, const bb_plan *plan, const bb_machine *mach, const bb_run_options *opt)
{
    run_state st = {.ex = ex, .plan = plan, .mach = mach, .opt = opt};
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
                             .csv_file = CSV_NAME, .md_file = MD_NAME, .e2e_file = E2E_NAME};
    snprintf(st.rec.status_reason, sizeof st.rec.status_reason, "running (or killed before it could finish)");
    if (bb_sha256_file(ex->file, st.rec.sha256)) snprintf(st.rec.sha256, sizeof st.rec.sha256, "unreadable");
    if (open_meters(&st)) goto done;
    st.rec.meters = st.meters;
    st.rec.nmeters = st.nmeters;
    if (prepare_dir(&st, &csv, err, sizeof err)) {
        fprintf(stderr, "bitbench run: %s\n", err);
        goto done;
    }
    if (opt->run_dir) snprintf(opt->run_dir, opt->run_dir_len, "%s", st.dir);
    /* what earlier sessions of a resumed run already measured counts as done */
    int already = 0;
    for (int i = 0; i < plan->npoints; i++) already += point_done(&st, &plan->points[i]);
    st.rec.points_done = already;
    for (int i = 0; i < st.nrows; i++)
        if (st.rows[i].spread_flag) {
            double limit = NAN;
            for (int s = 0; s < ex->nsweeps; s++)
                if (!strcmp(ex->sweeps[s].name, st.rows[i].sweep)) limit = ex->sweeps[s].spread_limit;
            note_flagged(&st, &st.rows[i], limit);
        }
    if (!opt->quiet)
        fprintf(stderr, "bitbench run: %s: %d points%s -> %s\n", ex->name, plan->npoints,
                plan->ne2e ? " + end-to-end points" : "", st.dir);
    if (opt->resume) note(&st, "bitbench run: resuming: %d of %d points already measured", already, plan->npoints);
    if (write_json(&st)) goto done;

    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends the process at once */
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    bb_progress_init(&st.progress, plan->npoints, already, !opt->quiet);
    int failed_write = measure_all(&st, csv) != 0;
    bb_progress_clear(&st.progress);
    if (plan->ne2e && !failed_write && !stop_signal) failed_write = measure_e2e(&st) != 0;
    int sig = stop_signal;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);

    finish_record(&st, failed_write);
    if (write_json(&st)) failed_write = 1;
    write_markdown(&st);
    if (!opt->quiet) {
        fprintf(stderr, "bitbench run: %s: %s%s%s\n", st.rec.status, st.dir, st.rec.status_reason[0] ? ": " : "",
                st.rec.status_reason);
        if (st.rec.points_flagged)
            fprintf(stderr, "bitbench run: %d point%s flagged for a large spread (see the spread_flag column)\n",
                    st.rec.points_flagged, st.rec.points_flagged == 1 ? "" : "s");
    }
    if (sig) exit_code = 128 + sig;
    else exit_code = failed_write || st.rec.points_failed || st.rec.e2e_failed ? 1 : 0;
done:
    if (csv) fclose(csv);
    for (int t = 0; st.pools && t <= st.max_threads; t++)
        if (st.pools[t]) bb_pool_destroy(st.pools[t]);
    free(st.pools);
    for (int i = 0; i < st.nmeters; i++) bb_meter_close(&st.meters[i]);
    free(st.meters);
    free(st.rows);
    free(st.e2e_rows);
    for (int i = 0; i < st.nrefs; i++) free(st.refs[i].logits);
    free(st.refs);
    for (int i = 0; i < st.ndone; i++) free(st.done_keys[i]);
    free(st.done_keys);
    for (int t = 0; st.rec.placement && t <= st.max_threads; t++) free(st.rec.placement[t]);
    free(st.rec.placement);
    for (int i = 0; i < st.rec.nfailures; i++) free(st.rec.failures[i]);
    free(st.rec.failures);
    for (int i = 0; i < st.rec.nflagged; i++) free(st.rec.flagged[i]);
    free(st.rec.flagged);
    return exit_code;
}
