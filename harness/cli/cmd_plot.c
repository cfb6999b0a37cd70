/* bitbench plot RESULTS_DIR [--kind KIND] [--profile FILE] [--out DIR]: figures of a results
 * folder drawn by gnuplot (the scripts/ *.gp files), PNG and SVG.  The C side only reads the CSV files (by
 * column name) and the machine profile of `bitbench roofline`, writes small data files, and runs
 * gnuplot; every plotted number is a measured one or, for the roofline's operational intensity,
 * the ratio of two measured columns (gops / gbps = operations per weight byte).
 * Kinds: roofline, threads, gemv_bw, tokens, ebw; default all that the data allow. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support/temp_dir.h"
#include "cli/commands.h"
#include "io/csv.h"
#include "io/json_read.h"
#include "report/gnuplot_script.h"
#include "report/plot_kinds.h"
#include "report/scripts_dir.h"
#include "support/input_file.h"
#include "support/not_a_link.h"
#include "support/term_text.h"
#include "support/output_file.h"

extern char **environ;

/* ---- the machine profile (our own JSON layout, read by key order inside each object) ---- */

typedef struct {
    int maxthreads;
    double bw[65][4];
    double peak_i8;
    double peak_i8_1t; /* the int8 peak on one thread; peak_i8 is on threads_all threads */
    int threads_all;
    int ngamma;
    char gk[128][48];
    double gbpw[128], gbound[128];
    int cores; /* machine.cores, 0 when absent */
    char cpu[128], date[40];
} profile;

static void copy_str(const char *v, char *out, size_t len) { snprintf(out, len, "%s", v ? v : ""); }

/* The members the plots use: read_bandwidth [{level, threads, gbps}], peaks [{instruction,
 * gops_1t_derived, gops_all_derived, threads_all}] and gamma [{kernel, bits_per_weight, compute_bound_gbps_derived}]
 * (roofline.c writes them). */
static void profile_from_json(const bb_jv *root, profile *pr)
{
    static const char *lv[4] = {"L1", "L2", "L3", "DRAM"};
    copy_str(bb_jv_str(bb_jv_get(root, "machine"), "cpu_model"), pr->cpu, sizeof pr->cpu);
    copy_str(bb_jv_str(root, "date"), pr->date, sizeof pr->date);
    double cores = bb_jv_num(bb_jv_get(root, "machine"), "cores");
    pr->cores = cores >= 1 && cores <= 1e6 ? (int)cores : 0;
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
        if (name && !isnan(g) && (!strcmp(name, "vpdpbusd") || !strcmp(name, "sdot") || !strcmp(name, "smmla"))) {
            double g1 = bb_jv_num(&peaks->items[i], "gops_1t_derived"), ta = bb_jv_num(&peaks->items[i], "threads_all");
            pr->peak_i8 = fmax(pr->peak_i8, g);
            if (!isnan(g1)) pr->peak_i8_1t = fmax(pr->peak_i8_1t, g1);
            if (ta >= 1 && ta <= 64) pr->threads_all = (int)ta;
        }
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

/* What one `bitbench plot` works with.  Gnuplot only ever sees paths of ours: the scripts folder
 * (made absolute) and the files in the temporary folder tmp (mkdtemp's, absolute); the rendered
 * images are copied to out by bb_output_*, so a results folder's name never reaches gnuplot, and
 * a failed plot leaves the previous files in out as they were. */
typedef struct {
    /* tmp is at most 95 bytes (bb_temp_dir refuses a longer TMPDIR), so that tmp/NAME fits the
     * 128-byte paths below */
    char scripts[PATH_MAX], out[PATH_MAX], tmp[96];
    char run_line[768]; /* the second title line: experiment, run id, machine, date */
    char made[32][24]; /* the names of the files made in tmp, removed at the end */
    int nmade;
    int produced;
    bool no_gnuplot; /* gnuplot could not be started: said once */
} plot_ctx;

/* tmp/name into out, remembered for the clean-up. */
static void tmp_file(plot_ctx *c, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", c->tmp, name);
    for (int i = 0; i < c->nmade; i++)
        if (!strcmp(c->made[i], name)) return;
    if (c->nmade < (int)(sizeof c->made / sizeof c->made[0])) snprintf(c->made[c->nmade++], sizeof c->made[0], "%s", name);
}

/* The temporary folder and the files bitbench made in it, with C calls (nothing else writes in a
 * mkdtemp folder; one that is not empty is left, harmless). */
static void remove_tmp(plot_ctx *c)
{
    char p[128];
    for (int i = 0; i < c->nmade; i++) {
        snprintf(p, sizeof p, "%s/%s", c->tmp, c->made[i]);
        unlink(p);
    }
    rmdir(c->tmp);
}

/* gnuplot SCRIPT with an argument vector (no shell), stdin from /dev/null, its stdout onto our
 * stderr (bitbench's stdout lists the files written), its stderr passed through.  0 when it
 * exited with status 0; else -1 with one line on stderr. */
static int run_gnuplot(plot_ctx *c, const char *kind, const char *script)
{
    if (c->no_gnuplot) return -1;
    char *const argv[] = {"gnuplot", (char *)script, NULL};
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa)) return -1;
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    fflush(stdout);
    fflush(stderr);
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        fprintf(stderr, "bitbench plot: cannot run gnuplot: %s%s\n", strerror(rc),
                rc == ENOENT ? " (install gnuplot, or put it on PATH)" : "");
        c->no_gnuplot = true;
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "bitbench plot: %s: waiting for gnuplot: %s\n", kind, strerror(errno));
            return -1;
        }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    if (WIFEXITED(st))
        fprintf(stderr, "bitbench plot: %s: gnuplot exited with status %d (its message above); %s/%s.png and .svg "
                        "left as they were\n", kind, WEXITSTATUS(st), c->out, kind);
    else
        fprintf(stderr, "bitbench plot: %s: gnuplot was ended by signal %d; %s/%s.png and .svg left as they were\n",
                kind, WTERMSIG(st), c->out, kind);
    return -1;
}

/* A rendered image from tmp to its place in out, through a temporary file beside it. */
static int commit_image(plot_ctx *c, const char *from, const char *kind, const char *ext)
{
    char err[600], target[PATH_MAX + 32];
    snprintf(target, sizeof target, "%s/%s.%s", c->out, kind, ext);
    size_t n;
    char *bytes = bb_input_read_all(from, "rendered plot", (uint64_t)1 << 30, &n, err, sizeof err);
    if (!bytes) {
        fprintf(stderr, "bitbench plot: %s\n", err);
        return -1;
    }
    bb_output_file o;
    FILE *f = bb_output_begin(&o, target, err, sizeof err);
    if (!f) {
        free(bytes);
        fprintf(stderr, "bitbench plot: %s\n", err);
        return -1;
    }
    fwrite(bytes, 1, n, f);
    free(bytes);
    if (bb_output_commit(&o, err, sizeof err)) {
        fprintf(stderr, "bitbench plot: %s\n", err);
        return -1;
    }
    printf("%s\n", target);
    return 0;
}

/* Draws kind with scripts/SCRIPT and the kind's variables vars (freed here), as PNG and SVG: both
 * rendered into tmp first, then both put in place, so a failure leaves the previous pair. */
static int gnuplot(plot_ctx *c, const char *kind, const char *script, bb_gp_script *vars)
{
    static const char *const ext[2] = {"png", "svg"};
    char rendered[2][128], name[24], err[600], path[PATH_MAX + 64], job[128];
    int rc = 0;
    snprintf(path, sizeof path, "%s/%s", c->scripts, script);
    /* the places the images go, tested before gnuplot spends time on them */
    for (int svg = 0; svg < 2 && !rc; svg++) {
        char target[PATH_MAX + 32];
        snprintf(target, sizeof target, "%s/%s.%s", c->out, kind, ext[svg]);
        if (bb_not_a_link(target, "an image of the plots folder", err, sizeof err) ||
            bb_output_check(target, err, sizeof err)) {
            fprintf(stderr, "bitbench plot: %s\n", err);
            rc = -1;
        }
    }
    for (int svg = 0; svg < 2 && !rc; svg++) {
        snprintf(name, sizeof name, "%s.%s", kind, ext[svg]);
        tmp_file(c, name, rendered[svg], sizeof rendered[svg]);
        snprintf(name, sizeof name, "%s.gp", kind);
        tmp_file(c, name, job, sizeof job);
        bb_gp_script s;
        bb_gp_script_init(&s);
        bb_gp_set_text(&s, "term", ext[svg]);
        bb_gp_append(&s, vars);
        if (bb_gp_set_path(&s, "scriptdir", c->scripts, err, sizeof err) ||
            bb_gp_set_path(&s, "outfile", rendered[svg], err, sizeof err) || bb_gp_load(&s, path, err, sizeof err) ||
            bb_gp_script_write(&s, job, err, sizeof err)) {
            fprintf(stderr, "bitbench plot: %s: %s\n", kind, err);
            rc = -1;
        } else if (run_gnuplot(c, kind, job)) {
            rc = -1;
        } else {
            struct stat st;
            if (stat(rendered[svg], &st) || st.st_size == 0) {
                fprintf(stderr, "bitbench plot: %s: gnuplot wrote no %s file\n", kind, ext[svg]);
                rc = -1;
            }
        }
        bb_gp_script_free(&s);
    }
    bb_gp_script_free(vars);
    for (int svg = 0; svg < 2 && !rc; svg++) rc = commit_image(c, rendered[svg], kind, ext[svg]);
    if (rc) return -1;
    c->produced++;
    return 0;
}

