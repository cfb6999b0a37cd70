/* `bitbench report FILE.sqlite`: the history of every point across the database's runs, in the
 * manner of asv (airspeed velocity: one benchmark's value per commit, per machine) without its
 * server -- a table, an SVG plot written here, and the newest run against the newest run of the
 * commit before it (html_report.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archive/compare.h"
#include "archive/results_db.h"
#include "io/json_read.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_report.h"
#include "report/markdown_html.h"
#include "results/run_tables.h"
#include "support/input_file.h"
#include "support/output_file.h"

/* Runs shown as columns of the history table and points on the plot (the newest ones), and lines
 * drawn (the table has every point). */
#define MAX_RUN_COLUMNS 40
#define MAX_SERIES_DRAWN 12
#define MAX_SERIES 4000

typedef struct {
    char key[BB_DB_KEY_MAX], commit[48], host[64], cpu[128], date[40], experiment[64], status[24];
    int npoints, ne2e;
} run_info;

typedef struct {
    char name[360];
    const char *unit; /* a literal of ours */
    double *v;        /* one per run, NAN where the run has no such point */
    bool *noisy;
} series;

typedef struct {
    run_info *runs;
    int nruns;
    series *s;
    int ns;
    bool truncated; /* more than MAX_SERIES points */
} history;

static series *series_of(history *h, const char *name, const char *unit)
{
    for (int i = h->ns - 1; i >= 0; i--)
        if (!strcmp(h->s[i].name, name)) return &h->s[i];
    if (h->ns == MAX_SERIES) {
        h->truncated = true;
        return NULL;
    }
    series *s = bb_run_tables_grow((void **)&h->s, &h->ns, sizeof *s);
    if (!s) return NULL;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->unit = unit;
    s->v = malloc(sizeof *s->v * (size_t)h->nruns);
    s->noisy = calloc((size_t)h->nruns, sizeof *s->noisy);
    if (!s->v || !s->noisy) {
        h->ns--;
        free(s->v);
        free(s->noisy);
        return NULL;
    }
    for (int i = 0; i < h->nruns; i++) s->v[i] = NAN;
    return s;
}

static void put(history *h, int run, const char *name, const char *unit, double v, bool noisy)
{
    if (!isfinite(v)) return;
    series *s = series_of(h, name, unit);
    if (!s || isfinite(s->v[run])) return; /* the first row of a point in a run */
    s->v[run] = v;
    s->noisy[run] = noisy;
}

static void copy(char *out, size_t len, const char *s) { snprintf(out, len, "%s", s ? s : ""); }

/* A run's description from its run.json, else from its first row. */
static void describe_run(run_info *ri, const bb_run_tables *t)
{
    char err[200];
    bb_jv *j = t->run_json ? bb_json_parse(t->run_json, err, sizeof err) : NULL;
    copy(ri->commit, sizeof ri->commit, bb_jv_str(bb_jv_get(j, "tool"), "git_commit"));
    copy(ri->host, sizeof ri->host, bb_jv_str(j, "host"));
    copy(ri->cpu, sizeof ri->cpu, bb_jv_str(bb_jv_get(j, "machine"), "cpu_model"));
    copy(ri->date, sizeof ri->date, bb_jv_str(j, "started_at"));
    copy(ri->experiment, sizeof ri->experiment, bb_jv_str(bb_jv_get(j, "experiment"), "name"));
    copy(ri->status, sizeof ri->status, bb_jv_str(j, "status"));
    bb_jv_free(j);
    const bb_row_provenance *p = t->nrows ? &t->rows[0].prov : t->ne2e ? &t->e2e[0].prov : NULL;
    if (p && !ri->commit[0]) copy(ri->commit, sizeof ri->commit, p->commit);
    if (p && !ri->host[0]) copy(ri->host, sizeof ri->host, p->host);
    ri->npoints = t->nrows;
    ri->ne2e = t->ne2e;
}

