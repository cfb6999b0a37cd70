/* The end-to-end points of a run (model sweeps): bb_e2e_bench for each, the meters around each
 * repetition's generation, the logit comparison with a reference kernel, perplexity and peer
 * points, one row appended to e2e.csv. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/e2e_bench.h"
#include "bench/logit_compare.h"
#include "bench/perplexity_job.h"
#include "io/csv_append.h"
#include "io/json_read.h"
#include "meters/energy.h"
#include "peers/peer_sweep.h"
#include "results/result_row.h"
#include "run/sweep_state.h"

static bool e2e_same(const bb_e2e_row *r, const char *sweep, const char *model, const char *kernel, const char *variant,
                     int threads, int prompt, int gen, int depth)
{
    return !strcmp(r->sweep, sweep) && !strcmp(r->model, model) && !strcmp(r->kernel, kernel) &&
           !strcmp(r->variant, variant) && r->threads == threads && r->prompt == prompt && r->gen == gen &&
           r->depth == depth;
}

static bool e2e_done(const sweep_state *st, const bb_e2e_point *p)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    const bb_kernel_choice *kc = &sw->kernels[p->kernel];
    for (int i = 0; i < st->ne2e_rows; i++)
        if (e2e_same(&st->e2e_rows[i], sw->name, sw->models[p->model].name, kc->kernel->name, kc->variant->isa,
                     p->threads, p->prompt, p->gen, p->depth))
            return true;
    return false;
}

static int e2e_add(sweep_state *st, const bb_e2e_row *r)
{
    bb_e2e_row *v = realloc(st->e2e_rows, sizeof *v * (size_t)(st->ne2e_rows + 1));
    if (!v) return -1;
    st->e2e_rows = v;
    v[st->ne2e_rows++] = *r;
    return 0;
}

/* An earlier session's e2e.csv holds each end-to-end point once (peer rows, `peer` set, share
 * their point's id), or it is not one run's and is not extended.  Returns 0, or -1 with err. */
static int e2e_repeated_point(sweep_state *st, char *err, size_t errlen)
{
    int *ids = malloc(sizeof *ids * (size_t)(st->ne2e_rows ? st->ne2e_rows : 1)), n = 0;
    if (!ids) {
        snprintf(err, errlen, "out of memory reading %s", st->e2e_path);
        return -1;
    }
    for (int i = 0; i < st->ne2e_rows; i++)
        if (!st->e2e_rows[i].peer[0]) ids[n++] = st->e2e_rows[i].point;
    int repeated = sweep_repeated_point(ids, n);
    free(ids);
    if (!repeated) return 0;
    snprintf(err, errlen, "--resume: %s holds end-to-end point %d more than once, so it is not the rows of one run; "
                          "it is not extended (run without --resume for a new run)", st->e2e_path, repeated);
    return -1;
}

static FILE *e2e_open(sweep_state *st, char *err, size_t errlen)
{
    snprintf(st->e2e_path, sizeof st->e2e_path, "%s/%s", st->dir, E2E_NAME);
    bb_e2e_header(st->meter_cols, st->nmeter_cols, st->e2e_header, sizeof st->e2e_header);
    /* resumed: the rows there carry on, unless its header never got written (no rows yet) */
    if (!st->opt->resume || bb_csv_append_unstarted(st->e2e_path))
        return bb_csv_append_start(st->e2e_path, st->e2e_header, err, errlen);
    if (bb_e2e_read(st->e2e_path, st->e2e_header, st->nmeter_cols, &st->e2e_rows, &st->ne2e_rows, err, errlen) ||
        e2e_repeated_point(st, err, errlen))
        return NULL;
    FILE *f = fopen(st->e2e_path, "a");
    if (!f) snprintf(err, errlen, "cannot append to %s: %s", st->e2e_path, strerror(errno));
    return f;
}

/* "12.3%", or "-" for a phase not measured. */
static void spread_text(double spread, char *buf, size_t len)
{
    if (isfinite(spread)) snprintf(buf, len, "%.1f%%", 100 * spread);
    else snprintf(buf, len, "-");
}

/* A row still flagged after its attempts (bitbench's or a peer's): counted, with a line in run.json's
 * warnings naming the spreads and the sweep's bounds. */
static void e2e_note_flagged(sweep_state *st, const bb_e2e_row *r)
{
    double spread_limit = NAN, sd_limit = NAN;
    for (int s = 0; s < st->ex->nsweeps; s++)
        if (!strcmp(st->ex->sweeps[s].name, r->sweep)) {
            spread_limit = st->ex->sweeps[s].spread_limit;
            sd_limit = st->ex->sweeps[s].sd_limit;
        }
    char pp[16], tg[16];
    spread_text(r->pp_spread, pp, sizeof pp);
    spread_text(r->tg_spread, tg, sizeof tg);
    st->rec.e2e_flagged++;
    sweep_add_line(&st->rec.flagged, &st->rec.nflagged,
                   "e2e point %d (%s: %s %s pp%d tg%d threads=%d%s%s): spread pp %s, tg %s (interquartile range / "
                   "median of the repetitions' times) or sd / median exceeds the sweep's spread_limit %.1f%% or "
                   "sd_limit %.0f%%, after %d attempt%s", r->point, r->sweep, r->model, r->kernel, r->prompt, r->gen,
                   r->threads, r->peer[0] ? ", peer " : "", r->peer, pp, tg, 100 * spread_limit, 100 * sd_limit,
                   r->attempts, r->attempts == 1 ? "" : "s");
}

