/* Accuracy of a kernel point (bb_gemm_verify, `bitbench gemm --verify`, the Lua sweep field
 * `verify`): the error columns against values known from the formats, once directly and once
 * through a run (results.csv, run.json, --resume with the verify columns).
 *
 * Known values: f32 stores the weights exactly and multiplies in float (errors ~1e-7); i2_s
 * stores ternary weights exactly (bitnet.cpp, paper 000 §2: lossless w.r.t. BitNet b1.58's
 * arithmetic) but quantizes activations to int8 per row, so its output error is the int8
 * rounding, ~1e-2 relative, and its weight error is 0; q4_0 on unit Gaussian weights rounds to
 * 16 levels of a per-32 scale max|w|/8, a reconstruction error of roughly 8-10 % RMS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/gemm_bench.h"
#include "check.h"
#include "files.h"
#include "plan/experiment.h"
#include "plan/plan.h"
#include "run/sweep.h"

static bb_machine mach;
static char dir[] = "/tmp/bb_verify_XXXXXX";

static int verify_kernel(bb_pool *pool, const char *name, int m, int k, int n, bb_gemm_result *r)
{
    const bb_kernel *kern;
    const bb_variant *v;
    char err[1536];
    bb_packed_set ps;
    if (bb_kernel_resolve(name, &kern, &v, err, sizeof err) ||
        bb_packed_set_make(kern, m, k, BB_CACHE_RESIDENT, 1, 42, &mach, &ps, err, sizeof err)) {
        CHECK(0, "%s: %s", name, err);
        return -1;
    }
    memset(r, 0, sizeof *r);
    int rc = bb_gemm_verify(pool, &ps, v, n, 42, r, err, sizeof err);
    CHECK(rc == 0 && r->verified, "%s verify: %s", name, err);
    bb_packed_set_free(&ps);
    return rc;
}

static void test_direct(bb_pool *pool)
{
    bb_gemm_result r;
    if (verify_kernel(pool, "f32", 64, 256, 3, &r) == 0) {
        CHECK(r.weight_rel_rms == 0, "f32 weights are exact: %g", r.weight_rel_rms);
        CHECK(r.err_rel_rms < 1e-6 && r.err_rel_rms > 0, "f32 float rounding only: %g", r.err_rel_rms);
        CHECK(r.err_master_rel_rms == r.err_rel_rms, "f32: master = own weights: %g vs %g", r.err_master_rel_rms,
              r.err_rel_rms);
        CHECK(r.bound_ratio <= 1, "f32 within its bound: %g", r.bound_ratio);
    }
    if (verify_kernel(pool, "i2_s", 128, 512, 4, &r) == 0) {
        CHECK(r.weight_rel_rms == 0, "i2_s holds ternary weights exactly: %g", r.weight_rel_rms);
        CHECK(r.err_rel_rms > 1e-4 && r.err_rel_rms < 0.02, "i2_s int8 activation rounding: %g", r.err_rel_rms);
        CHECK(fabs(r.err_master_rel_rms - r.err_rel_rms) < 1e-12, "i2_s: master error = arithmetic error: %g vs %g",
              r.err_master_rel_rms, r.err_rel_rms);
        CHECK(r.max_abs_err > 0 && r.rel_err < 0.05, "i2_s max |err| %g (rel to max |y| %g)", r.max_abs_err,
              r.rel_err);
    }
    if (verify_kernel(pool, "q4_0", 128, 512, 4, &r) == 0) {
        CHECK(r.weight_rel_rms > 0.05 && r.weight_rel_rms < 0.13, "q4_0 on Gaussian weights: %g", r.weight_rel_rms);
        CHECK(r.err_rel_rms < 0.02, "q4_0 arithmetic (int8 activations): %g", r.err_rel_rms);
        /* the weight error dominates the total: between it and it plus the arithmetic's */
        CHECK(r.err_master_rel_rms > 0.5 * r.weight_rel_rms && r.err_master_rel_rms < 2 * r.weight_rel_rms,
              "q4_0 total %g vs weights %g", r.err_master_rel_rms, r.weight_rel_rms);
        CHECK(r.bound_ratio <= 1, "q4_0 within its bound: %g", r.bound_ratio);
    }
}

/* ---- through a run ---- */

typedef struct {
    int ncols, nrows;
    char *cols[128];
    char *cells[64][128];
} table;

/* Our own writer's CSV: no quoted fields in these rows. */
static int read_table(const char *path, table *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[8192];
    for (int row = -1; fgets(line, sizeof line, f) && row < 64; row++) {
        line[strcspn(line, "\n")] = 0;
        char **dst = row < 0 ? t->cols : t->cells[row];
        int n = 0;
        for (char *p = line; n < 128;) {
            char *c = strchr(p, ',');
            if (c) *c = 0;
            dst[n++] = strdup(p);
            if (!c) break;
            p = c + 1;
        }
        if (row < 0) t->ncols = n;
        else t->nrows = row + 1;
    }
    fclose(f);
    return 0;
}

static void free_table(table *t)
{
    for (int i = 0; i < t->ncols; i++) free(t->cols[i]);
    for (int r = 0; r < t->nrows; r++)
        for (int i = 0; i < t->ncols; i++) free(t->cells[r][i]);
}

static const char *cell(const table *t, int row, const char *col)
{
    for (int i = 0; i < t->ncols; i++)
        if (!strcmp(t->cols[i], col)) return t->cells[row][i] ? t->cells[row][i] : "";
    return NULL;
}