static void points_of(history *h, int run, const bb_run_tables *t)
{
    char name[360];
    for (int i = 0; i < t->nrows; i++) {
        const bb_result_row *r = &t->rows[i];
        snprintf(name, sizeof name, "%s@%s%s%s%s%s %dx%dx%d t%d %s", r->kernel, r->variant, r->model[0] ? " " : "", r->model,
                 r->roles[0] ? " " : "", r->roles, r->m, r->k, r->n, r->threads, r->cache);
        put(h, run, name, "GOP/s", r->gops, r->spread_flag || r->prov.busy);
    }
    for (int i = 0; i < t->ne2e; i++) {
        const bb_e2e_row *r = &t->e2e[i];
        bool noisy = r->spread_flag || r->prov.busy;
        const char *who = r->peer[0] ? r->peer : "bitbench";
        if (r->prompt > 0) {
            snprintf(name, sizeof name, "%s %s %s@%s t%d pp%d d%d", who, r->model, r->kernel, r->variant, r->threads,
                     r->prompt, r->depth);
            put(h, run, name, "prompt tokens/s", r->pp_tps, noisy);
        }
        if (r->gen > 0) {
            snprintf(name, sizeof name, "%s %s %s@%s t%d tg%d d%d", who, r->model, r->kernel, r->variant, r->threads,
                     r->gen, r->depth);
            put(h, run, name, "generated tokens/s", r->tg_tps, noisy);
        }
    }
}

static int load_history(bb_db *db, history *h, char *err, size_t errlen)
{
    char **keys;
    int n = bb_db_runs(db, &keys, err, errlen);
    if (n < 0) return -1;
    h->nruns = n;
    h->runs = calloc((size_t)(n ? n : 1), sizeof *h->runs);
    int rc = h->runs ? 0 : -1;
    if (rc) snprintf(err, errlen, "out of memory");
    for (int i = 0; i < n && !rc; i++) {
        bb_run_tables t;
        if (bb_db_load_run(db, keys[i], &t, err, errlen)) {
            rc = -1;
            break;
        }
        copy(h->runs[i].key, sizeof h->runs[i].key, keys[i]);
        describe_run(&h->runs[i], &t);
        points_of(h, i, &t);
        bb_run_tables_free(&t);
    }
    for (int i = 0; i < n; i++) free(keys[i]);
    free(keys);
    return rc;
}

static void free_history(history *h)
{
    for (int i = 0; i < h->ns; i++) {
        free(h->s[i].v);
        free(h->s[i].noisy);
    }
    free(h->s);
    free(h->runs);
}

static void runs_table(FILE *f, const history *h)
{
    fputs("<h2 id=\"runs\">Runs</h2>\n<div class=\"scroll\"><table><thead><tr><th>#</th><th>run</th><th>commit</th>"
          "<th>host</th><th>CPU</th><th>experiment</th><th>started</th><th>status</th><th>kernel points</th>"
          "<th>end-to-end points</th></tr></thead><tbody>\n", f);
    for (int i = 0; i < h->nruns; i++) {
        const run_info *r = &h->runs[i];
        const char *cells[] = {r->key, r->commit, r->host, r->cpu, r->experiment, r->date, r->status};
        fprintf(f, "<tr><td class=\"n\">%d</td>", i + 1);
        for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++) {
            fputs("<td>", f);
            bb_html_escape(f, cells[c]);
            fputs("</td>", f);
        }
        fprintf(f, "<td class=\"n\">%d</td><td class=\"n\">%d</td></tr>\n", r->npoints, r->ne2e);
    }
    fputs("</tbody></table></div>\n", f);
}

/* The newest value of s at or before run `last`, and the newest before that from another commit
 * on the same host: the point's change against the commit before. */
