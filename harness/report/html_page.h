/* What the two pages of `bitbench report` share (html_report.c, html_history.c; not a public
 * interface): the page's head with its inline CSS, JSON values and CSV tables as HTML, the
 * scripts folder, and the inline SVG plots (html_svg.c).  Every string from a file goes through
 * bb_html_escape. */
#ifndef BB_HTML_PAGE_H
#define BB_HTML_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "io/csv.h"
#include "io/json_read.h"

/* <!DOCTYPE html> to <body>, with title (escaped) and the stylesheet; then the closing tags. */
/* The generator a page's head names: how bitbench knows a page it may replace. */
#define BB_PAGE_GENERATOR "bitbench report"

void bb_page_begin(FILE *f, const char *title);
/* May bitbench write a page at path, a place it chose in a folder it did not create (RUN_DIR's
 * report.html, FILE.html beside a database)?  0 when path is absent or a page bitbench wrote
 * (its head names the generator); else -1 with one line in err: someone else's file is never
 * replaced (docs/reliability.md). */
int bb_page_replaceable(const char *path, char *err, size_t errlen);
void bb_page_end(FILE *f);

/* A JSON value: an object as a two-column table, an array of objects as a table with a column
 * per member name, an array of scalars as a comma-separated list, a scalar as text. */
void bb_page_json(FILE *f, const bb_jv *v);

/* A number as the CSV files write it, or "" when the cell is empty. */
void bb_page_num(FILE *f, double v);

/* Why a row of results.csv or e2e.csv is marked, from its cells by name ("" when it is not):
 * spread_flag (with the spread it was decided on), busy (other processes' share of the CPUs),
 * verify FAILED, fallback calls.  Returns whether there is a reason. */
bool bb_page_row_flag(const bb_csv_table *t, int r, char *why, size_t len);

/* Rows of t (all when keep is NULL, else those with keep[r]) as a table: the named columns that
 * t has and some of those rows fill (cols NULL-terminated; NULL: every column, empty or not), a
 * first column marking flagged rows and a
 * last one with the reason.  At most max_rows rows, the rest counted below. */
void bb_page_csv_table(FILE *f, const bb_csv_table *t, const char *const *cols, const bool *keep, int max_rows);

/* ---- html_svg.c ---- */

/* An SVG image that gnuplot drew for us, into the page: from its <svg> element to its end, ids
 * prefixed with `prefix` (the page holds several plots; gnuplot names its markers alike in each).
 * Refused -- -1 with why -- when it holds an element outside the set gnuplot's svg terminal draws
 * (so no script, foreignObject, link, animation or style), an attribute named on..., or a
 * reference that is not a fragment of the same image. */
int bb_page_inline_svg(FILE *f, const char *svg, size_t n, const char *prefix, char *why, size_t whylen);

/* Draw every plot of run folder dir with `bitbench plot` (this executable, an argument vector)
 * into a new temporary folder, written to tmp (64 bytes).  0 when the folder was made (whatever
 * plot drew; its messages are in tmp/plot.log), -1 with err when not. */
#define BB_PAGE_TMP_MAX 4096 /* tmp's size: TMPDIR (support/temp_dir.h) and a name */
int bb_page_draw_plots(const char *dir, char *tmp, char *err, size_t errlen);
/* The files of a folder made by bb_page_draw_plots, and the folder, removed. */
void bb_page_remove_plots(const char *tmp);

#endif
