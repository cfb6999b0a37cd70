/* bitbench plot RESULTS_DIR [--kind KIND] [--profile FILE] [--out DIR]: figures of a results
 * folder drawn by gnuplot (the scripts/ *.gp files), PNG and SVG.  The C side only reads the CSV files (by
 * column name) and the machine profile of `bitbench roofline`, writes small data files, and runs
 * gnuplot; every plotted number is a measured one or, for the roofline's operational intensity,
 * the ratio of two measured columns (gops / gbps = operations per weight byte).
 * Kinds: roofline, threads, gemv_bw, tokens, ebw; default all that the data allow. */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "csv.h"
#include "json_read.h"
#include "support/input_file.h"

#define PL_MAX_KEYS 64

/* ---- the machine profile (our own JSON layout, read by key order inside each object) ---- */

typedef struct {
    int maxthreads;
    double bw[65][4];
    double peak_i8, peak_f32;
    int ngamma;
    char gk[128][48];
    double gbpw[128], gbound[128];
    char cpu[128], date[40];
} profile;

static void copy_str(const char *v, char *out, size_t len) { snprintf(out, len, "%s", v ? v : ""); }

/* The members the plots use: read_bandwidth [{level, threads, gbps}], peaks [{instruction,
 * gops_all_derived}] and gamma [{kernel, bits_per_weight, compute_bound_gbps_derived}]
 * (roofline.c writes them). */
static void profile_from_json(const bb_jv *root, profile *pr)
{
    static const char *lv[4] = {"L1", "L2", "L3", "DRAM"};
    copy_str(bb_jv_str(bb_jv_get(root, "machine"), "cpu_model"), pr->cpu, sizeof pr->cpu);
    copy_str(bb_jv_str(root, "date"), pr->date, sizeof pr->date);
    const bb_jv *bw = bb_jv_get(root, "read_bandwidth"), *peaks = bb_jv_get(root, "peaks"),
                *gamma = bb_jv_get(root, "gamma");
    for (int i = 0; bw && bw->type == BB_JV_ARR && i < bw->n; i++) {
        const char *level = bb_jv_str(&bw->items[i], "level");
        double t = bb_jv_num(&bw->items[i], "threads"), g = bb_jv_num(&bw->items[i], "gbps");
        for (int l = 0; l < 4; l++)
            if (level && !strcmp(level, lv[l]) && t >= 1 && t <= 64 && !isnan(g)) {
                pr->bw[(int)t][l] = g;
                if ((int)t > pr->maxthreads) pr->maxthreads = (int)t;
            }
    }
    for (int i = 0; peaks && peaks->type == BB_JV_ARR && i < peaks->n; i++) {
        const char *name = bb_jv_str(&peaks->items[i], "instruction");
        double g = bb_jv_num(&peaks->items[i], "gops_all_derived");
        /* int8 and f32 ceilings: x86-64's and aarch64's names (roofline.c), the fastest of them */
        if (name && !isnan(g) && (!strcmp(name, "vpdpbusd") || !strcmp(name, "sdot") || !strcmp(name, "smmla")))
            pr->peak_i8 = fmax(pr->peak_i8, g);
        if (name && !isnan(g) && (!strcmp(name, "fma_fp32") || !strcmp(name, "fmla_fp32"))) pr->peak_f32 = g;
    }
    for (int i = 0; gamma && gamma->type == BB_JV_ARR && i < gamma->n && pr->ngamma < 128; i++) {
        const bb_jv *e = &gamma->items[i];
        double b = bb_jv_num(e, "compute_bound_gbps_derived"), w = bb_jv_num(e, "bits_per_weight");
        if (isnan(b) || isnan(w) || !bb_jv_str(e, "kernel")) continue;
        copy_str(bb_jv_str(e, "kernel"), pr->gk[pr->ngamma], sizeof pr->gk[0]);
        pr->gbpw[pr->ngamma] = w;
        pr->gbound[pr->ngamma++] = b;
    }
}

