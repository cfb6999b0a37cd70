#include "archive/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archive/results_db.h"
#include "results/run_tables.h"

/* One side's points: the parameters and every sample of time. */
typedef struct {
    bb_compare_row meta;             /* key (variant included) and parameters */
    char measured[320];              /* what was measured: the key without the variant */
    double *v;
    int n;
    bool noisy;
    int n_bad;                       /* samples that are not a time: NaN, infinite, zero or negative */
    double first_bad;                /* the first one's value as its file has it ... */
    const char *first_bad_in;        /* ... and where: "e2e.csv's tg_tps" */
    bool paired;                     /* matched with a point of the other side */
} side_point;

typedef struct {
    side_point *p;
    int n;
} side;

static int find_point(const side *s, const char *key)
{
    for (int i = s->n - 1; i >= 0; i--)
        if (!strcmp(s->p[i].meta.key, key)) return i;
    return -1;
}

/* The point of meta's key, a new one when s has none; its host and CPU model noted ("several" when
 * its rows came from more than one machine, a commit's runs pooled). */
static side_point *point_for(side *s, const bb_compare_row *meta, const char *measured, const char *host,
                             const char *cpu)
{
    int i = find_point(s, meta->key);
    side_point *p = i >= 0 ? &s->p[i] : bb_run_tables_grow((void **)&s->p, &s->n, sizeof *s->p);
    if (!p) return NULL;
    if (i < 0) {
        p->meta = *meta;
        snprintf(p->measured, sizeof p->measured, "%s", measured);
        snprintf(p->meta.host_a, sizeof p->meta.host_a, "%s", host);
        snprintf(p->meta.cpu_a, sizeof p->meta.cpu_a, "%s", cpu);
        return p;
    }
    if (strcmp(p->meta.host_a, host)) snprintf(p->meta.host_a, sizeof p->meta.host_a, "several");
    if (strcmp(p->meta.cpu_a, cpu)) snprintf(p->meta.cpu_a, sizeof p->meta.cpu_a, "several");
    return p;
}

/* A sample that is not a time (NaN, infinite, zero, negative: a damaged or edited file) is kept
 * out of the point but counted, so that comparing the point is refused rather than its ratio
 * coming out NaN or infinite and read as "no significant change".  v is the time the point
 * uses; raw is the value its file holds (seconds, or tokens/s), in the column `in`, which the
 * refusal quotes: the per-token time derived from it is no number the reader could find. */
static int add_sample(side_point *p, double v, double raw, const char *in)
{
    if (!p) return 0;
    if (!isfinite(v) || v <= 0) {
        if (!p->n_bad++) p->first_bad = raw, p->first_bad_in = in;
        return 0;
    }
    double *slot = bb_run_tables_grow((void **)&p->v, &p->n, sizeof *p->v);
    if (!slot) return -1;
    *slot = v;
    return 0;
}

static void kernel_measured(char *buf, size_t len, const char *kernel, int M, int K, int N, int threads,
                            const char *cache)
{
    snprintf(buf, len, "%s M=%d K=%d N=%d threads=%d %s", kernel, M, K, N, threads, cache);
}

/* " @ d4096 kv=q8_0/q8_0": the depth when not 0 (llama-bench's "tg16 @ d4096") and the KV types
 * when recorded and not f32 (files from before either was a column read as depth 0 and no types,
 * and their points keep their keys). */
static void e2e_context(char *buf, size_t len, int depth, const char *kv_k, const char *kv_v)
{
    int n = depth > 0 ? snprintf(buf, len, " @ d%d", depth) : (buf[0] = 0, 0);
    bool f32 = (!kv_k[0] || !strcmp(kv_k, "f32")) && (!kv_v[0] || !strcmp(kv_v, "f32"));
    if (!f32 && n >= 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, " kv=%s/%s", kv_k, kv_v);
}

static void e2e_measured(char *buf, size_t len, const char *model, const char *kernel, int threads, const char *phase,
                         int tokens, int depth, const char *kv_k, const char *kv_v)
{
    char ctx[64];
    e2e_context(ctx, sizeof ctx, depth, kv_k, kv_v);
    snprintf(buf, len, "%s %s threads=%d %s%d%s", model, kernel, threads, phase, tokens, ctx);
}