static void e2e_fail(sweep_state *st, const bb_e2e_point *p, const char *label, const char *why)
{
    sweep_note(st, "bitbench run: e2e point %d (%s) failed: %s", p->index, label, why);
    sweep_add_line(&st->rec.failures, &st->rec.nfailures, "e2e point %d (%s): %s", p->index, label, why);
    st->rec.e2e_failed++;
}

/* The meters around each repetition's token generation: one set of values per repetition, of which
 * the row keeps the median repetition's (the one tg_tps reports). */
typedef struct {
    sweep_state *st;
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

static const float *reference_logits(sweep_state *st, bb_pool *pool, const bb_sweep *sw, const bb_model_config *cfg,
                                     const int *tokens, char *err, size_t errlen)
{
    for (int i = 0; i < st->nrefs; i++) {
        const struct ref_logits *r = &st->refs[i];
        if (!strcmp(r->model, cfg->name) && !strcmp(r->kernel, sw->compare_logits) &&
            !strcmp(r->out_kernel, sw->out_kernel) && r->seed == sw->seed &&
            r->distinct_layers == sw->distinct_layers && r->ntokens == sw->compare_tokens && r->kv_k == sw->kv_k &&
            r->kv_v == sw->kv_v)
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
    r->kv_k = sw->kv_k;
    r->kv_v = sw->kv_v;
    r->logits = malloc(sizeof(float) * (size_t)sw->compare_tokens * (size_t)cfg->vocab_size);
    if (!r->logits) {
        snprintf(err, errlen, "out of memory for %d x %d reference logits", sw->compare_tokens, cfg->vocab_size);
        return NULL;
    }
    bb_e2e_spec spec = {.model = cfg, .kernel = sw->compare_logits,
                        .out_kernel = sw->out_kernel[0] ? sw->out_kernel : NULL,
                        .seq_len = sw->compare_tokens, .distinct_layers = sw->distinct_layers, .kv_k = sw->kv_k,
                        .kv_v = sw->kv_v, .seed = sw->seed, .logit_tokens = tokens, .n_logit_tokens = sw->compare_tokens,
                        .logits_out = r->logits};
    char e[BB_ERR_MAX];
    if (bb_e2e_logits(pool, &spec, e, sizeof e)) {
        snprintf(err, errlen, "compare_logits: reference %s: %s", sw->compare_logits, e);
        free(r->logits);
        return NULL;
    }
    st->nrefs++;
    return r->logits;
}

static void fill_e2e_row(const sweep_state *st, const bb_e2e_point *p, const bb_e2e_spec *spec, const bb_e2e_result *r,
                         const bb_logit_diff *diff, double energy, const double *meter_values, bb_e2e_row *row)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    bb_e2e_row_measured(row, spec, p->threads, r);
    snprintf(row->experiment, sizeof row->experiment, "%s", st->ex->name);
    snprintf(row->sweep, sizeof row->sweep, "%s", sw->name);
    row->point = p->index;
    snprintf(row->ref_kernel, sizeof row->ref_kernel, "%s", diff ? sw->compare_logits : "");
    row->logit_max_abs_err = diff ? diff->max_abs_err : NAN;
    row->logit_rel_rms_err = diff ? diff->rel_rms_err : NAN;
    row->top1_agreement = diff ? diff->top1_agreement : NAN;
    row->logits_identical = diff ? diff->identical : NAN;
    row->energy_per_token_j = energy;
    row->nmeter = st->nmeter_cols;
    for (int c = 0; c < st->nmeter_cols; c++) row->meter[c] = meter_values ? meter_values[c] : NAN;
}

/* The sweep's `perplexity` through the point's kernel, out_kernel, kv and threads, into row's ppl
 * columns; what became of the scored model's weights goes to run.json's conversions under its
 * ppl_model name. */
static int e2e_perplexity(sweep_state *st, bb_pool *pool, const bb_sweep *sw, const bb_model_config *cfg,
                          const bb_kernel_choice *kc, bb_e2e_row *row, char *err, size_t errlen)
{
    bb_ppl_job job = {.model = sw->ppl_model[0] ? sw->ppl_model : cfg->name, .text_file = sw->ppl_file,
                      .ctx = sw->ppl_ctx, .max_chunks = sw->ppl_chunks, .kernel = kc->spec,
                      .out_kernel = sw->out_kernel[0] ? sw->out_kernel : NULL, .kv_k = sw->kv_k,
                      .kv_v = sw->kv_v, .seed = sw->seed,
                      .distinct_layers = sw->distinct_layers};
    bb_ppl_outcome o;
    char e[BB_ERR_MAX];
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
    if (sweep_note_conversions(st, row->ppl_model, kc->spec, o.out_kernel, o.conversions)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* run.json's conversions: one entry per model, kernel and out_kernel (the same build whatever the
 * threads and lengths).  Returns 0, or -1 when out of memory. */
int sweep_note_conversions(sweep_state *st, const char *model, const char *kernel, const char *out_kernel,
                           const char *lines)
{
    bb_run_record *rec = &st->rec;
    for (int i = 0; i < rec->nconversions; i++) {
        const bb_run_conversion *c = &rec->conversions[i];
        if (!strcmp(c->model, model) && !strcmp(c->kernel, kernel) && !strcmp(c->out_kernel, out_kernel)) return 0;
    }
    bb_run_conversion *v = realloc(rec->conversions, sizeof *v * (size_t)(rec->nconversions + 1));
    if (!v) return -1;
    rec->conversions = v;
    bb_run_conversion *c = &v[rec->nconversions++];
    snprintf(c->model, sizeof c->model, "%s", model);
    snprintf(c->kernel, sizeof c->kernel, "%s", kernel);
    snprintf(c->out_kernel, sizeof c->out_kernel, "%s", out_kernel);
    snprintf(c->lines, sizeof c->lines, "%s", lines);
    return 0;
}

void sweep_resume_conversions(sweep_state *st, const bb_jv *list)
{
    for (int i = 0; list && list->type == BB_JV_ARR && i < list->n; i++) {
        const bb_jv *e = &list->items[i], *w = bb_jv_get(e, "weights");
        const char *model = bb_jv_str(e, "model"), *kernel = bb_jv_str(e, "kernel");
        const char *out = bb_jv_str(e, "out_kernel");
        if (!model || !kernel || !out || !w || w->type != BB_JV_OBJ) continue;
        char lines[1024];
        size_t o = 0;
        for (int k = 0; k < w->n && o < sizeof lines; k++)
            if (w->items[k].type == BB_JV_STR)
                o += (size_t)snprintf(lines + o, sizeof lines - o, "%s%s: %s", o ? "\n" : "", w->keys[k], w->items[k].str);
        sweep_note_conversions(st, model, kernel, out, lines);
    }
}

/* The rounds of one point measured so far (a sweep's `rounds`): each round's row and the seconds
 * of its repetitions (prefill, then generation, reps each). */
typedef struct {
    bb_e2e_row *rows;
    double *seconds;
    int done;
    bool failed;
    /* the peer rows of its rounds so far (peer_emit), each with its round, written when the point
     * is done (peer_rounds_write) */
    bb_e2e_row *peers;
    int *peer_round, npeers;
} e2e_rounds;

/* The rounds' memory; done and failed stay, so that a point given up is not measured again in a
 * later round. */
static void rounds_free(e2e_rounds *pr)
{
    free(pr->rows);
    free(pr->seconds);
    free(pr->peers);
    free(pr->peer_round);
    pr->rows = pr->peers = NULL;
    pr->seconds = NULL;
    pr->peer_round = NULL;
    pr->npeers = 0;
}

/* What picks a point's median round: its decode's share of the read-alone bound (what issue 32's
 * goals judge), else (a peer's row has none) its decode tokens/s, else its prefill's. */
static double round_key(const bb_e2e_row *r)
{
    if (r->gen > 0 && isfinite(r->tg_of_read) && r->tg_of_read > 0) return r->tg_of_read;
    return r->gen > 0 ? r->tg_tps : r->pp_tps;
}

/* ';'-separated, rows[0..n) in round order; "" when the phase was not measured. */
static void round_list(const bb_e2e_row *rows, int n, double (*get)(const bb_e2e_row *), char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int r = 0; r < n && o < len; r++) {
        double v = get(&rows[r]);
        if (!isfinite(v) || v <= 0) {
            buf[0] = 0;
            return;
        }
        o += (size_t)snprintf(buf + o, len - o, "%s%.6g", r ? ";" : "", v);
    }
}

static double get_pp(const bb_e2e_row *r) { return r->pp_tps; }
static double get_tg(const bb_e2e_row *r) { return r->tg_tps; }
static double get_share(const bb_e2e_row *r) { return r->tg_of_read; }

/* rows[0..n): one point's rounds in round order.  *out is the round whose key (round_key) is the
 * median (the slower of the two middle ones of an even count), with rounds = n and, of several,
 * every round's figures in the rounds_* columns; returns its index. */
static int median_round_row(const bb_e2e_row *rows, int n, bb_e2e_row *out)
{
    double keys[BB_SWEEP_MAX_ROUNDS];
    for (int r = 0; r < n; r++) keys[r] = round_key(&rows[r]);
    int m = sweep_median_round(keys, n, false);
    *out = rows[m];
    out->rounds = n;
    out->round = m + 1;
    if (n > 1) {
        round_list(rows, n, get_pp, out->rounds_pp_tps, sizeof out->rounds_pp_tps);
        round_list(rows, n, get_tg, out->rounds_tg_tps, sizeof out->rounds_tg_tps);
        round_list(rows, n, get_share, out->rounds_tg_of_read, sizeof out->rounds_tg_of_read);
    }
    return m;
}

/* Peer rows (harness/peers/peer_sweep.h) go into e2e.csv as bitbench's own do; a peer point that
 * gives no row is a note and a line in run.json's "failed", not a failed point: bitbench's own
 * measurements stand without it.  With rounds a peer point runs in every round, just before its
 * bitbench point's, and its row is its median round, written when that point is done. */
typedef struct {
    sweep_state *st;
    FILE *f;
    const bb_e2e_point *p;
    e2e_rounds *pr;
    int round, nrounds;
} peer_ctx;

static int peer_write(sweep_state *st, FILE *f, const bb_e2e_row *row)
{
    if (bb_e2e_write_row(f, row)) {
        fprintf(stderr, "bitbench run: cannot write %s: %s; " BB_CSV_APPEND_REMEDY "\n", st->e2e_path, strerror(errno));
        return -1;
    }
    st->peer_rows++;
    if (e2e_add(st, row)) return -1;
    if (row->spread_flag) e2e_note_flagged(st, row);
    return sweep_write_json(st);
}

static int peer_emit(void *ctx, const bb_e2e_row *peer_row)
{
    peer_ctx *pc = ctx;
    bb_e2e_row r = *peer_row;
    r.rounds = r.round = 1;
    char label[256];
    snprintf(label, sizeof label, "peer %s %s pp%d tg%d t%d", r.model, r.kernel, r.prompt, r.gen, r.threads);
    sweep_provenance_keep_load(pc->st, label, &r.prov);
    if (pc->nrounds <= 1) return peer_write(pc->st, pc->f, &r);
    e2e_rounds *pr = pc->pr;
    bb_e2e_row *v = realloc(pr->peers, sizeof *v * (size_t)(pr->npeers + 1));
    if (v) pr->peers = v;
    int *w = v ? realloc(pr->peer_round, sizeof *w * (size_t)(pr->npeers + 1)) : NULL;
    if (!w) {
        fprintf(stderr, "bitbench run: out of memory\n");
        return -1;
    }
    pr->peer_round = w;
    v[pr->npeers] = r;
    w[pr->npeers++] = pc->round;
    return 0;
}

/* A point is done or given up: each of its peers' row is the round whose tokens/s (round_key) is the
 * median of the rounds that gave the peer a row (the slower middle one of an even count), with those
 * rounds' figures in the rounds_* columns.  Returns 0 or -1 (a row not written). */
static int peer_rounds_write(sweep_state *st, FILE *f, e2e_rounds *pr)
{
    bool *done = calloc((size_t)(pr->npeers ? pr->npeers : 1), sizeof *done);
    bb_e2e_row *rows = malloc(sizeof *rows * (size_t)(pr->npeers ? pr->npeers : 1));
    int rc = done && rows ? 0 : -1;
    for (int i = 0; i < pr->npeers && rc == 0; i++) {
        if (done[i]) continue;
        int n = 0, at[BB_SWEEP_MAX_ROUNDS];
        for (int j = i; j < pr->npeers && n < BB_SWEEP_MAX_ROUNDS; j++) /* in round order: emitted so */
            if (!done[j] && !strcmp(pr->peers[j].kernel, pr->peers[i].kernel)) {
                done[j] = true;
                rows[n] = pr->peers[j];
                at[n++] = pr->peer_round[j];
            }
        bb_e2e_row row;
        int m = median_round_row(rows, n, &row);
        row.round = at[m] + 1; /* the sweep's round, not the m-th that gave the peer a row */
        rc = peer_write(st, f, &row);
    }
    if (!done || !rows) fprintf(stderr, "bitbench run: out of memory\n");
    free(done);
    free(rows);
    return rc;
}

static void peer_tried(void *ctx)
{
    ((peer_ctx *)ctx)->st->peer_points++;
}

static void peer_fail(void *ctx, const char *label, const char *why)
{
    peer_ctx *pc = ctx;
    sweep_note(pc->st, "bitbench run: peer point (%s) skipped: %s", label, why);
    sweep_add_line(&pc->st->rec.failures, &pc->st->rec.nfailures, "peer point (%s) skipped: %s", label, why);
}

/* --resume: point p was measured by an earlier session, and its peer points were run then (just
 * before it); they count among the run's peer points, and those that gave a row among the rows, so
 * that "k of N peer points ran" is the whole run's. */
static void earlier_peers(sweep_state *st, const bb_e2e_point *p)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    for (int e = 0; e < sw->npeers; e++) {
        if (bb_peer_attached_kernel(sw, sw->peers[e]) != p->kernel) continue;
        st->peer_points++;
        for (int i = 0; i < st->ne2e_rows; i++) {
            const bb_e2e_row *r = &st->e2e_rows[i];
            if (r->peer[0] && r->point == p->index && !strcmp(r->sweep, sw->name) && !strcmp(r->kernel, sw->peers[e])) {
                st->peer_rows++;
                break;
            }
        }
    }
}