static int profile_read(const char *path, profile *pr)
{
    memset(pr, 0, sizeof *pr);
    char err[512];
    bb_jv *root = bb_json_load(path, err, sizeof err);
    if (!root) return -1;
    profile_from_json(root, pr);
    bb_jv_free(root);
    return pr->maxthreads > 0 ? 0 : -1;
}

/* ---- running gnuplot ---- */

typedef struct {
    char scripts[PATH_MAX], out[PATH_MAX], tmp[64], title_tail[256];
    int produced;
} plot_ctx;

static int gnuplot(plot_ctx *c, const char *kind, const char *script, const char *vars)
{
    for (int svg = 0; svg < 2; svg++) {
        char cmd[16384], outfile[PATH_MAX + 32];
        snprintf(outfile, sizeof outfile, "%s/%s.%s", c->out, kind, svg ? "svg" : "png");
        snprintf(cmd, sizeof cmd, "gnuplot -e 'scriptdir=\"%s\"; term=\"%s\"; outfile=\"%s\"; %s' '%s/%s' 2>%s/gnuplot.err",
                 c->scripts, svg ? "svg" : "png", outfile, vars, c->scripts, script, c->tmp);
        int rc = system(cmd);
        struct stat st;
        if (rc != 0 || stat(outfile, &st) || st.st_size == 0) {
            char errf[128], line[512] = "";
            snprintf(errf, sizeof errf, "%s/gnuplot.err", c->tmp);
            FILE *f = fopen(errf, "r");
            if (f) {
                size_t n = fread(line, 1, sizeof line - 1, f);
                line[n] = 0;
                fclose(f);
            }
            fprintf(stderr, "bitbench plot: gnuplot failed on %s (%s): %s\n", script, outfile, line);
            return -1;
        }
        printf("%s\n", outfile);
    }
    c->produced++;
    return 0;
}

/* Distinct string keys, in order of first appearance. */
typedef struct {
    int n;
    char k[PL_MAX_KEYS][240];
} keys;

static int key_index(keys *ks, const char *k, int add)
{
    for (int i = 0; i < ks->n; i++)
        if (!strcmp(ks->k[i], k)) return i;
    if (!add || ks->n == PL_MAX_KEYS) return -1;
    snprintf(ks->k[ks->n], sizeof ks->k[0], "%s", k);
    return ks->n++;
}

static void label_of(const bb_csv_table *t, int r, char *buf, size_t len)
{
    int ck = bb_csv_col(t, "kernel"), cv = bb_csv_col(t, "variant");
    const char *v = bb_csv_cell(t, r, cv);
    snprintf(buf, len, "%s%s%s", bb_csv_cell(t, r, ck), *v ? "@" : "", v);
}

/* ---- kinds ---- */

static int plot_roofline(plot_ctx *c, const bb_csv_table *g, const profile *pr)
{
    char path[128];
    snprintf(path, sizeof path, "%s/roofline.dat", c->tmp);
    FILE *f = fopen(path, "w");
    keys ks = {0};
    int cg = bb_csv_col(g, "gops"), cb = bb_csv_col(g, "gbps");
    for (int r = 0; r < g->nrows; r++) {
        char l[96];
        label_of(g, r, l, sizeof l);
        key_index(&ks, l, 1);
    }
    int blocks = 0;
    for (int i = 0; i < ks.n; i++) {
        int any = 0;
        for (int r = 0; r < g->nrows; r++) {
            char l[96];
            label_of(g, r, l, sizeof l);
            double ops = bb_csv_cell_num(g, r, cg), bw = bb_csv_cell_num(g, r, cb);
            if (strcmp(l, ks.k[i]) || !(ops > 0) || !(bw > 0)) continue;
            if (!any) fprintf(f, "%s\"%s\" 0 0\n", blocks ? "\n\n" : "", ks.k[i]);
            any = 1;
            fprintf(f, "x %.6g %.6g\n", ops / bw, ops);
        }
        blocks += any;
    }
    fclose(f);
    if (!blocks) return 1;
    int t = pr->maxthreads;
    char vars[1024];
    snprintf(vars, sizeof vars,
             "points=\"%s\"; nblocks=%d; ttl=\"Roofline: %s\"; l1=%g; l2=%g; l3=%g; dram=%g; peak_i8=%g; peak_f32=%g", path,
             blocks, c->title_tail, pr->bw[t][0], pr->bw[t][1], pr->bw[t][2], pr->bw[t][3], pr->peak_i8, pr->peak_f32);
    return gnuplot(c, "roofline", "roofline.gp", vars);
}

