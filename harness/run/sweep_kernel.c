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
    r.rounds = r.round = 1; /* a sweep with peers has one round */
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

/* One measured round of a kernel point: the measurement (its samples malloc'd), the meters'
 * values, the load around it, the attempts it took. */
typedef struct {
    bb_gemm_result r;
    double meter_values[BB_MAX_METER_VALUES];
    bb_row_provenance prov;
    int attempts;
} kernel_round;

/* The rounds of one point so far (a sweep's `rounds`). */
typedef struct {
    kernel_round *rounds;
    int done;
    bool failed;
} point_rounds;

/* The rounds' memory; done and failed stay, so that a point given up is not measured again in a
 * later round. */
static void point_rounds_free(point_rounds *pr)
{
    for (int r = 0; pr->rounds && r < pr->done; r++) free(pr->rounds[r].r.samples);
    free(pr->rounds);
    pr->rounds = NULL;
}

/* What picks a point's median round: its time over a read of its bytes when the sweep reads beside
 * the calls (what issue 32's goals judge), else its median time.  Higher is slower. */
static double round_key(const kernel_round *k) { return k->r.read_alone ? k->r.read_ratio_paired : k->r.t_median; }

/* ';'-separated, in round order, %.6g. */
static void round_list(const point_rounds *pr, int nrounds, bool ratio, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int r = 0; r < nrounds && o < len; r++) {
        const bb_gemm_result *g = &pr->rounds[r].r;
        o += (size_t)snprintf(buf + o, len - o, "%s%.6g", r ? ";" : "", ratio ? g->read_ratio_paired : g->t_median);
    }
}

/* A point's last round is done: its row is the round whose key (round_key) is the median (the
 * slower of the two middle ones of an even count), verified when the sweep asks (outside every
 * timing; ws holds the point's weights, its last round just ran), with every round's figures in
 * the rounds_* columns and every round's calls in samples.csv, in the order they ran; then the
 * peer rows after it.  Returns 0 (a failed verify is a note, the point failed) or -1. */
static int finish_point(sweep_state *st, FILE *csv, verify_cache *vc, bb_pool *pool, const weights_slot *ws,
                        const bb_point *p, const char *label, point_rounds *pr, bb_kernel_peers *peers,
                        bb_kernel_peer_sink *sink)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    int nrounds = pr->done;
    double keys[BB_SWEEP_MAX_ROUNDS];
    for (int r = 0; r < nrounds; r++) keys[r] = round_key(&pr->rounds[r]);
    int m = sweep_median_round(keys, nrounds, true);
    kernel_round *kept = &pr->rounds[m];
    char err[1024];
    if (sw->verify && verify_point(vc, pool, ws, p, sw, &kept->r, err, sizeof err)) {
        point_failed(st, p, label, "verify: ", err);
        return 0;
    }
    bb_result_row row;
    fill_row(st, p, pool, &kept->r, kept->meter_values, &row);
    row.attempts = kept->attempts;
    row.prov = kept->prov;
    row.rounds = nrounds;
    row.round = m + 1;
    if (nrounds > 1) {
        round_list(pr, nrounds, false, row.rounds_t_median_s, sizeof row.rounds_t_median_s);
        if (kept->r.read_alone)
            round_list(pr, nrounds, true, row.rounds_read_ratio_paired, sizeof row.rounds_read_ratio_paired);
    }
    size_t n = 0;
    for (int r = 0; r < nrounds; r++) n += (size_t)pr->rounds[r].r.reps;
    double *all = malloc(sizeof *all * (n ? n : 1));
    if (!all) return -1;
    n = 0;
    for (int r = 0; r < nrounds; r++) {
        memcpy(all + n, pr->rounds[r].r.samples, sizeof *all * (size_t)pr->rounds[r].r.reps);
        n += (size_t)pr->rounds[r].r.reps;
    }
    int rc = sweep_write_samples(st, &row, all, (int)n);
    free(all);
    if (rc == 0) rc = record_row(st, csv, &row, sw->spread_limit);
    if (rc == 0 && !strcmp(row.verify, "FAILED")) {
        sweep_verify_failed(st, &row, kept->r.bound_ratio);
        rc = sweep_write_json(st);
    }
    if (rc == 0) rc = bb_kernel_peer_rows_after(peers, sink, p);
    return rc;
}

/* What the rounds of a sweep's points share: the weights built, the verified outputs, the peers. */
typedef struct {
    weights_slot ws;
    verify_cache *vc;
    bb_kernel_peers *peers;
    bb_kernel_peer_sink *sink;
    int measured;
} points_ctx;

/* Round r of point p into pr; its last round writes the row (finish_point).  Returns 0 (a point
 * that failed is a note and a line in "failed"), 1 when the run was interrupted mid-point, or -1
 * when it cannot go on. */
