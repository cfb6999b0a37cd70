#include "llama_bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_read.h"

int bb_llama_bench_argv(const bb_llama_bench_spec *spec, char *argv[], bb_llama_bench_numbers *num)
{
    int n = 1;
    snprintf(num->text[0], sizeof num->text[0], "%d", spec->threads);
    snprintf(num->text[1], sizeof num->text[1], "%d", spec->prompt);
    snprintf(num->text[2], sizeof num->text[2], "%d", spec->gen);
    snprintf(num->text[3], sizeof num->text[3], "%d", spec->reps);
    snprintf(num->text[4], sizeof num->text[4], "%d", spec->depth);
    argv[n++] = "-m";
    argv[n++] = (char *)spec->model;
    argv[n++] = "-t";
    argv[n++] = num->text[0];
    argv[n++] = "-p";
    argv[n++] = num->text[1];
    argv[n++] = "-n";
    argv[n++] = num->text[2];
    argv[n++] = "-r";
    argv[n++] = num->text[3];
    if (spec->depth > 0) {
        argv[n++] = "-d";
        argv[n++] = num->text[4];
    }
    argv[n++] = "-o";
    argv[n++] = "json";
    argv[n] = NULL;
    return n;
}

bool bb_llama_bench_help_has_depth(const char *help) { return help && strstr(help, "--n-depth") != NULL; }

static void copy_str(const bb_jv *obj, const char *key, char *dst, size_t len)
{
    const char *s = bb_jv_str(obj, key);
    snprintf(dst, len, "%s", s ? s : "");
}

static int int_member(const bb_jv *obj, const char *key, int i, int *dst, char *err, size_t errlen)
{
    double v = bb_jv_num(obj, key);
    if (isnan(v) || v < 0 || v > 1e9 || v != floor(v)) {
        snprintf(err, errlen, "test %d: '%s' missing or not a count", i + 1, key);
        return -1;
    }
    *dst = (int)v;
    return 0;
}

static int read_test(const bb_jv *obj, int i, bb_llama_bench_test *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (obj->type != BB_JV_OBJ) {
        snprintf(err, errlen, "test %d is not an object", i + 1);
        return -1;
    }
    if (int_member(obj, "n_prompt", i, &t->n_prompt, err, errlen) ||
        int_member(obj, "n_gen", i, &t->n_gen, err, errlen) ||
        int_member(obj, "n_threads", i, &t->n_threads, err, errlen))
        return -1;
    t->avg_ts = bb_jv_num(obj, "avg_ts");
    t->stddev_ts = bb_jv_num(obj, "stddev_ts");
    if (!(t->avg_ts >= 0)) {
        snprintf(err, errlen, "test %d: 'avg_ts' missing or not a rate", i + 1);
        return -1;
    }
    const bb_jv *s = bb_jv_get(obj, "samples_ts");
    if (!s || s->type != BB_JV_ARR || s->n < 1) {
        snprintf(err, errlen, "test %d: 'samples_ts' missing or empty", i + 1);
        return -1;
    }
    if (s->n > BB_PEER_MAX_SAMPLES) {
        snprintf(err, errlen, "test %d: %d samples, at most %d are read", i + 1, s->n, BB_PEER_MAX_SAMPLES);
        return -1;
    }
    for (int k = 0; k < s->n; k++) {
        if (s->items[k].type != BB_JV_NUM || !(s->items[k].num >= 0)) {
            snprintf(err, errlen, "test %d: samples_ts[%d] is not a rate", i + 1, k);
            return -1;
        }
        t->samples_ts[k] = s->items[k].num;
    }
    t->nsamples = s->n;
    t->present = true;
    return 0;
}

/* The first line that starts with '['. */
static const char *json_start(const char *out)
{
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (*p == '[') return p;
    return NULL;
}

int bb_llama_bench_parse(const char *out, bb_llama_bench_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    const char *start = json_start(out);
    if (!start) {
        char first[64];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(out, "\r\n"), out);
        snprintf(err, errlen, "no JSON array in its output (first line: \"%s\")", first);
        return -1;
    }
    char e[160];
    bb_jv *doc = bb_json_parse(start, e, sizeof e);
    if (!doc) {
        snprintf(err, errlen, "its output is not JSON: %s", e);
        return -1;
    }
    int rc = 0;
    if (doc->type != BB_JV_ARR) {
        snprintf(err, errlen, "its JSON is not an array of tests");
        rc = -1;
    }
    for (int i = 0; !rc && i < doc->n; i++) {
        bb_llama_bench_test t;
        if (read_test(&doc->items[i], i, &t, err, errlen)) {
            rc = -1;
            break;
        }
        if (i == 0) {
            copy_str(&doc->items[i], "build_commit", r->build_commit, sizeof r->build_commit);
            copy_str(&doc->items[i], "cpu_info", r->cpu_info, sizeof r->cpu_info);
            copy_str(&doc->items[i], "model_type", r->model_type, sizeof r->model_type);
        }
        /* pp P is (P, 0), tg G is (0, G); a combined pg test (P, G) is not asked for */
        if (t.n_gen == 0 && t.n_prompt > 0) r->pp = t;
        if (t.n_prompt == 0 && t.n_gen > 0) r->tg = t;
    }
    bb_jv_free(doc);
    return rc;
}

static int check_test(const char *what, int want_len, int got_len, int threads, const bb_llama_bench_test *t,
                      char *err, size_t errlen)
{
    if (!t->present) {
        snprintf(err, errlen, "its output has no %s %d test", what, want_len);
        return -1;
    }
    if (got_len != want_len || t->n_threads != threads) {
        snprintf(err, errlen, "its %s test ran %s %d at %d threads, asked %s %d at %d", what, what, got_len,
                 t->n_threads, what, want_len, threads);
        return -1;
    }
    return 0;
}

int bb_llama_bench_check(const bb_llama_bench_spec *spec, const bb_llama_bench_result *r, char *err, size_t errlen)
{
    if (spec->prompt > 0 && check_test("pp", spec->prompt, r->pp.n_prompt, spec->threads, &r->pp, err, errlen))
        return -1;
    if (spec->gen > 0 && check_test("tg", spec->gen, r->tg.n_gen, spec->threads, &r->tg, err, errlen)) return -1;
    return 0;
}