/* Against threads: one gnuplot data block per series (at most 12), named by series(), each line
 * "threads y1 y2" for the first row of each thread count in increasing order (y2 NaN when it is
 * not a number); values() gives y1 and y2 and returns 0 for a row to leave out.  Returns the
 * number of blocks written. */
typedef void (*series_fn)(const bb_csv_table *t, int r, const void *arg, char *name, size_t len);
typedef int (*values_fn)(const bb_csv_table *t, int r, const void *arg, double *y1, double *y2);

/* A point's error bar and whether it was flagged (spread_flag or busy): a kernel point's
 * interquartile range of the calls (value * t_median / t_q3 .. value * t_median / t_q1 for a
 * rate), an end-to-end point's slowest and fastest repetition (tg_tps_min .. tg_tps_max: a few
 * repetitions have no quartiles worth the name); NaN where the file has neither (older runs). */
static void bar_of(const bb_csv_table *t, int r, double y, double *lo, double *hi, int *flag)
{
    double med = bb_csv_cell_num(t, r, bb_csv_col(t, "t_median_s")), q1 = bb_csv_cell_num(t, r, bb_csv_col(t, "t_q1_s")),
           q3 = bb_csv_cell_num(t, r, bb_csv_col(t, "t_q3_s")), tgmin = bb_csv_cell_num(t, r, bb_csv_col(t, "tg_tps_min")),
           tgmax = bb_csv_cell_num(t, r, bb_csv_col(t, "tg_tps_max"));
    *lo = *hi = NAN;
    if (med > 0 && q1 > 0 && q3 > 0) *lo = y * med / q3, *hi = y * med / q1;
    else if (tgmin > 0 && tgmax > 0) *lo = tgmin, *hi = tgmax;
    *flag = bb_csv_cell_num(t, r, bb_csv_col(t, "spread_flag")) > 0 || bb_csv_cell_num(t, r, bb_csv_col(t, "busy")) > 0;
}

/* Blocks of "threads y1 y2 y1_low y1_high y2_low y2_high flagged", one per series; *flagged counts
 * the flagged points. */
static int write_thread_series(FILE *f, const bb_csv_table *t, int ct, series_fn series, values_fn values,
                               const void *arg, int *flagged)
{
    keys ks = {0};
    char name[240];
    for (int r = 0; r < t->nrows; r++) {
        series(t, r, arg, name, sizeof name);
        key_index(&ks, name, 1);
    }
    int blocks = 0;
    for (int i = 0; i < ks.n && blocks < 12; i++) {
        int any = 0;
        for (int th = 1; th <= 256; th++)
            for (int r = 0; r < t->nrows; r++) {
                double y1, y2;
                series(t, r, arg, name, sizeof name);
                if (strcmp(name, ks.k[i]) || (int)bb_csv_cell_num(t, r, ct) != th || !values(t, r, arg, &y1, &y2)) continue;
                if (!any) fprintf(f, "%s\"%s\" 0 0 0 0 0 0 0\n", blocks ? "\n\n" : "", ks.k[i]);
                any = 1;
                double lo, hi;
                int flag;
                bar_of(t, r, y1, &lo, &hi, &flag);
                *flagged += flag;
                /* the bandwidth shares the time's bar: bytes per call are fixed */
                fprintf(f, "%d %.6g %.6g %.6g %.6g %.6g %.6g %d\n", th, y1, isfinite(y2) ? y2 : NAN, lo, hi,
                        isfinite(y2) && y1 > 0 ? y2 * lo / y1 : NAN, isfinite(y2) && y1 > 0 ? y2 * hi / y1 : NAN, flag);
                break;
            }
        blocks += any;
    }
    return blocks;
}

