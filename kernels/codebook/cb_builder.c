/* Two-phase clustering codebook builder (seed 003 §5.2, Algorithm 1); see cb_builder.h. */
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

int bb_cb_build(const float *w, size_t count, const bb_cb_params *p, bb_cb_set *out, char *err,
                size_t errlen)
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
    size_t ngroups = count / (size_t)p->group, nz = 0;
    int rc = -1, k = p->books, d = p->bins;
    size_t *idx = malloc(sizeof(size_t) * (ngroups ? ngroups : 1));
    double *hh = NULL, *mind = NULL, *centers = NULL, *best_centers = NULL, *fc = NULL, *fs = NULL;
    double cc[BB_CB_MAX_BOOKS], best_cc[BB_CB_MAX_BOOKS], tmp[BB_CB_MAX_BINS] = {0};
    uint16_t *bins = NULL;
    int *assign = NULL;
    size_t *cnt = NULL, *members = NULL;
    if (!idx) goto oom;
    for (size_t g = 0; g < ngroups; g++)
        if (group_amax(w + g * p->group, p->group) > 0) idx[nz++] = g;
    if (!nz) {
        snprintf(err, errlen, "codebook builder: all %zu groups are zero; nothing to cluster", ngroups);
        goto done;
    }
    uint64_t rng = p->seed;
    size_t ns = nz;
    if (p->max_groups && nz > p->max_groups) { /* seeded sample: partial Fisher-Yates */
        ns = p->max_groups;
        for (size_t i = 0; i < ns; i++) {
            size_t j = i + (size_t)(bb_cb_uniform(&rng) * (double)(nz - i));
            size_t t = idx[i]; idx[i] = idx[j]; idx[j] = t;
        }
    }
    bins = malloc(sizeof(uint16_t) * ns * p->group);
    hh = malloc(sizeof(double) * ns);
    mind = malloc(sizeof(double) * ns);
    assign = malloc(sizeof(int) * ns);
    centers = malloc(sizeof(double) * k * d);
    best_centers = malloc(sizeof(double) * k * d);
    cnt = malloc(sizeof(size_t) * k);
    members = calloc(k, sizeof(size_t));
    fc = calloc((size_t)k * BB_CB_FINE_BINS, sizeof(double));
    fs = calloc((size_t)k * BB_CB_FINE_BINS, sizeof(double));
    if (!bins || !hh || !mind || !assign || !centers || !best_centers || !cnt || !members || !fc || !fs) goto oom;

    /* phase 1: histograms of the scaled groups, k-means over the distributions */
    for (size_t i = 0; i < ns; i++)
        hh[i] = group_bins(w + idx[i] * p->group, p->group, d, bins + i * p->group, tmp);
    hist_points P = {bins, hh, ns, p->group, d};
    double best = -1;
    for (int r = 0; r < p->restarts; r++) {
        double inertia = kmeans(&P, k, p->iters, &rng, centers, cc, assign, mind, cnt);
        if (best < 0 || inertia < best) {
            best = inertia;
            memcpy(best_centers, centers, sizeof(double) * k * d);
            memcpy(best_cc, cc, sizeof(double) * k);
        }
    }

    /* phase 2: every group joins its nearest distribution cluster; per cluster, 1-D k-means of
     * the scaled values (exact bin sums in a fine histogram) */
    uint16_t *gb = bins; /* reused: one group at a time */
    for (size_t i = 0; i < nz; i++) {
        const float *x = w + idx[i] * p->group;
        double h2 = group_bins(x, p->group, d, gb, tmp);
        hist_points one = {gb, &h2, 1, p->group, d};
        int c = nearest_center(&one, 0, best_centers, best_cc, k, NULL);
        members[c]++;
        double inv = 1.0 / group_amax(x, p->group);
        for (int j = 0; j < p->group; j++) {
            double v = x[j] * inv;
            int b = bin_of(v, BB_CB_FINE_BINS);
            fc[(size_t)c * BB_CB_FINE_BINS + b] += 1;
            fs[(size_t)c * BB_CB_FINE_BINS + b] += v;
        }
    }
    memset(out, 0, sizeof *out);
    out->books = k;
    out->entries = p->entries;
    out->qmax = p->qmax;
    for (int c = 0; c < k; c++) {
        double cent[BB_CB_MAX_ENTRIES];
        if (!members[c]) { /* an empty cluster gets the codebook of all the values */
            double *ac = calloc(BB_CB_FINE_BINS, sizeof(double)), *as = calloc(BB_CB_FINE_BINS, sizeof(double));
            if (!ac || !as) { free(ac); free(as); goto oom; }
            for (int o = 0; o < k; o++)
                for (int b = 0; b < BB_CB_FINE_BINS; b++) {
                    ac[b] += fc[(size_t)o * BB_CB_FINE_BINS + b];
                    as[b] += fs[(size_t)o * BB_CB_FINE_BINS + b];
                }
            int r1 = kmeans_1d(ac, as, BB_CB_FINE_BINS, p->entries, p->iters, cent);
            free(ac); free(as);
            if (r1) goto oom;
        } else {
            if (kmeans_1d(fc + (size_t)c * BB_CB_FINE_BINS, fs + (size_t)c * BB_CB_FINE_BINS, BB_CB_FINE_BINS,
                          p->entries, p->iters, cent))
                goto oom;
        }
        out->share[c] = (double)members[c] / (double)nz;
        for (int e = 0; e < p->entries; e++) {
            out->value[c][e] = (float)cent[e];
            double q = cent[e] * p->qmax;
            int qi = (int)(q < 0 ? q - 0.5 : q + 0.5); /* round half away from zero */
            out->q[c][e] = (int8_t)(qi > p->qmax ? p->qmax : (qi < -p->qmax ? -p->qmax : qi));
        }
    }
    for (int i = 1; i < k; i++) /* canonical order */
        for (int j = i; j > 0 && book_less(out, j, j - 1); j--) {
            bb_cb_set t;
            memcpy(t.value[0], out->value[j], sizeof t.value[0]);
            memcpy(t.q[0], out->q[j], sizeof t.q[0]);
            t.share[0] = out->share[j];
            memcpy(out->value[j], out->value[j - 1], sizeof t.value[0]);
            memcpy(out->q[j], out->q[j - 1], sizeof t.q[0]);
            out->share[j] = out->share[j - 1];
            memcpy(out->value[j - 1], t.value[0], sizeof t.value[0]);
            memcpy(out->q[j - 1], t.q[0], sizeof t.q[0]);
            out->share[j - 1] = t.share[0];
        }
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "codebook builder: out of memory for %zu groups", ngroups);
done:
    free(idx); free(bins); free(hh); free(mind); free(assign); free(centers); free(best_centers);
    free(cnt); free(members); free(fc); free(fs);
    return rc;
}