/* Distinct string keys (at most 239 bytes each), in order of first appearance.  Grown as needed: a
 * sweep of every kernel and variant has more labels than any fixed table would hold, and a plot
 * that draws fewer must count the rest to say so.  Found through a hash table, so that a file of
 * many distinct names (someone else's, of any size the CSV reader takes) costs a lookup a row, not
 * a pass over every name.  key_index: -1 when not there (add 0), or out of memory (then failed). */
typedef struct {
    int n, cap, failed;
    char (*k)[240];
    int *slot; /* open addressing: key index + 1, 0 empty; nslot a power of two, at least 2 n */
    int nslot;
} keys;

static uint32_t key_hash(const char *k)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *k; k++) h = (h ^ (uint8_t)*k) * 16777619u;
    return h;
}

static int *key_slot(const keys *ks, const char *k)
{
    uint32_t mask = (uint32_t)ks->nslot - 1;
    for (uint32_t h = key_hash(k) & mask;; h = (h + 1) & mask)
        if (!ks->slot[h] || !strcmp(ks->k[ks->slot[h] - 1], k)) return &ks->slot[h];
}

static int key_index(keys *ks, const char *key, int add)
{
    char k[240];
    snprintf(k, sizeof k, "%s", key); /* as stored */
    if (ks->nslot) {
        int found = *key_slot(ks, k);
        if (found) return found - 1;
    }
    if (!add || ks->failed) return -1;
    if (2 * (ks->n + 1) > ks->nslot) { /* rehash into twice the slots */
        if (ks->nslot > (1 << 28)) {
            ks->failed = 1;
            return -1;
        }
        int nslot = ks->nslot ? 2 * ks->nslot : 64, *old = ks->slot;
        if (!(ks->slot = calloc((size_t)nslot, sizeof *ks->slot))) {
            ks->slot = old;
            ks->failed = 1;
            return -1;
        }
        ks->nslot = nslot;
        for (int i = 0; i < ks->n; i++) *key_slot(ks, ks->k[i]) = i + 1;
        free(old);
    }
    if (ks->n == ks->cap) {
        int cap = ks->cap ? 2 * ks->cap : 16;
        char(*grown)[240] = realloc(ks->k, (size_t)cap * sizeof *grown);
        if (!grown) {
            ks->failed = 1;
            return -1;
        }
        ks->k = grown;
        ks->cap = cap;
    }
    snprintf(ks->k[ks->n], sizeof ks->k[0], "%s", k);
    *key_slot(ks, k) = ks->n + 1;
    return ks->n++;
}

static void keys_free(keys *ks)
{
    free(ks->k);
    free(ks->slot);
    *ks = (keys){0};
}

/* A row placed for drawing: its series (key index), its x (thread count, depth) and its place in
 * the file.  Sorted by series, x, then file order, each series' rows stand together in x order,
 * the first of the file first at each x: what the line plots draw, in one pass. */
typedef struct {
    int key;
    double x;
    int row;
} placed_row;

static int by_key_x_row(const void *a, const void *b)
{
    const placed_row *p = a, *q = b;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    return (p->row > q->row) - (p->row < q->row);
}

static void label_of(const bb_csv_table *t, int r, char *buf, size_t len)
{
    int ck = bb_csv_col(t, "kernel"), cv = bb_csv_col(t, "variant");
    const char *v = bb_csv_cell(t, r, cv);
    snprintf(buf, len, "%s%s%s", bb_csv_cell(t, r, ck), *v ? "@" : "", v);
}

/* ---- points that differ beyond a kind's own series ---- */

/* A kind names its series by a few columns (kernel, model, shape) and draws its points against x
 * (threads, depth).  A results folder can hold rows that agree in those columns and still were
 * measured differently: two sweeps of one experiment, decode at two depths or KV-cache types, a
 * kernel from cache and from DRAM.  Drawn as one series, such rows would hide each other at one x,
 * or join into one line across x what no one sweep measured.  So a kind's series name also carries
 * each column of a short list in which two rows of the same name differ ("i2_s 700M sweep=depth"),
 * and only those: a folder of one sweep and one configuration keeps its short names. */
#define PL_SPLIT_MAX 8
/* A column of more distinct values than this is not a setting (depths, KV types, sweeps of one
 * experiment take a few): split_find does not split by it. */
#define PL_SPLIT_MAX_VALUES 64

typedef struct {
    int n, col[PL_SPLIT_MAX];
} split;

/* base: the kind's own series name of row r (arg: its columns) */
typedef void (*base_fn)(const bb_csv_table *t, int r, const void *arg, char *name, size_t len);

/* name += " column=value" for each column of s */
static void split_append(const bb_csv_table *t, int r, const split *s, char *name, size_t len)
{
    for (int i = 0; i < s->n; i++) {
        size_t o = strlen(name);
        if (o + 1 < len)
            snprintf(name + o, len - o, " %s=%s", t->head[s->col[i]], bb_csv_cell(t, r, s->col[i]));
    }
}

/* A row's series name so far and its cell in the column being weighed. */
typedef struct {
    const char *name, *cell;
} name_cell;

static int by_name_cell(const void *a, const void *b)
{
    const name_cell *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->cell, y->cell);
}

/* The columns of `names` (in that order; absent ones and x skipped) that split some series: a
 * column is taken when two rows with equal names so far (base plus the columns taken before it)
 * differ in it, unless it holds more than PL_SPLIT_MAX_VALUES values.  Sorted by name and
 * cell, two such rows stand side by side: O(rows log rows) per column, so a hostile file of
 * millions of rows costs seconds, not hours.  -1: out of memory. */
static int split_find(const bb_csv_table *t, base_fn base, const void *arg, int xcol, const char *const *names,
                      split *s)
{
    *s = (split){0};
    int n = t->nrows, rc = 0;
    char **nm = n ? calloc((size_t)n, sizeof *nm) : NULL;
    name_cell *nc = n ? malloc((size_t)n * sizeof *nc) : NULL;
    char buf[240];
    if (n && (!nm || !nc)) rc = -1;
    for (int r = 0; r < n && !rc; r++) {
        base(t, r, arg, buf, sizeof buf);
        if (!(nm[r] = strdup(buf))) rc = -1;
    }
    for (int i = 0; !rc && names[i] && s->n < PL_SPLIT_MAX; i++) {
        int c = bb_csv_col(t, names[i]), differs = 0;
        if (c < 0 || c == xcol) continue;
        for (int r = 0; r < n; r++) nc[r] = (name_cell){nm[r], bb_csv_cell(t, r, c)};
        qsort(nc, (size_t)n, sizeof *nc, by_name_cell);
        for (int r = 0; r + 1 < n && !differs; r++)
            differs = !strcmp(nc[r].name, nc[r + 1].name) && strcmp(nc[r].cell, nc[r + 1].cell);
        if (!differs) continue;
        /* a setting takes a few values; a column of near-unique cells (a hostile file's) is not
         * one, and splitting by it would only multiply series past what a plot draws */
        for (int r = 0; r < n; r++) nc[r].name = nc[r].cell;
        qsort(nc, (size_t)n, sizeof *nc, by_name_cell);
        int values = 0;
        for (int r = 0; r < n; r++) values += r == 0 || strcmp(nc[r - 1].cell, nc[r].cell) != 0;
        if (values > PL_SPLIT_MAX_VALUES) {
            fprintf(stderr, "bitbench plot: rows differ in column '%s' in %d values, more than a setting's %d: not told "
                            "apart by it\n", names[i], values, PL_SPLIT_MAX_VALUES);
            continue;
        }
        s->col[s->n++] = c;
        split one = {1, {c}};
        for (int r = 0; r < n && !rc; r++) {
            snprintf(buf, sizeof buf, "%s", nm[r]);
            split_append(t, r, &one, buf, sizeof buf);
            char *grown = strdup(buf);
            if (!grown) rc = -1;
            else free(nm[r]), nm[r] = grown;
        }
    }
    for (int r = 0; nm && r < n; r++) free(nm[r]);
    free(nm);
    free(nc);
    if (rc) {
        *s = (split){0};
        fprintf(stderr, "bitbench plot: out of memory\n");
    }
    return rc;
}

/* What tells an end-to-end point from another of the same kernel and model, and a kernel point from
 * another of the same kernel and shape. */
