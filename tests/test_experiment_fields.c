/* The experiment-level fields that make a paper's experiment file self-contained: bitbench.size
 * (set by --smoke / --full; files size themselves from it), `plots` (kinds of `bitbench plot`
 * drawn when the run ends) and `profile` (a machine profile measured in the run), with their
 * validation messages. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "experiment.h"
#include "files.h"

static bb_machine mach;
static char dir[] = "/tmp/bb_exp_fields_XXXXXX";

static int load(const char *text, const char *size, bb_experiment *ex, char *err, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/exp.lua", dir);
    write_text(path, text);
    return bb_experiment_load_sized(path, &mach, size, ex, err, len);
}

/* A file whose only sweep's reps come from bitbench.size. */
static const char *const sized =
    "local reps = ({ smoke = 1, default = 5, full = 50 })[bitbench.size]\n"
    "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = { {256, 256} }, reps = reps } } }\n";

static void test_size(void)
{
    static const struct { const char *size; int reps; } cases[] = {{"smoke", 1}, {NULL, 5}, {"default", 5}, {"full", 50}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bb_experiment ex;
        char err[4096];
        int rc = load(sized, cases[i].size, &ex, err, sizeof err);
        CHECK(rc == 0, "size %s: %s", cases[i].size ? cases[i].size : "(none)", err);
        if (rc) continue;
        CHECK(ex.sweeps[0].min_reps == cases[i].reps, "size %s: reps %d, expected %d",
              cases[i].size ? cases[i].size : "(none)", ex.sweeps[0].min_reps, cases[i].reps);
        CHECK(!strcmp(ex.size, cases[i].size ? cases[i].size : "default"), "size recorded as '%s'", ex.size);
        bb_experiment_free(&ex);
    }
}

static void test_plots_and_profile(void)
{
    bb_experiment ex;
    char err[4096];
    int rc = load("bitbench.experiment { plots = { 'tokens', 'ebw', 'tokens' },\n"
                  "  profile = { kernels = { 'i2_s', 'q4_0' }, threads = 1 },\n"
                  "  sweeps = { { kernels = 'i2_s', shapes = { {256, 256} } } } }\n",
                  NULL, &ex, err, sizeof err);
    CHECK(rc == 0, "plots/profile: %s", err);
    if (!rc) {
        CHECK(ex.nplots == 2 && !strcmp(ex.plots[0], "tokens") && !strcmp(ex.plots[1], "ebw"),
              "plots: %d kinds (a repeated kind is drawn once)", ex.nplots);
        CHECK(ex.profile && !strcmp(ex.profile_kernels, "i2_s,q4_0") && ex.profile_threads == 1,
              "profile: %d '%s' %d", ex.profile, ex.profile_kernels, ex.profile_threads);
        bb_experiment_free(&ex);
    }
    rc = load("bitbench.experiment { profile = true, sweeps = { { kernels = 'i2_s', shapes = { {256, 256} } } } }\n",
              NULL, &ex, err, sizeof err);
    CHECK(rc == 0 && ex.profile && ex.profile_kernels[0] == 0 && ex.profile_threads == 0 && ex.nplots == 0,
          "profile = true: %s", err);
    if (!rc) bb_experiment_free(&ex);
    rc = load("bitbench.experiment { profile = false, sweeps = { { kernels = 'i2_s', shapes = { {256, 256} } } } }\n",
              NULL, &ex, err, sizeof err);
    CHECK(rc == 0 && !ex.profile, "profile = false: %s", err);
    if (!rc) bb_experiment_free(&ex);
}

static void expect_error(const char *what, const char *fields, const char *frag)
{
    char text[1024], err[4096];
    snprintf(text, sizeof text, "bitbench.experiment { %s, sweeps = { { kernels = 'i2_s', shapes = { {256, 256} } } } }\n",
             fields);
    bb_experiment ex;
    int rc = load(text, NULL, &ex, err, sizeof err);
    CHECK(rc == -1, "%s: loaded but should have failed", what);
    if (rc != -1) {
        bb_experiment_free(&ex);
        return;
    }
    CHECK(strstr(err, frag) != NULL, "%s: message lacks \"%s\": %s", what, frag, err);
    CHECK(strstr(err, "exp.lua:1:") != NULL, "%s: message lacks the file and line: %s", what, err);
}

static void test_errors(void)
{
    expect_error("unknown plot kind", "plots = { 'token' }",
                 "field 'plots', entry 1: unknown plot kind 'token'; valid kinds: roofline, threads, gemv_bw, tokens, ebw, e2e_threads, e2e_depth");
    expect_error("plots not strings", "plots = { 3 }", "field 'plots', entry 1: must be a string, got number");
    expect_error("profile a number", "profile = 3", "field 'profile' must be true or a table");
    expect_error("profile unknown field", "profile = { kernel = { 'i2_s' } }", "field 'profile': unknown field 'kernel'");
    expect_error("profile unknown kernel", "profile = { kernels = { 'i2s' } }",
                 "field 'profile', kernels entry 1: unknown kernel 'i2s'");
    expect_error("profile threads", "profile = { threads = 100000 }", "field 'profile'");
}

int main(void)
{
    bb_machine_detect(&mach);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_size();
    test_plots_and_profile();
    test_errors();
    remove_tree(dir);
    return check_summary("test_experiment_fields");
}
