/* Two-phase clustering codebook builder (Arm paper §5.2, Algorithm 1); see cb_builder.h. */
#include "cb_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t bb_cb_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double bb_cb_uniform(uint64_t *state) { return (double)(bb_cb_rand(state) >> 11) * 0x1p-53; }

void bb_cb_params_cb2(bb_cb_params *p)
{
    p->books = 8;
    p->entries = 4;
    p->group = 16;
    p->bins = 128;
    p->qmax = 63;
    p->iters = 100;
    p->restarts = 4;
    p->max_groups = (size_t)1 << 16;
    p->seed = 1;
}

static double dabs(double v) { return v < 0 ? -v : v; }

/* absmax of one group as a double; 0 for an all-zero group */
static double group_amax(const float *x, int g)
{
    double a = 0;
    for (int i = 0; i < g; i++) a = dabs(x[i]) > a ? dabs(x[i]) : a;
    return a;
}

static int bin_of(double v, int bins)
{
    int b = (int)((v + 1.0) * 0.5 * bins);
    return b < 0 ? 0 : (b >= bins ? bins - 1 : b);
}

/* The phase-1 point of a group: its normalized histogram of scaled values, kept sparse as the
 * bin of each of its g values (each worth 1/g), plus its squared norm. */
static double group_bins(const float *x, int g, int bins, uint16_t *bin, double *tmp)
{
    double inv = 1.0 / group_amax(x, g), w = 1.0 / g, hh = 0;
    for (int i = 0; i < g; i++) bin[i] = (uint16_t)bin_of(x[i] * inv, bins);
    for (int i = 0; i < g; i++) tmp[bin[i]] = 0;
    for (int i = 0; i < g; i++) tmp[bin[i]] += w;
    for (int i = 0; i < g; i++) { hh += tmp[bin[i]] * tmp[bin[i]]; tmp[bin[i]] = 0; }
    return hh; /* a bin's h_b^2 is added at its first value, then tmp[b] is 0 */
}

/* Squared distance between a sparse histogram (bins of g values, norm^2 hh) and a dense center
 * (norm^2 cc): hh + cc - 2 h.c, clamped at 0. */
static double sparse_dist2(const uint16_t *bin, int g, double hh, const double *center, double cc)
{
    double dot = 0;
    for (int i = 0; i < g; i++) dot += center[bin[i]];
    double d = hh + cc - 2.0 * dot / g;
    return d > 0 ? d : 0;
}

typedef struct {
    const uint16_t *bins; /* n * g */
    const double *hh;     /* n */
    size_t n;
    int g, d;
} hist_points;

static double center_norm(const double *c, int d)
{
    double s = 0;
    for (int j = 0; j < d; j++) s += c[j] * c[j];
    return s;
}

static void set_center(const hist_points *P, size_t i, double *center, double *cc)
{
    for (int j = 0; j < P->d; j++) center[j] = 0;
    for (int v = 0; v < P->g; v++) center[P->bins[i * P->g + v]] += 1.0 / P->g;
    *cc = center_norm(center, P->d);
}

static int nearest_center(const hist_points *P, size_t i, const double *centers, const double *cc, int k,
                          double *best_d)
{
    int best = 0;
    double bd = sparse_dist2(P->bins + i * P->g, P->g, P->hh[i], centers, cc[0]);
    for (int c = 1; c < k; c++) {
        double dd = sparse_dist2(P->bins + i * P->g, P->g, P->hh[i], centers + (size_t)c * P->d, cc[c]);
        if (dd < bd) { bd = dd; best = c; }
    }
    if (best_d) *best_d = bd;
    return best;
}

/* k-means over the histograms: k-means++ seeding from *rng, then Lloyd iterations until no point
 * changes cluster (or iters).  An empty cluster takes the point farthest from its center.
 * Returns the inertia; centers (k*d), cc (k) and assign (n) are outputs. */
