/* The Lua experiment API: every field read with its default, the bitbench.* helpers, the
 * command-line overrides, the plan (skip / error on impossible shapes), and every validation
 * error with its message (file, line, what was wrong, what is valid). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "plan/experiment.h"
#include "plan/plan.h"
#include "variants.h"

static bb_machine mach;
static char dir[] = "/tmp/bb_lua_api_XXXXXX";

/* Write a Lua file and return its path (static buffer per call slot). */
static const char *lua_file(const char *name, const char *text)
{
    static char paths[8][512];
    static int slot;
    char *p = paths[slot++ % 8];
    snprintf(p, 512, "%s/%s", dir, name);
    write_text(p, text);
    return p;
}

static int load(const char *name, const char *text, bb_experiment *ex, char *err, size_t len)
{
    return bb_experiment_load(lua_file(name, text), &mach, ex, err, len);
}

/* The load must fail and the message contain every given fragment. */
static void expect_error(const char *what, const char *text, ...)
{
    bb_experiment ex;
    char err[4096];
    int rc = load("bad.lua", text, &ex, err, sizeof err);
    CHECK(rc == -1, "%s: loaded but should have failed", what);
    if (rc != -1) {
        bb_experiment_free(&ex);
        return;
    }
    va_list ap;
    va_start(ap, text);
    for (const char *frag; (frag = va_arg(ap, const char *));)
        CHECK(strstr(err, frag) != NULL, "%s: message lacks \"%s\": %s", what, frag, err);
    va_end(ap);
}

static void test_defaults(void)
{
    bb_experiment ex;
    char err[4096];
    int rc = load("defaults.lua",
                  "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = { {m = 256, k = 512} } } } }\n", &ex,
                  err, sizeof err);
    CHECK(rc == 0, "defaults: %s", err);
    if (rc) return;
    CHECK(strcmp(ex.name, "defaults") == 0, "default name is the file's base name, got %s", ex.name);
    CHECK(strcmp(ex.out, "results") == 0, "default out, got %s", ex.out);
    CHECK(ex.line == 1, "experiment line %d", ex.line);
    CHECK(ex.nmeters == 1 && strcmp(ex.meters[0], "timer") == 0, "timer is always a meter");
    CHECK(ex.nsweeps == 1, "one sweep");
    bb_sweep *s = &ex.sweeps[0];
    CHECK(strcmp(s->name, "sweep1") == 0, "default sweep name %s", s->name);
    CHECK(s->nkernels == 1 && strcmp(s->kernels[0].kernel->name, "i2_s") == 0, "one kernel from a string");
    CHECK(s->nshapes == 1 && s->shapes[0].m == 256 && s->shapes[0].k == 512 && !s->shapes[0].model[0], "shape");
    CHECK(s->nn == 1 && s->n[0] == 1, "default n = {1}");
    CHECK(s->nthreads == 1 && s->threads[0] == mach.cores, "default threads = {physical cores}");
    CHECK(s->warmup == BB_DEFAULT_WARMUP && s->min_reps == BB_DEFAULT_MIN_REPS && s->max_reps == BB_DEFAULT_MAX_REPS,
          "default warmup/reps/max_reps %d %d %d", s->warmup, s->min_reps, s->max_reps);
    CHECK(s->min_seconds == BB_DEFAULT_MIN_SECONDS && s->spread_limit == BB_DEFAULT_SPREAD_LIMIT, "default times");
    CHECK(s->ncache == 1 && s->cache[0] == BB_CACHE_RESIDENT, "default cache resident");
    CHECK(s->on_unsupported == BB_UNSUPPORTED_SKIP && s->seed == BB_DEFAULT_SEED, "default skip, seed 42");
    CHECK(!s->verify, "default verify = false");
    bb_experiment_free(&ex);
}

