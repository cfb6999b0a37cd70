/* bitbench run end to end: a tiny sweep produces a well-formed CSV (parsed back here, with a
 * reader independent of bitbench's) and a well-formed JSON sidecar (parsed strictly); command-line
 * overrides take effect; an interrupted run (SIGINT mid-run) keeps its finished rows and says it
 * is incomplete; --resume measures only the missing points and completes it; a row cut short by
 * a kill is dropped on resume; nothing of the progress line reaches a non-terminal. */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "variants.h"
#include "files.h"
#include "json_check.h"

static const char *bin;
static char dir[] = "/tmp/bb_run_e2e_XXXXXX";
static int pus = 1;

static pid_t spawn(char *const argv[], const char *out, const char *err)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr)) _exit(127);
        execv(bin, argv);
        _exit(127);
    }
    return pid;
}

/* Run bitbench with the arguments; returns its exit status (-1 when killed by a signal). */
static int run(char *const argv[], const char *out, const char *err)
{
    int st;
    pid_t pid = spawn(argv, out, err);
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The one run directory under `res` (the newest when several). */
static int find_run_dir(const char *res, char *out, size_t len)
{
    DIR *d = opendir(res);
    if (!d) return -1;
    struct dirent *e;
    char best[256] = "";
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && strcmp(e->d_name, best) > 0) snprintf(best, sizeof best, "%s", e->d_name);
    closedir(d);
    if (!best[0]) return -1;
    snprintf(out, len, "%s/%s", res, best);
    return 0;
}

/* ---- an RFC 4180 reader of the whole file ---- */
typedef struct {
    int nrows, ncols;       /* rows without the header */
    char *cells[512][96];   /* [row][col]; row 0 is the header */
    bool ragged;            /* a row with another field count than the header */
} csv_table;

static int split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        if (*p == '"') {
            char *o = ++p;
            f[n++] = o;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"') p++;
                *o++ = *p++;
            }
            if (*p) p++;
            *o = 0;
        } else {
            f[n++] = p;
            p += strcspn(p, ",");
        }
        if (*p != ',') break;
        *p++ = 0;
    }
    return n;
}

static void csv_load(const char *path, csv_table *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[8192];
    int row = 0;
    while (row < 512 && fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        CHECK(len && line[len - 1] == '\n', "%s: row %d not terminated", path, row);
        line[strcspn(line, "\n")] = 0;
        char *copy = strdup(line), *fields[96];
        int n = split(copy, fields, 96);
        if (row == 0) t->ncols = n;
        else if (n != t->ncols) t->ragged = true;
        for (int i = 0; i < n; i++) t->cells[row][i] = strdup(fields[i]);
        free(copy);
        row++;
    }
    fclose(f);
    t->nrows = row ? row - 1 : 0;
}

static void csv_free(csv_table *t)
{
    for (int r = 0; r <= t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) free(t->cells[r][c]);
}

static int col(const csv_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->cells[0][c], name)) return c;
    return -1;
}

static const char *cell(const csv_table *t, int row, const char *name)
{
    int c = col(t, name);
    return c >= 0 && t->cells[row + 1][c] ? t->cells[row + 1][c] : "";
}

static double num(const csv_table *t, int row, const char *name) { return atof(cell(t, row, name)); }

static jnode *load_json(const char *path)
{
    char *text = slurp(path), err[256] = "";
    CHECK(text != NULL, "cannot read %s", path);
    if (!text) return NULL;
    jnode *j = json_parse(text, err, sizeof err);
    CHECK(j != NULL, "%s is not well-formed JSON: %s", path, err);
    free(text);
    return j;
}

static const char *jstr(const jnode *root, const char *path)
{
    const jnode *n = json_at(root, path);
    return n && n->t == J_STR ? n->str : "";
}

static double jnum(const jnode *root, const char *path)
{
    const jnode *n = json_at(root, path);
    return n && n->t == J_NUM ? n->num : -1;
}