/* Kernel sweeps: a series per kernel and shape, GOP/s and weight GB/s. */
typedef struct {
    int m, k, n, gops, gbps;
} gemm_cols;

static void gemm_series(const bb_csv_table *g, int r, const void *arg, char *name, size_t len)
{
    const gemm_cols *c = arg;
    char l[96];
    label_of(g, r, l, sizeof l);
    snprintf(name, len, "%s %sx%sx%s", l, bb_csv_cell(g, r, c->m), bb_csv_cell(g, r, c->k), bb_csv_cell(g, r, c->n));
}

static int gemm_values(const bb_csv_table *g, int r, const void *arg, double *y1, double *y2)
{
    const gemm_cols *c = arg;
    *y1 = bb_csv_cell_num(g, r, c->gops);
    *y2 = bb_csv_cell_num(g, r, c->gbps);
    return 1;
}

static int plot_threads(plot_ctx *c, const bb_csv_table *g, const profile *pr)
{
    char path[128];
    snprintf(path, sizeof path, "%s/threads.dat", c->tmp);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    gemm_cols gc = {bb_csv_col(g, "m"), bb_csv_col(g, "k"), bb_csv_col(g, "n"), bb_csv_col(g, "gops"), bb_csv_col(g, "gbps")};
    int flagged = 0, blocks = write_thread_series(f, g, bb_csv_col(g, "threads"), gemm_series, gemm_values, &gc, &flagged);
    fclose(f);
    if (!blocks) return 1;
    char vars[1024];
    snprintf(vars, sizeof vars,
             "points=\"%s\"; nblocks=%d; flagged=%d; ttl=\"Throughput and bandwidth vs threads: %s\"; dram=%g; "
             "bars=\"bars: interquartile range of the calls\"", path, blocks, flagged, c->title_tail,
             pr ? pr->bw[pr->maxthreads][3] : 0.0);
    return gnuplot(c, "threads", "threads.gp", vars);
}

static int plot_gemv_bw(plot_ctx *c, const bb_csv_table *g, const profile *pr)
{
    int ct = bb_csv_col(g, "threads"), cm = bb_csv_col(g, "m"), ck = bb_csv_col(g, "k"), cn = bb_csv_col(g, "n"), cb = bb_csv_col(g, "gbps");
    keys shapes = {0}, kern = {0};
    static double best[PL_MAX_KEYS][PL_MAX_KEYS], bestt[PL_MAX_KEYS][PL_MAX_KEYS];
    for (int r = 0; r < g->nrows; r++) {
        if ((int)bb_csv_cell_num(g, r, cn) != 1) continue;
        char l[96], s[64];
        label_of(g, r, l, sizeof l);
        snprintf(s, sizeof s, "%sx%s %s", bb_csv_cell(g, r, cm), bb_csv_cell(g, r, ck), bb_csv_cell(g, r, bb_csv_col(g, "cache")));
        int si = key_index(&shapes, s, 1), ki = key_index(&kern, l, 1);
        if (si < 0 || ki < 0) continue;
        double th = bb_csv_cell_num(g, r, ct), bw = bb_csv_cell_num(g, r, cb);
        if (th > bestt[si][ki] || (th == bestt[si][ki] && bw > best[si][ki])) bestt[si][ki] = th, best[si][ki] = bw;
    }
    if (!shapes.n) return 1;
    char path[128];
    snprintf(path, sizeof path, "%s/gemv_bw.dat", c->tmp);
    FILE *f = fopen(path, "w");
    fprintf(f, "shape");
    for (int k = 0; k < kern.n; k++) fprintf(f, " \"%s\"", kern.k[k]);
    fputc('\n', f);
    for (int s = 0; s < shapes.n; s++) {
        fprintf(f, "\"%s\"", shapes.k[s]);
        for (int k = 0; k < kern.n; k++)
            if (bestt[s][k] > 0) fprintf(f, " %.6g", best[s][k]);
            else fprintf(f, " NaN");
        fputc('\n', f);
    }
    fclose(f);
    char vars[1024];
    snprintf(vars, sizeof vars, "points=\"%s\"; ncols=%d; ttl=\"GEMV (N=1) weight bandwidth, most threads: %s\"; dram=%g",
             path, kern.n + 1, c->title_tail, pr ? pr->bw[pr->maxthreads][3] : 0.0);
    return gnuplot(c, "gemv_bw", "gemv_bw.gp", vars);
}