/* Model sweeps' logit comparison: off by default; compare_tokens defaults to 16. */
static void test_compare_fields(void)
{
    bb_experiment ex;
    char err[4096];
    int rc = load("cmp.lua",
                  "bitbench.experiment { sweeps = {\n"
                  "  { name = 'a', models = 'bitnet-dummy-125m', kernels = 'i2_s' },\n"
                  "  { name = 'b', models = 'bitnet-dummy-125m', kernels = 'tl2_1', compare_logits = 'i2_s' },\n"
                  "  { name = 'c', models = 'bitnet-dummy-125m', kernels = 'f16', compare_logits = 'f32',\n"
                  "    compare_tokens = 5 } } }\n",
                  &ex, err, sizeof err);
    CHECK(rc == 0, "compare fields: %s", err);
    if (rc) return;
    CHECK(!ex.sweeps[0].compare_logits[0], "compare_logits unset by default");
    CHECK(!strcmp(ex.sweeps[1].compare_logits, "i2_s") && ex.sweeps[1].compare_tokens == BB_DEFAULT_COMPARE_TOKENS &&
              BB_DEFAULT_COMPARE_TOKENS == 16,
          "compare_logits i2_s, default compare_tokens 16: '%s' %d", ex.sweeps[1].compare_logits,
          ex.sweeps[1].compare_tokens);
    CHECK(!strcmp(ex.sweeps[2].compare_logits, "f32") && ex.sweeps[2].compare_tokens == 5, "compare_tokens 5");
    bb_experiment_free(&ex);
    expect_error("compare_logits variant",
                 "bitbench.experiment { sweeps = { { models = 'bitnet-dummy-125m', kernels = 'i2_s',\n"
                 "  compare_logits = 'i2_s@nope' } } }\n",
                 "bad.lua:1: sweep 'sweep1': field 'compare_logits':", "has no variant 'nope'", NULL);
    expect_error("compare_tokens range",
                 "bitbench.experiment { sweeps = { { models = 'bitnet-dummy-125m', kernels = 'i2_s',\n"
                 "  compare_logits = 'f32', compare_tokens = 2000 } } }\n",
                 "field 'compare_tokens'", "1..1024", NULL);
}

static void test_all_fields(void)
{
    bb_experiment ex;
    char err[4096];
    int rc = load("full.lua",
                  "-- every field\n"
                  "local shapes = { {m = 256, k = 512}, {128, 256}, 'llama-2-7b' }\n"
                  "bitbench.experiment {\n"
                  "  name = 'full-exp', description = 'all of it', out = 'somewhere/else',\n"
                  "  meters = { 'timer', 'timer' },\n"
                  "  sweeps = {\n"
                  "    bitbench.sweep {\n"
                  "      name = 'a', kernels = { 'i2_s', 'i2_s@scalar' }, shapes = shapes,\n"
                  "      n = { 1, 8 }, threads = 1, warmup = 0, reps = 3, max_reps = 7, min_seconds = 0,\n"
                  "      cache = { 'resident', 'dram' }, on_unsupported = 'error', spread_limit = 0.5, seed = 7,\n"
                  "      verify = true,\n"
                  "    },\n"
                  "    { name = 'b', kernels = 'tq2_0', shapes = 'bitnet-b1.58-2b4t', cache = 'dram' },\n"
                  "  },\n"
                  "}\n",
                  &ex, err, sizeof err);
    CHECK(rc == 0, "full: %s", err);
    if (rc) return;
    CHECK(strcmp(ex.name, "full-exp") == 0 && strcmp(ex.description, "all of it") == 0, "name, description");
    CHECK(strcmp(ex.out, "somewhere/else") == 0, "out");
    CHECK(ex.nmeters == 1, "duplicate meters merged");
    CHECK(ex.line == 3, "experiment line %d", ex.line);
    CHECK(ex.nsweeps == 2, "two sweeps");
    bb_sweep *a = &ex.sweeps[0], *b = &ex.sweeps[1];
    CHECK(a->line == 7, "bitbench.sweep records its line, got %d", a->line);
    CHECK(b->line == 0, "a plain table sweep has no line of its own");
    /* where i2_s's best variant is the scalar one, the two entries are one variant, measured once */
    int nk = best_is_scalar("i2_s") ? 1 : 2;
    CHECK(a->nkernels == nk && strcmp(a->kernels[nk - 1].variant->isa, "scalar") == 0, "kernel@isa resolved");
    /* 2 literal shapes + llama-2-7b's q+o (4096x4096), k+v (same), gate+up, down: q,k,v,o merge */
    CHECK(a->nshapes == 2 + 3, "shapes: 2 literal + 3 distinct of llama-2-7b, got %d", a->nshapes);
    CHECK(a->shapes[1].m == 128 && a->shapes[1].k == 256, "{M, K} pair");
    CHECK(strcmp(a->shapes[2].model, "llama-2-7b") == 0 && strcmp(a->shapes[2].roles, "q+k+v+o") == 0 &&
              a->shapes[2].m == 4096 && a->shapes[2].k == 4096,
          "model shape q+k+v+o: %s %s %dx%d", a->shapes[2].model, a->shapes[2].roles, a->shapes[2].m, a->shapes[2].k);
    CHECK(a->shapes[3].m == 11008 && a->shapes[3].k == 4096 && strcmp(a->shapes[3].roles, "gate+up") == 0, "gate+up");
    CHECK(a->shapes[4].m == 4096 && a->shapes[4].k == 11008 && strcmp(a->shapes[4].roles, "down") == 0, "down");
    CHECK(a->nn == 2 && a->n[1] == 8 && a->nthreads == 1 && a->threads[0] == 1, "n list, threads number");
    CHECK(a->warmup == 0 && a->min_reps == 3 && a->max_reps == 7 && a->min_seconds == 0, "timing fields");
    CHECK(a->ncache == 2 && a->cache[1] == BB_CACHE_DRAM, "cache list");
    CHECK(a->on_unsupported == BB_UNSUPPORTED_ERROR && a->spread_limit == 0.5 && a->seed == 7, "other fields");
    CHECK(a->verify && !b->verify, "verify: true in a, default false in b");
    CHECK(b->nshapes == 4, "2b4t: q+o, k+v, gate+up, down; got %d", b->nshapes);
    CHECK(strcmp(b->shapes[1].roles, "k+v") == 0 && b->shapes[1].m == 640 && b->shapes[1].k == 2560, "GQA k+v");
    CHECK(b->ncache == 1 && b->cache[0] == BB_CACHE_DRAM, "cache string");

    /* overrides */
    int th[] = {1};
    const char *only[] = {"i2_s@scalar"};
    bb_overrides o = {.threads = th, .nthreads = 1, .reps = 5, .min_seconds = 0.25, .out = "/tmp/x",
                      .only = only, .nonly = 1};
    rc = bb_experiment_override(&ex, &o, &mach, err, sizeof err);
    CHECK(rc == 0, "override: %s", err);
    CHECK(ex.nsweeps == 1 && strcmp(ex.sweeps[0].name, "a") == 0, "--only i2_s@scalar keeps only sweep a");
    CHECK(ex.sweeps[0].nkernels == 1 && strcmp(ex.sweeps[0].kernels[0].variant->isa, "scalar") == 0 &&
              strcmp(ex.sweeps[0].kernels[0].spec, nk == 2 ? "i2_s@scalar" : "i2_s") == 0,
          "--only variant");
    CHECK(ex.sweeps[0].min_reps == 5 && ex.sweeps[0].max_reps == 7 && ex.sweeps[0].min_seconds == 0.25,
          "--reps, --min-time");
    CHECK(strcmp(ex.out, "/tmp/x") == 0, "--out");
    bb_experiment_free(&ex);
}

