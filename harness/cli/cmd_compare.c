/* bitbench compare A B: two runs point by point with statistics (compare.h), as Markdown on
 * stdout (or CSV with --csv), and both into --out DIR (compare.md, compare.csv).  With
 * --threshold the exit status is 1 when a point is significantly slower by more than it (for CI);
 * 2 for bad arguments or sources that cannot be read. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/compare.h"
#include "cli/commands.h"
#include "support/output_dir.h"
#include "support/output_file.h"
#include "support/term_text.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench compare A B [--threshold P%%] [--out DIR] [--csv] [--by-variant]\n"
               "  A, B: a run directory, FILE.sqlite:RUN (a run in a results database) or FILE.sqlite:COMMIT\n"
               "        (every run of that commit, pooled)\n"
               "  Points match by what was measured (kernel, shape, N, threads, cache; model, kernel, threads,\n"
               "  pp/tg length), whichever variant ran: A's and B's variant and host are columns\n"
               "  --by-variant    match a point only with the same variant (two runs of one machine and mask)\n"
               "  --threshold P%%  exit 1 when a point of B is significantly slower than A by more than P%%\n"
               "  --out DIR       also write DIR/compare.md and DIR/compare.csv\n"
               "  --csv           CSV on stdout instead of Markdown\n");
}

/* "5%" or a fraction "0.05". */
static int parse_threshold(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end != s && !strcmp(end, "%") && v >= 0 && v <= 1000) {
        *out = v / 100;
        return 0;
    }
    if (end != s && !*end && v >= 0 && v < 1) {
        *out = v;
        return 0;
    }
    fprintf(stderr, "bitbench compare: --threshold: '%s' is not a percentage like 5%% or a fraction like 0.05\n", s);
    return -1;
}

static int write_outputs(const char *dir, const bb_comparison *c)
{
    char path[4200], err[4400];
    for (int csv = 0; csv < 2; csv++) {
        snprintf(path, sizeof path, "%s/compare.%s", dir, csv ? "csv" : "md");
        bb_output_file o;
        FILE *f = bb_output_begin(&o, path, err, sizeof err);
        if (f) {
            if (csv) bb_compare_csv(f, c);
            else bb_compare_markdown(f, c);
        }
        if (!f || bb_output_commit(&o, err, sizeof err)) {
            fprintf(stderr, "bitbench compare: %s\n", err);
            return -1;
        }
    }
    return 0;
}

int bb_cmd_compare(int argc, char **argv)
{
    const char *src[2] = {NULL, NULL}, *out = NULL;
    double threshold = 0;
    int nsrc = 0, csv = 0, gate = 0;
    bool by_variant = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--threshold") && i + 1 < argc) {
            if (parse_threshold(argv[++i], &threshold)) return 2;
            gate = 1;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--csv")) {
            csv = 1;
        } else if (!strcmp(argv[i], "--by-variant")) {
            by_variant = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "bitbench compare: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (nsrc < 2) {
            src[nsrc++] = argv[i];
        } else {
            fprintf(stderr, "bitbench compare: unexpected argument '%s' (two sources, A and B)\n", argv[i]);
            return 2;
        }
    }
    if (nsrc != 2) {
        usage(stderr);
        return 2;
    }
    char err[4096];
    static const char *const out_files[] = {"compare.md", "compare.csv", NULL};
    /* before the runs are read (from a database, possibly large): --out must take both files */
    if (out && bb_output_dir_check(out, true, out_files, err, sizeof err)) {
        fprintf(stderr, "bitbench compare: --out %s\n", err);
        return 2;
    }
    bb_comparison c;
    if (bb_compare(src[0], src[1], threshold, by_variant, &c, err, sizeof err)) {
        fprintf(stderr, "bitbench compare: %s\n", err);
        return 2;
    }
    if (csv) bb_compare_csv(stdout, &c); /* CSV: the cells as they are, for a program */
    else { /* Markdown for a person: names from the runs (kernels, models, machines) for a terminal */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (m) {
            bb_compare_markdown(m, &c);
            if (fclose(m) == 0) bb_term_fputs_lines(text, stdout);
            free(text);
        }
    }
    int rc = out && write_outputs(out, &c) ? 2 : 0;
    if (rc == 0 && gate && c.regressions) {
        fprintf(stderr, "bitbench compare: %d point%s of B significantly slower than A by more than %.1f%%\n",
                c.regressions, c.regressions == 1 ? "" : "s", threshold * 100);
        rc = 1;
    }
    bb_comparison_free(&c);
    return rc;
}