static int plot_tokens(plot_ctx *c, const bb_csv_table *e)
{
    int cmod = bb_csv_col(e, "model"), ck = bb_csv_col(e, "kernel"), ct = bb_csv_col(e, "threads"), ctg = bb_csv_col(e, "tg_tps"),
        cpp = bb_csv_col(e, "pp_tps");
    /* the error bars: slowest and fastest repetition (NaN in files without those columns) */
    int cbar[4] = {bb_csv_col(e, "tg_tps_min"), bb_csv_col(e, "tg_tps_max"), bb_csv_col(e, "pp_tps_min"),
                   bb_csv_col(e, "pp_tps_max")};
    if (cmod < 0 || ck < 0 || ct < 0 || ctg < 0) return 1;
    keys models = {0}, kern = {0};
    static double tg[PL_MAX_KEYS][PL_MAX_KEYS][3], pp[PL_MAX_KEYS][PL_MAX_KEYS][3], tt[PL_MAX_KEYS][PL_MAX_KEYS];
    memset(tt, 0, sizeof tt);
    int has_pp = 0;
    for (int r = 0; r < e->nrows; r++) {
        int mi = key_index(&models, bb_csv_cell(e, r, cmod), 1), ki = key_index(&kern, bb_csv_cell(e, r, ck), 1);
        if (mi < 0 || ki < 0) continue;
        double th = bb_csv_cell_num(e, r, ct);
        if (th < tt[mi][ki]) continue;
        tt[mi][ki] = th;
        double v[6] = {bb_csv_cell_num(e, r, ctg), bb_csv_cell_num(e, r, cbar[0]), bb_csv_cell_num(e, r, cbar[1]),
                       bb_csv_cell_num(e, r, cpp), bb_csv_cell_num(e, r, cbar[2]), bb_csv_cell_num(e, r, cbar[3])};
        memcpy(tg[mi][ki], v, sizeof tg[mi][ki]);
        memcpy(pp[mi][ki], v + 3, sizeof pp[mi][ki]);
    }
    if (!models.n) return 1;
    /* a prefill that was not measured is an empty cell (older files: 0): no panel for it */
    for (int m = 0; m < models.n; m++)
        for (int k = 0; k < kern.n; k++) has_pp |= tt[m][k] > 0 && pp[m][k][0] > 0;
    char ptg[128], ppp[128];
    snprintf(ptg, sizeof ptg, "%s/tg.dat", c->tmp);
    snprintf(ppp, sizeof ppp, "%s/pp.dat", c->tmp);
    for (int which = 0; which < 2; which++) {
        FILE *f = fopen(which ? ppp : ptg, "w");
        fprintf(f, "model");
        for (int k = 0; k < kern.n; k++) fprintf(f, " \"%s\" low high", kern.k[k]);
        fputc('\n', f);
        for (int m = 0; m < models.n; m++) {
            fprintf(f, "\"%s\"", models.k[m]);
            for (int k = 0; k < kern.n; k++) {
                const double *v = which ? pp[m][k] : tg[m][k];
                for (int j = 0; j < 3; j++)
                    if (tt[m][k] > 0 && isfinite(v[j]) && v[0] > 0) fprintf(f, " %.6g", v[j]);
                    else fprintf(f, " NaN");
            }
            fputc('\n', f);
        }
        fclose(f);
    }
    char vars[1024];
    snprintf(vars, sizeof vars,
             "tg=\"%s\"; pp=\"%s\"; nkernels=%d; has_pp=%d; ttl=\"Tokens/s by model and kernel, most threads: %s\"",
             ptg, ppp, kern.n, has_pp, c->title_tail);
    return gnuplot(c, "tokens", "tokens.gp", vars);
}

/* Model sweeps against threads (bitnet.cpp Figs. 8 and 10): generation tokens/s and the derived
 * weight bandwidth (weight bytes per token x tokens/s) per kernel and model. */
