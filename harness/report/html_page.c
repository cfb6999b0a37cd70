/* The parts both report pages share (html_page.h). */
#include "report/html_page.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/html_escape.h"
#include "support/input_file.h"

/* The whole style of the page: no external stylesheet or font (the page must open offline and
 * load nothing), system fonts only. */
static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:1.5em auto;"
    "max-width:1400px;padding:0 1em;color:#1a1a1a;background:#fff;line-height:1.4}\n"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;margin-top:1.8em}\n"
    "table{border-collapse:collapse;margin:.6em 0;font-size:.85em}\n"
    "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}\n"
    "th{background:#f0f0f0;position:sticky;top:0}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tr.flag td{background:#fff3cd}tr.bad td{background:#f8d7da}\n"
    ".mark{color:#b45309;font-weight:bold}.note{color:#555}\n"
    ".scroll{overflow-x:auto;max-width:100%}\n"
    "table.kv td:first-child{font-weight:600;white-space:nowrap}\n"
    "figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}\n"
    "figcaption{font-size:.9em;color:#444}\n"
    "pre{background:#f6f6f6;padding:.5em;overflow-x:auto;font-size:.85em;white-space:pre-wrap}\n"
    "code{font-size:.9em}\n"
    ".swatch{display:inline-block;width:1.6em;height:.7em;margin-right:.4em;vertical-align:middle}\n"
    "nav a{margin-right:1em}\n";

void bb_page_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"generator\" content=\"" BB_PAGE_GENERATOR "\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          /* nothing on this page loads from anywhere, and nothing runs */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "img-src data:\">\n<title>", f);
    bb_html_escape(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
}

void bb_page_end(FILE *f) { fputs("</body>\n</html>\n", f); }

void bb_page_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.6g", v);
}

static bool scalar(const bb_jv *v) { return v->type != BB_JV_ARR && v->type != BB_JV_OBJ; }

static void json_scalar(FILE *f, const bb_jv *v)
{
    switch (v->type) {
    case BB_JV_NULL: fputs("<span class=\"note\">null</span>", f); break;
    case BB_JV_BOOL: fputs(v->b ? "true" : "false", f); break;
    case BB_JV_NUM: fprintf(f, "%.10g", v->num); break;
    case BB_JV_STR: bb_html_escape(f, v->str); break;
    default: break;
    }
}

/* Deeper than this, a value is written as "…" (run.json is four levels deep). */
#define JSON_MAX_DEPTH 8
#define JSON_MAX_COLUMNS 48

static void json_value(FILE *f, const bb_jv *v, int depth);