static void test_helpers(void)
{
    bb_experiment ex;
    char err[4096];
    int rc = load("helpers.lua",
                  "local ks = bitbench.kernels()\n"
                  "assert(#ks >= 1, 'kernels()')\n"
                  "local found = false\n"
                  "for _, k in ipairs(bitbench.kernels('mad')) do found = found or k == 'i2_s' end\n"
                  "assert(found, 'kernels(mad) has i2_s')\n"
                  "local k = bitbench.kernel('i2_s')\n"
                  "assert(k.family == 'mad' and k.bits_per_weight == 2 and k.lossless and k.k_multiple == 128)\n"
                  "assert(k.variants[1] == 'scalar' and type(k.variant) == 'string')\n"
                  "local none, why = bitbench.kernel('no_such_kernel')\n"
                  "assert(none == nil and why:find('unknown kernel'), 'kernel(unknown) is nil, reason')\n"
                  "local u = bitbench.usable { 'no_such_kernel', 'i2_s', 'i2_s@scalar', 'i2_s@no_such_isa' }\n"
                  "assert(#u == 2 and u[1] == 'i2_s' and u[2] == 'i2_s@scalar', 'usable keeps what resolves, in order')\n"
                  "assert(not pcall(bitbench.usable, { {} }), 'usable: a non-name entry is an error')\n"
                  "local ms = bitbench.models()\n"
                  "local has = false\n"
                  "for _, m in ipairs(ms) do has = has or m == 'llama-2-7b' end\n"
                  "assert(has, 'models()')\n"
                  "local m = bitbench.model('llama-3-8b')\n"
                  "assert(m.dim == 4096 and m.n_kv_heads == 8 and m.head_dim == 128 and m.style == 'llama')\n"
                  "assert(#m.shapes == 4 and m.shapes[2].roles == 'k+v' and m.shapes[2].m == 1024)\n"
                  "assert(m.params > 8.0e9 and m.params < 8.1e9, 'llama-3-8b params ' .. m.params)\n"
                  "assert(bitbench.machine.cores >= 1 and bitbench.machine.pus >= bitbench.machine.cores)\n"
                  "local r = bitbench.range(1, 5, 2)\n"
                  "assert(#r == 3 and r[1] == 1 and r[3] == 5, 'range')\n"
                  "assert(#bitbench.range(3, 2) == 0, 'empty range')\n"
                  "return { sweeps = { { kernels = ks[1], shapes = { {256, 256} } } } }\n",
                  &ex, err, sizeof err);
    CHECK(rc == 0, "helpers: %s", err);
    if (rc == 0) {
        CHECK(ex.line == 0 && ex.nsweeps == 1, "a returned plain table is the experiment");
        bb_experiment_free(&ex);
    }
}