typedef struct {
    int model, tg, gbps;
} e2e_cols;

static void e2e_series(const bb_csv_table *e, int r, const void *arg, char *name, size_t len)
{
    char l[96];
    label_of(e, r, l, sizeof l);
    snprintf(name, len, "%s %s", l, bb_csv_cell(e, r, ((const e2e_cols *)arg)->model));
}

/* tokens/s and the derived GB/s; rows without generation are left out */
static int e2e_values(const bb_csv_table *e, int r, const void *arg, double *y1, double *y2)
{
    const e2e_cols *c = arg;
    *y1 = bb_csv_cell_num(e, r, c->tg);
    *y2 = c->gbps >= 0 ? bb_csv_cell_num(e, r, c->gbps) : NAN;
    return *y1 > 0;
}

static int plot_e2e_threads(plot_ctx *c, const bb_csv_table *e, const profile *pr)
{
    e2e_cols ec = {bb_csv_col(e, "model"), bb_csv_col(e, "tg_tps"), bb_csv_col(e, "tg_gbps_derived")};
    int ct = bb_csv_col(e, "threads");
    if (ec.model < 0 || ct < 0 || ec.tg < 0) return 1;
    char path[128];
    snprintf(path, sizeof path, "%s/e2e_threads.dat", c->tmp);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int flagged = 0, blocks = write_thread_series(f, e, ct, e2e_series, e2e_values, &ec, &flagged);
    fclose(f);
    if (!blocks) return 1;
    char vars[1024];
    snprintf(vars, sizeof vars,
             "points=\"%s\"; nblocks=%d; flagged=%d; ttl=\"Token generation vs threads: %s\"; dram=%g; "
             "y1=\"generation throughput (tokens/s)\"; y2=\"weight bandwidth, derived (GB/s)\"; "
             "bars=\"bars: slowest to fastest repetition\"",
             path, blocks, flagged, c->title_tail, pr ? pr->bw[pr->maxthreads][3] : 0.0);
    return gnuplot(c, "e2e_threads", "threads.gp", vars);
}

static int plot_ebw(plot_ctx *c, const profile *pr)
{
    if (!pr || !pr->ngamma) return 1;
    int t = pr->maxthreads;
    double dram = pr->bw[t][3];
    char path[128];
    snprintf(path, sizeof path, "%s/ebw.dat", c->tmp);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < pr->ngamma; i++) {
        double bound = pr->gbound[i] * t;
        fprintf(f, "\"%s %.3g\" %.6g %.6g %.6g\n", pr->gk[i], pr->gbpw[i], pr->gbpw[i], bound,
                bound < dram ? bound : dram);
    }
    fclose(f);
    char vars[1024];
    snprintf(vars, sizeof vars, "points=\"%s\"; ttl=\"Effective bandwidth per kernel, %d threads: %s\"; dram=%g", path, t,
             c->title_tail, dram);
    return gnuplot(c, "ebw", "ebw.gp", vars);
}

/* ---- the command ---- */

static void find_scripts(char *out, size_t len)
{
    const char *src = getenv("BITBENCH_SOURCE_DIR");
    char exe[PATH_MAX];
    ssize_t n;
    if (src) snprintf(out, len, "%s/scripts", src);
    else if (access("scripts/roofline.gp", R_OK) == 0) snprintf(out, len, "%s", "scripts");
    else if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        snprintf(out, len, "%.4000s/../scripts", exe);
    } else
        snprintf(out, len, "scripts");
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench plot RESULTS_DIR [--kind KIND] [--profile FILE] [--out DIR]\n"
               "  --kind KIND     roofline, threads, gemv_bw, tokens, ebw, e2e_threads (default: every kind the\n"
               "                  data allow)\n"
               "  --profile FILE  machine profile of `bitbench roofline` (default RESULTS_DIR/machine-profile.json,\n"
               "                  then results/machine-profile.json)\n"
               "  --out DIR       where the PNG and SVG files go (default plots)\n");
}

const char *const bb_plot_kinds[BB_PLOT_NKINDS] = {"roofline", "threads", "gemv_bw", "tokens", "ebw", "e2e_threads"};