static const char *fixed_cols[] = {"experiment", "sweep", "point", "kernel", "variant", "variant_ran",
                                   "fallback_calls", "family", "bits_per_weight",
                                   "lossless", "model", "roles", "m", "k", "n", "threads", "cpus", "cache",
                                   "warmup", "reps", "t_median_s", "t_min_s", "t_max_s", "t_sd_s", "spread",
                                   "spread_flag", "gops", "weight_bytes", "gbps", "err_max_abs", "err_rel_rms",
                                   "err_master_rel_rms", "weight_rel_rms", "attempts", "t_q1_s", "t_q3_s", "verify",
                                   "rotated_bytes", "cache_source", "min_reps", "min_seconds", "seed", "delay_s",
                                   "roofline_fraction", "roofline_ceiling", "read_t_median_s", "read_t_min_s", "read_gbps",
                                   "read_ratio_paired", "rounds", "round", "rounds_t_median_s",
                                   "rounds_read_ratio_paired", "read_streams", "stream_prefetch", "run_id", "host", "commit",
                                   "load_before", "load_after", "other_cpu_share", "busy", "cpu_model", "timer_region_s",
                                   "timer_tsc_ticks_per_call", "timer_tsc_ghz"};

static void test_tiny_sweep(void)
{
    char lua[512], res[512], out[512], err[512], run_dir[600], path[700];
    snprintf(lua, sizeof lua, "%s/tiny.lua", dir);
    snprintf(res, sizeof res, "%s/res", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    char text[1024];
    snprintf(text, sizeof text,
             "bitbench.experiment {\n"
             "  name = 'tiny', out = '%s',\n"
             "  sweeps = {\n"
             "    bitbench.sweep { name = 'gemv', kernels = { 'i2_s', 'i2_s@scalar' },\n"
             "      shapes = { {256, 256}, { m = 128, k = 512 } }, n = { 1, 2 }, threads = bitbench.range(1, %d),\n"
             "      warmup = 1, reps = 3, min_seconds = 0 },\n"
             "    { name = 'model', kernels = 'tq2_0', shapes = 'bitnet-b1.58-2b4t', threads = 1, reps = 2,\n"
             "      min_seconds = 0 },\n"
             "  },\n"
             "}\n",
             res, pus >= 2 ? 2 : 1);
    write_text(lua, text);
    char *argv[] = {(char *)bin, "run", lua, NULL};
    int rc = run(argv, out, err);
    char *errtext = slurp(err);
    CHECK(rc == 0, "tiny run exit %d: %s", rc, errtext ? errtext : "");
    CHECK(errtext && !strchr(errtext, '\r'), "no progress line (\\r) when stderr is not a terminal");
    free(errtext);
    char *stdout_text = slurp(out);
    CHECK(stdout_text && strstr(stdout_text, "| kernel |") && strstr(stdout_text, "i2_s@scalar"),
          "markdown table on stdout: %s", stdout_text ? stdout_text : "");
    free(stdout_text);
    CHECK(find_run_dir(res, run_dir, sizeof run_dir) == 0 && strstr(run_dir, "/tiny-"), "run directory %s",
          run_dir);
    int threads = pus >= 2 ? 2 : 1;
    /* i2_s and i2_s@scalar are one variant, measured once, where the best i2_s is scalar */
    int nk = best_is_scalar("i2_s") ? 1 : 2;
    int expect = nk * 2 * 2 * threads + 4; /* kernels x shapes x N x threads, + 2b4t's 4 shapes */
    snprintf(path, sizeof path, "%s/results.csv", run_dir);
    csv_table t;
    csv_load(path, &t);
    CHECK(t.nrows == expect, "CSV rows %d, expected %d", t.nrows, expect);
    CHECK(!t.ragged, "every row has the header's field count");
    CHECK(t.ncols == (int)(sizeof fixed_cols / sizeof *fixed_cols), "columns %d", t.ncols);
    for (size_t i = 0; i < sizeof fixed_cols / sizeof *fixed_cols && i < (size_t)t.ncols; i++)
        CHECK(!strcmp(t.cells[0][i], fixed_cols[i]), "column %zu is %s, expected %s", i, t.cells[0][i], fixed_cols[i]);
    int scalar = 0, two_threads = 0, model_rows = 0;
    for (int r = 0; r < t.nrows; r++) {
        CHECK(num(&t, r, "point") == r + 1, "points numbered in order");
        int model_sweep = !strcmp(cell(&t, r, "sweep"), "model");
        CHECK(!strcmp(cell(&t, r, "experiment"), "tiny") && !strcmp(cell(&t, r, "kernel"), model_sweep ? "tq2_0" : "i2_s"),
              "identity");
        CHECK(num(&t, r, "t_min_s") > 0 && num(&t, r, "t_min_s") <= num(&t, r, "t_median_s") &&
                  num(&t, r, "t_median_s") <= num(&t, r, "t_max_s"),
              "row %d: min <= median <= max", r);
        CHECK(num(&t, r, "reps") >= 2 && num(&t, r, "gops") > 0 && num(&t, r, "gbps") > 0, "row %d: reps, speed", r);
        double want_gops = 2.0 * num(&t, r, "m") * num(&t, r, "k") * num(&t, r, "n") / num(&t, r, "t_median_s") / 1e9;
        CHECK(num(&t, r, "gops") > 0.999 * want_gops && num(&t, r, "gops") < 1.001 * want_gops, "gops derivation");
        const char *flag = cell(&t, r, "spread_flag");
        CHECK(!strcmp(flag, "0") || !strcmp(flag, "1"), "spread_flag 0/1");
        CHECK(num(&t, r, "timer_tsc_ticks_per_call") > 0 && num(&t, r, "timer_region_s") > 0, "timer meter values");
        scalar += !model_sweep && !strcmp(cell(&t, r, "variant"), "scalar");
        /* the code that ran at this N: the variant itself, or its rule's (i2_s@amx at N < 16: avx512) */
        const char *ran = variant_ran_of(cell(&t, r, "kernel"), cell(&t, r, "variant"), (int)num(&t, r, "n"));
        CHECK(ran[0] && !strcmp(cell(&t, r, "variant_ran"), ran), "row %d: variant_ran %s, the rule says %s", r,
              cell(&t, r, "variant_ran"), ran);
        CHECK(!strcmp(cell(&t, r, "fallback_calls"), "0"), "row %d: no fallback of i2_s/tq2_0 on Gaussian input: %s",
              r, cell(&t, r, "fallback_calls"));
        if (num(&t, r, "threads") == 2) {
            two_threads++;
            CHECK(strchr(cell(&t, r, "cpus"), ';') != NULL, "cpus of 2 threads: %s", cell(&t, r, "cpus"));
        }
        if (model_sweep) {
            model_rows++;
            CHECK(!strcmp(cell(&t, r, "model"), "bitnet-b1.58-2b4t") && cell(&t, r, "roles")[0], "model, roles");
        }
    }
    CHECK(scalar == 2 * 2 * threads, "@scalar rows %d", scalar);
    CHECK(two_threads == (threads == 2 ? nk * 4 : 0), "2-thread rows %d", two_threads);
    CHECK(model_rows == 4 && !strcmp(cell(&t, t.nrows - 3, "roles"), "k+v"), "model shapes");
    csv_free(&t);

    snprintf(path, sizeof path, "%s/run.json", run_dir);
    jnode *j = load_json(path);
    if (j) {
        CHECK(jnum(j, "schema_version") == 1, "schema_version");
        CHECK(!strcmp(jstr(j, "status"), "complete"), "status %s", jstr(j, "status"));
        CHECK(json_at(j, "status_reason")->t == J_NULL, "no status_reason when complete");
        CHECK(jnum(j, "points.total") == expect && jnum(j, "points.done") == expect, "points");
        CHECK(jnum(j, "sessions") == 1, "sessions");
        CHECK(strlen(jstr(j, "experiment.sha256")) == 64, "sha256 %s", jstr(j, "experiment.sha256"));
        CHECK(!strcmp(jstr(j, "experiment.name"), "tiny") && strstr(jstr(j, "experiment.file"), "tiny.lua"),
              "experiment");
        CHECK(!strcmp(jstr(j, "command_line.1"), "run") && strstr(jstr(j, "command_line.2"), "tiny.lua"),
              "command line");
        CHECK(!strcmp(jstr(j, "meters.0.name"), "timer") && json_at(j, "meters.0.available")->b == 1 &&
                  json_at(j, "meters.0.reason")->t == J_NULL,
              "timer meter available");
        CHECK(!strcmp(jstr(j, "meters.0.columns.1"), "timer_tsc_ticks_per_call"), "meter columns");
        CHECK(jnum(j, "machine.cores") >= 1 && jstr(j, "machine.cpu_model")[0] && json_at(j, "machine.caches"),
              "machine");
        CHECK(jnum(j, "machine.mem_total") > 0 && json_at(j, "machine.numa") &&
                  json_at(j, "machine.numa")->t == J_ARR,
              "memory, numa");
        CHECK(jstr(j, "build.compiler")[0] && jstr(j, "build.lua")[0] && json_at(j, "tool.git_commit"), "build");
        CHECK(strstr(jstr(j, "placement.1"), "t0:") != NULL, "placement of 1 thread: %s", jstr(j, "placement.1"));
        if (threads == 2) CHECK(strstr(jstr(j, "placement.2"), "t1:") != NULL, "placement of 2 threads");
        CHECK(!strcmp(jstr(j, "sweeps.0.name"), "gemv") && jnum(j, "sweeps.0.line") == 4, "sweep line");
        CHECK(!strcmp(jstr(j, "kernels.0.name"), "i2_s") &&
                  !strcmp(jstr(j, nk == 2 ? "kernels.1.variant" : "kernels.0.variant"), "scalar"),
              "kernels");
        CHECK(!strcmp(jstr(j, "csv"), "results.csv") && jstr(j, "ended_at")[0], "files, ended_at");
        json_free(j);
    }
    snprintf(path, sizeof path, "%s/results.md", run_dir);
    char *md = slurp(path);
    CHECK(md && strstr(md, "| kernel |") && strstr(md, "Status: complete"), "results.md");
    free(md);

    /* overrides: one thread, two repetitions, one kernel variant, another results directory */
    char res2[520];
    snprintf(res2, sizeof res2, "%s/res2", dir);
    char *argv2[] = {(char *)bin, "run",      lua,           "--threads", "1",   "--reps", "2", "--min-time",
                     "0",         "--only",   "i2_s@scalar", "--out",     res2,  "--quiet", NULL};
    rc = run(argv2, out, err);
    char *e2 = slurp(err);
    CHECK(rc == 0, "override run exit %d: %s", rc, e2 ? e2 : "");
    CHECK(e2 && e2[0] == 0, "--quiet: nothing on stderr, got: %s", e2 ? e2 : "");
    free(e2);
    CHECK(find_run_dir(res2, run_dir, sizeof run_dir) == 0, "--out directory used");
    snprintf(path, sizeof path, "%s/results.csv", run_dir);
    csv_load(path, &t);
    CHECK(t.nrows == 2 * 2, "--only i2_s@scalar --threads 1: 2 shapes x 2 N, got %d", t.nrows);
    for (int r = 0; r < t.nrows; r++)
        CHECK(num(&t, r, "threads") == 1 && num(&t, r, "reps") == 2 && !strcmp(cell(&t, r, "variant"), "scalar") &&
                  !strcmp(cell(&t, r, "sweep"), "gemv"),
              "row %d obeys the overrides", r);
    csv_free(&t);
}

static int csv_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n ? n - 1 : 0;
}

