/* `bitbench report`: one self-contained HTML file of a run folder or a results database (issue 33).
 *
 * Self-contained: the page loads nothing -- no script (there is none), stylesheet, font or image
 * from anywhere; its CSS is inline, its plots are SVG inlined in the page.  Everything it shows
 * of a results folder is escaped by HTML's rules (html_escape.h): the folder is untrusted input.
 * Plots are inlined only when drawn by this process (by `bitbench plot` into a temporary folder
 * of ours, or by `bitbench run` just before), and only when they hold nothing but the SVG
 * elements gnuplot draws (html_svg.c); the images already in a run folder are never inlined.
 *
 * A run folder's page: the run (experiment, status, points), every table (results.csv, e2e.csv,
 * the peers' rows apart) with the flagged rows marked and the reason written beside them, every
 * plot, the paper-table report where the experiment has one (paper_report.h), the meters and why
 * each is or is not available, the machine and the build (run.json, all of it).
 * A database's page: its runs, the history of every point across commits and machines as a table
 * and an SVG plot, and the newest run against the newest run of the commit before (compare.h). */
#ifndef BB_HTML_REPORT_H
#define BB_HTML_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#define BB_REPORT_MAX_KINDS 16

typedef struct {
    /* true: draw every plot the data allow into a temporary folder (`bitbench report`);
     * false: inline only drawn[] from drawn_dir, which this process has just written
     * (`bitbench run`, its experiment's `plots`), and say how to draw the rest */
    bool draw;
    const char *drawn_dir;
    const char *drawn[BB_REPORT_MAX_KINDS];
    int ndrawn;
} bb_report_plots;

/* The page of run folder dir into out (through support/output_file.h).  0, or -1 with one line
 * in err (dir is not a run folder, out cannot be written); a plot or a paper report that cannot
 * be made is said in the page, not an error. */
int bb_report_run_dir(const char *dir, const char *out, const bb_report_plots *plots, char *err, size_t errlen);

/* The page of results database db (an existing FILE.sqlite) into out.  0, or -1 with err. */
int bb_report_database(const char *db, const char *out, char *err, size_t errlen);

#endif