static double kmeans(const hist_points *P, int k, int iters, uint64_t *rng, double *centers, double *cc,
                     int *assign, double *mind, size_t *count)
{
    size_t n = P->n;
    int d = P->d;
    set_center(P, (size_t)(bb_cb_uniform(rng) * (double)n), centers, &cc[0]);
    for (size_t i = 0; i < n; i++) mind[i] = sparse_dist2(P->bins + i * P->g, P->g, P->hh[i], centers, cc[0]);
    for (int c = 1; c < k; c++) {
        double total = 0;
        for (size_t i = 0; i < n; i++) total += mind[i];
        size_t pick = 0;
        if (total > 0) {
            double r = bb_cb_uniform(rng) * total, acc = 0;
            pick = n - 1;
            for (size_t i = 0; i < n; i++) {
                acc += mind[i];
                if (acc > r) { pick = i; break; }
            }
        } else {
            pick = (size_t)(bb_cb_uniform(rng) * (double)n);
        }
        set_center(P, pick, centers + (size_t)c * d, &cc[c]);
        for (size_t i = 0; i < n; i++) {
            double dd = sparse_dist2(P->bins + i * P->g, P->g, P->hh[i], centers + (size_t)c * d, cc[c]);
            if (dd < mind[i]) mind[i] = dd;
        }
    }
    for (size_t i = 0; i < n; i++) assign[i] = -1;
    double inertia = 0;
    for (int it = 0; it < iters; it++) {
        size_t changed = 0;
        inertia = 0;
        for (size_t i = 0; i < n; i++) {
            int c = nearest_center(P, i, centers, cc, k, &mind[i]);
            if (c != assign[i]) { assign[i] = c; changed++; }
            inertia += mind[i];
        }
        if (!changed) break;
        memset(centers, 0, sizeof(double) * (size_t)k * d);
        memset(count, 0, sizeof(size_t) * k);
        for (size_t i = 0; i < n; i++) {
            count[assign[i]]++;
            for (int v = 0; v < P->g; v++) centers[(size_t)assign[i] * d + P->bins[i * P->g + v]] += 1.0 / P->g;
        }
        for (int c = 0; c < k; c++) {
            if (count[c]) {
                for (int j = 0; j < d; j++) centers[(size_t)c * d + j] /= (double)count[c];
                cc[c] = center_norm(centers + (size_t)c * d, d);
                continue;
            }
            size_t far = 0; /* empty: take the worst-represented point */
            for (size_t i = 1; i < n; i++) if (mind[i] > mind[far]) far = i;
            set_center(P, far, centers + (size_t)c * d, &cc[c]);
            mind[far] = 0;
        }
    }
    return inertia;
}

/* Weighted 1-D k-means (phase 2) over the fine histogram of one cluster: point b has value
 * sum[b]/cnt[b] and weight cnt[b].  Seeded at the weighted quantiles (e + 1/2)/entries, so it
 * needs no random numbers.  Returns 0, or -1 when the histogram is empty. */