static bool previous_commit(const history *h, const series *s, int *a, int *b)
{
    *b = -1;
    for (int i = h->nruns - 1; i >= 0 && *b < 0; i--)
        if (isfinite(s->v[i])) *b = i;
    if (*b < 0) return false;
    for (int i = *b - 1; i >= 0; i--)
        if (isfinite(s->v[i]) && strcmp(h->runs[i].commit, h->runs[*b].commit) &&
            !strcmp(h->runs[i].host, h->runs[*b].host)) {
            *a = i;
            return true;
        }
    return false;
}

static void history_table(FILE *f, const history *h, int first)
{
    fputs("<h2 id=\"history\">History of each point</h2>\n", f);
    fprintf(f, "<p>One row per point (kernel points in GOP/s, end-to-end points in tokens/s: higher is faster), one "
               "column per run, oldest first%s; <span class=\"mark\">⚠</span> marks a measurement flagged noisy or "
               "busy. The last column is the newest value over the newest value of the commit before on the same "
               "host.</p>\n", first ? " (the oldest runs are left out of the columns)" : "");
    fputs("<div class=\"scroll\"><table><thead><tr><th>point</th><th>unit</th>", f);
    for (int i = first; i < h->nruns; i++) {
        fprintf(f, "<th>#%d ", i + 1);
        bb_html_escape(f, h->runs[i].commit);
        fputs("<br>", f);
        bb_html_escape(f, h->runs[i].host);
        fputs("</th>", f);
    }
    fputs("<th>newest / commit before</th></tr></thead><tbody>\n", f);
    for (int k = 0; k < h->ns; k++) {
        const series *s = &h->s[k];
        fputs("<tr><td>", f);
        bb_html_escape(f, s->name);
        fprintf(f, "</td><td>%s</td>", s->unit);
        for (int i = first; i < h->nruns; i++) {
            fputs("<td class=\"n\">", f);
            bb_page_num(f, s->v[i]);
            if (isfinite(s->v[i]) && s->noisy[i]) fputs(" <span class=\"mark\" title=\"flagged\">⚠</span>", f);
            fputs("</td>", f);
        }
        int a, b;
        if (previous_commit(h, s, &a, &b)) fprintf(f, "<td class=\"n\">%.3f</td>", s->v[b] / s->v[a]);
        else fputs("<td></td>", f);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    if (h->truncated) fprintf(f, "<p class=\"mark\">Only the first %d points are shown.</p>\n", MAX_SERIES);
}

static double median_of(const series *s, int n)
{
    double *v = malloc(sizeof *v * (size_t)n);
    int m = 0;
    for (int i = 0; v && i < n; i++)
        if (isfinite(s->v[i])) v[m++] = s->v[i];
    double med = NAN;
    if (m) {
        for (int i = 1; i < m; i++)
            for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
                double t = v[j];
                v[j] = v[j - 1], v[j - 1] = t;
            }
        med = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
    }
    free(v);
    return med;
}

/* The plot's frame: its size, margins, first run and y range. */
typedef struct {
    double W, H, L, R, T, B, lo, hi;
    int first, nr;
} frame;

static double xpos(const frame *p, int i)
{
    return p->nr > 1 ? p->L + (p->W - p->L - p->R) * (double)(i - p->first) / (p->nr - 1) : p->L + (p->W - p->L - p->R) / 2;
}

static double ypos(const frame *p, double y) { return p->T + (p->H - p->T - p->B) * (1 - (y - p->lo) / (p->hi - p->lo)); }

/* The plot: each drawn point's value over its median across the runs (so points of every size
 * share one axis; 1 is the point's usual value), one line per point, the runs along x. */