static const char *const e2e_split_cols[] = {"sweep", "variant", "depth", "kv_type_k", "kv_type_v", "prompt", "gen", NULL};
static const char *const gemm_split_cols[] = {"sweep", "cache", NULL};

/* ---- kinds ---- */

/* A bar chart's canvas width in pixels: wide enough that each group of nbars bars (and its gap)
 * gets about 9 px a bar and its rotated label room beside the next one; 960 at least (the other
 * kinds' width), 8000 at most. */
static int canvas_width(int ngroups, int nbars)
{
    long w = 320 + (long)ngroups * (nbars + 1) * 9;
    if (ngroups * 16 + 320 > w) w = ngroups * 16 + 320;
    return w < 960 ? 960 : w > 8000 ? 8000 : (int)w;
}

static int data_file_failed(const char *path)
{
    fprintf(stderr, "bitbench plot: cannot write %s: %s\n", path, strerror(errno));
    return -1;
}

static int data_file_close(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) || bad) {
        fprintf(stderr, "bitbench plot: write error on %s\n", path);
        return -1;
    }
    return 0;
}

/* The variables every kind has: its data file `points` (when there is one), its title `ttl` (what
 * is drawn) and `run` (which run: plot_common.gp puts it on the title's second line). */
static int kind_vars(const plot_ctx *c, bb_gp_script *vars, const char *points, const char *head)
{
    char err[600];
    bb_gp_script_init(vars);
    if (points && bb_gp_set_path(vars, "points", points, err, sizeof err)) {
        fprintf(stderr, "bitbench plot: %s\n", err);
        bb_gp_script_free(vars);
        return -1;
    }
    bb_gp_set_text(vars, "ttl", head);
    bb_gp_set_text(vars, "run", c->run_line);
    return 0;
}

/* How many of a panel's error bars a reader can see: a bar shorter than about the marker (2 % of
 * the panel's height on a y axis from 0, ~10 px of ~500) hides behind it.  The key says so, so
 * that a missing bar reads as "tight", not as "not measured". */
typedef struct {
    int n;
    double ymax;
    double len[1024];
    int rounds; /* bars that span a row's rounds (e2e_bar) */
} bar_panel;

static void bar_add(bar_panel *b, double y, double lo, double hi)
{
    if (isfinite(y) && y > b->ymax) b->ymax = y;
    if (isfinite(hi) && hi > b->ymax) b->ymax = hi;
    if (!isfinite(lo) || !isfinite(hi) || b->n == (int)(sizeof b->len / sizeof b->len[0])) return;
    b->len[b->n++] = hi - lo;
}

/* An end-to-end row's error bar for a phase ("tg" or "pp"): its slowest and fastest repetition
 * (<phase>_tps_min, _max), widened to its slowest and fastest round when it was measured in rounds
 * (rounds_<phase>_tps: each round's median; the row's min and max are the median round's
 * repetitions only).  Returns 1 when the rounds widened it, else 0.  The list is a file's text: a
 * cell that is not numbers separated by ';' adds nothing past its first bad entry. */
static int e2e_bar(const bb_csv_table *t, int r, const char *phase, double *lo, double *hi)
{
    char col[32];
    snprintf(col, sizeof col, "%s_tps_min", phase);
    *lo = bb_csv_cell_num(t, r, bb_csv_col(t, col));
    snprintf(col, sizeof col, "%s_tps_max", phase);
    *hi = bb_csv_cell_num(t, r, bb_csv_col(t, col));
    if (!(*lo > 0) || !(*hi > 0)) *lo = *hi = NAN;
    snprintf(col, sizeof col, "rounds_%s_tps", phase);
    const char *p = bb_csv_cell(t, r, bb_csv_col(t, col));
    double v[64];
    int n = 0;
    while (*p && n < (int)(sizeof v / sizeof *v)) {
        char *end;
        double x = strtod(p, &end);
        if (end == p || !isfinite(x) || x <= 0) break;
        v[n++] = x;
        if (*end != ';') break;
        p = end + 1;
    }
    if (n < 2) return 0;
    for (int i = 0; i < n; i++) {
        if (!(*lo <= v[i])) *lo = v[i];
        if (!(*hi >= v[i])) *hi = v[i];
    }
    return 1;
}

/* What the bars are: repetitions, and also rounds where some row was measured in rounds (a key
 * line is short: the rows with one round span their repetitions, e2e_bar). */
static const char *bars_text(const bar_panel *p, int npanels)
{
    for (int i = 0; i < npanels; i++)
        if (p[i].rounds) return "bars: slowest to fastest round or repetition";
    return "bars: slowest to fastest repetition";
}

/* The key's second line about the bars of npanels panels: how many hide behind their marker
 * ("" when none does). */
static void bar_note(bar_panel *p, int npanels, char *out, size_t len)
{
    int n = 0, hidden = 0;
    for (int i = 0; i < npanels; i++)
        for (int j = 0; j < p[i].n; j++) {
            n++;
            hidden += p[i].len[j] < 0.02 * p[i].ymax;
        }
    if (!n) snprintf(out, len, "(no bars: the data has no spread columns)");
    else if (hidden == n) snprintf(out, len, "every bar is smaller than its marker");
    else if (hidden) snprintf(out, len, "%d of %d bars smaller than their marker", hidden, n);
    else out[0] = 0;
}

/* A line plot draws at most PL_MAX_SERIES series (its colours and its key run out there).  The
 * ones left out are said on stderr and in the plot's title, never dropped silently; every point
 * stays in results.md and the report's tables.  title gets head, with the count when any is left. */
#define PL_MAX_SERIES 12
static void series_title(const char *kind, const char *head, int drawn, int left, char *title, size_t len)
{
    if (left <= 0) {
        snprintf(title, len, "%s", head);
        return;
    }
    fprintf(stderr,
            "bitbench plot: %s: %d of %d series drawn, %d left out (a plot draws at most %d; every point is in "
            "results.md and the report's tables)\n",
            kind, drawn, drawn + left, left, PL_MAX_SERIES);
    snprintf(title, len, "%s (the first %d of %d series)", head, drawn, drawn + left);
}

/* The int8 compute peak on t threads (GOP/s), NaN when the profile has none for t: `bitbench
 * roofline` measures the peak on one thread and on all (threads_all); between them it is the
 * one-thread peak times t, capped at the all-threads peak (derived, not measured: cores issue
 * independently until they share something). */
static double peak_i8_at(const profile *pr, int t)
{
    int all = pr->threads_all ? pr->threads_all : pr->maxthreads;
    if (t == 1 && pr->peak_i8_1t > 0) return pr->peak_i8_1t;
    if (t == all && pr->peak_i8 > 0) return pr->peak_i8;
    if (t > 1 && t < all && pr->peak_i8_1t > 0 && pr->peak_i8 > 0) return fmin(pr->peak_i8_1t * t, pr->peak_i8);
    return NAN;
}

/* Roofline (Williams et al.; Intel up-convert paper Fig. 4): one block of points per kernel and
 * thread count, "x intensity gops", and per thread count of the data one ceiling per read level,
 * min(peak(t), bw_level(t) x intensity), so that each point is read against the roof of the
 * threads it ran on (a 1-thread point under the 1-thread roof, never the all-threads one).  The
 * L3 and L2 roofs are drawn only when the data has points with a resident working set (the cache
 * column); a sweep of DRAM-sized weights is judged against DRAM alone. */