static int point_round(sweep_state *st, FILE *csv, points_ctx *pc, const bb_point *p, int r, point_rounds *pr)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    int nrounds = sw->rounds > 1 ? sw->rounds : 1;
    char label[256], shown[320], err[1024];
    point_label(st, p, label, sizeof label);
    if (nrounds > 1) snprintf(shown, sizeof shown, "%s, round %d of %d", label, r + 1, nrounds);
    else snprintf(shown, sizeof shown, "%s", label);
    bb_progress_show(&st->progress, shown);
    if (!pr->rounds && !(pr->rounds = calloc((size_t)nrounds, sizeof *pr->rounds))) return -1;
    weights_for(st, &pc->ws, p);
    if (sweep_stop) return 1;
    bb_pool *pool = pc->ws.failed ? NULL : sweep_pool_for(st, sw, p->threads, err, sizeof err);
    if (!pool) {
        point_failed(st, p, shown, "", pc->ws.failed ? pc->ws.why : err);
        pr->failed = true;
        return 0;
    }
    kernel_round *kr = &pr->rounds[r];
    bb_measure_spec ms = {.variant = sw->kernels[p->kernel].variant, .n = p->n, .warmup = p->warmup,
                          .min_reps = p->min_reps, .max_reps = sw->max_reps, .min_seconds = p->min_seconds,
                          .seed = p->seed, .meters = st->meters, .nmeters = st->nmeters,
                          .meter_values = kr->meter_values, .stop = &sweep_stop, .keep_samples = true,
                          .read_alone = sw->read};
    bb_load_reading load_before;
    if (pc->measured++) sweep_cool_down(st, p->delay);
    bb_load_read(&load_before);
    if (measure_point(st, pool, &pc->ws, &ms, sw, shown, &kr->r, &kr->attempts, err, sizeof err)) {
        point_failed(st, p, shown, "", err);
        pr->failed = true;
        return 0;
    }
    pr->done = r + 1;
    if (kr->r.interrupted) return 1; /* an unfinished point is not a result */
    if (!kr->r.samples) return -1;
    sweep_provenance(st, &load_before, label, &kr->prov);
    if (pr->done < nrounds) return 0;
    return finish_point(st, csv, pc->vc, pool, &pc->ws, p, label, pr, pc->peers, pc->sink);
}

/* The points of one sweep, plan->points[first..end): round by round (a sweep's `rounds`: every
 * point's round 1, then every point's round 2, ...); with one round, each point's row right after it. */
static int measure_sweep_points(sweep_state *st, FILE *csv, points_ctx *pc, int first, int end)
{
    const bb_point *points = st->plan->points;
    const bb_sweep *sw = &st->ex->sweeps[points[first].sweep];
    int nrounds = sw->rounds > 1 ? sw->rounds : 1, rc = 0;
    point_rounds *rounds = calloc((size_t)(end - first), sizeof *rounds);
    if (!rounds) return -1;
    for (int r = 0; r < nrounds && rc == 0; r++)
        for (int i = first; i < end && !sweep_stop && rc == 0; i++) {
            point_rounds *pr = &rounds[i - first];
            if (pr->failed || sweep_point_done(st, &points[i])) continue;
            rc = point_round(st, csv, pc, &points[i], r, pr);
            if (pr->done == nrounds || pr->failed) point_rounds_free(pr); /* written, or given up */
        }
    for (int i = first; i < end; i++) point_rounds_free(&rounds[i - first]);
    free(rounds);
    return rc < 0 ? -1 : 0;
}

int sweep_measure_points(sweep_state *st, FILE *csv)
{
    points_ctx pc = {.vc = calloc(1, sizeof *pc.vc), .peers = bb_kernel_peers_new(st->ex)};
    peer_ctx peer = {.st = st, .csv = csv};
    bb_kernel_peer_sink sink = {.experiment = st->ex->name, .nmeter = st->nmeter_cols, .emit = peer_emit,
                                .fail = peer_fail, .tried = peer_tried, .running = peer_running,
                                .ctx = &peer};
    pc.sink = &sink;
    if (!pc.vc || !pc.peers) {
        free(pc.vc);
        bb_kernel_peers_free(pc.peers);
        return -1;
    }
    pc.vc->sweep = -1;
    /* --resume: the peer rows an earlier session sought count in the run's "k of N peer points ran" */
    for (int i = 0; i < st->plan->npoints; i++)
        if (sweep_point_done(st, &st->plan->points[i])) {
            int found;
            st->peer_points += bb_kernel_peer_resumed(pc.peers, &st->plan->points[i], st->rows, st->nrows, &found);
            st->peer_rows += found;
        }
    int rc = 0;
    for (int i = 0, end; i < st->plan->npoints && !sweep_stop && rc == 0; i = end) {
        for (end = i + 1; end < st->plan->npoints && st->plan->points[end].sweep == st->plan->points[i].sweep; end++) {}
        rc = measure_sweep_points(st, csv, &pc, i, end);
    }
    if (pc.ws.valid) bb_packed_set_free(&pc.ws.set);
    bb_kernel_peers_free(pc.peers);
    free(pc.vc);
    return rc;
}