static void kernel_meta(bb_compare_row *m, const char *kernel, const char *variant, int M, int K, int N, int threads,
                        const char *cache)
{
    memset(m, 0, sizeof *m);
    snprintf(m->kind, sizeof m->kind, "kernel");
    snprintf(m->kernel, sizeof m->kernel, "%s", kernel);
    snprintf(m->variant, sizeof m->variant, "%s", variant);
    snprintf(m->cache, sizeof m->cache, "%s", cache);
    m->m = M, m->k = K, m->n = N, m->threads = threads;
    snprintf(m->key, sizeof m->key, "%s@%s M=%d K=%d N=%d threads=%d %s", kernel, variant, M, K, N, threads, cache);
}

static void e2e_meta(bb_compare_row *m, const char *model, const char *kernel, const char *variant, int threads,
                     const char *phase, int tokens, int depth, const char *kv_k, const char *kv_v)
{
    char ctx[64];
    e2e_context(ctx, sizeof ctx, depth, kv_k, kv_v);
    memset(m, 0, sizeof *m);
    snprintf(m->kind, sizeof m->kind, "%s", phase);
    snprintf(m->model, sizeof m->model, "%s", model);
    snprintf(m->kernel, sizeof m->kernel, "%s", kernel);
    snprintf(m->variant, sizeof m->variant, "%s", variant);
    m->threads = threads, m->tokens = tokens;
    snprintf(m->key, sizeof m->key, "%s %s@%s threads=%d %s%d%s", model, kernel, variant, threads, phase, tokens, ctx);
}

/* A sweep's repetition settings are lists (warmup, reps, min_seconds, seed, delay: issue 33), so
 * rows of one kernel, variant, shape, N, threads and cache can be different measurements.  They
 * are told apart by the settings that differ among them, appended to the key (" seed=7 delay=0.5");
 * rows alone at their point, or agreeing on every setting, keep the key they always had. */
static bool same_point(const bb_result_row *a, const bb_result_row *b)
{
    return !strcmp(a->kernel, b->kernel) && !strcmp(a->variant, b->variant) && a->m == b->m && a->k == b->k &&
           a->n == b->n && a->threads == b->threads && !strcmp(a->cache, b->cache);
}

static void append(char *buf, size_t len, const char *tail)
{
    size_t n = strlen(buf);
    if (n < len) snprintf(buf + n, len - n, "%s", tail);
}

static bool differ(double a, double b) { return !(a == b || (isnan(a) && isnan(b))); }

static void settings_suffix(const bb_run_tables *t, const bb_result_row *r, char *buf, size_t len)
{
    bool warmup = false, reps = false, secs = false, seed = false, delay = false;
    for (int i = 0; i < t->nrows; i++) {
        const bb_result_row *o = &t->rows[i];
        if (o == r || !same_point(o, r)) continue;
        warmup |= o->warmup != r->warmup;
        reps |= o->min_reps != r->min_reps;
        secs |= differ(o->min_seconds, r->min_seconds);
        seed |= strcmp(o->seed, r->seed) != 0;
        delay |= differ(o->delay_s, r->delay_s);
    }
    char v[64];
    buf[0] = 0;
    if (warmup) snprintf(v, sizeof v, " warmup=%d", r->warmup), append(buf, len, v);
    if (reps) snprintf(v, sizeof v, " reps=%d", r->min_reps), append(buf, len, v);
    if (secs) snprintf(v, sizeof v, " min_seconds=%g", r->min_seconds), append(buf, len, v);
    if (seed) snprintf(v, sizeof v, " seed=%s", r->seed), append(buf, len, v);
    if (delay) snprintf(v, sizeof v, " delay=%g", r->delay_s), append(buf, len, v);
}

/* The results row a sample belongs to (its sweep and plan point), or NULL. */
static const bb_result_row *row_of(const bb_run_tables *t, const bb_sample_row *r)
{
    for (int i = 0; i < t->nrows; i++)
        if (t->rows[i].point == r->point && !strcmp(t->rows[i].sweep, r->sweep)) return &t->rows[i];
    return NULL;
}