static int plot_roofline(plot_ctx *c, const bb_csv_table *g, const profile *pr)
{
    char path[128];
    tmp_file(c, "roofline.dat", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f) return data_file_failed(path);
    keys ks = {0};
    int cg = bb_csv_col(g, "gops"), cb = bb_csv_col(g, "gbps"), ct = bb_csv_col(g, "threads"), cc = bb_csv_col(g, "cache");
    int thr[256], nthr = 0, resident = 0; /* the distinct thread counts, 1 .. 256 */
    /* the points, by thread count, kernel and file order: a block per thread count and kernel,
     * thread counts outermost */
    placed_row *pts = g->nrows ? malloc((size_t)g->nrows * sizeof *pts) : NULL;
    int npts = 0;
    if (g->nrows && !pts) ks.failed = 1;
    for (int r = 0; r < g->nrows && !ks.failed; r++) {
        char l[96];
        label_of(g, r, l, sizeof l);
        int i = key_index(&ks, l, 1);
        double t = bb_csv_cell_num(g, r, ct), ops = bb_csv_cell_num(g, r, cg), bw = bb_csv_cell_num(g, r, cb);
        if (!(t >= 1 && t <= 256)) continue;
        if (i >= 0 && ops > 0 && bw > 0) pts[npts++] = (placed_row){.key = (int)t, .x = i, .row = r};
        int seen = 0;
        for (int j = 0; j < nthr; j++) seen |= thr[j] == (int)t;
        if (!seen) thr[nthr++] = (int)t;
        const char *cache = bb_csv_cell(g, r, cc);
        resident |= cc >= 0 && cache[0] && strcmp(cache, "dram") != 0;
    }
    /* thread counts in increasing order: the key lists the roofs from the lowest up */
    for (int i = 1; i < nthr; i++)
        for (int j = i; j > 0 && thr[j - 1] > thr[j]; j--) {
            int x = thr[j];
            thr[j] = thr[j - 1];
            thr[j - 1] = x;
        }
    bb_gp_script vars;
    if (ks.failed || kind_vars(c, &vars, path, "Roofline: each point under the ceilings of its thread count")) {
        if (ks.failed) fprintf(stderr, "bitbench plot: roofline: out of memory\n");
        free(pts);
        keys_free(&ks);
        fclose(f);
        return -1;
    }
    qsort(pts, (size_t)npts, sizeof *pts, by_key_x_row);
    int blocks = 0;
    for (int p = 0, j = 0; p < npts; p++) {
        int i = (int)pts[p].x, r = pts[p].row;
        while (thr[j] != pts[p].key) j++; /* its place in thr: both in increasing order */
        if (p == 0 || pts[p - 1].key != pts[p].key || pts[p - 1].x != pts[p].x) {
            char title[160], name[40];
            bool roof = thr[j] <= pr->maxthreads && pr->bw[thr[j]][3] > 0;
            snprintf(title, sizeof title, "%s, %d thread%s%s", ks.k[i], thr[j], thr[j] == 1 ? "" : "s",
                     roof ? "" : " (no ceiling: the profile has no such thread count)");
            fputs(blocks ? "\n\n" : "", f);
            bb_gp_write_data_label(f, title);
            fputs(" 0 0\n", f);
            snprintf(name, sizeof name, "bthr_%d", blocks);
            bb_gp_set_int(&vars, name, j + 1);
            snprintf(name, sizeof name, "bker_%d", blocks);
            bb_gp_set_int(&vars, name, i + 1);
            blocks++;
        }
        double ops = bb_csv_cell_num(g, r, cg), bw = bb_csv_cell_num(g, r, cb);
        fprintf(f, "x %.6g %.6g\n", ops / bw, ops);
    }
    free(pts);
    keys_free(&ks);
    if (data_file_close(f, path)) {
        bb_gp_script_free(&vars);
        return -1;
    }
    if (!blocks) {
        bb_gp_script_free(&vars);
        return 1;
    }
    bb_gp_set_int(&vars, "nblocks", blocks);
    bb_gp_set_int(&vars, "nthr", nthr);
    bb_gp_set_int(&vars, "levels", resident ? 3 : 1);
    static const char *const level[3] = {"dram", "l3", "l2"}; /* bw[t][3], [2], [1] */
    for (int j = 0; j < nthr; j++) {
        char name[40];
        int t = thr[j];
        bool roof = t <= pr->maxthreads;
        snprintf(name, sizeof name, "thr_%d", j + 1);
        bb_gp_set_int(&vars, name, t);
        for (int l = 0; l < 3; l++) {
            snprintf(name, sizeof name, "%s_%d", level[l], j + 1);
            bb_gp_set_number(&vars, name, roof && pr->bw[t][3 - l] > 0 ? pr->bw[t][3 - l] : NAN);
        }
        snprintf(name, sizeof name, "peak_%d", j + 1);
        bb_gp_set_number(&vars, name, roof ? peak_i8_at(pr, t) : NAN);
    }
    return gnuplot(c, "roofline", "roofline.gp", &vars);
}

/* Against threads: one gnuplot data block per series (at most PL_MAX_SERIES), named by series(),
 * each line "threads y1 y2" for the first row of each thread count in increasing order (y2 NaN
 * when it is not a number); values() gives y1 and y2 and returns 0 for a row to leave out.
 * Returns the number of blocks written; *left counts the series with data past the limit. */
typedef void (*series_fn)(const bb_csv_table *t, int r, const void *arg, char *name, size_t len);
typedef int (*values_fn)(const bb_csv_table *t, int r, const void *arg, double *y1, double *y2);

/* A point's error bar and whether it was flagged (spread_flag or busy): a kernel point's
 * interquartile range of the calls (value * t_median / t_q3 .. value * t_median / t_q1 for a
 * rate), an end-to-end point's slowest and fastest repetition, or round (e2e_bar: a few
 * repetitions have no quartiles worth the name); NaN where the file has neither (older runs).
 * Returns e2e_bar's "widened by rounds". */
static int bar_of(const bb_csv_table *t, int r, double y, double *lo, double *hi, int *flag)
{
    double med = bb_csv_cell_num(t, r, bb_csv_col(t, "t_median_s")), q1 = bb_csv_cell_num(t, r, bb_csv_col(t, "t_q1_s")),
           q3 = bb_csv_cell_num(t, r, bb_csv_col(t, "t_q3_s"));
    int rounds = 0;
    *lo = *hi = NAN;
    if (med > 0 && q1 > 0 && q3 > 0) *lo = y * med / q3, *hi = y * med / q1;
    else rounds = e2e_bar(t, r, "tg", lo, hi);
    *flag = bb_csv_cell_num(t, r, bb_csv_col(t, "spread_flag")) > 0 || bb_csv_cell_num(t, r, bb_csv_col(t, "busy")) > 0;
    return rounds;
}

/* Blocks of "threads y1 y2 y1_low y1_high y2_low y2_high flagged", one per series; *flagged counts
 * the flagged points, bars[0] and bars[1] collect the two panels' error bars. */
static int write_thread_series(FILE *f, const bb_csv_table *t, int ct, series_fn series, values_fn values,
                               const void *arg, int *flagged, bar_panel bars[2], int *left)
{
    keys ks = {0};
    char name[240];
    placed_row *pts = t->nrows ? malloc((size_t)t->nrows * sizeof *pts) : NULL;
    int npts = 0;
    if (t->nrows && !pts) ks.failed = 1;
    /* the rows with a thread count 1..256 and values, by series, thread count and file order */
    for (int r = 0; r < t->nrows && !ks.failed; r++) {
        double y1, y2, th = bb_csv_cell_num(t, r, ct);
        series(t, r, arg, name, sizeof name);
        int i = key_index(&ks, name, 1);
        if (i >= 0 && th >= 1 && th < 257 && values(t, r, arg, &y1, &y2))
            pts[npts++] = (placed_row){.key = i, .x = (int)th, .row = r};
    }
    if (!ks.failed) qsort(pts, (size_t)npts, sizeof *pts, by_key_x_row);
    int blocks = 0;
    *left = 0;
    for (int p = 0, end; p < npts && !ks.failed; p = end) { /* series by series */
        int i = pts[p].key;
        for (end = p; end < npts && pts[end].key == i;) end++;
        if (blocks == PL_MAX_SERIES) { /* past the limit: counted, not drawn */
            ++*left;
            continue;
        }
        fputs(blocks ? "\n\n" : "", f);
        bb_gp_write_data_label(f, ks.k[i]);
        fputs(" 0 0 0 0 0 0 0\n", f);
        for (int q = p; q < end; q++) {
            if (q > p && pts[q - 1].x == pts[q].x) continue; /* one point per thread count: the file's first */
            int r = pts[q].row, th = (int)pts[q].x;
            double y1, y2, lo, hi;
            int flag;
            values(t, r, arg, &y1, &y2);
            bars[0].rounds += bar_of(t, r, y1, &lo, &hi, &flag);
            *flagged += flag;
            /* the bandwidth shares the time's bar: bytes per call are fixed */
            double lo2 = isfinite(y2) && y1 > 0 ? y2 * lo / y1 : NAN, hi2 = isfinite(y2) && y1 > 0 ? y2 * hi / y1 : NAN;
            fprintf(f, "%d %.6g %.6g %.6g %.6g %.6g %.6g %d\n", th, y1, isfinite(y2) ? y2 : NAN, lo, hi, lo2, hi2, flag);
            bar_add(&bars[0], y1, lo, hi);
            bar_add(&bars[1], y2, lo2, hi2);
        }
        blocks++;
    }
    int failed = ks.failed;
    free(pts);
    keys_free(&ks);
    if (failed) fprintf(stderr, "bitbench plot: out of memory\n");
    return failed ? -1 : blocks;
}

/* Kernel sweeps: a series per kernel and shape, GOP/s and weight GB/s. */
typedef struct {
    int m, k, n, gops, gbps;
    split sp;
} gemm_cols;

static void gemm_base(const bb_csv_table *g, int r, const void *arg, char *name, size_t len)
{
    const gemm_cols *c = arg;
    char l[96];
    label_of(g, r, l, sizeof l);
    snprintf(name, len, "%s %sx%sx%s", l, bb_csv_cell(g, r, c->m), bb_csv_cell(g, r, c->k), bb_csv_cell(g, r, c->n));
}

