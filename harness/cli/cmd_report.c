/* bitbench report RUN_DIR|FILE.sqlite [-o FILE.html]: one self-contained HTML page of a run folder
 * or of a results database's history (harness/report/html_report.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "report/html_page.h"
#include "report/html_report.h"
#include "support/input_file.h"
#include "support/not_a_link.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bitbench report RUN_DIR|FILE.sqlite [-o FILE.html]\n"
            "  One self-contained HTML page (inline CSS and SVG; no script, nothing loaded from the network), for a\n"
            "  browser.  Every string from the folder or the database is escaped.\n"
            "  RUN_DIR       a folder of bitbench run: the run, its tables (results.csv, e2e.csv, the peers'\n"
            "                rows; flagged rows marked with the reason), every plot the data allow (drawn now by\n"
            "                bitbench plot into a temporary folder; the images in RUN_DIR are not used), the\n"
            "                paper-table report of scripts/reproduce/NAME.lua where the experiment has one, the\n"
            "                meters and why each is or is not available, the machine and the build (run.json)\n"
            "  FILE.sqlite   a results database: its runs, the history of each point across commits and machines\n"
            "                (a table and a plot), and the newest run against the newest run of the commit before\n"
            "  -o, --out FILE.html\n"
            "                where the page goes (default RUN_DIR/report.html, or FILE.html beside FILE.sqlite);\n"
            "                written whole or not at all\n"
            "bitbench run writes RUN_DIR/report.html at the end of every run.\n");
}

int bb_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "bitbench report: %s '%s'\n", optopt == 'o' ? "an option without its value:" : "unknown option",
                    argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "bitbench report: %s\n", optind == argc ? "which run folder or database?" : "one run folder or database");
        usage(stderr);
        return 2;
    }
    const char *src = argv[optind];
    struct stat st;
    if (stat(src, &st) != 0) {
        fprintf(stderr, "bitbench report: %s: %s (a run folder or a results database FILE.sqlite)\n", src, strerror(errno));
        return 1;
    }
    char def[PATH_MAX + 16], err[2048];
    int rc;
    bool named = out != NULL; /* a place the person named may be a link (their choice); ours may not */
    if (S_ISDIR(st.st_mode)) {
        if (!out) snprintf(def, sizeof def, "%.4000s/report.html", src), out = def;
        bb_report_plots plots = {.draw = true};
        rc = !named && (bb_not_a_link(out, "the run's report", err, sizeof err) ||
                        bb_page_replaceable(out, err, sizeof err))
                 ? -1
                 : bb_report_run_dir(src, out, &plots, err, sizeof err);
    } else if (S_ISREG(st.st_mode)) {
        if (!out) {
            size_t n = strlen(src);
            int stem = n > 7 && !strcmp(src + n - 7, ".sqlite") ? (int)(n - 7) : (int)n;
            snprintf(def, sizeof def, "%.*s.html", stem > 4000 ? 4000 : stem, src);
            out = def;
        }
        rc = !named && (bb_not_a_link(out, "the database's report", err, sizeof err) ||
                        bb_page_replaceable(out, err, sizeof err))
                 ? -1
                 : bb_report_database(src, out, err, sizeof err);
    } else {
        fprintf(stderr, "bitbench report: %s is %s, not a run folder or a results database\n", src,
                bb_file_kind((unsigned)st.st_mode));
        return 1;
    }
    if (rc) {
        fprintf(stderr, "bitbench report: %s\n", err);
        return 1;
    }
    printf("%s\n", out);
    return 0;
}