/* Point p's peer points in round r (pr: p's rounds): counted among the run's peer points in round 1. */
static int peer_points(sweep_state *st, FILE *f, const bb_e2e_point *p, e2e_rounds *pr, int r)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    if (!sw->npeers) return 0;
    peer_ctx pc = {.st = st, .f = f, .p = p, .pr = pr, .round = r, .nrounds = sw->rounds > 1 ? sw->rounds : 1};
    bb_peer_sink sink = {.run_dir = st->dir, .experiment = st->ex->name, .nmeter = st->nmeter_cols,
                         .quiet = st->opt->quiet, .emit = peer_emit, .fail = peer_fail,
                         .tried = r == 0 ? peer_tried : NULL, .ctx = &pc};
    return bb_peer_points_for(&sink, sw, p);
}

/* One point's measurement around bb_e2e_bench_interleaved: its spec, its meters, the buffers of its
 * compared logits, its result.  Not moved once prepared: the spec points into it. */
typedef struct {
    const bb_e2e_point *p;
    char label[256];
    bb_e2e_spec spec;
    gen_meters gm;
    int *ctokens;
    float *clogits;
    bool compare;
    bb_e2e_result r;
} e2e_job;

static void job_free(e2e_job *j)
{
    free(j->gm.values);
    free(j->ctokens);
    free(j->clogits);
    j->gm.values = NULL;
    j->ctokens = NULL;
    j->clogits = NULL;
}

