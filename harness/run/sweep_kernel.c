/* The kernel points of a run: for each, the pool of its thread count, the packed weights of its
 * kernel and shape (built once, reused across cache-mode-equal N and thread counts), the
 * measurement with the run's meters, the sweep's verify, one row appended to results.csv. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "io/csv_append.h"
#include "peers/peer_kernels.h"
#include "results/noise.h"
#include "results/result_row.h"
#include "run/sweep_state.h"

static int add_row(sweep_state *st, const bb_result_row *r)
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

/* Do the repetitions of a measurement disagree beyond the sweep's bounds (noise.h)? */
static bool too_noisy(const bb_sweep *sw, const bb_gemm_result *r)
{
    return bb_too_noisy(r->spread, r->t_median > 0 ? r->t_sd / r->t_median : 0, sw->spread_limit, sw->sd_limit);
}

static void fill_row(sweep_state *st, const bb_point *p, bb_pool *pool, const bb_gemm_result *r,
                     const double *meter_values, bb_result_row *row)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    const bb_kernel_choice *kc = &sw->kernels[p->kernel];
    const bb_shape *sh = &sw->shapes[p->shape];
    bb_result_row_measured(row, kc->kernel, kc->variant, sh->m, sh->k, p->n, p->threads, p->cache, p->warmup, r);
    row->min_reps = p->min_reps;
    row->min_seconds = p->min_seconds;
    row->delay_s = p->delay;
    snprintf(row->seed, sizeof row->seed, "%llu", (unsigned long long)p->seed);
    sweep_row_roofline(st, row, p->cache);
    snprintf(row->experiment, sizeof row->experiment, "%s", st->ex->name);
    snprintf(row->sweep, sizeof row->sweep, "%s", sw->name);
    row->point = p->index;
    snprintf(row->model, sizeof row->model, "%s", sh->model);
    snprintf(row->roles, sizeof row->roles, "%s", sh->model[0] ? sh->roles : "");
    bb_pool_cpus(pool, row->cpus, sizeof row->cpus);
    row->spread_flag = too_noisy(sw, r);
    row->nmeter = st->nmeter_cols;
    for (int i = 0; i < st->nmeter_cols; i++) row->meter[i] = meter_values[i];
}

/* A flagged row, for the sidecar's warnings. */
void sweep_note_flagged(sweep_state *st, const bb_result_row *r, double limit)
{
    char why[64] = "its sweep's spread_limit";
    if (isfinite(limit)) snprintf(why, sizeof why, "the sweep's spread_limit %.1f%%", limit * 100);
    st->rec.points_flagged++;
    sweep_add_line(&st->rec.flagged, &st->rec.nflagged,
             "point %d (%s: %s@%s M=%d K=%d N=%d threads=%d %s): spread %.1f%% (interquartile range / median) or "
             "sd / median %.1f%% exceeds %s or its sd_limit, after %d attempt%s",
             r->point, r->sweep, r->kernel, r->variant, r->m, r->k, r->n, r->threads, r->cache, r->spread * 100,
             r->t_median_s > 0 ? 100 * r->t_sd_s / r->t_median_s : 0, why, r->attempts, r->attempts == 1 ? "" : "s");
}

static void point_label(const sweep_state *st, const bb_point *p, char *buf, size_t len)
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
    int threads;        /* what a cache level's copies were sized for */
    uint64_t seed;      /* of the weights (a sweep's seed list: plan.h) */
    bb_packed_set set;
    char why[1024];
} weights_slot;

/* Measure a point; one too noisy is measured again, up to the sweep's `remeasure` more times, and
 * the last attempt is kept (keeping the quietest would favour lucky, fast attempts).  A point of
 * fewer than BB_REMEASURE_MIN_REPS calls is not measured again: its quartiles and sd say little
 * (a smoke run's 2 calls), and it is flagged as before.  Returns 0 with *attempts, or -1 with err. */
static int measure_point(sweep_state *st, bb_pool *pool, const weights_slot *ws, const bb_measure_spec *ms,
                         const bb_sweep *sw, const char *label, bb_gemm_result *r, int *attempts, char *err,
                         size_t errlen)
{
    for (*attempts = 1;; ++*attempts) {
        if (bb_gemm_measure(pool, &ws->set, ms, r, err, errlen)) return -1;
        if (r->interrupted || !too_noisy(sw, r) || *attempts > sw->remeasure || r->reps < BB_REMEASURE_MIN_REPS)
            return 0;
        sweep_note(st, "bitbench run: %s: spread %.1f%%, sd/median %.1f%%: measuring again (%d of %d)", label,
                   100 * r->spread, 100 * r->t_sd / r->t_median, *attempts, sw->remeasure);
        free(r->samples);
    }
}

static bool same_weights(const weights_slot *w, const bb_point *p)
{
    return (w->valid || w->failed) && w->sweep == p->sweep && w->kernel == p->kernel && w->shape == p->shape &&
           w->cache == p->cache && w->seed == p->seed && (!bb_cache_mode_level(p->cache) || w->threads == p->threads);
}

