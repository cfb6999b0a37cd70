/* `bitbench report` on a run folder: the page (html_report.h). */
#include "report/html_report.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/csv.h"
#include "io/json_read.h"
#include "io/shell_word.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/markdown_html.h"
#include "report/paper_report.h"
#include "report/plot_kinds.h"
#include "report/scripts_dir.h"
#include "support/input_file.h"
#include "support/output_file.h"

/* Rows per table in the page: a full sweep is a few thousand; past this the CSV is the place. */
#define MAX_TABLE_ROWS 5000
/* The largest image or plot log inlined (gnuplot's SVG of a large sweep is a few hundred KB). */
#define MAX_SVG_BYTES ((uint64_t)32 << 20)
#define MAX_LOG_BYTES ((uint64_t)64 << 10)

typedef struct {
    char dir[PATH_MAX];
    bb_jv *run;                     /* run.json, NULL when missing or not JSON */
    char run_error[600];            /* why run.json is not there */
    bb_csv_table results, e2e;
    bool has_results, has_e2e;
    char results_error[600], e2e_error[600];
} run_folder;

/* A CSV file of the folder: 1 absent, 0 loaded, -1 refused (not a regular file, too large: an
 * error of the command) with err; a file that does not parse is said in note. */
static int load_csv(const char *dir, const char *name, bb_csv_table *t, bool *has, char *note, size_t notelen,
                    char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    *has = false;
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT) return 1;
    FILE *probe = bb_input_open(path, "results table", BB_CSV_MAX_BYTES, NULL, err, errlen);
    if (!probe) return -1;
    fclose(probe);
    if (bb_csv_load(path, BB_CSV_LENIENT, t, note, notelen)) return 0;
    *has = true;
    return 0;
}

static int load_folder(const char *dir, run_folder *rf, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is %s, not a run folder or a results database (FILE.sqlite)", dir,
                 bb_file_kind((unsigned)st.st_mode));
        return -1;
    }
    snprintf(rf->dir, sizeof rf->dir, "%s", dir);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/run.json", dir);
    bool has_json = access(path, F_OK) == 0;
    if (has_json) {
        rf->run = bb_json_load(path, rf->run_error, sizeof rf->run_error);
        if (!rf->run && strstr(rf->run_error, "not a regular file")) {
            snprintf(err, errlen, "%s", rf->run_error);
            return -1;
        }
    } else
        snprintf(rf->run_error, sizeof rf->run_error, "the folder has no run.json");
    int a = load_csv(dir, "results.csv", &rf->results, &rf->has_results, rf->results_error, sizeof rf->results_error,
                     err, errlen);
    if (a < 0) return -1;
    int b = load_csv(dir, "e2e.csv", &rf->e2e, &rf->has_e2e, rf->e2e_error, sizeof rf->e2e_error, err, errlen);
    if (b < 0) return -1;
    if (!has_json && a == 1 && b == 1) {
        snprintf(err, errlen, "%s has no run.json, results.csv or e2e.csv: not a run folder of bitbench run", dir);
        return -1;
    }
    return 0;
}

static void free_folder(run_folder *rf)
{
    bb_jv_free(rf->run);
    if (rf->has_results) bb_csv_table_free(&rf->results);
    if (rf->has_e2e) bb_csv_table_free(&rf->e2e);
}

static const char *jstr(const bb_jv *v, const char *key)
{
    const char *s = bb_jv_str(v, key);
    return s ? s : "";
}

/* One row of the summary table: a label of ours, a value from the folder (escaped). */
static void kv(FILE *f, const char *label, const char *value)
{
    if (!value || !*value) return;
    fprintf(f, "<tr><td>%s</td><td>", label);
    bb_html_escape(f, value);
    fputs("</td></tr>\n", f);
}