/* The kernel points of t: samples from samples.csv, else each row's median. */
static int kernel_points(const bb_run_tables *t, side *s)
{
    bb_compare_row m;
    char measured[320], suffix[160];
    for (int i = 0; i < t->nrows; i++) {
        const bb_result_row *r = &t->rows[i];
        settings_suffix(t, r, suffix, sizeof suffix);
        kernel_meta(&m, r->kernel, r->variant, r->m, r->k, r->n, r->threads, r->cache);
        kernel_measured(measured, sizeof measured, r->kernel, r->m, r->k, r->n, r->threads, r->cache);
        append(m.key, sizeof m.key, suffix);
        append(measured, sizeof measured, suffix);
        side_point *p = point_for(s, &m, measured, r->prov.host, r->prov.cpu_model);
        if (!p) return -1;
        p->noisy |= r->spread_flag || r->prov.busy;
    }
    int last = -1;
    char prev[320] = "";
    for (int i = 0; i < t->nsamples; i++) {
        const bb_sample_row *r = &t->samples[i];
        if (i == 0 || r->point != t->samples[i - 1].point || strcmp(r->sweep, t->samples[i - 1].sweep)) {
            const bb_result_row *row = row_of(t, r); /* once per point: samples come point by point */
            if (row) settings_suffix(t, row, suffix, sizeof suffix);
            else suffix[0] = 0;
        }
        kernel_meta(&m, r->kernel, r->variant, r->m, r->k, r->n, r->threads, r->cache);
        append(m.key, sizeof m.key, suffix);
        if (strcmp(m.key, prev)) {
            snprintf(prev, sizeof prev, "%s", m.key);
            last = find_point(s, m.key);
        }
        if (last >= 0 && add_sample(&s->p[last], r->seconds, r->seconds, "samples.csv's seconds")) return -1;
    }
    for (int i = 0; i < t->nrows; i++) { /* rows without samples: an older run, a peer */
        const bb_result_row *r = &t->rows[i];
        settings_suffix(t, r, suffix, sizeof suffix);
        kernel_meta(&m, r->kernel, r->variant, r->m, r->k, r->n, r->threads, r->cache);
        append(m.key, sizeof m.key, suffix);
        side_point *p = &s->p[find_point(s, m.key)];
        if (p->n == 0 && add_sample(p, r->t_median_s, r->t_median_s, "results.csv's t_median_s")) return -1;
    }
    return 0;
}

/* Whether an e2e.csv row's repetitions disagreed: its spread_flag (harness/results/noise.h, after
 * re-measuring); a row from before that column (attempts 0: not recorded) by the rule the reports
 * use for it (scripts/lib/report.lua): the phase's slowest and fastest repetitions more than
 * BB_E2E_RANGE_LIMIT of its median apart, which with 3 repetitions is the interquartile range over
 * the default spread_limit. */
#define BB_E2E_RANGE_LIMIT 0.20
static bool e2e_noisy(const bb_e2e_row *r, int phase)
{
    if (r->attempts > 0) return r->spread_flag != 0;
    double med = phase ? r->tg_tps : r->pp_tps, lo = phase ? r->tg_tps_min : r->pp_tps_min;
    double hi = phase ? r->tg_tps_max : r->pp_tps_max;
    return med > 0 && (hi - lo) / med > BB_E2E_RANGE_LIMIT;
}

/* The end-to-end points of t, prefill and generation apart: seconds per token. */
static int e2e_points(const bb_run_tables *t, side *s)
{
    bb_compare_row m;
    char measured[320];
    for (int i = 0; i < t->ne2e; i++) {
        const bb_e2e_row *r = &t->e2e[i];
        for (int ph = 0; ph < 2; ph++) {
            int tokens = ph ? r->gen : r->prompt;
            if (tokens <= 0) continue;
            e2e_meta(&m, r->model, r->kernel, r->variant, r->threads, ph ? "tg" : "pp", tokens, r->depth, r->kv_type_k,
                     r->kv_type_v);
            e2e_measured(measured, sizeof measured, r->model, r->kernel, r->threads, ph ? "tg" : "pp", tokens, r->depth,
                         r->kv_type_k, r->kv_type_v);
            side_point *p = point_for(s, &m, measured, r->prov.host, r->prov.cpu_model);
            if (!p) return -1;
            p->noisy |= r->prov.busy || e2e_noisy(r, ph);
        }
    }
    for (int i = 0; i < t->ne2e_samples; i++) {
        const bb_e2e_sample_row *r = &t->e2e_samples[i];
        e2e_meta(&m, r->model, r->kernel, r->variant, r->threads, r->phase, r->tokens, r->depth, r->kv_type_k,
                 r->kv_type_v);
        int at = find_point(s, m.key);
        if (at >= 0 && r->tokens > 0 &&
            add_sample(&s->p[at], r->seconds / r->tokens, r->seconds, "e2e_samples.csv's seconds"))
            return -1;
    }
    for (int i = 0; i < t->ne2e; i++) {
        const bb_e2e_row *r = &t->e2e[i];
        for (int ph = 0; ph < 2; ph++) {
            int tokens = ph ? r->gen : r->prompt;
            double tps = ph ? r->tg_tps : r->pp_tps;
            if (tokens <= 0) continue;
            e2e_meta(&m, r->model, r->kernel, r->variant, r->threads, ph ? "tg" : "pp", tokens, r->depth, r->kv_type_k,
                     r->kv_type_v);
            side_point *p = &s->p[find_point(s, m.key)];
            if (p->n == 0 && add_sample(p, 1.0 / tps, tps, ph ? "e2e.csv's tg_tps" : "e2e.csv's pp_tps")) return -1;
        }
    }
    return 0;
}