/* An array of objects: one column per member name, in order of first appearance. */
static void json_object_array(FILE *f, const bb_jv *v, int depth)
{
    const char *names[JSON_MAX_COLUMNS];
    int nn = 0;
    for (int i = 0; i < v->n; i++)
        for (int k = 0; k < v->items[i].n; k++) {
            int seen = 0;
            for (int j = 0; j < nn && !seen; j++) seen = !strcmp(names[j], v->items[i].keys[k]);
            if (!seen && nn < JSON_MAX_COLUMNS) names[nn++] = v->items[i].keys[k];
        }
    fputs("<div class=\"scroll\"><table><thead><tr>", f);
    for (int j = 0; j < nn; j++) {
        fputs("<th>", f);
        bb_html_escape(f, names[j]);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    for (int i = 0; i < v->n; i++) {
        fputs("<tr>", f);
        for (int j = 0; j < nn; j++) {
            const bb_jv *c = bb_jv_get(&v->items[i], names[j]);
            fputs(c && c->type == BB_JV_NUM ? "<td class=\"n\">" : "<td>", f);
            if (c) json_value(f, c, depth + 1);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

static void json_value(FILE *f, const bb_jv *v, int depth)
{
    if (depth > JSON_MAX_DEPTH) {
        fputs("…", f);
        return;
    }
    if (scalar(v)) {
        json_scalar(f, v);
        return;
    }
    if (v->type == BB_JV_OBJ) {
        if (v->n == 0) return;
        fputs("<table class=\"kv\"><tbody>\n", f);
        for (int i = 0; i < v->n; i++) {
            fputs("<tr><td>", f);
            bb_html_escape(f, v->keys[i]);
            fputs("</td><td>", f);
            json_value(f, &v->items[i], depth + 1);
            fputs("</td></tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
        return;
    }
    bool all_scalar = true, all_object = v->n > 0;
    for (int i = 0; i < v->n; i++) {
        all_scalar &= scalar(&v->items[i]);
        all_object &= v->items[i].type == BB_JV_OBJ;
    }
    if (all_scalar) {
        for (int i = 0; i < v->n; i++) {
            if (i) fputs(", ", f);
            json_scalar(f, &v->items[i]);
        }
    } else if (all_object)
        json_object_array(f, v, depth);
    else {
        fputs("<ol>", f);
        for (int i = 0; i < v->n; i++) {
            fputs("<li>", f);
            json_value(f, &v->items[i], depth + 1);
            fputs("</li>", f);
        }
        fputs("</ol>\n", f);
    }
}

void bb_page_json(FILE *f, const bb_jv *v)
{
    if (v) json_value(f, v, 0);
}

/* Appends to why: sep when why is not empty, then the formatted text (cut at len). */
__attribute__((format(printf, 4, 5))) static void add(char *why, size_t len, const char *sep, const char *fmt, ...)
{
    size_t at = strlen(why);
    if (at && at < len) at += (size_t)snprintf(why + at, len - at, "%s", sep);
    if (at >= len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + at, len - at, fmt, ap);
    va_end(ap);
}

bool bb_page_row_flag(const bb_csv_table *t, int r, char *why, size_t len)
{
    why[0] = 0;
    double flag = bb_csv_cell_num(t, r, bb_csv_col(t, "spread_flag"));
    if (flag > 0) {
        double s = bb_csv_cell_num(t, r, bb_csv_col(t, "spread")), pp = bb_csv_cell_num(t, r, bb_csv_col(t, "pp_spread")),
               tg = bb_csv_cell_num(t, r, bb_csv_col(t, "tg_spread"));
        if (isfinite(s)) add(why, len, "; ", "noisy: IQR/median %.0f%% above the sweep's limit", 100 * s);
        else if (isfinite(pp) || isfinite(tg)) {
            add(why, len, "; ", "noisy: IQR/median");
            if (isfinite(pp)) add(why, len, "", " prefill %.0f%%", 100 * pp);
            if (isfinite(tg)) add(why, len, "", " generation %.0f%%", 100 * tg);
            add(why, len, "", " above the sweep's limit");
        } else
            add(why, len, "; ", "noisy: spread above the sweep's limit");
        double attempts = bb_csv_cell_num(t, r, bb_csv_col(t, "attempts"));
        if (attempts > 1) add(why, len, "", " after %.0f attempts", attempts);
    }
    if (bb_csv_cell_num(t, r, bb_csv_col(t, "busy")) > 0) {
        double share = bb_csv_cell_num(t, r, bb_csv_col(t, "other_cpu_share"));
        if (isfinite(share)) add(why, len, "; ", "busy: other processes took %.0f%% of the CPUs' time", 100 * share);
        else add(why, len, "; ", "busy: other processes ran during the measurement");
    }
    if (!strcmp(bb_csv_cell(t, r, bb_csv_col(t, "verify")), "FAILED")) add(why, len, "; ", "verify FAILED: the result is wrong");
    double fb = bb_csv_cell_num(t, r, bb_csv_col(t, "fallback_calls"));
    if (fb > 0) add(why, len, "; ", "%.0f calls fell back to other code", fb);
    return why[0] != 0;
}

/* A cell that reads as a number is right-aligned. */
static bool numeric(const char *s)
{
    if (!*s) return false;
    char *end;
    strtod(s, &end);
    return *end == 0;
}

void bb_page_csv_table(FILE *f, const bb_csv_table *t, const char *const *cols, const bool *keep, int max_rows)
{
    int idx[512], n = 0;
    if (cols) {
        /* the chosen columns the file has and some shown row fills (read_ratio_paired only where a
         * sweep read beside its calls, rounds_* only where it had rounds) */
        for (int i = 0; cols[i] && n < 512; i++) {
            int c = bb_csv_col(t, cols[i]), filled = 0;
            for (int r = 0; c >= 0 && r < t->nrows && !filled; r++)
                filled = (!keep || keep[r]) && bb_csv_cell(t, r, c)[0];
            if (filled) idx[n++] = c;
        }
    } else
        for (int c = 0; c < t->ncols && n < 512; c++) idx[n++] = c;
    int shown = 0, total = 0;
    for (int r = 0; r < t->nrows; r++) total += !keep || keep[r];
    fputs("<div class=\"scroll\"><table><thead><tr><th title=\"flagged\">⚑</th>", f);
    for (int j = 0; j < n; j++) {
        fputs("<th>", f);
        bb_html_escape(f, t->head[idx[j]]);
        fputs("</th>", f);
    }
    fputs("<th>note</th></tr></thead><tbody>\n", f);
    for (int r = 0; r < t->nrows && shown < max_rows; r++) {
        if (keep && !keep[r]) continue;
        shown++;
        char why[512];
        bool flagged = bb_page_row_flag(t, r, why, sizeof why);
        bool bad = !strcmp(bb_csv_cell(t, r, bb_csv_col(t, "verify")), "FAILED");
        fprintf(f, "<tr%s><td>%s</td>", bad ? " class=\"bad\"" : flagged ? " class=\"flag\"" : "",
                flagged ? "<span class=\"mark\" title=\"flagged\">⚠</span>" : "");
        for (int j = 0; j < n; j++) {
            const char *cell = bb_csv_cell(t, r, idx[j]);
            fputs(numeric(cell) ? "<td class=\"n\">" : "<td>", f);
            bb_html_escape(f, cell);
            fputs("</td>", f);
        }
        fputs("<td>", f);
        if (flagged) {
            fputs("<span class=\"mark\">", f);
            bb_html_escape(f, why);
            fputs("</span>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    if (shown < total) fprintf(f, "<p class=\"note\">%d of %d rows shown; the file has them all.</p>\n", shown, total);
}

/* The pages bb_page_begin writes carry the generator mark in their head; those of the first
 * bitbench with reports (2026-11-28) lack it but begin with this exact policy line. */
static const char ours_before_mark[] = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                                       "style-src 'unsafe-inline'; img-src data:\">";

int bb_page_replaceable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) return 0; /* absent: a new page */
    char head[2048], why[600];
    FILE *f = S_ISREG(st.st_mode) ? bb_input_open(path, "page", BB_INPUT_ANY_SIZE, NULL, why, sizeof why) : NULL;
    size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
    if (f) fclose(f);
    head[n] = '\0';
    if (f && (strstr(head, "<meta name=\"generator\" content=\"" BB_PAGE_GENERATOR "\">") ||
              strstr(head, ours_before_mark)))
        return 0;
    snprintf(err, errlen, "%s is %s that bitbench report did not write: left as it is (give -o FILE to write the "
             "report elsewhere)", path, S_ISREG(st.st_mode) ? "a file" : bb_file_kind((unsigned)st.st_mode));
    return -1;
}