static int kmeans_1d(const double *cnt, const double *sum, int nb, int entries, int iters, double *cent)
{
    double total = 0;
    for (int b = 0; b < nb; b++) total += cnt[b];
    if (total <= 0) return -1;
    int e = 0;
    double acc = 0;
    for (int b = 0; b < nb && e < entries; b++) {
        if (cnt[b] <= 0) continue;
        acc += cnt[b];
        while (e < entries && acc >= (e + 0.5) / entries * total) cent[e++] = sum[b] / cnt[b];
    }
    for (; e < entries; e++) cent[e] = cent[e - 1];
    double *dist = malloc(sizeof(double) * nb);
    if (!dist) return -1;
    for (int it = 0; it < iters; it++) {
        double ws[BB_CB_MAX_ENTRIES] = {0}, wc[BB_CB_MAX_ENTRIES] = {0};
        for (int b = 0; b < nb; b++) {
            dist[b] = -1;
            if (cnt[b] <= 0) continue;
            double v = sum[b] / cnt[b];
            int best = 0;
            double bd = dabs(v - cent[0]);
            for (int j = 1; j < entries; j++)
                if (dabs(v - cent[j]) < bd) { bd = dabs(v - cent[j]); best = j; }
            ws[best] += sum[b];
            wc[best] += cnt[b];
            dist[b] = bd;
        }
        int moved = 0;
        for (int j = 0; j < entries; j++) {
            double nv;
            if (wc[j] > 0) {
                nv = ws[j] / wc[j];
            } else { /* empty centroid: take the worst-represented value */
                int far = 0;
                for (int b = 1; b < nb; b++) if (dist[b] > dist[far]) far = b;
                nv = cent[j]; /* fewer distinct values than entries: keep a duplicate */
                if (dist[far] >= 0) { nv = sum[far] / cnt[far]; dist[far] = -1; }
            }
            if (nv != cent[j]) moved = 1;
            cent[j] = nv;
        }
        if (!moved) break;
    }
    free(dist);
    for (int i = 1; i < entries; i++) /* ascending */
        for (int j = i; j > 0 && cent[j] < cent[j - 1]; j--) {
            double t = cent[j]; cent[j] = cent[j - 1]; cent[j - 1] = t;
        }
    return 0;
}

static int book_less(const bb_cb_set *s, int a, int b)
{
    for (int e = 0; e < s->entries; e++)
        if (s->value[a][e] != s->value[b][e]) return s->value[a][e] < s->value[b][e];
    return 0;
}

static int check_params(const bb_cb_params *p, size_t count, char *err, size_t errlen)
{
    if (p->books < 1 || p->books > BB_CB_MAX_BOOKS || p->entries < 1 || p->entries > BB_CB_MAX_ENTRIES ||
        p->group < 1 || p->bins < 2 || p->bins > BB_CB_MAX_BINS || p->qmax < 1 || p->qmax > 127 ||
        p->iters < 1 || p->restarts < 1) {
        snprintf(err, errlen, "codebook builder: bad parameters (books 1..%d, entries 1..%d, group >= 1, "
                 "bins 2..%d, qmax 1..127, iters >= 1, restarts >= 1)", BB_CB_MAX_BOOKS, BB_CB_MAX_ENTRIES,
                 BB_CB_MAX_BINS);
        return -1;
    }
    if (count % (size_t)p->group) {
        snprintf(err, errlen, "codebook builder: %zu weights is not a multiple of the group size %d", count,
                 p->group);
        return -1;
    }
    return 0;
}

/* The builder's working memory: the nonzero groups, the phase-1 points and centers, and per
 * cluster the fine histograms (count, sum) of phase 2. */
typedef struct {
    size_t *idx;               /* nonzero groups; the first ns are phase 1's sample */
    size_t nz, ns;
    uint16_t *bins;            /* ns × group */
    double *hh, *mind;         /* ns */
    int *assign;               /* ns */
    double *centers, *best_centers; /* books × bins */
    double best_cc[BB_CB_MAX_BOOKS];
    size_t *cnt, *members;     /* books */
    double *fc, *fs;           /* books × BB_CB_FINE_BINS */
} cb_work;

static void work_free(cb_work *wk)
{
    free(wk->idx); free(wk->bins); free(wk->hh); free(wk->mind); free(wk->assign); free(wk->centers);
    free(wk->best_centers); free(wk->cnt); free(wk->members); free(wk->fc); free(wk->fs);
}