static int run_file(const char *lua, bool resume)
{
    bb_experiment ex;
    bb_plan plan;
    char err[4096];
    int rc = bb_experiment_load(lua, &mach, &ex, err, sizeof err);
    CHECK(rc == 0, "load: %s", err);
    if (rc) return -1;
    rc = bb_plan_build(&ex, &mach, &plan, err, sizeof err);
    CHECK(rc == 0, "plan: %s", err);
    if (rc == 0) {
        char *argv[] = {"bitbench", "run", (char *)lua};
        bb_run_options opt = {.argc = 3, .argv = argv, .resume = resume, .quiet = true};
        rc = bb_sweep_run(&ex, &plan, &mach, &opt);
        bb_plan_free(&plan);
    }
    bb_experiment_free(&ex);
    return rc;
}

static void test_run(void)
{
    char lua[600], res[600], cmd[1400], run_dir[1200] = "";
    snprintf(res, sizeof res, "%s/res", dir);
    snprintf(lua, sizeof lua, "%s/verify.lua", dir);
    char text[1500];
    snprintf(text, sizeof text,
             "bitbench.experiment { name = 'v', out = '%s', sweeps = {\n"
             "  bitbench.sweep { name = 'acc', kernels = {'i2_s', 'q4_0'}, shapes = {{128, 512}}, n = {1, 2},\n"
             "    threads = {1, 2}, reps = 2, warmup = 0, min_seconds = 0, verify = true },\n"
             "  bitbench.sweep { name = 'plain', kernels = {'i2_s'}, shapes = {{128, 512}}, threads = 1,\n"
             "    reps = 2, warmup = 0, min_seconds = 0 } } }\n",
             res);
    write_text(lua, text);
    CHECK(run_file(lua, false) == 0, "run");
    snprintf(cmd, sizeof cmd, "ls -d %s/v-* 2>/dev/null", res);
    FILE *p = popen(cmd, "r");
    if (p) {
        if (fgets(run_dir, sizeof run_dir, p)) run_dir[strcspn(run_dir, "\n")] = 0;
        pclose(p);
    }
    CHECK(run_dir[0], "run directory under %s", res);
    if (!run_dir[0]) return;
    char csv[1300], json[1300];
    snprintf(csv, sizeof csv, "%s/results.csv", run_dir);
    snprintf(json, sizeof json, "%s/run.json", run_dir);
    table t;
    CHECK(read_table(csv, &t) == 0 && t.nrows == 9, "9 rows (8 verified, 1 not), got %d", t.nrows);
    static const char *const vcols[] = {"err_max_abs", "err_rel_rms", "err_master_rel_rms", "weight_rel_rms"};
    for (int c = 0; c < 4; c++) CHECK(cell(&t, 0, vcols[c]) != NULL, "column %s", vcols[c]);
    if (t.nrows != 9 || !cell(&t, 0, vcols[0])) {
        free_table(&t);
        return;
    }
    double i2_err = -1;
    for (int r = 0; r < t.nrows; r++) {
        const char *sweep = cell(&t, r, "sweep"), *kernel = cell(&t, r, "kernel");
        if (!strcmp(sweep, "plain")) {
            for (int c = 0; c < 4; c++) CHECK(!*cell(&t, r, vcols[c]), "unverified row: %s empty", vcols[c]);
            continue;
        }
        for (int c = 0; c < 4; c++) CHECK(*cell(&t, r, vcols[c]), "row %d: %s filled", r, vcols[c]);
        double er = atof(cell(&t, r, "err_rel_rms")), wr = atof(cell(&t, r, "weight_rel_rms"));
        if (!strcmp(kernel, "i2_s")) {
            CHECK(!strcmp(cell(&t, r, "weight_rel_rms"), "0"), "i2_s weight_rel_rms 0, got %s",
                  cell(&t, r, "weight_rel_rms"));
            CHECK(er > 1e-4 && er < 0.02, "i2_s err_rel_rms %g", er);
            /* one verification per (kernel, shape, N): the same numbers at every thread count */
            if (!strcmp(cell(&t, r, "n"), "1")) {
                if (i2_err < 0) i2_err = er;
                else CHECK(er == i2_err, "i2_s N=1: the same error at every thread count (%g, %g)", er, i2_err);
            }
        } else {
            CHECK(wr > 0.05 && wr < 0.13, "q4_0 weight_rel_rms %g", wr);
        }
    }
    free_table(&t);
    char *js = slurp(json);
    CHECK(js && strstr(js, "\"verify\": true") && strstr(js, "\"verify\": false"), "run.json lists verify per sweep");
    free(js);

    /* --resume: keep the header and the first 3 rows, mark the run incomplete, resume */
    char *all = slurp(csv);
    if (!all) return;
    char *cut = all;
    for (int i = 0; i < 4 && cut; i++) cut = strchr(cut, '\n') ? strchr(cut, '\n') + 1 : NULL;
    if (cut) *cut = 0;
    write_text(csv, all);
    free(all);
    snprintf(cmd, sizeof cmd, "sed -i 's/\"status\": \"complete\"/\"status\": \"incomplete\"/' '%s'", json);
    CHECK(system(cmd) == 0, "edit run.json");
    CHECK(run_file(lua, true) == 0, "resume");
    CHECK(read_table(csv, &t) == 0 && t.nrows == 9, "resumed: 9 rows, got %d", t.nrows);
    if (t.nrows == 9)
        for (int r = 0; r < t.nrows; r++)
            if (!strcmp(cell(&t, r, "sweep"), "acc"))
                CHECK(*cell(&t, r, "err_rel_rms") && *cell(&t, r, "weight_rel_rms"), "resumed row %d verified", r);
    free_table(&t);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    bb_machine_detect(&mach);
    char err[512];
    bb_pool *pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (pool) {
        test_direct(pool);
        bb_pool_destroy(pool);
    }
    test_run();
    remove_tree(dir);
    return check_summary("verify");
}