/* The spec of point p into j: round outputs (the first) compares logits when the sweep asks; the
 * seconds of its repetitions go to pp_seconds and tg_seconds.  Returns 0, or -1 with err. */
static int job_prepare(sweep_state *st, const bb_e2e_point *p, const char *label, bool outputs, double *pp_seconds,
                       double *tg_seconds, e2e_job *j, char *err, size_t errlen)
{
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    const bb_model_config *cfg = &sw->models[p->model];
    *j = (e2e_job){.p = p, .gm = {.st = st, .reps = sw->min_reps > 0 ? sw->min_reps : 1}};
    snprintf(j->label, sizeof j->label, "%s", label);
    j->gm.values = malloc(sizeof *j->gm.values * (size_t)j->gm.reps * (size_t)(st->nmeter_cols ? st->nmeter_cols : 1));
    /* compare_logits: the point's own logits of the compared tokens, taken after its timing */
    j->compare = outputs && sw->compare_logits[0] != 0;
    int ntok = j->compare ? sw->compare_tokens : 0;
    if (j->compare) {
        j->ctokens = malloc(sizeof *j->ctokens * (size_t)ntok);
        j->clogits = malloc(sizeof *j->clogits * (size_t)ntok * (size_t)cfg->vocab_size);
    }
    if (!j->gm.values || (j->compare && (!j->ctokens || !j->clogits))) {
        snprintf(err, errlen, "%s", j->gm.values ? "out of memory for the compared logits" : "out of memory");
        job_free(j);
        return -1;
    }
    for (size_t v = 0; v < (size_t)j->gm.reps * (size_t)st->nmeter_cols; v++) j->gm.values[v] = NAN;
    if (j->compare) bb_logit_tokens(sw->seed, cfg->vocab_size, ntok, j->ctokens);
    j->spec = (bb_e2e_spec){.model = cfg, .kernel = sw->kernels[p->kernel].spec,
                            .out_kernel = sw->out_kernel[0] ? sw->out_kernel : NULL, .prompt_len = p->prompt,
                            .gen_len = p->gen, .reps = sw->min_reps, .distinct_layers = sw->distinct_layers,
                            .kv_k = sw->kv_k, .kv_v = sw->kv_v, .depth = p->depth, .seed = sw->seed,
                            .gen_begin = gen_begin, .gen_end = gen_end, .hook_ctx = &j->gm,
                            .logit_tokens = j->ctokens, .n_logit_tokens = ntok, .logits_out = j->clogits,
                            .seq_len = p->depth + p->prompt + p->gen > ntok ? p->depth + p->prompt + p->gen : ntok,
                            .pp_seconds = pp_seconds, .tg_seconds = tg_seconds};
    return 0;
}