/* The options; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, const char **kind, const char **prof_path, const char **out)
{
    static const struct option opts[] = {{"kind", required_argument, 0, 'k'}, {"profile", required_argument, 0, 'p'},
                                         {"out", required_argument, 0, 'o'},  {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'k': *kind = optarg; break;
        case 'p': *prof_path = optarg; break;
        case 'o': *out = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "bitbench plot: unknown option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    if (*kind) {
        int ok = 0;
        for (int i = 0; i < BB_PLOT_NKINDS; i++) ok |= !strcmp(*kind, bb_plot_kinds[i]);
        if (!ok) {
            fprintf(stderr, "bitbench plot: unknown kind '%s'; valid: roofline, threads, gemv_bw, tokens, ebw, "
                            "e2e_threads\n", *kind);
            return 2;
        }
    }
    return -1;
}

/* What a results folder offers the plots: its GEMM and e2e tables and a machine profile. */
typedef struct {
    bb_csv_table gemm, e2e;
    int have_gemm, have_e2e, have_prof;
    profile pr;
} plot_inputs;

/* The CSV files of the folder, classified by their columns (the first of each kind is used). */
static int load_tables(const char *dir, plot_inputs *in)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "bitbench plot: %s: not a folder\n", dir);
        return -1;
    }
    struct dirent *ent;
    while ((ent = readdir(d))) {
        size_t n = strlen(ent->d_name);
        if (n < 5 || strcmp(ent->d_name + n - 4, ".csv")) continue;
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", dir, ent->d_name);
        bb_csv_table t;
        char err[512];
        /* A file that is not a regular one or is past the bound is refused, not skipped in silence
         * (a FIFO named results.csv would otherwise block the read); a regular file that does not
         * parse is simply not a table. */
        FILE *probe = bb_input_open(p, "results table", BB_CSV_MAX_BYTES, NULL, err, sizeof err);
        if (!probe) {
            fprintf(stderr, "bitbench plot: %s\n", err);
            closedir(d);
            return -1;
        }
        fclose(probe);
        if (bb_csv_load(p, BB_CSV_LENIENT, &t, err, sizeof err)) continue; /* not a table: not plotted */
        if (!in->have_e2e && bb_csv_col(&t, "model") >= 0 && bb_csv_col(&t, "tg_tps") >= 0 &&
            bb_csv_col(&t, "kernel") >= 0) {
            in->e2e = t;
            in->have_e2e = 1;
        } else if (!in->have_gemm && bb_csv_col(&t, "gops") >= 0 && bb_csv_col(&t, "gbps") >= 0 &&
                   bb_csv_col(&t, "kernel") >= 0 && bb_csv_col(&t, "threads") >= 0 && bb_csv_col(&t, "m") >= 0 &&
                   bb_csv_col(&t, "k") >= 0 && bb_csv_col(&t, "n") >= 0) {
            in->gemm = t;
            in->have_gemm = 1;
        } else
            bb_csv_table_free(&t);
    }
    closedir(d);
    return 0;
}

/* --profile FILE, else DIR/machine-profile.json, else results/machine-profile.json. */
static void load_profile(const char *dir, const char *prof_path, plot_inputs *in)
{
    char pp[PATH_MAX];
    if (prof_path) in->have_prof = profile_read(prof_path, &in->pr) == 0;
    else {
        snprintf(pp, sizeof pp, "%s/machine-profile.json", dir);
        in->have_prof = profile_read(pp, &in->pr) == 0 || profile_read("results/machine-profile.json", &in->pr) == 0;
    }
    if (prof_path && !in->have_prof) fprintf(stderr, "bitbench plot: %s: not a machine profile\n", prof_path);
}