static void summary(FILE *f, const run_folder *rf)
{
    const bb_jv *r = rf->run, *ex = bb_jv_get(r, "experiment"), *m = bb_jv_get(r, "machine"),
                *tool = bb_jv_get(r, "tool");
    fputs("<table class=\"kv\"><tbody>\n", f);
    kv(f, "folder", rf->dir);
    kv(f, "experiment", jstr(ex, "name"));
    kv(f, "description", jstr(ex, "description"));
    kv(f, "experiment file", jstr(ex, "file"));
    kv(f, "status", jstr(r, "status"));
    kv(f, "why", jstr(r, "status_reason"));
    kv(f, "run id", jstr(r, "run_id"));
    kv(f, "started", jstr(r, "started_at"));
    kv(f, "ended", jstr(r, "ended_at"));
    kv(f, "host", jstr(r, "host"));
    kv(f, "CPU", jstr(m, "cpu_model"));
    kv(f, "bitbench commit", jstr(tool, "git_commit"));
    const bb_jv *cl = bb_jv_get(r, "command_line");
    if (cl && cl->type == BB_JV_ARR) {
        fputs("<tr><td>command line</td><td><code>", f);
        for (int i = 0; i < cl->n; i++) {
            if (i) fputc(' ', f);
            if (cl->items[i].type == BB_JV_STR) bb_html_escape(f, cl->items[i].str);
        }
        fputs("</code></td></tr>\n", f);
    }
    static const char *const counts[] = {"points", "e2e_points"};
    for (int i = 0; i < 2; i++) {
        const bb_jv *p = bb_jv_get(r, counts[i]);
        if (!p || p->type != BB_JV_OBJ) continue;
        fprintf(f, "<tr><td>%s</td><td>", i ? "end-to-end points" : "kernel points");
        for (int k = 0; k < p->n; k++) {
            if (k) fputs(", ", f);
            bb_html_escape(f, p->keys[k]);
            if (p->items[k].type == BB_JV_NUM) fprintf(f, " %.0f", p->items[k].num);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (!rf->run) {
        fputs("<p class=\"mark\">No provenance: ", f);
        bb_html_escape(f, rf->run_error);
        fputs("</p>\n", f);
    }
}

static const char *const result_cols[] = {"sweep", "kernel", "variant", "variant_ran", "model", "roles", "m", "k", "n",
                                          "threads", "cache", "t_median_s", "t_sd_s", "spread", "gops", "gbps",
                                          "read_ratio_paired", "rounds_read_ratio_paired", "read_streams", "stream_prefetch", "verify",
                                          "attempts", NULL};
static const char *const e2e_cols[] = {"sweep", "model", "kernel", "variant", "peer", "peer_commit", "threads",
                                       "prompt", "gen", "depth", "pp_tps", "tg_tps", "ms_per_token", "tg_gbps_derived",
                                       "tg_of_read", "rounds_tg_of_read", "read_streams", "stream_prefetch", "interleaved", "pp_spread",
                                       "tg_spread",
                                       "ppl", "ppl_err", "attempts", NULL};

/* A table of the folder: the chosen columns, then every column in a <details>. */
static void table_section(FILE *f, const char *id, const char *heading, const char *file, const bb_csv_table *t,
                          const char *const *cols, const bool *keep, const char *note)
{
    int rows = 0, flagged = 0;
    char why[512];
    for (int r = 0; r < t->nrows; r++)
        if (!keep || keep[r]) {
            rows++;
            flagged += bb_page_row_flag(t, r, why, sizeof why);
        }
    fprintf(f, "<h2 id=\"%s\">%s</h2>\n<p>%s: %d row%s", id, heading, file, rows, rows == 1 ? "" : "s");
    if (flagged)
        fprintf(f, ", <span class=\"mark\">%d flagged ⚠</span> (marked, the reason in the note column)", flagged);
    fprintf(f, ".%s</p>\n", note ? note : "");
    if (rows == 0) return;
    bb_page_csv_table(f, t, cols, keep, MAX_TABLE_ROWS);
    fprintf(f, "<details><summary>every column of %s (%d)</summary>\n", file, t->ncols);
    bb_page_csv_table(f, t, NULL, keep, MAX_TABLE_ROWS);
    fputs("</details>\n", f);
}

static void tables(FILE *f, const run_folder *rf)
{
    if (rf->has_results) table_section(f, "results", "Kernel points", "results.csv", &rf->results, result_cols, NULL, NULL);
    else if (rf->results_error[0]) {
        fputs("<h2 id=\"results\">Kernel points</h2><p class=\"mark\">results.csv is not a table: ", f);
        bb_html_escape(f, rf->results_error);
        fputs("</p>\n", f);
    }
    if (rf->has_e2e) {
        const bb_csv_table *t = &rf->e2e;
        int cp = bb_csv_col(t, "peer");
        bool *ours = calloc((size_t)t->nrows + 1, 1), *peers = calloc((size_t)t->nrows + 1, 1);
        int nours = 0, npeers = 0;
        if (ours && peers) {
            for (int r = 0; r < t->nrows; r++) {
                bool peer = bb_csv_cell(t, r, cp)[0] != 0;
                peers[r] = peer, ours[r] = !peer;
                npeers += peer, nours += !peer;
            }
            if (nours || !npeers) table_section(f, "e2e", "End-to-end points", "e2e.csv", t, e2e_cols, ours, NULL);
            if (npeers)
                table_section(f, "peers", "Peers", "e2e.csv", t, e2e_cols, peers,
                              " The rows of other programs (llama.cpp's llama-bench and others) measured side by side");
        }
        free(ours);
        free(peers);
    } else if (rf->e2e_error[0]) {
        fputs("<h2 id=\"e2e\">End-to-end points</h2><p class=\"mark\">e2e.csv is not a table: ", f);
        bb_html_escape(f, rf->e2e_error);
        fputs("</p>\n", f);
    }
}

/* One plot file into the page, when it is ours and clean; else the reason. */
static void plot_figure(FILE *f, const char *path, const char *kind, int index)
{
    char err[600], why[300], prefix[32];
    size_t n;
    char *svg = bb_input_read_all(path, "plot", MAX_SVG_BYTES, &n, err, sizeof err);
    if (!svg) {
        fprintf(f, "<p class=\"mark\">%s: ", kind);
        bb_html_escape(f, err);
        fputs("</p>\n", f);
        return;
    }
    snprintf(prefix, sizeof prefix, "p%d-", index);
    fprintf(f, "<figure id=\"plot-%s\">\n", kind);
    if (bb_page_inline_svg(f, svg, n, prefix, why, sizeof why)) {
        fprintf(f, "<p class=\"mark\">%s.svg not shown: ", kind);
        bb_html_escape(f, why);
        fputs("</p>\n", f);
    }
    fprintf(f, "\n<figcaption>%s</figcaption>\n</figure>\n", kind);
    free(svg);
}

static void plot_log(FILE *f, const char *tmp)
{
    char path[BB_PAGE_TMP_MAX + 16], err[300];
    snprintf(path, sizeof path, "%s/plot.log", tmp);
    size_t n;
    char *log = bb_input_read_all(path, "plot log", MAX_LOG_BYTES, &n, err, sizeof err);
    if (log && n) {
        fputs("<p>What <code>bitbench plot</code> said:</p>\n<pre>", f);
        bb_html_escape_n(f, log, n);
        fputs("</pre>\n", f);
    }
    free(log);
}

static void plots_section(FILE *f, const run_folder *rf, const bb_report_plots *plots)
{
    fputs("<h2 id=\"plots\">Plots</h2>\n", f);
    int shown = 0;
    if (plots->draw) {
        char tmp[BB_PAGE_TMP_MAX], err[300], path[BB_PAGE_TMP_MAX + 64];
        if (bb_page_draw_plots(rf->dir, tmp, err, sizeof err)) {
            fputs("<p class=\"mark\">No plots: ", f);
            bb_html_escape(f, err);
            fputs("</p>\n", f);
            return;
        }
        for (int i = 0; i < BB_PLOT_NKINDS; i++) {
            snprintf(path, sizeof path, "%s/%s.svg", tmp, bb_plot_kinds[i]);
            if (access(path, F_OK) != 0) continue;
            plot_figure(f, path, bb_plot_kinds[i], i);
            shown++;
        }
        if (!shown) fputs("<p class=\"mark\">No plot was drawn (gnuplot's message or the missing data below).</p>\n", f);
        plot_log(f, tmp);
        bb_page_remove_plots(tmp);
        return;
    }
    char path[PATH_MAX + 64];
    for (int i = 0; i < plots->ndrawn; i++) {
        snprintf(path, sizeof path, "%s/%s.svg", plots->drawn_dir, plots->drawn[i]);
        plot_figure(f, path, plots->drawn[i], i);
        shown++;
    }
    fprintf(f, "<p class=\"note\">%s <code>bitbench report ", shown ? "These are the plots the experiment's <code>plots</code> field names; every plot the data allow:" : "The experiment draws no plots (its <code>plots</code> field names none, or gnuplot could not draw them); to draw every plot the data allow:");
    /* a command to copy into a shell: the folder quoted for it, then escaped for HTML */
    char *word = NULL;
    size_t wlen = 0;
    FILE *w = open_memstream(&word, &wlen);
    if (w) {
        bb_shell_path(w, rf->dir);
        fclose(w);
    }
    bb_html_escape(f, word ? word : rf->dir);
    free(word);
    fputs("</code>.</p>\n", f);
}

static void paper_section(FILE *f, const run_folder *rf)
{
    const char *name = jstr(bb_jv_get(rf->run, "experiment"), "name");
    fputs("<h2 id=\"paper\">Paper tables</h2>\n", f);
    char scripts[PATH_MAX], err[1024], title[256];
    char *md = NULL;
    int rc = -1;
    if (!*name) snprintf(err, sizeof err, "run.json names no experiment");
    else if (!bb_scripts_dir(scripts, sizeof scripts, err, sizeof err))
        rc = bb_paper_report(scripts, rf->dir, name, &md, title, sizeof title, err, sizeof err);
    if (rc == 0) {
        fputs("<h3>", f);
        bb_html_escape(f, title);
        fputs("</h3>\n<p class=\"note\">The text <code>scripts/reproduce.lua</code> writes into docs/reproducing.md, here "
              "for this run.</p>\n", f);
        bb_markdown_html(f, md);
        free(md);
    } else if (rc == 1) {
        fputs("<p class=\"note\">The experiment <code>", f);
        bb_html_escape(f, name);
        fputs("</code> has no paper-table report (scripts/reproduce/NAME.lua).</p>\n", f);
    } else {
        fputs("<p class=\"mark\">No paper-table report: ", f);
        bb_html_escape(f, err);
        fputs("</p>\n", f);
    }
}

static void json_section(FILE *f, const bb_jv *run, const char *member, const char *heading)
{
    const bb_jv *v = bb_jv_get(run, member);
    if (!v || v->type == BB_JV_NULL || ((v->type == BB_JV_ARR || v->type == BB_JV_OBJ) && v->n == 0)) return;
    fprintf(f, "<h3>%s</h3>\n", heading);
    bb_page_json(f, v);
}

static void provenance(FILE *f, const run_folder *rf)
{
    fputs("<h2 id=\"meters\">Meters</h2>\n", f);
    const bb_jv *meters = bb_jv_get(rf->run, "meters");
    if (meters && meters->type == BB_JV_ARR && meters->n) {
        fputs("<p>Each meter the run asked for, whether it was available here, and why not.</p>\n", f);
        bb_page_json(f, meters);
    } else
        fputs("<p class=\"note\">run.json lists no meters.</p>\n", f);
    fputs("<h2 id=\"machine\">Machine and build</h2>\n", f);
    json_section(f, rf->run, "machine", "Machine");
    json_section(f, rf->run, "placement", "Placement of the threads (per thread count)");
    json_section(f, rf->run, "tool", "bitbench");
    json_section(f, rf->run, "build", "Build");
    json_section(f, rf->run, "experiment", "Experiment file");
    json_section(f, rf->run, "run_settings", "Run settings");
    json_section(f, rf->run, "warnings", "Warnings");
    json_section(f, rf->run, "skipped", "Skipped points");
    json_section(f, rf->run, "failed", "Failed points");
    if (rf->run) {
        fputs("<details id=\"runjson\"><summary>run.json, every member</summary>\n", f);
        bb_page_json(f, rf->run);
        fputs("</details>\n", f);
    }
}

int bb_report_run_dir(const char *dir, const char *out, const bb_report_plots *plots, char *err, size_t errlen)
{
    if (bb_output_check(out, err, errlen)) return -1;
    static run_folder rf;
    memset(&rf, 0, sizeof rf);
    if (load_folder(dir, &rf, err, errlen)) {
        free_folder(&rf);
        return -1;
    }
    bb_output_file o;
    FILE *f = bb_output_begin(&o, out, err, errlen);
    if (!f) {
        free_folder(&rf);
        return -1;
    }
    const char *name = jstr(bb_jv_get(rf.run, "experiment"), "name");
    char title[300];
    snprintf(title, sizeof title, "bitbench report: %s %s", *name ? name : "run", jstr(rf.run, "run_id"));
    bb_page_begin(f, title);
    fputs("<h1>", f);
    bb_html_escape(f, title);
    fputs("</h1>\n<nav><a href=\"#results\">kernel points</a><a href=\"#e2e\">end-to-end</a><a href=\"#peers\">peers</a>"
          "<a href=\"#plots\">plots</a><a href=\"#paper\">paper tables</a><a href=\"#meters\">meters</a>"
          "<a href=\"#machine\">machine and build</a></nav>\n", f);
    summary(f, &rf);
    tables(f, &rf);
    plots_section(f, &rf, plots);
    paper_section(f, &rf);
    provenance(f, &rf);
    bb_page_end(f);
    free_folder(&rf);
    return bb_output_commit(&o, err, errlen);
}