static void gemm_series(const bb_csv_table *g, int r, const void *arg, char *name, size_t len)
{
    gemm_base(g, r, arg, name, len);
    split_append(g, r, &((const gemm_cols *)arg)->sp, name, len);
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
    tmp_file(c, "threads.dat", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f) return data_file_failed(path);
    gemm_cols gc = {bb_csv_col(g, "m"), bb_csv_col(g, "k"), bb_csv_col(g, "n"), bb_csv_col(g, "gops"), bb_csv_col(g, "gbps"), {0}};
    if (split_find(g, gemm_base, &gc, bb_csv_col(g, "threads"), gemm_split_cols, &gc.sp)) {
        fclose(f);
        return -1;
    }
    static bar_panel bars[2];
    memset(bars, 0, sizeof bars);
    int flagged = 0, left = 0;
    int blocks =
        write_thread_series(f, g, bb_csv_col(g, "threads"), gemm_series, gemm_values, &gc, &flagged, bars, &left);
    if (data_file_close(f, path) || blocks < 0) return -1;
    if (!blocks) return 1;
    bb_gp_script vars;
    char title[160];
    series_title("threads", "Throughput and weight bandwidth against threads", blocks, left, title, sizeof title);
    if (kind_vars(c, &vars, path, title)) return -1;
    bb_gp_set_int(&vars, "nblocks", blocks);
    bb_gp_set_int(&vars, "flagged", flagged);
    bb_gp_set_number(&vars, "dram", pr ? pr->bw[pr->maxthreads][3] : 0.0);
    if (!(bars[1].ymax > 0))
        bb_gp_set_text(&vars, "y2_note",
                       gc.gbps < 0 ? "results.csv has no gbps column" : "no row has a bandwidth (gbps)");
    char note[160];
    bar_note(bars, 2, note, sizeof note);
    bb_gp_set_text(&vars, "bars", "bars: interquartile range of the calls");
    bb_gp_set_text(&vars, "bars_hidden", note);
    return gnuplot(c, "threads", "threads.gp", &vars);
}

/* Every distinct key of rows [0, nrows) as key() names them (0: the row has none, it is not
 * drawn): one table's shapes, kernels or models, for the bar charts' grids. */
typedef int (*key_fn)(const bb_csv_table *t, int r, const void *arg, char *key, size_t len);
static int collect_keys(const bb_csv_table *t, key_fn key, const void *arg, keys *ks)
{
    char k[240];
    for (int r = 0; r < t->nrows; r++)
        if (key(t, r, arg, k, sizeof k)) key_index(ks, k, 1);
    if (ks->failed) fprintf(stderr, "bitbench plot: out of memory\n");
    return ks->failed ? -1 : 0;
}

/* GEMV points only (N = 1) */
static int gemv_shape(const bb_csv_table *g, int r, const void *arg, char *key, size_t len)
{
    (void)arg;
    if ((int)bb_csv_cell_num(g, r, bb_csv_col(g, "n")) != 1) return 0;
    snprintf(key, len, "%sx%s %s", bb_csv_cell(g, r, bb_csv_col(g, "m")), bb_csv_cell(g, r, bb_csv_col(g, "k")),
             bb_csv_cell(g, r, bb_csv_col(g, "cache")));
    return 1;
}

static int gemv_kernel(const bb_csv_table *g, int r, const void *arg, char *key, size_t len)
{
    (void)arg;
    if ((int)bb_csv_cell_num(g, r, bb_csv_col(g, "n")) != 1) return 0;
    label_of(g, r, key, len);
    return 1;
}

static int plot_gemv_bw(plot_ctx *c, const bb_csv_table *g, const profile *pr)
{
    int ct = bb_csv_col(g, "threads"), cb = bb_csv_col(g, "gbps");
    keys shapes = {0}, kern = {0};
    int rc = collect_keys(g, gemv_shape, NULL, &shapes) || collect_keys(g, gemv_kernel, NULL, &kern) ? -1 : 0;
    /* per shape and kernel: the point with the most threads (the best of those) */
    double *best = NULL, *bestt = NULL;
    if (!rc && shapes.n) {
        best = calloc((size_t)shapes.n * kern.n, sizeof *best);
        bestt = calloc((size_t)shapes.n * kern.n, sizeof *bestt);
        if (!best || !bestt) rc = -1, fprintf(stderr, "bitbench plot: gemv_bw: out of memory\n");
    }
    if (rc || !shapes.n) {
        free(best);
        free(bestt);
        keys_free(&shapes);
        keys_free(&kern);
        return rc ? rc : 1;
    }
    for (int r = 0; r < g->nrows; r++) {
        char l[240], sh[240];
        if (!gemv_shape(g, r, NULL, sh, sizeof sh) || !gemv_kernel(g, r, NULL, l, sizeof l)) continue;
        int si = key_index(&shapes, sh, 0), ki = key_index(&kern, l, 0);
        if (si < 0 || ki < 0) continue; /* cannot be: the same keys were collected */
        size_t i = (size_t)si * kern.n + ki;
        double th = bb_csv_cell_num(g, r, ct), bw = bb_csv_cell_num(g, r, cb);
        if (th > bestt[i] || (th == bestt[i] && bw > best[i])) bestt[i] = th, best[i] = bw;
    }
    char path[128];
    tmp_file(c, "gemv_bw.dat", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "shape");
        for (int k = 0; k < kern.n; k++) {
            fputc(' ', f);
            bb_gp_write_data_label(f, kern.k[k]);
        }
        fputc('\n', f);
        for (int sh = 0; sh < shapes.n; sh++) {
            bb_gp_write_data_label(f, shapes.k[sh]);
            for (int k = 0; k < kern.n; k++) {
                size_t i = (size_t)sh * kern.n + k;
                if (bestt[i] > 0) fprintf(f, " %.6g", best[i]);
                else fprintf(f, " NaN");
            }
            fputc('\n', f);
        }
    }
    int nshapes = shapes.n, nkern = kern.n;
    free(best);
    free(bestt);
    keys_free(&shapes);
    keys_free(&kern);
    if (!f) return data_file_failed(path);
    if (data_file_close(f, path)) return -1;
    bb_gp_script vars;
    if (kind_vars(c, &vars, path, "GEMV (N=1) weight bandwidth, most threads measured")) return -1;
    bb_gp_set_int(&vars, "ncols", nkern + 1);
    bb_gp_set_int(&vars, "width", canvas_width(nshapes, nkern));
    bb_gp_set_int(&vars, "nx", nshapes);
    bb_gp_set_number(&vars, "dram", pr ? pr->bw[pr->maxthreads][3] : 0.0);
    return gnuplot(c, "gemv_bw", "gemv_bw.gp", &vars);
}

static int tokens_model(const bb_csv_table *e, int r, const void *arg, char *key, size_t len)
{
    (void)arg;
    snprintf(key, len, "%s", bb_csv_cell(e, r, bb_csv_col(e, "model")));
    return 1;
}

/* A bar's kernel, with what else tells it apart from another bar of its model (arg: the split) */
static int tokens_kernel(const bb_csv_table *e, int r, const void *arg, char *key, size_t len)
{
    snprintf(key, len, "%s", bb_csv_cell(e, r, bb_csv_col(e, "kernel")));
    split_append(e, r, arg, key, len);
    return 1;
}

/* model and kernel: the rows that compete for one bar */
static void tokens_pair(const bb_csv_table *e, int r, const void *arg, char *name, size_t len)
{
    (void)arg;
    snprintf(name, len, "%s\037%s", bb_csv_cell(e, r, bb_csv_col(e, "model")), bb_csv_cell(e, r, bb_csv_col(e, "kernel")));
}

/* One bar of the tokens chart: the row with the most threads of its model and kernel. */
typedef struct {
    double tg[3], pp[3]; /* value, slowest, fastest repetition (or round: e2e_bar) */
    double threads;      /* 0: no row */
    int rounds;          /* e2e_bar widened a bar to the rounds */
} tokens_cell;

/* The two data files of the tokens chart (tg, then pp): a line per model, three columns per
 * kernel; returns has_pp (a prefill was measured), -1 on a write failure. */
static int write_tokens_data(const keys *models, const keys *kern, const tokens_cell *cell, const char *path[2],
                             bar_panel bars[2])
{
    int has_pp = 0;
    for (int i = 0; i < models->n * kern->n; i++) {
        if (!(cell[i].threads > 0)) continue;
        has_pp |= cell[i].pp[0] > 0;
        bars[0].rounds += cell[i].rounds;
        if (cell[i].tg[0] > 0) bar_add(&bars[0], cell[i].tg[0], cell[i].tg[1], cell[i].tg[2]);
        if (cell[i].pp[0] > 0) bar_add(&bars[1], cell[i].pp[0], cell[i].pp[1], cell[i].pp[2]);
    }
    for (int which = 0; which < 2; which++) {
        FILE *f = fopen(path[which], "w");
        if (!f) return data_file_failed(path[which]);
        fprintf(f, "model");
        for (int k = 0; k < kern->n; k++) {
            fputc(' ', f);
            bb_gp_write_data_label(f, kern->k[k]);
            fputs(" low high", f);
        }
        fputc('\n', f);
        for (int m = 0; m < models->n; m++) {
            bb_gp_write_data_label(f, models->k[m]);
            for (int k = 0; k < kern->n; k++) {
                const tokens_cell *t = &cell[(size_t)m * kern->n + k];
                const double *v = which ? t->pp : t->tg;
                for (int j = 0; j < 3; j++)
                    if (t->threads > 0 && isfinite(v[j]) && v[0] > 0) fprintf(f, " %.6g", v[j]);
                    else fprintf(f, " NaN");
            }
            fputc('\n', f);
        }
        if (data_file_close(f, path[which])) return -1;
    }
    return has_pp;
}