/* Machine and date for the titles: the run's run.json, else the profile. */
static void run_title(const char *dir, const plot_inputs *in, char *out, size_t len)
{
    char cpu[128] = "", date[40] = "";
    char rj[PATH_MAX];
    snprintf(rj, sizeof rj, "%s/run.json", dir);
    char err[512];
    bb_jv *run = bb_json_load(rj, err, sizeof err);
    copy_str(bb_jv_str(bb_jv_get(run, "machine"), "cpu_model"), cpu, sizeof cpu);
    copy_str(bb_jv_str(run, "started_at"), date, sizeof date);
    bb_jv_free(run);
    if (!cpu[0] && in->have_prof) snprintf(cpu, sizeof cpu, "%s", in->pr.cpu);
    if (!date[0] && in->have_prof) snprintf(date, sizeof date, "%s", in->pr.date);
    if (date[10] == 'T') date[10] = 0; /* the day is enough in a title */
    snprintf(out, len, "%s, %s", cpu[0] ? cpu : "unknown machine", date[0] ? date : "undated");
    for (char *q = out; *q; q++)
        if (*q == '"' || *q == '\'') *q = ' ';
}

/* Draw kind i of bb_plot_kinds: 0, 1 skipped (with *why when the data lack something), -1 failed. */
static int draw_kind(plot_ctx *c, int i, plot_inputs *in, const char **why)
{
    static const char no_gemm[] = "no GEMM results CSV", no_e2e[] = "no CSV with model, kernel, threads, tg_tps",
                      no_prof[] = "no machine profile (run bitbench roofline)";
    const profile *pr = in->have_prof ? &in->pr : NULL;
    *why = NULL;
    switch (i) {
    case 0:
        if (!in->have_gemm) return *why = no_gemm, 1;
        if (!pr) return *why = no_prof, 1;
        return plot_roofline(c, &in->gemm, pr);
    case 1: return in->have_gemm ? plot_threads(c, &in->gemm, pr) : (*why = no_gemm, 1);
    case 2: return in->have_gemm ? plot_gemv_bw(c, &in->gemm, pr) : (*why = no_gemm, 1);
    case 3: return in->have_e2e ? plot_tokens(c, &in->e2e) : (*why = no_e2e, 1);
    case 4: return pr ? plot_ebw(c, pr) : (*why = no_prof, 1);
    default: return in->have_e2e ? plot_e2e_threads(c, &in->e2e, pr) : (*why = no_e2e, 1);
    }
}

int bb_cmd_plot(int argc, char **argv)
{
    const char *kind = NULL, *prof_path = NULL, *out = NULL; /* default: RESULTS_DIR/plots */
    int rc = parse_args(argc, argv, &kind, &prof_path, &out);
    if (rc >= 0) return rc;
    const char *dir = argv[optind];
    static plot_ctx c;
    memset(&c, 0, sizeof c);
    find_scripts(c.scripts, sizeof c.scripts);
    if (out) snprintf(c.out, sizeof c.out, "%s", out);
    else snprintf(c.out, sizeof c.out, "%s/plots", dir);
    mkdir(c.out, 0777);
    snprintf(c.tmp, sizeof c.tmp, "/tmp/bitbench-plot-XXXXXX");
    if (!mkdtemp(c.tmp)) {
        fprintf(stderr, "bitbench plot: cannot create a temporary folder\n");
        return 1;
    }
    static plot_inputs in;
    memset(&in, 0, sizeof in);
    if (load_tables(dir, &in)) return 1;
    load_profile(dir, prof_path, &in);
    run_title(dir, &in, c.title_tail, sizeof c.title_tail);

    int failed = 0, skipped_wanted = 0;
    for (int i = 0; i < BB_PLOT_NKINDS; i++) {
        if (kind && strcmp(kind, bb_plot_kinds[i])) continue;
        const char *why;
        rc = draw_kind(&c, i, &in, &why);
        if (rc > 0) {
            fprintf(stderr, "bitbench plot: %s skipped: %s\n", bb_plot_kinds[i], why ? why : "no points in the data");
            skipped_wanted += kind != NULL;
        }
        failed += rc < 0;
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", c.tmp);
    if (system(cmd)) { /* a leftover temporary folder is harmless */
    }
    if (in.have_gemm) bb_csv_table_free(&in.gemm);
    if (in.have_e2e) bb_csv_table_free(&in.e2e);
    return failed ? 1 : skipped_wanted ? 1 : 0;
}