/* The attempts of a group of points measured side by side (one point without interleave): after
 * each, bb_e2e_bench_interleaved asks e2e_again whether to time their repetitions again (noise.h:
 * a point whose repetitions disagree beyond the sweep's bounds, up to its `remeasure` more times, as
 * kernel points; every point of the group is timed again, so they stay side by side; the last
 * attempt is kept). */
typedef struct {
    sweep_state *st;
    const bb_sweep *sw;
    e2e_job *jobs;
    int n, attempts;
} e2e_attempts;

static bool e2e_again(void *ctx)
{
    e2e_attempts *a = ctx;
    if (sweep_stop || a->attempts > a->sw->remeasure) return false;
    bool again = false;
    for (int i = 0; i < a->n; i++) {
        const e2e_job *j = &a->jobs[i];
        bb_e2e_row probe = {.prompt = j->p->prompt, .gen = j->p->gen};
        if (!bb_e2e_row_noise(&probe, j->spec.pp_seconds, j->gm.reps, j->spec.tg_seconds, j->gm.reps,
                              a->sw->spread_limit, a->sw->sd_limit, bb_sweep_spread_phases(a->sw)))
            continue;
        char pp[16], tg[16];
        spread_text(probe.pp_spread, pp, sizeof pp);
        spread_text(probe.tg_spread, tg, sizeof tg);
        sweep_note(a->st, "bitbench run: e2e %s: spread pp %s, tg %s: measuring again (%d of %d)%s", j->label, pp, tg,
                   a->attempts, a->sw->remeasure, a->n > 1 ? ", with the points interleaved with it" : "");
        again = true;
    }
    if (!again) return false;
    a->attempts++;
    for (int i = 0; i < a->n; i++) {
        gen_meters *gm = &a->jobs[i].gm;
        for (size_t v = 0; v < (size_t)gm->reps * (size_t)a->st->nmeter_cols; v++) gm->values[v] = NAN;
    }
    return true;
}