static void test_plan(void)
{
    bb_experiment ex;
    char err[4096];
    /* K=200 is not a multiple of i2_s's 128: skipped by default */
    int rc = load("plan.lua",
                  "bitbench.experiment { sweeps = { bitbench.sweep { name = 's', kernels = { 'i2_s', 'i2_s@scalar' },\n"
                  "  shapes = { {256, 256}, {256, 200} }, n = { 1, 2 }, threads = 1 } } }\n",
                  &ex, err, sizeof err);
    CHECK(rc == 0, "plan load: %s", err);
    if (rc) return;
    bb_plan plan;
    rc = bb_plan_build(&ex, &mach, &plan, err, sizeof err);
    CHECK(rc == 0, "plan: %s", err);
    int nk = best_is_scalar("i2_s") ? 1 : 2; /* i2_s and i2_s@scalar: one variant on a scalar CPU */
    CHECK(plan.npoints == nk * 1 * 2, "%d kernels x 1 good shape x 2 N, got %d", nk, plan.npoints);
    CHECK(plan.nskipped == nk && strstr(plan.skipped[0], "needs K to be a multiple of 128"), "skips reported: %s",
          plan.nskipped ? plan.skipped[0] : "(none)");
    for (int i = 0; i < plan.npoints; i++) CHECK(plan.points[i].index == i + 1, "point numbering");
    CHECK(plan.points[0].n == 1 && plan.points[1].n == 2 && (nk == 1 || plan.points[2].kernel == 1),
          "order: kernel, shape, N");
    char key[256];
    bb_plan_point_key(&ex, &plan.points[plan.npoints - 1], key, sizeof key);
    CHECK(strcmp(key, "s|i2_s|scalar|256|256|2|1|resident|w3|r10|t0.1|s42|d0") == 0, "point key %s", key);
    bb_plan_free(&plan);
    bb_experiment_free(&ex);

    rc = load("plan_err.lua",
              "bitbench.experiment { sweeps = {\n bitbench.sweep { name = 's', kernels = 'i2_s', shapes = { {256, 200} },\n"
              "  on_unsupported = 'error' } } }\n",
              &ex, err, sizeof err);
    CHECK(rc == 0, "plan_err load: %s", err);
    if (rc) return;
    rc = bb_plan_build(&ex, &mach, &plan, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "plan_err.lua:2: sweep 's': i2_s cannot run shape M=256 K=200") &&
              strstr(err, "needs K to be a multiple of 128") && strstr(err, "on_unsupported"),
          "refused with file:line and reason: %s", err);
    bb_plan_free(&plan);
    bb_experiment_free(&ex);
}