static int work_alloc(cb_work *wk, size_t ns, int group, int k, int d)
{
    wk->bins = malloc(sizeof(uint16_t) * ns * group);
    wk->hh = malloc(sizeof(double) * ns);
    wk->mind = malloc(sizeof(double) * ns);
    wk->assign = malloc(sizeof(int) * ns);
    wk->centers = malloc(sizeof(double) * k * d);
    wk->best_centers = malloc(sizeof(double) * k * d);
    wk->cnt = malloc(sizeof(size_t) * k);
    wk->members = calloc(k, sizeof(size_t));
    wk->fc = calloc((size_t)k * BB_CB_FINE_BINS, sizeof(double));
    wk->fs = calloc((size_t)k * BB_CB_FINE_BINS, sizeof(double));
    return wk->bins && wk->hh && wk->mind && wk->assign && wk->centers && wk->best_centers && wk->cnt &&
                   wk->members && wk->fc && wk->fs ? 0 : -1;
}

/* The nonzero groups, and the sample phase 1 clusters: all of them, or max_groups drawn by a
 * seeded partial Fisher-Yates shuffle. */
static void select_groups(const float *w, size_t ngroups, const bb_cb_params *p, uint64_t *rng, cb_work *wk)
{
    wk->nz = 0;
    for (size_t g = 0; g < ngroups; g++)
        if (group_amax(w + g * p->group, p->group) > 0) wk->idx[wk->nz++] = g;
    wk->ns = wk->nz;
    if (p->max_groups && wk->nz > p->max_groups) {
        wk->ns = p->max_groups;
        for (size_t i = 0; i < wk->ns; i++) {
            size_t j = i + (size_t)(bb_cb_uniform(rng) * (double)(wk->nz - i));
            size_t t = wk->idx[i]; wk->idx[i] = wk->idx[j]; wk->idx[j] = t;
        }
    }
}

/* Phase 1: histograms of the scaled groups, k-means over the distributions; the best of the
 * restarts (least inertia) is kept in best_centers / best_cc. */
static void phase1(const float *w, const bb_cb_params *p, uint64_t *rng, cb_work *wk)
{
    int k = p->books, d = p->bins;
    double cc[BB_CB_MAX_BOOKS], tmp[BB_CB_MAX_BINS] = {0};
    for (size_t i = 0; i < wk->ns; i++)
        wk->hh[i] = group_bins(w + wk->idx[i] * p->group, p->group, d, wk->bins + i * p->group, tmp);
    hist_points P = {wk->bins, wk->hh, wk->ns, p->group, d};
    double best = -1;
    for (int r = 0; r < p->restarts; r++) {
        double inertia = kmeans(&P, k, p->iters, rng, wk->centers, cc, wk->assign, wk->mind, wk->cnt);
        if (best < 0 || inertia < best) {
            best = inertia;
            memcpy(wk->best_centers, wk->centers, sizeof(double) * k * d);
            memcpy(wk->best_cc, cc, sizeof(double) * k);
        }
    }
}

/* Phase 2, first half: every nonzero group joins its nearest distribution cluster, and its scaled
 * values go into that cluster's fine histogram (exact bin sums). */
static void phase2_histograms(const float *w, const bb_cb_params *p, cb_work *wk)
{
    int k = p->books, d = p->bins;
    double tmp[BB_CB_MAX_BINS] = {0};
    uint16_t *gb = wk->bins; /* reused: one group at a time */
    for (size_t i = 0; i < wk->nz; i++) {
        const float *x = w + wk->idx[i] * p->group;
        double h2 = group_bins(x, p->group, d, gb, tmp);
        hist_points one = {gb, &h2, 1, p->group, d};
        int c = nearest_center(&one, 0, wk->best_centers, wk->best_cc, k, NULL);
        wk->members[c]++;
        double inv = 1.0 / group_amax(x, p->group);
        for (int j = 0; j < p->group; j++) {
            double v = x[j] * inv;
            int b = bin_of(v, BB_CB_FINE_BINS);
            wk->fc[(size_t)c * BB_CB_FINE_BINS + b] += 1;
            wk->fs[(size_t)c * BB_CB_FINE_BINS + b] += v;
        }
    }
}

/* Phase 2, second half: cluster c's entries by 1-D k-means of its values; an empty cluster gets
 * the codebook of all the values.  Returns 0, or -1 out of memory. */