/* After the timing: the logit comparison, the row, its noise, the conversions and the perplexity the
 * sweep asks for (round outputs only).  Returns 0, or -1 with err. */
static int job_finish(sweep_state *st, bb_pool *pool, e2e_job *j, bool outputs, int attempts, const char *interleaved,
                      bb_e2e_row *row, char *err, size_t errlen)
{
    const bb_e2e_point *p = j->p;
    const bb_sweep *sw = &st->ex->sweeps[p->sweep];
    const bb_kernel_choice *kc = &sw->kernels[p->kernel];
    const bb_model_config *cfg = &sw->models[p->model];
    bb_logit_diff diff = {0};
    if (j->compare) {
        const float *ref = reference_logits(st, pool, sw, cfg, j->ctokens, err, errlen);
        if (!ref) return -1;
        bb_logits_compare(ref, j->clogits, sw->compare_tokens, cfg->vocab_size, &diff);
    }
    const bb_e2e_result *r = &j->r;
    const double *mv = NULL; /* the median repetition's meter values; none without generation */
    if (r->tg_median_rep >= 0 && r->tg_median_rep < j->gm.reps)
        mv = j->gm.values + (size_t)r->tg_median_rep * (size_t)st->nmeter_cols;
    double energy = mv ? bb_energy_per_unit(st->meters, st->nmeters, mv, p->gen) : NAN;
    fill_e2e_row(st, p, &j->spec, r, j->compare ? &diff : NULL, energy, mv, row);
    bb_e2e_row_noise(row, j->spec.pp_seconds, j->gm.reps, j->spec.tg_seconds, j->gm.reps, sw->spread_limit,
                     sw->sd_limit, bb_sweep_spread_phases(sw));
    row->attempts = attempts;
    snprintf(row->interleaved, sizeof row->interleaved, "%s", interleaved);
    if (sweep_note_conversions(st, cfg->name, kc->spec, r->out_kernel, r->conversions)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return outputs && sw->ppl_file[0] ? e2e_perplexity(st, pool, sw, cfg, kc, row, err, errlen) : 0;
}

/* Append a measured row to e2e.csv and the run's rows.  Returns 0 or -1. */
static int e2e_record(sweep_state *st, FILE *f, const bb_e2e_row *row)
{
    if (bb_e2e_write_row(f, row)) {
        fprintf(stderr, "bitbench run: cannot write %s: %s; " BB_CSV_APPEND_REMEDY "\n", st->e2e_path, strerror(errno));
        return -1;
    }
    if (e2e_add(st, row)) return -1;
    st->rec.e2e_done++;
    if (row->spread_flag) e2e_note_flagged(st, row);
    return sweep_write_json(st);
}

/* A point's last round is done: its row is the median round (median_round_row) with the logit
 * comparison and perplexity of round 1 (the only one that computes them: they do not depend on
 * the timing), and every round's repetitions go to e2e_samples.csv, in the order they ran. */
static int keep_median_round(sweep_state *st, FILE *f, const e2e_rounds *pr, int nrounds, int reps)
{
    bb_e2e_row row;
    median_round_row(pr->rows, nrounds, &row);
    const bb_e2e_row *first = &pr->rows[0];
    snprintf(row.ref_kernel, sizeof row.ref_kernel, "%s", first->ref_kernel);
    row.logit_max_abs_err = first->logit_max_abs_err;
    row.logit_rel_rms_err = first->logit_rel_rms_err;
    row.top1_agreement = first->top1_agreement;
    row.logits_identical = first->logits_identical;
    snprintf(row.ppl_model, sizeof row.ppl_model, "%s", first->ppl_model);
    row.ppl = first->ppl;
    row.ppl_err = first->ppl_err;
    row.ppl_tokens = first->ppl_tokens;
    row.ppl_tps = first->ppl_tps;
    /* the samples of every round, prefills then generations, each in the order they ran */
    size_t n = (size_t)nrounds * (size_t)reps;
    double *all = malloc(2 * n * sizeof *all);
    if (!all) return -1;
    for (int r = 0; r < nrounds; r++) {
        memcpy(all + (size_t)r * (size_t)reps, pr->seconds + 2 * (size_t)r * (size_t)reps, sizeof *all * (size_t)reps);
        memcpy(all + n + (size_t)r * (size_t)reps, pr->seconds + (2 * (size_t)r + 1) * (size_t)reps,
               sizeof *all * (size_t)reps);
    }
    int rc = sweep_write_e2e_samples(st, &row, all, all + n, (int)n);
    free(all);
    return rc ? rc : e2e_record(st, f, &row);
}

/* Round r of a group of points measured side by side (the sweep's interleave; a group of one
 * without it): their models built and held together, each repetition running every point in turn
 * (bb_e2e_bench_interleaved); each point's last round writes its row.  rounds[i] is pts[i]'s.
 * Returns 0 (a failed point is a note and a line in "failed", not an error) or -1 when the run
 * cannot go on (a row not written, out of memory). */
static int e2e_group_round(sweep_state *st, FILE *f, const bb_e2e_point *const *pts, e2e_rounds *const *rounds, int n,
                           int r, int *measured)
{
    const bb_sweep *sw = &st->ex->sweeps[pts[0]->sweep];
    int nrounds = sw->rounds > 1 ? sw->rounds : 1, reps = sw->min_reps > 0 ? sw->min_reps : 1, rc = 0;
    char round[48] = "", interleaved[sizeof((bb_e2e_row *)0)->interleaved] = "", err[2048];
    if (nrounds > 1) snprintf(round, sizeof round, ", round %d of %d", r + 1, nrounds);
    e2e_job *jobs = calloc((size_t)n, sizeof *jobs);
    bb_e2e_spec *specs = calloc((size_t)n, sizeof *specs);
    bb_e2e_result *res = calloc((size_t)n, sizeof *res);
    char *failed = calloc((size_t)n, 1);
    if (!jobs || !specs || !res || !failed) goto oom;
    for (int i = 0; i < n; i++) {
        const bb_e2e_point *p = pts[i];
        e2e_rounds *pr = rounds[i];
        char label[256], depth[24] = ""; /* only when not 0 */
        if (p->depth) snprintf(depth, sizeof depth, " d%d", p->depth);
        snprintf(label, sizeof label, "%s %s %s pp%d tg%d%s t%d", sw->name, sw->models[p->model].name,
                 sw->kernels[p->kernel].spec, p->prompt, p->gen, depth, p->threads);
        if (!st->opt->quiet)
            fprintf(stderr, "bitbench run: e2e %d/%d%s: %s%s\n", p->index, st->plan->ne2e, round, label,
                    n > 1 ? ", repetitions interleaved" : "");
        if (n > 1) {
            size_t o = strlen(interleaved);
            snprintf(interleaved + o, sizeof interleaved - o, "%s%s", i ? ";" : "", sw->kernels[p->kernel].spec);
        }
        if (!pr->rows) {
            pr->rows = calloc((size_t)nrounds, sizeof *pr->rows);
            pr->seconds = calloc(2 * (size_t)nrounds * (size_t)reps, sizeof *pr->seconds);
            if (!pr->rows || !pr->seconds) goto oom;
        }
        double *seconds = pr->seconds + 2 * (size_t)r * (size_t)reps;
        if (nrounds > 1) snprintf(label + strlen(label), sizeof label - strlen(label), "%s", round);
        if (job_prepare(st, p, label, r == 0, seconds, seconds + reps, &jobs[i], err, sizeof err)) goto oom;
        specs[i] = jobs[i].spec;
    }
    bb_pool *pool = sweep_pool_for(st, sw, pts[0]->threads, err, sizeof err);
    bb_load_reading load_before;
    if ((*measured)++) sweep_cool_down(st, sw->delay);
    bb_load_read(&load_before);
    e2e_attempts at = {.st = st, .sw = sw, .jobs = jobs, .n = n, .attempts = 1};
    if (!pool || bb_e2e_bench_interleaved(pool, specs, n, res, e2e_again, &at, failed, err, sizeof err)) {
        /* a point is not kept without the partners it was to be measured beside */
        int culprit = 0;
        for (int i = 0; i < n; i++)
            if (failed[i]) culprit = i;
        for (int i = 0; i < n; i++) {
            char why[2400];
            if (i == culprit || !pool) snprintf(why, sizeof why, "%s", err);
            else snprintf(why, sizeof why, "not measured: its repetitions were to be interleaved with %s's, which "
                          "failed: %s", sw->kernels[pts[culprit]->kernel].spec, err);
            e2e_fail(st, pts[i], jobs[i].label, why);
            rounds[i]->failed = true;
        }
        goto done;
    }
    for (int i = 0; i < n && rc == 0; i++) {
        e2e_rounds *pr = rounds[i];
        jobs[i].r = res[i];
        if (job_finish(st, pool, &jobs[i], r == 0, at.attempts, interleaved, &pr->rows[r], err, sizeof err)) {
            e2e_fail(st, pts[i], jobs[i].label, err);
            pr->failed = true;
            continue;
        }
        sweep_provenance(st, &load_before, jobs[i].label, &pr->rows[r].prov);
        pr->done = r + 1;
        if (pr->done == nrounds) rc = keep_median_round(st, f, pr, nrounds, reps);
    }
    goto done;
oom:
    fprintf(stderr, "bitbench run: out of memory\n");
    rc = -1;
done:
    for (int i = 0; jobs && i < n; i++) job_free(&jobs[i]);
    free(jobs);
    free(specs);
    free(res);
    free(failed);
    return rc;
}

/* The points of one sweep side by side with point i (the first of them): with the sweep's
 * interleave, the later points that differ from it only in their kernel; else none.  group[k] is
 * the first point of k's group (indices from first). */
static void group_points(const bb_e2e_point *points, int first, int end, bool interleave, int *group)
{
    for (int i = first; i < end; i++) group[i - first] = i - first;
    if (!interleave) return;
    for (int i = first; i < end; i++) {
        if (group[i - first] != i - first) continue;
        const bb_e2e_point *a = &points[i];
        for (int j = i + 1; j < end; j++) {
            const bb_e2e_point *b = &points[j];
            if (group[j - first] == j - first && a->model == b->model && a->prompt == b->prompt && a->gen == b->gen &&
                a->depth == b->depth && a->threads == b->threads)
                group[j - first] = i - first;
        }
    }
}

/* The end-to-end points of one sweep, plan->e2e[first..end): round by round (a sweep's `rounds`:
 * every point's round 1, then every point's round 2, ...), a group side by side at a time (the
 * sweep's interleave), each point's peers just before it in every round (a sweep with peers has no
 * interleave). */
static int measure_sweep_points(sweep_state *st, FILE *f, int first, int end, int *measured)
{
    const bb_e2e_point *points = st->plan->e2e;
    const bb_sweep *sw = &st->ex->sweeps[points[first].sweep];
    int nrounds = sw->rounds > 1 ? sw->rounds : 1, rc = 0, count = end - first;
    e2e_rounds *rounds = calloc((size_t)count, sizeof *rounds);
    int *group = calloc((size_t)count, sizeof *group);
    const bb_e2e_point **pts = calloc((size_t)count, sizeof *pts);
    e2e_rounds **prs = calloc((size_t)count, sizeof *prs);
    if (!rounds || !group || !pts || !prs) {
        free(rounds);
        free(group);
        free(pts);
        free(prs);
        return -1;
    }
    group_points(points, first, end, sw->interleave, group);
    for (int r = 0; r < nrounds && rc == 0; r++)
        for (int g = 0; g < count && !sweep_stop && rc == 0; g++) {
            if (group[g] != g) continue;
            int n = 0;
            for (int k = g; k < count && rc == 0; k++) {
                e2e_rounds *pr = &rounds[k];
                if (group[k] != g || pr->failed || e2e_done(st, &points[first + k])) continue;
                if (peer_points(st, f, &points[first + k], pr, r)) rc = -1;
                pts[n] = &points[first + k];
                prs[n++] = pr;
            }
            if (rc || n == 0) continue;
            rc = e2e_group_round(st, f, pts, prs, n, r, measured);
            for (int k = 0; k < n; k++)
                if (prs[k]->done == nrounds || prs[k]->failed) { /* written, or given up: its peers' rows too */
                    if (rc == 0 && prs[k]->npeers) rc = peer_rounds_write(st, f, prs[k]);
                    rounds_free(prs[k]);
                }
        }
    for (int i = 0; i < count; i++) rounds_free(&rounds[i]);
    free(rounds);
    free(group);
    free(pts);
    free(prs);
    return rc;
}

int sweep_measure_e2e(sweep_state *st)
{
    const bb_plan *plan = st->plan;
    char err[2048];
    FILE *f = e2e_open(st, err, sizeof err);
    if (!f) {
        fprintf(stderr, "bitbench run: %s\n", err);
        return -1;
    }
    if (sweep_open_e2e_samples(st)) {
        fclose(f);
        return -1;
    }
    for (int i = 0; i < plan->ne2e; i++)
        if (e2e_done(st, &plan->e2e[i])) {
            st->rec.e2e_done++;
            earlier_peers(st, &plan->e2e[i]);
        }
    for (int i = 0; i < st->ne2e_rows; i++) /* an earlier session's flagged rows stay flagged */
        if (st->e2e_rows[i].spread_flag) e2e_note_flagged(st, &st->e2e_rows[i]);
    int rc = 0, measured = 0;
    for (int i = 0, end; i < plan->ne2e && !sweep_stop && rc == 0; i = end) {
        for (end = i + 1; end < plan->ne2e && plan->e2e[end].sweep == plan->e2e[i].sweep; end++) {}
        rc = measure_sweep_points(st, f, i, end, &measured);
    }
    fclose(f);
    return rc;
}

/* llama-bench's table: one line per test (pp<P>, tg<G>) with tokens/s, median (min-max). */
void sweep_e2e_markdown(FILE *f, const sweep_state *st) { bb_e2e_markdown_table(f, st->e2e_rows, st->ne2e_rows); }