static int plot_tokens(plot_ctx *c, const bb_csv_table *e)
{
    int cmod = bb_csv_col(e, "model"), ck = bb_csv_col(e, "kernel"), ct = bb_csv_col(e, "threads"), ctg = bb_csv_col(e, "tg_tps"),
        cpp = bb_csv_col(e, "pp_tps");
    if (cmod < 0 || ck < 0 || ct < 0 || ctg < 0) return 1;
    keys models = {0}, kern = {0};
    tokens_cell *cell = NULL;
    split sp;
    if (split_find(e, tokens_pair, NULL, ct, e2e_split_cols, &sp)) return -1;
    int rc = collect_keys(e, tokens_model, NULL, &models) || collect_keys(e, tokens_kernel, &sp, &kern) ? -1 : 0;
    if (!rc && models.n && !(cell = calloc((size_t)models.n * kern.n, sizeof *cell)))
        rc = -1, fprintf(stderr, "bitbench plot: tokens: out of memory\n");
    if (rc || !models.n) {
        keys_free(&models);
        keys_free(&kern);
        return rc ? rc : 1;
    }
    for (int r = 0; r < e->nrows; r++) {
        char mk[240], kk[240];
        tokens_model(e, r, NULL, mk, sizeof mk);
        tokens_kernel(e, r, &sp, kk, sizeof kk);
        int mi = key_index(&models, mk, 0), ki = key_index(&kern, kk, 0);
        if (mi < 0 || ki < 0) continue; /* cannot be: the same keys were collected */
        tokens_cell *t = &cell[(size_t)mi * kern.n + ki];
        double th = bb_csv_cell_num(e, r, ct);
        if (th < t->threads) continue;
        t->threads = th;
        /* the error bars: e2e_bar (NaN in files without those columns) */
        t->tg[0] = bb_csv_cell_num(e, r, ctg);
        t->pp[0] = bb_csv_cell_num(e, r, cpp);
        t->rounds = e2e_bar(e, r, "tg", &t->tg[1], &t->tg[2]) | e2e_bar(e, r, "pp", &t->pp[1], &t->pp[2]);
    }
    /* a prefill that was not measured is an empty cell (older files: 0): no panel for it, and the
     * figure says why (bitnet.cpp Table 7 is generation only: its sweeps run with prompt = 0) */
    static bar_panel bars[2];
    memset(bars, 0, sizeof bars);
    char ptg[128], ppp[128];
    tmp_file(c, "tg.dat", ptg, sizeof ptg);
    tmp_file(c, "pp.dat", ppp, sizeof ppp);
    const char *paths[2] = {ptg, ppp};
    int has_pp = write_tokens_data(&models, &kern, cell, paths, bars), nmodels = models.n, nkern = kern.n;
    free(cell);
    keys_free(&models);
    keys_free(&kern);
    if (has_pp < 0) return -1;
    bb_gp_script vars;
    if (kind_vars(c, &vars, NULL, "Tokens/s by model and kernel, most threads measured")) return -1;
    char err[600];
    if (bb_gp_set_path(&vars, "tg", ptg, err, sizeof err) || bb_gp_set_path(&vars, "pp", ppp, err, sizeof err)) {
        fprintf(stderr, "bitbench plot: tokens: %s\n", err);
        bb_gp_script_free(&vars);
        return -1;
    }
    bb_gp_set_int(&vars, "nkernels", nkern);
    bb_gp_set_int(&vars, "nmodels", nmodels);
    bb_gp_set_int(&vars, "has_pp", has_pp);
    char note[160];
    bar_note(bars, 2, note, sizeof note);
    bb_gp_set_text(&vars, "bars", bars_text(bars, 2));
    bb_gp_set_text(&vars, "bars_hidden", note);
    if (!has_pp)
        bb_gp_set_text(&vars, "pp_note", cpp < 0 ? "the CSV has no pp_tps column"
                                                 : "no row measured prefill (pp_tps empty, prompt 0)");
    return gnuplot(c, "tokens", "tokens.gp", &vars);
}

/* Model sweeps against threads (bitnet.cpp Figs. 8 and 10): generation tokens/s and the derived
 * weight bandwidth (weight bytes per token x tokens/s) per kernel and model. */
typedef struct {
    int model, tg, gbps;
    split sp;
} e2e_cols;

static void e2e_base(const bb_csv_table *e, int r, const void *arg, char *name, size_t len)
{
    char l[96];
    label_of(e, r, l, sizeof l);
    snprintf(name, len, "%s %s", l, bb_csv_cell(e, r, ((const e2e_cols *)arg)->model));
}

static void e2e_series(const bb_csv_table *e, int r, const void *arg, char *name, size_t len)
{
    e2e_base(e, r, arg, name, len);
    split_append(e, r, &((const e2e_cols *)arg)->sp, name, len);
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
    e2e_cols ec = {bb_csv_col(e, "model"), bb_csv_col(e, "tg_tps"), bb_csv_col(e, "tg_gbps_derived"), {0}};
    int ct = bb_csv_col(e, "threads");
    if (ec.model < 0 || ct < 0 || ec.tg < 0) return 1;
    if (split_find(e, e2e_base, &ec, ct, e2e_split_cols, &ec.sp)) return -1;
    char path[128];
    tmp_file(c, "e2e_threads.dat", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f) return data_file_failed(path);
    static bar_panel bars[2];
    memset(bars, 0, sizeof bars);
    int flagged = 0, left = 0;
    int blocks = write_thread_series(f, e, ct, e2e_series, e2e_values, &ec, &flagged, bars, &left);
    if (data_file_close(f, path) || blocks < 0) return -1;
    if (!blocks) return 1;
    bb_gp_script vars;
    char title[160];
    series_title("e2e_threads", "Token generation against threads", blocks, left, title, sizeof title);
    if (kind_vars(c, &vars, path, title)) return -1;
    bb_gp_set_int(&vars, "nblocks", blocks);
    bb_gp_set_int(&vars, "flagged", flagged);
    bb_gp_set_number(&vars, "dram", pr ? pr->bw[pr->maxthreads][3] : 0.0);
    bb_gp_set_text(&vars, "y1", "generation throughput (tokens/s)");
    bb_gp_set_text(&vars, "y2", "weight bandwidth, derived (GB/s)");
    if (!(bars[1].ymax > 0)) /* hand-made or older files */
        bb_gp_set_text(&vars, "y2_note", ec.gbps < 0 ? "e2e.csv has no tg_gbps_derived column"
                                                      : "no row has a derived bandwidth (tg_gbps_derived)");
    char note[160];
    bar_note(bars, 2, note, sizeof note);
    bb_gp_set_text(&vars, "bars", bars_text(bars, 2));
    bb_gp_set_text(&vars, "bars_hidden", note);
    return gnuplot(c, "e2e_threads", "threads.gp", &vars);
}

/* Model sweeps against context depth (e2e.csv's depth column): generation and prefill tokens/s,
 * one line per kernel, model, threads and KV cache type (and what else tells rows apart: split);
 * blocks of "depth tg tg_low tg_high pp pp_low pp_high", depths in increasing order.  Files
 * without a depth column, or with depth 0 only, have nothing to draw, and neither has a series of
 * depth 0 only (a decode sweep beside a depth sweep). */
static void depth_base(const bb_csv_table *e, int r, const void *arg, char *name, size_t len)
{
    (void)arg;
    char l[96];
    label_of(e, r, l, sizeof l);
    const char *k = bb_csv_cell(e, r, bb_csv_col(e, "kv_type_k")), *v = bb_csv_cell(e, r, bb_csv_col(e, "kv_type_v"));
    snprintf(name, len, "%s %s t%.0f kv %s/%s", l, bb_csv_cell(e, r, bb_csv_col(e, "model")),
             bb_csv_cell_num(e, r, bb_csv_col(e, "threads")), *k ? k : "?", *v ? v : "?");
}

/* the series name: depth_base and the columns of the split */
static void depth_series(const bb_csv_table *e, int r, const split *sp, char *name, size_t len)
{
    depth_base(e, r, NULL, name, len);
    split_append(e, r, sp, name, len);
}