static int add_tables(const bb_run_tables *t, side *s, const char *name, char *err, size_t errlen)
{
    if (kernel_points(t, s) || e2e_points(t, s)) {
        snprintf(err, errlen, "out of memory reading %s", name);
        return -1;
    }
    return 0;
}

/* FILE.sqlite:ID: the database part, if the text before the last ':' is a file. */
static int split_db(const char *src, char *path, size_t plen, const char **id)
{
    const char *colon = strrchr(src, ':');
    struct stat sb;
    if (!colon || (size_t)(colon - src) >= plen) return 0;
    snprintf(path, plen, "%.*s", (int)(colon - src), src);
    *id = colon + 1;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int load_db_side(const char *src, const char *path, const char *id, side *s, char *err, size_t errlen)
{
    bb_db *db = bb_db_open_read(path, err, errlen);
    if (!db) return -1;
    char **runs = NULL;
    int n = bb_db_find_runs(db, id, &runs, err, errlen), rc = n < 0 ? -1 : 0;
    if (n == 0) {
        snprintf(err, errlen, "%s: no run and no commit '%s' in %s (bitbench db list shows them)", src, id, path);
        rc = -1;
    }
    for (int i = 0; i < n; i++) {
        bb_run_tables t;
        if (rc == 0 && bb_db_load_run(db, runs[i], &t, err, errlen) == 0) {
            rc = add_tables(&t, s, src, err, errlen);
            bb_run_tables_free(&t);
        } else {
            rc = -1;
        }
        free(runs[i]);
    }
    free(runs);
    bb_db_close(db);
    return rc;
}

static int load_side(const char *src, side *s, char *err, size_t errlen)
{
    char path[1024];
    const char *id;
    struct stat sb;
    if (stat(src, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        bb_run_tables t;
        if (bb_run_tables_read(src, &t, err, errlen)) return -1;
        int rc = add_tables(&t, s, src, err, errlen);
        bb_run_tables_free(&t);
        return rc;
    }
    if (split_db(src, path, sizeof path, &id)) return load_db_side(src, path, id, s, err, errlen);
    snprintf(err, errlen, "'%s' is neither a run directory nor FILE.sqlite:RUN or FILE.sqlite:COMMIT of an existing "
             "file", src);
    return -1;
}

static void side_free(side *s)
{
    for (int i = 0; i < s->n; i++) free(s->p[i].v);
    free(s->p);
}

/* The one point of s not yet paired whose measured parameters are `measured`; -1 when none or
 * more than one (then which of them B's point stands for cannot be told). */
static int lone_unpaired(const side *s, const char *measured)
{
    int found = -1;
    for (int i = 0; i < s->n; i++) {
        if (s->p[i].paired || strcmp(s->p[i].measured, measured)) continue;
        if (found >= 0) return -1;
        found = i;
    }
    return found;
}

/* A matched point whose samples or ratio are not finite times: one line naming it. */
static int check_point(const side_point *pa, const side_point *pb, const bb_compare_row *r, const char *name_a,
                       const char *name_b, char *err, size_t errlen)
{
    const side_point *bad = pa->n_bad ? pa : pb->n_bad ? pb : NULL;
    if (bad) {
        snprintf(err, errlen, "point '%s': %s has %d sample%s that %s not a time (the first: %s %g); times and "
                 "rates must be finite and positive (a damaged or edited results file?)", r->key,
                 bad == pa ? name_a : name_b, bad->n_bad, bad->n_bad == 1 ? "" : "s", bad->n_bad == 1 ? "is" : "are",
                 bad->first_bad_in, bad->first_bad);
        return -1;
    }
    if (!isfinite(r->ci.ratio) || r->ci.ratio <= 0) {
        snprintf(err, errlen, "point '%s': the ratio of medians B/A is %g (median A %g s, median B %g s); it must be "
                 "finite and positive to compare", r->key, r->ci.ratio, r->ci.median_a, r->ci.median_b);
        return -1;
    }
    return 0;
}

/* Returns 0, or -1 with err (a point that cannot be compared, out of memory). */
static int add_pair(side_point *pa, side_point *pb, double threshold, bool by_variant, bb_comparison *out, char *err,
                    size_t errlen)
{
    bb_compare_row *r = bb_run_tables_grow((void **)&out->rows, &out->n, sizeof *out->rows);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *r = pa->meta;
    pa->paired = pb->paired = true;
    if (!by_variant) snprintf(r->key, sizeof r->key, "%s", pa->measured);
    snprintf(r->variant_b, sizeof r->variant_b, "%s", pb->meta.variant);
    snprintf(r->host_b, sizeof r->host_b, "%s", pb->meta.host_a);
    snprintf(r->cpu_b, sizeof r->cpu_b, "%s", pb->meta.cpu_a);
    r->noisy_a = pa->noisy;
    r->noisy_b = pb->noisy;
    if (bb_median_ratio_ci(pa->v, pa->n, pb->v, pb->n, BB_BOOT_ITERATIONS, BB_BOOT_SEED, &r->ci))
        r->ci.ratio = r->ci.lo = r->ci.hi = NAN;
    if (check_point(pa, pb, r, out->name_a, out->name_b, err, errlen)) return -1;
    r->significant = isfinite(r->ci.lo) && (r->ci.lo > 1 || r->ci.hi < 1);
    if (r->significant && r->ci.ratio > 1 + threshold) r->change = BB_CHANGE_SLOWER, out->regressions++;
    if (r->significant && r->ci.ratio < 1 / (1 + threshold)) r->change = BB_CHANGE_FASTER, out->improvements++;
    return 0;
}

/* Same variant first; then (unless by_variant) what is left, across variants, where each side
 * has a single candidate.  Rows in A's order.  Returns 0, or -1 with err. */
static int compare_sides(side *a, side *b, double threshold, bool by_variant, bb_comparison *out, char *err,
                         size_t errlen)
{
    int *partner = malloc(sizeof *partner * (size_t)(a->n ? a->n : 1));
    if (!partner) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < a->n; i++) {
        partner[i] = find_point(b, a->p[i].meta.key);
        if (partner[i] >= 0) a->p[i].paired = b->p[partner[i]].paired = true;
    }
    for (int i = 0; i < a->n && !by_variant; i++) {
        if (partner[i] >= 0) continue;
        int j = lone_unpaired(b, a->p[i].measured);
        if (j >= 0 && lone_unpaired(a, a->p[i].measured) == i) {
            partner[i] = j;
            a->p[i].paired = b->p[j].paired = true;
        }
    }
    int rc = 0;
    for (int i = 0; i < a->n && rc == 0; i++) {
        if (partner[i] < 0) out->only_a++;
        else rc = add_pair(&a->p[i], &b->p[partner[i]], threshold, by_variant, out, err, errlen);
    }
    for (int j = 0; j < b->n; j++) out->only_b += !b->p[j].paired;
    free(partner);
    return rc;
}

int bb_compare(const char *a, const char *b, double threshold, bool by_variant, bb_comparison *out, char *err,
               size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->threshold = threshold;
    snprintf(out->name_a, sizeof out->name_a, "%s", a);
    snprintf(out->name_b, sizeof out->name_b, "%s", b);
    side sa = {0}, sb = {0};
    int rc = load_side(a, &sa, err, errlen);
    if (rc == 0) rc = load_side(b, &sb, err, errlen);
    if (rc == 0 && compare_sides(&sa, &sb, threshold, by_variant, out, err, errlen)) rc = -1;
    if (rc == 0 && out->n == 0) {
        snprintf(err, errlen, "%s and %s have no point in common (%d and %d points; points match by kernel, shape, N, "
                 "threads and cache mode, or model, kernel, threads and pp/tg length%s)", a, b, sa.n, sb.n,
                 by_variant ? ", and by variant (--by-variant)" : "");
        rc = -1;
    }
    side_free(&sa);
    side_free(&sb);
    if (rc) bb_comparison_free(out);
    return rc;
}

void bb_comparison_free(bb_comparison *c)
{
    free(c->rows);
    c->rows = NULL;
    c->n = 0;
}