static void test_override_errors(void)
{
    bb_experiment ex;
    char err[4096];
    int rc = load("ov.lua", "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = { {256, 256} } } } }\n",
                  &ex, err, sizeof err);
    CHECK(rc == 0, "ov load: %s", err);
    if (rc) return;
    const char *unknown[] = {"nope"};
    bb_overrides o = {.min_seconds = -1, .only = unknown, .nonly = 1};
    rc = bb_experiment_override(&ex, &o, &mach, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "--only: unknown kernel 'nope'; valid kernels:"), "--only unknown: %s", err);
    const bb_kernel *other = NULL;
    for (int i = 0; i < bb_kernel_count() && !other; i++)
        if (strcmp(bb_kernel_at(i)->name, "i2_s")) other = bb_kernel_at(i);
    if (other) {
        const char *absent[] = {other->name};
        o.only = absent;
        rc = bb_experiment_override(&ex, &o, &mach, err, sizeof err);
        CHECK(rc == -1 && strstr(err, "no sweep of") && strstr(err, "kernels in the file: i2_s"),
              "--only not in file: %s", err);
    }
    /* --threads beyond the CPUs this process may use: refused when the run is planned (the CPUs
     * allowed are the affinity mask's, known only then; test_placement checks the message). */
    int th[] = {mach.pus + 1};
    bb_overrides o2 = {.min_seconds = -1, .threads = th, .nthreads = 1};
    rc = bb_experiment_override(&ex, &o2, &mach, err, sizeof err);
    bb_plan plan;
    if (rc == 0) {
        rc = bb_plan_build(&ex, &mach, &plan, err, sizeof err);
        if (rc == 0) bb_plan_free(&plan);
    }
    CHECK(rc == -1 && strstr(err, "may run on"), "--threads beyond the machine: %s", err);
    bb_experiment_free(&ex);
}