static void history_plot(FILE *f, const history *h, int first)
{
    static const char *const colour[MAX_SERIES_DRAWN] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
                                                         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#393b79", "#637939"};
    const double W = 960, H = 400, L = 70, R = 20, T = 20, B = 90;
    int nr = h->nruns - first, nd = h->ns < MAX_SERIES_DRAWN ? h->ns : MAX_SERIES_DRAWN;
    /* the points measured in the most of the shown runs (a history of one value is no line) */
    int pick[MAX_SERIES_DRAWN], count[MAX_SERIES_DRAWN];
    for (int k = 0; k < nd; k++) pick[k] = -1, count[k] = -1;
    for (int j = 0; j < h->ns; j++) {
        int c = 0;
        for (int i = first; i < h->nruns; i++) c += isfinite(h->s[j].v[i]);
        int at = nd;
        while (at > 0 && c > count[at - 1]) at--;
        if (at == nd) continue;
        for (int k = nd - 1; k > at; k--) pick[k] = pick[k - 1], count[k] = count[k - 1];
        pick[at] = j, count[at] = c;
    }
    const series *drawn[MAX_SERIES_DRAWN];
    for (int k = 0; k < nd; k++) drawn[k] = &h->s[pick[k]];
    double lo = 1, hi = 1, med[MAX_SERIES_DRAWN];
    for (int k = 0; k < nd; k++) {
        med[k] = median_of(drawn[k], h->nruns);
        for (int i = first; i < h->nruns; i++) {
            double y = drawn[k]->v[i] / med[k];
            if (!isfinite(y)) continue;
            lo = fmin(lo, y), hi = fmax(hi, y);
        }
    }
    double pad = (hi - lo) * 0.08 + 0.02;
    lo -= pad, hi += pad;
    if (lo < 0) lo = 0;
    const frame fr = {W, H, L, R, T, B, lo, hi, first, nr}, *p = &fr;
    fputs("<h2 id=\"plot\">History plot</h2>\n<figure>\n", f);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "role=\"img\" aria-label=\"history of each point across the runs\">\n", W, H, W, H);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", W, H);
    /* y grid and labels: 6 steps */
    for (int t = 0; t <= 5; t++) {
        double y = lo + (hi - lo) * t / 5;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", L, ypos(p, y), W - R, ypos(p, y));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" font-family=\"sans-serif\">%.2f</text>\n",
                L - 6, ypos(p, y) + 4, y);
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n", L, ypos(p, 1.0),
            W - R, ypos(p, 1.0));
    fprintf(f, "<text transform=\"translate(16 %.1f) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\" "
               "font-family=\"sans-serif\">value / the point's median (higher: faster)</text>\n", T + (H - T - B) / 2);
    int every = nr > 30 ? (nr + 29) / 30 : 1;
    for (int i = first; i < h->nruns; i++) {
        if ((i - first) % every) continue;
        fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-40)\" font-size=\"10\" text-anchor=\"end\" "
                   "font-family=\"sans-serif\">#%d ", xpos(p, i), H - B + 14, i + 1);
        bb_html_escape(f, h->runs[i].commit);
        fputs("</text>\n", f);
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n", L, T,
            W - L - R, H - T - B);
    for (int k = 0; k < nd; k++) {
        const series *s = drawn[k];
        fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" d=\"", colour[k]);
        bool pen = false;
        for (int i = first; i < h->nruns; i++) {
            double y = s->v[i] / med[k];
            if (!isfinite(y)) {
                pen = false;
                continue;
            }
            fprintf(f, "%s%.1f %.1f ", pen ? "L" : "M", xpos(p, i), ypos(p, y));
            pen = true;
        }
        fputs("\"/>\n", f);
        for (int i = first; i < h->nruns; i++) {
            double y = s->v[i] / med[k];
            if (!isfinite(y)) continue;
            if (s->noisy[i])
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"white\" stroke=\"#b45309\" stroke-width=\"2\"/>",
                        xpos(p, i), ypos(p, y));
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", xpos(p, i), ypos(p, y), colour[k]);
        }
    }
    fputs("</svg>\n<figcaption>", f);
    for (int k = 0; k < nd; k++) {
        fprintf(f, "<span class=\"swatch\" style=\"background:%s\"></span>", colour[k]);
        bb_html_escape(f, drawn[k]->name);
        fprintf(f, " (median ");
        bb_page_num(f, med[k]);
        fprintf(f, " %s)<br>\n", drawn[k]->unit);
    }
    fprintf(f, "A ring marks a measurement flagged noisy or busy.%s</figcaption>\n</figure>\n",
            h->ns > nd ? " Drawn: the points measured in the most runs; the table has every one." : "");
}