static void test_interrupt_resume(void)
{
    char lua[512], res[512], out[512], err[512], run_dir[600], csv[700], json[700];
    snprintf(lua, sizeof lua, "%s/long.lua", dir);
    snprintf(res, sizeof res, "%s/long", dir);
    snprintf(out, sizeof out, "%s/lout.txt", dir);
    snprintf(err, sizeof err, "%s/lerr.txt", dir);
    char text[1024];
    const int points = 30;
    snprintf(text, sizeof text,
             "bitbench.experiment { name = 'long', out = '%s', sweeps = {\n"
             "  { name = 's', kernels = 'i2_s', shapes = { {256, 256} }, n = bitbench.range(1, %d), threads = 1,\n"
             "    warmup = 0, reps = 1, min_seconds = 0.1 } } }\n",
             res, points);
    write_text(lua, text);
    char *argv[] = {(char *)bin, "run", lua, NULL};
    pid_t pid = spawn(argv, out, err);
    CHECK(pid > 0, "spawn");
    /* wait for three finished rows, then Ctrl-C */
    int waited = 0;
    while (waited < 600) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        waited++;
        if (find_run_dir(res, run_dir, sizeof run_dir) == 0) {
            snprintf(csv, sizeof csv, "%s/results.csv", run_dir);
            if (csv_rows(csv) >= 3) break;
        }
    }
    kill(pid, SIGINT);
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 130, "interrupted run exits 130 (128 + SIGINT), got %d",
          WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
    snprintf(csv, sizeof csv, "%s/results.csv", run_dir);
    snprintf(json, sizeof json, "%s/run.json", run_dir);
    csv_table t;
    csv_load(csv, &t);
    int kept = t.nrows;
    CHECK(kept >= 3 && kept < points, "finished rows kept: %d of %d", kept, points);
    CHECK(!t.ragged, "kept rows are whole");
    char first_row[512] = "";
    if (kept) snprintf(first_row, sizeof first_row, "%s,%s", cell(&t, 0, "point"), cell(&t, 0, "t_median_s"));
    csv_free(&t);
    jnode *j = load_json(json);
    if (j) {
        CHECK(!strcmp(jstr(j, "status"), "incomplete") && strstr(jstr(j, "status_reason"), "interrupted by SIGINT") &&
                  strstr(jstr(j, "status_reason"), "--resume"),
              "marked incomplete: %s %s", jstr(j, "status"), jstr(j, "status_reason"));
        CHECK(jnum(j, "points.done") == kept, "points.done %g = rows %d", jnum(j, "points.done"), kept);
        json_free(j);
    }
    char *stdout_text = slurp(out);
    CHECK(stdout_text && strstr(stdout_text, "| kernel |"), "the table of finished rows is still printed");
    free(stdout_text);

    /* a row cut short by a kill: dropped on resume */
    FILE *f = fopen(csv, "a");
    fputs("long,s,99,i2_s,avx", f);
    fclose(f);

    char *argv_r[] = {(char *)bin, "run", lua, "--resume", "--quiet", NULL};
    int rc = run(argv_r, out, err);
    char *e = slurp(err);
    CHECK(rc == 0, "resume exit %d: %s", rc, e ? e : "");
    free(e);
    csv_load(csv, &t);
    CHECK(t.nrows == points && !t.ragged, "resumed run has every point once: %d rows", t.nrows);
    for (int r = 0; r < t.nrows; r++) CHECK(num(&t, r, "n") == r + 1, "row %d is point N=%d", r, r + 1);
    char again[512] = "";
    if (t.nrows) snprintf(again, sizeof again, "%s,%s", cell(&t, 0, "point"), cell(&t, 0, "t_median_s"));
    CHECK(!strcmp(first_row, again), "earlier rows untouched: %s vs %s", first_row, again);
    csv_free(&t);
    j = load_json(json);
    if (j) {
        CHECK(!strcmp(jstr(j, "status"), "complete"), "complete after resume: %s", jstr(j, "status"));
        CHECK(jnum(j, "sessions") == 2, "two sessions, got %g", jnum(j, "sessions"));
        CHECK(jnum(j, "points.done") == points, "points.done counts both sessions: %g", jnum(j, "points.done"));
        json_free(j);
    }
    rc = run(argv_r, out, err);
    e = slurp(err);
    CHECK(rc != 0 && e && strstr(e, "is complete; nothing to resume"), "resume of a complete run refused: %s",
          e ? e : "");
    free(e);
}

int main(void)
{
    bin = getenv("BITBENCH_BIN");
    if (!bin || access(bin, X_OK) != 0) {
        fprintf(stderr, "test_run_e2e: set BITBENCH_BIN to the bitbench binary (ctest does)\n");
        return 1;
    }
    cpu_set_t set;
    pus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_tiny_sweep();
    test_interrupt_resume();
    if (check_failed == 0) remove_tree(dir); /* kept for inspection when something failed */
    return check_summary("test_run_e2e");
}