static void test_errors(void)
{
    char big[64];
    snprintf(big, sizeof big, "%d", mach.pus + 1);
    expect_error("syntax", "bitbench.experiment { sweeps = { { kernels = 'i2_s' shapes = {} } } }\n", "bad.lua:1:",
                 "'}' expected", NULL);
    expect_error("syntax line", "local a = 1\nlocal b = = 2\n", "bad.lua:2:", NULL);
    expect_error("runtime error", "local x = nil\nx.y = 1\n", "bad.lua:2:", "attempt to index", NULL);
    expect_error("no experiment", "local x = 1\n", "declares no experiment", "bitbench.experiment", NULL);
    expect_error("twice",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}} } } }\n"
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}} } } }\n",
                 "bad.lua:2:", "second time (first at line 1)", NULL);
    expect_error("unknown kernel",
                 "bitbench.experiment {\n sweeps = { bitbench.sweep { name = 'g', kernels = { 'i2s' }, shapes = {{256,256}} } } }\n",
                 "bad.lua:2: sweep 'g':", "unknown kernel 'i2s'", "did you mean 'i2_s'?", "valid kernels:", NULL);
    expect_error("unknown variant",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s@nope', shapes = {{256,256}} } } }\n",
                 "bad.lua:1: sweep 'sweep1':", "has no variant 'nope'", "usable on this CPU: scalar", NULL);
    expect_error("unknown model",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = { 'llama-2-7' } } } }\n",
                 "bad.lua:1:", "shapes', entry 1: unknown model 'llama-2-7'", "did you mean 'llama-2-7b'?",
                 "valid models:", NULL);
    expect_error("field typo",
                 "bitbench.experiment {\n sweeps = {\n  bitbench.sweep { kernels = 'i2_s', shapes = {{256,256}}, thread = 2 } } }\n",
                 "bad.lua:3: sweep 'sweep1':", "unknown field 'thread' (did you mean 'threads'?)", "valid fields: name,",
                 NULL);
    expect_error("verify not a boolean",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, verify = 'yes' } } }\n",
                 "bad.lua:1: sweep 'sweep1':", "field 'verify' must be true or false, got string \"yes\"", NULL);
    expect_error("experiment field typo",
                 "bitbench.experiment { sweep = { { kernels = 'i2_s', shapes = {{256,256}} } } }\n", "bad.lua:1:",
                 "unknown field 'sweep' (did you mean 'sweeps'?)", NULL);
    expect_error("wrong type n",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, n = '8' } } }\n",
                 "field 'n' must be an integer or a non-empty list of integers", "got string \"8\"", NULL);
    expect_error("wrong type entry",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, n = {1, 2.5} } } }\n",
                 "field 'n', entry 2: must be an integer", "got number 2.5", NULL);
    expect_error("wrong type warmup",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, warmup = true } } }\n",
                 "field 'warmup' must be an integer in 0..1000000", "got boolean true", NULL);
    expect_error("negative reps",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, reps = 0 } } }\n",
                 "field 'reps' must be an integer in 1..", NULL);
    expect_error("max below min",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, reps = 9, max_reps = 3 } } }\n",
                 "field 'max_reps' (3) is below 'reps' (9)", NULL);
    expect_error("min_seconds type",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, min_seconds = 'x' } } }\n",
                 "field 'min_seconds' must be a number in 0..3600", NULL);
    expect_error("cache mode",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, cache = 'l7' } } }\n",
                 "field 'cache': unknown mode 'l7'; valid: l1, l2, l3, resident, dram", NULL);
    expect_error("on_unsupported",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, on_unsupported = 'ignore' } } }\n",
                 "field 'on_unsupported': 'ignore' is not valid; valid: skip, error", NULL);
    char text[512];
    snprintf(text, sizeof text,
             "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, threads = {1, %s} } } }\n", big);
    {   /* as --threads: loaded, refused by the plan */
        bb_experiment ex;
        char err[4096];
        int rc = load("bad.lua", text, &ex, err, sizeof err);
        if (rc == 0) {
            bb_plan plan;
            rc = bb_plan_build(&ex, &mach, &plan, err, sizeof err);
            if (rc == 0) bb_plan_free(&plan);
            bb_experiment_free(&ex);
        }
        CHECK(rc == -1 && strstr(err, "threads") && strstr(err, "may run on"), "too many threads: %s", err);
    }
    expect_error("duplicate threads",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{256,256}}, threads = {1, 1} } } }\n",
                 "field 'threads': 1 is listed twice", NULL);
    expect_error("shape zero",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{0, 256}} } } }\n",
                 "field 'shapes', entry 1: {M, K} must be integers in 1..", NULL);
    expect_error("shape field typo",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{m = 8, kk = 256}} } } }\n",
                 "field 'shapes', entry 1: unknown field 'kk'", "valid fields: m, k", NULL);
    expect_error("shape missing k",
                 "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = {{m = 8}} } } }\n",
                 "a shape needs both m and k", NULL);
    expect_error("shape type", "bitbench.experiment { sweeps = { { kernels = 'i2_s', shapes = { 42 } } } }\n",
                 "field 'shapes', entry 1: must be a model name, {m=M, k=K} or {M, K}, got number 42", NULL);
    expect_error("missing kernels", "bitbench.experiment { sweeps = { { shapes = {{256,256}} } } }\n",
                 "missing field 'kernels'", NULL);
    expect_error("missing shapes", "bitbench.experiment { sweeps = { { kernels = 'i2_s' } } }\n",
                 "missing field 'shapes'", NULL);
    expect_error("empty kernels", "bitbench.experiment { sweeps = { { kernels = {}, shapes = {{256,256}} } } }\n",
                 "field 'kernels' must be a string or a non-empty list of strings", NULL);
    expect_error("kernel type", "bitbench.experiment { sweeps = { { kernels = { 'i2_s', 3 }, shapes = {{256,256}} } } }\n",
                 "field 'kernels', entry 2: must be a string, got number 3", NULL);
    expect_error("meters", "bitbench.experiment { meters = { 'papi2' }, sweeps = { { kernels = 'i2_s', shapes = {{256,256}} } } }\n",
                 "field 'meters': unknown meter 'papi2'; valid meters: timer, papi, pcm, rapl", NULL);
    expect_error("no sweeps", "bitbench.experiment { name = 'x' }\n", "missing field 'sweeps'", NULL);
    expect_error("sweeps not a list", "bitbench.experiment { sweeps = { a = { kernels = 'i2_s' } } }\n",
                 "field 'sweeps' must be a non-empty list of sweep tables", NULL);
    expect_error("duplicate sweep names",
                 "bitbench.experiment { sweeps = { { name = 'x', kernels = 'i2_s', shapes = {{256,256}} },\n"
                 "  { name = 'x', kernels = 'i2_s', shapes = {{256,256}} } } }\n",
                 "two sweeps are named 'x'", NULL);
    expect_error("bad experiment name",
                 "bitbench.experiment { name = 'a b', sweeps = { { kernels = 'i2_s', shapes = {{256,256}} } } }\n",
                 "name 'a b' may only use letters", NULL);
    expect_error("model() unknown", "local m = bitbench.model('nope')\n", "bad.lua:1:", "unknown model 'nope'", NULL);
    expect_error("kernels() family", "bitbench.kernels('madd')\n", "unknown family 'madd'; valid: mad,", NULL);
    bb_experiment ex;
    char err[4096];
    CHECK(bb_experiment_load("/nonexistent/exp.lua", &mach, &ex, err, sizeof err) == -1 &&
              strstr(err, "/nonexistent/exp.lua: cannot open it"),
          "missing file: %s", err);
}

int main(void)
{
    bb_machine_detect(&mach);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_defaults();
    test_all_fields();
    test_compare_fields();
    test_helpers();
    test_plan();
    test_override_errors();
    test_errors();
    /* clean up */
    remove_tree(dir);
    return check_summary("test_lua_api");
}