static int plot_e2e_depth(plot_ctx *c, const bb_csv_table *e)
{
    int cd = bb_csv_col(e, "depth"), ctg = bb_csv_col(e, "tg_tps"), cpp = bb_csv_col(e, "pp_tps");
    if (cd < 0 || ctg < 0 || cpp < 0) return 1;
    int deep = 0;
    for (int r = 0; r < e->nrows; r++) deep |= bb_csv_cell_num(e, r, cd) > 0;
    if (!deep) return 1;
    keys ks = {0};
    char name[240];
    split sp;
    if (split_find(e, depth_base, NULL, cd, e2e_split_cols, &sp)) return -1;
    char path[128];
    tmp_file(c, "e2e_depth.dat", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f) {
        keys_free(&ks);
        return data_file_failed(path);
    }
    int blocks = 0, left = 0, have_tg = 0, have_pp = 0; /* a phase no row measured gets no panel (gen or prompt 0) */
    bar_panel rounds = {0}; /* only its count: whether a bar spans rounds */
    /* the rows by series, depth and file order (a depth below 0 or not a number is no point) */
    placed_row *pts = e->nrows ? malloc((size_t)e->nrows * sizeof *pts) : NULL;
    int npts = 0;
    if (e->nrows && !pts) {
        fprintf(stderr, "bitbench plot: e2e_depth: out of memory\n");
        keys_free(&ks);
        fclose(f);
        return -1;
    }
    for (int r = 0; r < e->nrows; r++) {
        double d = bb_csv_cell_num(e, r, cd);
        depth_series(e, r, &sp, name, sizeof name);
        int i = key_index(&ks, name, 1); /* series in order of first appearance */
        if (i >= 0 && d > -1) pts[npts++] = (placed_row){.key = i, .x = d, .row = r};
    }
    if (ks.failed) {
        fprintf(stderr, "bitbench plot: e2e_depth: out of memory\n");
        free(pts);
        keys_free(&ks);
        fclose(f);
        return -1;
    }
    qsort(pts, (size_t)npts, sizeof *pts, by_key_x_row);
    for (int p = 0, end; p < npts; p = end) { /* series by series */
        int i = pts[p].key;
        for (end = p; end < npts && pts[end].key == i;) end++;
        if (!(pts[end - 1].x > 0)) continue; /* a series measured at depth 0 only says nothing of depth: not drawn */
        if (blocks == PL_MAX_SERIES) { /* past the limit: counted, not drawn */
            left++;
            continue;
        }
        fputs(blocks ? "\n\n" : "", f);
        bb_gp_write_data_label(f, ks.k[i]);
        fputs(" 0 0 0 0 0 0\n", f);
        for (int q = p; q < end; q++) {
            if (q > p && pts[q - 1].x == pts[q].x) continue; /* one point per depth: the file's first */
            int best = pts[q].row;
            fprintf(f, "%.0f", pts[q].x);
            double v[6] = {bb_csv_cell_num(e, best, ctg), NAN, NAN, bb_csv_cell_num(e, best, cpp), NAN, NAN};
            rounds.rounds += e2e_bar(e, best, "tg", &v[1], &v[2]) + e2e_bar(e, best, "pp", &v[4], &v[5]);
            for (int j = 0; j < 6; j++) fprintf(f, " %.6g", isfinite(v[j]) && v[j] > 0 ? v[j] : NAN);
            fputc('\n', f);
            have_tg |= isfinite(v[0]) && v[0] > 0;
            have_pp |= isfinite(v[3]) && v[3] > 0;
        }
        blocks++;
    }
    free(pts);
    keys_free(&ks);
    if (data_file_close(f, path)) return -1;
    if (!blocks || (!have_tg && !have_pp)) return 1;
    bb_gp_script vars;
    char title[160];
    series_title("e2e_depth", "Tokens/s against KV-cache depth", blocks, left, title, sizeof title);
    if (kind_vars(c, &vars, path, title)) return -1;
    bb_gp_set_int(&vars, "nblocks", blocks);
    bb_gp_set_int(&vars, "have_tg", have_tg);
    bb_gp_set_int(&vars, "have_pp", have_pp);
    bb_gp_set_text(&vars, "bars", bars_text(&rounds, 1));
    return gnuplot(c, "e2e_depth", "depth.gp", &vars);
}

static int plot_ebw(plot_ctx *c, const profile *pr)
{
    if (!pr || !pr->ngamma) return 1;
    int t = pr->maxthreads;
    double dram = pr->bw[t][3];
    char path[128];
    tmp_file(c, "ebw.dat", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f) return data_file_failed(path);
    for (int i = 0; i < pr->ngamma; i++) {
        double bound = pr->gbound[i] * t;
        char label[96];
        snprintf(label, sizeof label, "%s %.3g", pr->gk[i], pr->gbpw[i]);
        bb_gp_write_data_label(f, label);
        fprintf(f, " %.6g %.6g %.6g\n", pr->gbpw[i], bound, bound < dram ? bound : dram);
    }
    if (data_file_close(f, path)) return -1;
    char head[64];
    snprintf(head, sizeof head, "Effective bandwidth per kernel, %d thread%s", t, t == 1 ? "" : "s");
    bb_gp_script vars;
    if (kind_vars(c, &vars, path, head)) return -1;
    bb_gp_set_int(&vars, "width", canvas_width(pr->ngamma, 2));
    bb_gp_set_int(&vars, "nx", pr->ngamma);
    bb_gp_set_number(&vars, "dram", dram);
    return gnuplot(c, "ebw", "ebw.gp", &vars);
}

/* ---- the command ---- */

/* The scripts folder (report/scripts_dir.h: chosen by the person, never the working directory),
 * as an absolute path (gnuplot is given nothing else: a relative name could begin with '<' or
 * '|'); -1 with a line on stderr when it is not there. */
static int find_scripts(char *out)
{
    char err[4096];
    if (bb_scripts_dir(out, PATH_MAX, err, sizeof err) == 0) return 0;
    fprintf(stderr, "bitbench plot: %s\n", err);
    return -1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench plot RESULTS_DIR [--kind KIND] [--profile FILE] [--out DIR]\n"
               "  --kind KIND     roofline, threads, gemv_bw, tokens, ebw, e2e_threads, e2e_depth (default: every\n"
               "                  kind the data allow)\n"
               "  --profile FILE  machine profile of `bitbench roofline` (default RESULTS_DIR/machine-profile.json,\n"
               "                  the run's own; no other is looked for).  A profile of another CPU than\n"
               "                  run.json's is drawn with a warning on stderr and in the titles\n"
               "  --out DIR       where the PNG and SVG files go (default RESULTS_DIR/plots)\n"
               "  --quiet         no note of the machine profile used (warnings and errors stay)\n");
}

/* The options; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, const char **kind, const char **prof_path, const char **out, bool *quiet)
{
    static const struct option opts[] = {{"kind", required_argument, 0, 'k'}, {"profile", required_argument, 0, 'p'},
                                         {"out", required_argument, 0, 'o'},  {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'k': *kind = optarg; break;
        case 'p': *prof_path = optarg; break;
        case 'o': *out = optarg; break;
        case 'q': *quiet = true; break;
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
                            "e2e_threads, e2e_depth\n", *kind);
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
    char prof_path[PATH_MAX]; /* the profile's file */
    char prof_other[256]; /* "" or the titles' words for a profile of another machine than the run's */
} plot_inputs;