/* Accuracy of the points of one (sweep, kernel, shape) verified so far, by N: the plan runs a
 * (kernel, shape) over cache modes, N and thread counts together, and the output of one call does
 * not depend on the cache mode or the thread count, so each N is verified once. */
typedef struct {
    int sweep, kernel, shape;
    uint64_t seed;     /* the weights' and activations' (a sweep's seed list) */
    int count;
    int n[64];
    bb_gemm_result r[64];
} verify_cache;

static const bb_gemm_result *verified_before(const verify_cache *vc, const bb_point *p)
{
    if (vc->sweep != p->sweep || vc->kernel != p->kernel || vc->shape != p->shape || vc->seed != p->seed) return NULL;
    for (int i = 0; i < vc->count; i++)
        if (vc->n[i] == p->n) return &vc->r[i];
    return NULL;
}

static void remember_verified(verify_cache *vc, const bb_point *p, const bb_gemm_result *r)
{
    if (vc->sweep != p->sweep || vc->kernel != p->kernel || vc->shape != p->shape || vc->seed != p->seed) {
        *vc = (verify_cache){.sweep = p->sweep, .kernel = p->kernel, .shape = p->shape, .seed = p->seed};
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
        if (bb_gemm_verify(pool, &ws->set, sw->kernels[p->kernel].variant, p->n, p->seed, &v, err, errlen))
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

/* A point that gave no row: a note, a line in run.json's "failed", and --resume retries it.
 * `stage` ("" or "verify: ") says which step failed. */
static void point_failed(sweep_state *st, const bb_point *p, const char *label, const char *stage, const char *why)
{
    sweep_note(st, "bitbench run: point %d (%s) failed: %s%s", p->index, label, stage, why);
    sweep_add_line(&st->rec.failures, &st->rec.nfailures, "point %d (%s): %s%s", p->index, label, stage, why);
    st->rec.points_failed++;
    bb_progress_step(&st->progress);
}

/* A row whose output exceeds its format's bound: it is written (its verify cell says FAILED), and
 * the point counts as failed: a line on stderr even with --quiet (a wrong result is no note), a
 * line in run.json's "failed", and the run ends "failed". */
void sweep_verify_failed(sweep_state *st, const bb_result_row *r, double bound_ratio)
{
    char what[512], how_far[64] = "exceeds";
    if (isfinite(bound_ratio)) snprintf(how_far, sizeof how_far, "is %.3g times", bound_ratio);
    snprintf(what, sizeof what, "point %d (%s: %s@%s M=%d K=%d N=%d) FAILED verify: max |error| %.3g %s its format's "
             "bound (err_rel_rms %.3g)", r->point, r->sweep, r->kernel, r->variant, r->m, r->k, r->n, r->err_max_abs,
             how_far, r->err_rel_rms);
    bb_progress_clear(&st->progress);
    fprintf(stderr, "bitbench run: %s\n", what);
    sweep_add_line(&st->rec.failures, &st->rec.nfailures, "%s", what);
    st->rec.verify_failed++;
}

/* Build the packed weights of p unless the slot already holds them (or their failure). */
static void weights_for(sweep_state *st, weights_slot *ws, const bb_point *p)
{
    if (same_weights(ws, p)) return;
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    const bb_shape *sh = &sw->shapes[p->shape];
    if (ws->valid) bb_packed_set_free(&ws->set);
    *ws = (weights_slot){.sweep = p->sweep, .kernel = p->kernel, .shape = p->shape, .cache = p->cache,
                         .threads = p->threads, .seed = p->seed};
    if (bb_packed_set_make(sw->kernels[p->kernel].kernel, sh->m, sh->k, p->cache, p->threads, p->seed, st->mach, &ws->set,
                           ws->why, sizeof ws->why))
        ws->failed = true;
    else ws->valid = true;
}

/* Append a measured row to results.csv and the run's rows.  Returns 0 or -1. */
static int record_row(sweep_state *st, FILE *csv, const bb_result_row *row, double spread_limit)
{
    if (bb_csv_write_row(csv, row)) {
        bb_progress_clear(&st->progress);
        fprintf(stderr, "bitbench run: cannot write %s: %s; " BB_CSV_APPEND_REMEDY "\n", st->csv_path, strerror(errno));
        return -1;
    }
    if (add_row(st, row)) return -1;
    if (row->spread_flag) sweep_note_flagged(st, row, spread_limit);
    st->rec.points_done++;
    bb_progress_step(&st->progress);
    return sweep_write_json(st);
}

/* Peer rows (harness/peers/peer_kernels.h) go into results.csv as bitbench's do, but are no
 * points of the plan; a peer row that could not be had is a note and a line in "failed". */
typedef struct {
    sweep_state *st;
    FILE *csv;
} peer_ctx;

static int peer_emit(void *ctx, const bb_result_row *peer_row)
{
    peer_ctx *pc = ctx;
    bb_result_row r = *peer_row, *row = &r;
    char label[256];
    snprintf(label, sizeof label, "peer %s M=%d K=%d N=%d", r.kernel, r.m, r.k, r.n);
    sweep_provenance_keep_load(pc->st, label, &r.prov);
    if (bb_csv_write_row(pc->csv, row)) {
        bb_progress_clear(&pc->st->progress);
        fprintf(stderr, "bitbench run: cannot write %s: %s; " BB_CSV_APPEND_REMEDY "\n", pc->st->csv_path, strerror(errno));
        return -1;
    }
    if (add_row(pc->st, row)) return -1;
    pc->st->peer_rows++;
    return sweep_write_json(pc->st);
}

static void peer_tried(void *ctx)
{
    ((peer_ctx *)ctx)->st->peer_points++;
}

static void peer_fail(void *ctx, const char *label, const char *why)
{
    peer_ctx *pc = ctx;
    sweep_note(pc->st, "bitbench run: peer row (%s) skipped: %s", label, why);
    sweep_add_line(&pc->st->rec.failures, &pc->st->rec.nfailures, "peer row (%s) skipped: %s", label, why);
}

static void peer_running(void *ctx, const char *label)
{
    peer_ctx *pc = ctx;
    bb_progress_show(&pc->st->progress, label);
}

int sweep_measure_points(sweep_state *st, FILE *csv)
{
    weights_slot ws = {0};
    verify_cache *vc = calloc(1, sizeof *vc);
    double meter_values[BB_MAX_METER_VALUES];
    if (!vc) return -1;
    vc->sweep = -1;
    bb_kernel_peers *peers = bb_kernel_peers_new(st->ex);
    peer_ctx pc = {.st = st, .csv = csv};
    bb_kernel_peer_sink sink = {.experiment = st->ex->name, .nmeter = st->nmeter_cols, .emit = peer_emit,
                                .fail = peer_fail, .tried = peer_tried, .running = peer_running,
                                .ctx = &pc};
    if (!peers) {
        free(vc);
        return -1;
    }
    /* --resume: the peer rows an earlier session sought count in the run's "k of N peer points ran" */
    for (int i = 0; i < st->plan->npoints; i++)
        if (sweep_point_done(st, &st->plan->points[i])) {
            int found;
            st->peer_points += bb_kernel_peer_resumed(peers, &st->plan->points[i], st->rows, st->nrows, &found);
            st->peer_rows += found;
        }
    int rc = 0, measured = 0;
    for (int i = 0; i < st->plan->npoints && !sweep_stop && rc == 0; i++) {
        const bb_point *p = &st->plan->points[i];
        if (sweep_point_done(st, p)) continue;
        const bb_sweep *sw = &st->ex->sweeps[p->sweep];
        char label[256], err[1024];
        point_label(st, p, label, sizeof label);
        bb_progress_show(&st->progress, label);
        weights_for(st, &ws, p);
        if (sweep_stop) break;
        bb_pool *pool = ws.failed ? NULL : sweep_pool_for(st, sw, p->threads, err, sizeof err);
        if (!pool) {
            point_failed(st, p, label, "", ws.failed ? ws.why : err);
            continue;
        }
        bb_measure_spec ms = {.variant = sw->kernels[p->kernel].variant, .n = p->n, .warmup = p->warmup,
                              .min_reps = p->min_reps, .max_reps = sw->max_reps, .min_seconds = p->min_seconds,
                              .seed = p->seed, .meters = st->meters, .nmeters = st->nmeters,
                              .meter_values = meter_values, .stop = &sweep_stop, .keep_samples = true,
                              .read_alone = sw->read};
        bb_gemm_result r;
        bb_load_reading load_before;
        int attempts;
        if (measured++) sweep_cool_down(st, p->delay);
        bb_load_read(&load_before);
        if (measure_point(st, pool, &ws, &ms, sw, label, &r, &attempts, err, sizeof err)) {
            point_failed(st, p, label, "", err);
            continue;
        }
        if (r.interrupted) {
            free(r.samples);
            break; /* an unfinished point is not a result */
        }
        if (sw->verify && verify_point(vc, pool, &ws, p, sw, &r, err, sizeof err)) {
            free(r.samples);
            point_failed(st, p, label, "verify: ", err);
            continue;
        }
        bb_result_row row;
        fill_row(st, p, pool, &r, meter_values, &row);
        row.attempts = attempts;
        sweep_provenance(st, &load_before, label, &row.prov);
        rc = r.samples ? sweep_write_samples(st, &row, r.samples, r.reps) : -1;
        free(r.samples);
        if (rc == 0) rc = record_row(st, csv, &row, sw->spread_limit);
        if (rc == 0 && !strcmp(row.verify, "FAILED")) {
            sweep_verify_failed(st, &row, r.bound_ratio);
            rc = sweep_write_json(st);
        }
        if (rc == 0) rc = bb_kernel_peer_rows_after(peers, &sink, p);
    }
    if (ws.valid) bb_packed_set_free(&ws.set);
    bb_kernel_peers_free(peers);
    free(vc);
    return rc;
}