/* The newest run against the newest run of another commit before it (the same host when there
 * is one), with bitbench compare's statistics. */
static void comparison(FILE *f, const char *db, const history *h)
{
    fputs("<h2 id=\"compare\">Newest run against the commit before</h2>\n", f);
    int b = h->nruns - 1, a = -1;
    for (int pass = 0; pass < 2 && a < 0; pass++)
        for (int i = b - 1; i >= 0 && a < 0; i--)
            if (strcmp(h->runs[i].commit, h->runs[b].commit) && (pass || !strcmp(h->runs[i].host, h->runs[b].host)))
                a = i;
    if (a < 0) {
        fputs("<p class=\"note\">Every run of the database is of one commit: nothing to compare with.</p>\n", f);
        return;
    }
    char sa[4400], sb[4400], err[1024];
    snprintf(sa, sizeof sa, "%s:%s", db, h->runs[a].key);
    snprintf(sb, sizeof sb, "%s:%s", db, h->runs[b].key);
    bb_comparison c;
    if (bb_compare(sa, sb, 0.05, false, &c, err, sizeof err)) {
        fprintf(f, "<p class=\"note\">Run #%d against run #%d: ", b + 1, a + 1);
        bb_html_escape(f, err);
        fputs("</p>\n", f);
        return;
    }
    char *md = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&md, &len);
    if (m) {
        bb_compare_markdown(m, &c);
        fclose(m);
        fprintf(f, "<p>Run #%d (A) against run #%d (B), as <code>bitbench compare</code> gives it: B/A is the ratio of "
                   "times (above 1: B is slower), with its 95%% bootstrap interval; ⚠ marks a noisy side.</p>\n", a + 1, b + 1);
        bb_markdown_html(f, md);
    }
    free(md);
    bb_comparison_free(&c);
}

int bb_report_database(const char *db_path, const char *out, char *err, size_t errlen)
{
    if (bb_output_check(out, err, errlen)) return -1;
    /* an existing regular file only: bb_db_open would make a new database of a missing name */
    FILE *probe = bb_input_open(db_path, "results database", BB_INPUT_ANY_SIZE, NULL, err, errlen);
    if (!probe) return -1;
    fclose(probe);
    bb_db *db = bb_db_open_read(db_path, err, errlen);
    if (!db) return -1;
    history h = {0};
    int rc = load_history(db, &h, err, errlen);
    bb_db_close(db);
    if (rc) {
        free_history(&h);
        return -1;
    }
    bb_output_file o;
    FILE *f = bb_output_begin(&o, out, err, errlen);
    if (!f) {
        free_history(&h);
        return -1;
    }
    char title[300];
    snprintf(title, sizeof title, "bitbench report: history of %s", db_path);
    bb_page_begin(f, title);
    fputs("<h1>", f);
    bb_html_escape(f, title);
    fprintf(f, "</h1>\n<p>%d run%s. <nav><a href=\"#runs\">runs</a><a href=\"#history\">history</a><a href=\"#plot\">"
               "plot</a><a href=\"#compare\">against the commit before</a></nav></p>\n", h.nruns, h.nruns == 1 ? "" : "s");
    runs_table(f, &h);
    int first = h.nruns > MAX_RUN_COLUMNS ? h.nruns - MAX_RUN_COLUMNS : 0;
    if (h.ns) {
        history_table(f, &h, first);
        history_plot(f, &h, first);
        comparison(f, db_path, &h);
    } else
        fputs("<p class=\"note\">The database holds no measured point.</p>\n", f);
    bb_page_end(f);
    free_history(&h);
    return bb_output_commit(&o, err, errlen);
}