/* The CSV files of the folder, classified by their columns (the first of each kind is used). */
static int load_tables(const char *dir, plot_inputs *in)
{
    DIR *d = opendir(dir);
    if (!d) {
        char shown[PATH_MAX];
        fprintf(stderr, "bitbench plot: %s: not a folder\n", bb_term_text(dir, shown, sizeof shown));
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
        if (t.nrows == 0) { /* a header alone is no results: the folder is refused, not "plotted" with every kind skipped */
            bb_csv_table_free(&t);
            continue;
        }
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

/* The run's machine (run.json's machine.cpu_model and cores) against the profile's: a plot draws
 * the ceilings of the machine the run was measured on, and says so when the profile is of
 * another (the criterion of scripts/reproduce.lua: CPU model and cores).  Names from the files
 * reach the terminal through bb_term_text. */
static void profile_check_machine(const char *dir, const char *path, plot_inputs *in, bool quiet)
{
    char rj[PATH_MAX], err[512], cpu[128] = "", a[160], b[160], c[160], d[PATH_MAX];
    snprintf(rj, sizeof rj, "%s/run.json", dir);
    bb_jv *run = access(rj, F_OK) == 0 ? bb_json_load(rj, err, sizeof err) : NULL;
    const bb_jv *m = bb_jv_get(run, "machine");
    copy_str(bb_jv_str(m, "cpu_model"), cpu, sizeof cpu);
    double cores = bb_jv_num(m, "cores");
    bb_jv_free(run);
    bb_term_text(path, a, sizeof a);
    bb_term_text(in->pr.cpu[0] ? in->pr.cpu : "unknown CPU", b, sizeof b);
    if (!cpu[0]) {
        if (!quiet)
            fprintf(stderr, "bitbench plot: ceilings from the machine profile %s (%s, %d cores); %s has no run.json "
                            "machine to hold it against\n", a, b, in->pr.cores, bb_term_text(dir, d, sizeof d));
        return;
    }
    bb_term_text(cpu, c, sizeof c);
    bool same = !strcmp(cpu, in->pr.cpu) && (isnan(cores) || !in->pr.cores || (int)cores == in->pr.cores);
    if (same) {
        if (!quiet) fprintf(stderr, "bitbench plot: ceilings from the machine profile %s (%s, the run's CPU)\n", a, b);
        return;
    }
    fprintf(stderr, "bitbench plot: warning: the machine profile %s is of %s (%d cores), not of the run's %s (%.0f "
                    "cores): its ceilings are another machine's, and the titles say so\n", a, b, in->pr.cores, c,
            isnan(cores) ? 0.0 : cores);
    snprintf(in->prof_other, sizeof in->prof_other, "ceilings of ANOTHER machine: %.120s, %d cores", in->pr.cpu,
             in->pr.cores);
}

/* --profile FILE, else DIR/machine-profile.json (the run's own: never a profile found elsewhere,
 * such as the working directory's results/, which may be another machine's).  True when there is
 * one. */
static bool load_profile(const char *dir, const char *prof_path, plot_inputs *in)
{
    char pp[PATH_MAX];
    if (prof_path) snprintf(pp, sizeof pp, "%s", prof_path);
    else {
        snprintf(pp, sizeof pp, "%s/machine-profile.json", dir);
        if (access(pp, F_OK) != 0) return false; /* none: the kinds that need one say so */
    }
    in->have_prof = profile_read(pp, &in->pr) == 0;
    if (!in->have_prof) {
        char t[PATH_MAX];
        bb_term_text(pp, t, sizeof t);
        fprintf(stderr, "bitbench plot: %s: not a machine profile of `bitbench roofline` (no read_bandwidth)\n", t);
        return false;
    }
    snprintf(in->prof_path, sizeof in->prof_path, "%s", pp);
    return true;
}

/* The output folder, made with its missing parents (mkdir -p: only the folders that are not
 * there are created, each 0777 less the umask); else one line naming the part of the path that is
 * in the way.  gnuplot() then tests each image's place before gnuplot runs. */
static int prepare_out(const char *out)
{
    char p[PATH_MAX];
    size_t n = strlen(out);
    if (n == 0 || n >= sizeof p) {
        fprintf(stderr, "bitbench plot: the output folder '%.200s' is %s\n", out, n ? "too long a path" : "empty");
        return -1;
    }
    memcpy(p, out, n + 1);
    while (n > 1 && p[n - 1] == '/') p[--n] = 0; /* "a/b/" names a/b */
    /* each prefix ending before a '/', then the whole path */
    for (size_t i = 1; i <= n; i++) {
        if (i < n && p[i] != '/') continue;
        if (i < n && p[i - 1] == '/') continue; /* "a//b" */
        char saved = p[i];
        p[i] = 0;
        struct stat st;
        if (stat(p, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                fprintf(stderr, "bitbench plot: cannot create the output folder %s: %s is %s, not a folder\n", out, p,
                        bb_file_kind((unsigned)st.st_mode));
                return -1;
            }
        } else if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "bitbench plot: cannot create the output folder %s: creating %s: %s\n", out, p, strerror(errno));
            return -1;
        }
        p[i] = saved;
    }
    /* the folder itself: a link there (a results folder from someone else) is not followed */
    char err[2048];
    if (bb_not_a_link(p, "the plots folder", err, sizeof err)) {
        fprintf(stderr, "bitbench plot: %s (or draw elsewhere with --out DIR)\n", err);
        return -1;
    }
    return 0;
}

/* The run for the titles: run.json's experiment name and run id, its machine and day; the
 * profile's machine and date where there is no run.json. */
static void run_title(const char *dir, const plot_inputs *in, char *out, size_t len)
{
    char cpu[128] = "", date[40] = "", name[128] = "", id[96] = "";
    char rj[PATH_MAX];
    snprintf(rj, sizeof rj, "%s/run.json", dir);
    char err[512];
    bb_jv *run = bb_json_load(rj, err, sizeof err);
    copy_str(bb_jv_str(bb_jv_get(run, "machine"), "cpu_model"), cpu, sizeof cpu);
    copy_str(bb_jv_str(run, "started_at"), date, sizeof date);
    copy_str(bb_jv_str(bb_jv_get(run, "experiment"), "name"), name, sizeof name);
    copy_str(bb_jv_str(run, "run_id"), id, sizeof id);
    bool have_run = run != NULL;
    bb_jv_free(run);
    if (!cpu[0] && in->have_prof) snprintf(cpu, sizeof cpu, "%s", in->pr.cpu);
    if (!date[0] && in->have_prof) snprintf(date, sizeof date, "%s", in->pr.date);
    if (date[10] == 'T') date[10] = 0; /* the day is enough in a title */
    /* a gnuplot string literal whatever it holds (gnuplot_script.h) */
    char which[256];
    if (!have_run) snprintf(which, sizeof which, "%s", "no run.json (experiment and run unknown)");
    else snprintf(which, sizeof which, "experiment %s, run %s", name[0] ? name : "(unnamed)", id[0] ? id : "(no run id)");
    snprintf(out, len, "%s - %s, %s%s%s", which, cpu[0] ? cpu : "unknown machine", date[0] ? date : "undated",
             in->prof_other[0] ? " - " : "", in->prof_other);
}

/* Draw kind i of bb_plot_kinds: 0, 1 skipped (with *why when the data lack something), -1 failed. */
static int draw_kind(plot_ctx *c, int i, plot_inputs *in, const char **why)
{
    static const char no_gemm[] = "no GEMM results CSV", no_e2e[] = "no CSV with model, kernel, threads, tg_tps",
                      no_prof[] = "no machine profile in the folder (name one with --profile, or measure "
                                  "one: bitbench roofline --out RESULTS_DIR/machine-profile.json)";
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
    case 5: return in->have_e2e ? plot_e2e_threads(c, &in->e2e, pr) : (*why = no_e2e, 1);
    default: return in->have_e2e ? plot_e2e_depth(c, &in->e2e) : (*why = no_e2e, 1);
    }
}

int bb_cmd_plot(int argc, char **argv)
{
    const char *kind = NULL, *prof_path = NULL, *out = NULL; /* default: RESULTS_DIR/plots */
    bool quiet = false;
    int rc = parse_args(argc, argv, &kind, &prof_path, &out, &quiet);
    if (rc >= 0) return rc;
    const char *dir = argv[optind];
    static plot_ctx c;
    memset(&c, 0, sizeof c);
    static plot_inputs in;
    memset(&in, 0, sizeof in);
    if (load_tables(dir, &in)) return 1;
    bool own_profile = load_profile(dir, prof_path, &in);
    if (!in.have_gemm && !in.have_e2e && !own_profile) {
        char shown[PATH_MAX];
        fprintf(stderr, "bitbench plot: %s: no results to plot (no kernel-sweep CSV with kernel, m, k, n, threads, "
                        "gops, gbps, no model-sweep CSV with model, kernel, tg_tps (a header without rows is none), no "
                        "machine-profile.json)\n", bb_term_text(dir, shown, sizeof shown));
        return 1;
    }
    if (out) snprintf(c.out, sizeof c.out, "%s", out);
    else snprintf(c.out, sizeof c.out, "%s/plots", dir);
    rc = 1;
    if (find_scripts(c.scripts) || prepare_out(c.out)) goto done;
    char terr[PATH_MAX + 128];
    /* 96: the file paths made in it (tmp_file) live in 128-byte buffers */
    if (bb_temp_dir("plot", c.tmp, sizeof c.tmp, terr, sizeof terr)) {
        fprintf(stderr, "bitbench plot: %s\n", terr);
        goto done;
    }
    if (in.have_prof) profile_check_machine(dir, in.prof_path, &in, quiet); /* said once the plots can be drawn */
    run_title(dir, &in, c.run_line, sizeof c.run_line);

    int failed = 0, skipped_wanted = 0;
    for (int i = 0; i < BB_PLOT_NKINDS; i++) {
        if (kind && strcmp(kind, bb_plot_kinds[i])) continue;
        const char *why;
        int drawn = draw_kind(&c, i, &in, &why);
        if (drawn > 0) {
            fprintf(stderr, "bitbench plot: %s skipped: %s\n", bb_plot_kinds[i], why ? why : "no points in the data");
            skipped_wanted += kind != NULL;
        }
        failed += drawn < 0;
    }
    remove_tmp(&c);
    rc = failed ? 1 : skipped_wanted ? 1 : 0;
done:
    if (in.have_gemm) bb_csv_table_free(&in.gemm);
    if (in.have_e2e) bb_csv_table_free(&in.e2e);
    return rc;
}