static int cluster_entries(const bb_cb_params *p, const cb_work *wk, int c, double *cent)
{
    int k = p->books;
    if (wk->members[c])
        return kmeans_1d(wk->fc + (size_t)c * BB_CB_FINE_BINS, wk->fs + (size_t)c * BB_CB_FINE_BINS,
                         BB_CB_FINE_BINS, p->entries, p->iters, cent);
    double *ac = calloc(BB_CB_FINE_BINS, sizeof(double)), *as = calloc(BB_CB_FINE_BINS, sizeof(double));
    if (!ac || !as) { free(ac); free(as); return -1; }
    for (int o = 0; o < k; o++)
        for (int b = 0; b < BB_CB_FINE_BINS; b++) {
            ac[b] += wk->fc[(size_t)o * BB_CB_FINE_BINS + b];
            as[b] += wk->fs[(size_t)o * BB_CB_FINE_BINS + b];
        }
    int r1 = kmeans_1d(ac, as, BB_CB_FINE_BINS, p->entries, p->iters, cent);
    free(ac); free(as);
    return r1;
}

/* Book c: the float entries and their int8 codes on the ±qmax grid. */
static void store_book(bb_cb_set *out, int c, const double *cent, double share, int qmax)
{
    out->share[c] = share;
    for (int e = 0; e < out->entries; e++) {
        out->value[c][e] = (float)cent[e];
        double q = cent[e] * qmax;
        int qi = (int)(q < 0 ? q - 0.5 : q + 0.5); /* round half away from zero */
        out->q[c][e] = (int8_t)(qi > qmax ? qmax : (qi < -qmax ? -qmax : qi));
    }
}

static void swap_books(bb_cb_set *s, int a, int b)
{
    float v[BB_CB_MAX_ENTRIES];
    int8_t q[BB_CB_MAX_ENTRIES];
    memcpy(v, s->value[a], sizeof v);
    memcpy(q, s->q[a], sizeof q);
    double share = s->share[a];
    memcpy(s->value[a], s->value[b], sizeof v);
    memcpy(s->q[a], s->q[b], sizeof q);
    s->share[a] = s->share[b];
    memcpy(s->value[b], v, sizeof v);
    memcpy(s->q[b], q, sizeof q);
    s->share[b] = share;
}

int bb_cb_build(const float *w, size_t count, const bb_cb_params *p, bb_cb_set *out, char *err,
                size_t errlen)
{
    if (check_params(p, count, err, errlen)) return -1;
    size_t ngroups = count / (size_t)p->group;
    int rc = -1, k = p->books;
    cb_work wk = {0};
    uint64_t rng = p->seed;
    wk.idx = malloc(sizeof(size_t) * (ngroups ? ngroups : 1));
    if (!wk.idx) goto oom;
    select_groups(w, ngroups, p, &rng, &wk);
    if (!wk.nz) {
        snprintf(err, errlen, "codebook builder: all %zu groups are zero; nothing to cluster", ngroups);
        goto done;
    }
    if (work_alloc(&wk, wk.ns, p->group, k, p->bins)) goto oom;
    phase1(w, p, &rng, &wk);
    phase2_histograms(w, p, &wk);
    memset(out, 0, sizeof *out);
    out->books = k;
    out->entries = p->entries;
    out->qmax = p->qmax;
    for (int c = 0; c < k; c++) {
        double cent[BB_CB_MAX_ENTRIES];
        if (cluster_entries(p, &wk, c, cent)) goto oom;
        store_book(out, c, cent, (double)wk.members[c] / (double)wk.nz, p->qmax);
    }
    for (int i = 1; i < k; i++) /* canonical order */
        for (int j = i; j > 0 && book_less(out, j, j - 1); j--) swap_books(out, j, j - 1);
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "codebook builder: out of memory for %zu groups", ngroups);
done:
    work_free(&wk);
    return rc;
}
