#include "peers/batched_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_read.h"

int bb_batched_bench_argv(const bb_batched_bench_spec *spec, char *argv[], bb_batched_bench_numbers *num)
{
    int n = 1;
    /* the context holds the depth and the generated tokens; the batch takes the depth's prefill
     * in one call, as llama-bench's -d does (its n_batch 2048 default, here the depth) */
    int ctx = spec->depth + spec->gen;
    int batch = spec->depth > 0 ? spec->depth : 1;
    snprintf(num->text[0], sizeof num->text[0], "%d", ctx);
    snprintf(num->text[1], sizeof num->text[1], "%d", batch);
    snprintf(num->text[2], sizeof num->text[2], "%d", batch < 512 ? batch : 512); /* llama.cpp's -ub default */
    snprintf(num->text[3], sizeof num->text[3], "%d", spec->depth);
    snprintf(num->text[4], sizeof num->text[4], "%d", spec->gen);
    snprintf(num->text[5], sizeof num->text[5], "%d", spec->threads);
    const char *opt[][2] = {{"-m", spec->model}, {"-c", num->text[0]}, {"-b", num->text[1]}, {"-ub", num->text[2]},
                            {"-npp", num->text[3]}, {"-ntg", num->text[4]}, {"-npl", "1"}, {"-t", num->text[5]}};
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++) {
        argv[n++] = (char *)opt[i][0];
        argv[n++] = (char *)opt[i][1];
    }
    if (spec->kv_k && strcmp(spec->kv_k, "f16")) {
        argv[n++] = "-ctk";
        argv[n++] = (char *)spec->kv_k;
    }
    if (spec->kv_v && strcmp(spec->kv_v, "f16")) {
        argv[n++] = "-ctv";
        argv[n++] = (char *)spec->kv_v;
    }
    argv[n++] = "--output-format";
    argv[n++] = "jsonl";
    argv[n] = NULL;
    return n;
}

/* The first line that starts with '{', as its own NUL-terminated copy (the JSON reader reads to
 * the end of its text, and a JSONL line ends at its newline). */
static char *first_object_line(const char *out)
{
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (*p != '{') continue;
        size_t n = strcspn(p, "\n");
        char *line = malloc(n + 1);
        if (line) {
            memcpy(line, p, n);
            line[n] = 0;
        }
        return line;
    }
    return NULL;
}

static int count(const bb_jv *obj, const char *key, int *dst, char *err, size_t errlen)
{
    double v = bb_jv_num(obj, key);
    if (isnan(v) || v < 0 || v > 1e9 || v != floor(v)) {
        snprintf(err, errlen, "its JSON line: '%s' missing or not a count", key);
        return -1;
    }
    *dst = (int)v;
    return 0;
}

static int positive(const bb_jv *obj, const char *key, double *dst, char *err, size_t errlen)
{
    double v = bb_jv_num(obj, key);
    if (!(v > 0) || !isfinite(v)) {
        snprintf(err, errlen, "its JSON line: '%s' missing or not a positive number", key);
        return -1;
    }
    *dst = v;
    return 0;
}

int bb_batched_bench_parse(const char *out, bb_batched_bench_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    char *line = first_object_line(out);
    if (!line) {
        char first[64];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(out, "\r\n"), out);
        snprintf(err, errlen, "no JSON line in its output (first line: \"%s\"; was --output-format jsonl taken?)",
                 first);
        return -1;
    }
    char e[160];
    bb_jv *doc = bb_json_parse(line, e, sizeof e);
    free(line);
    if (!doc) {
        snprintf(err, errlen, "its JSON line is not JSON: %s", e);
        return -1;
    }
    int rc = 0;
    if (doc->type != BB_JV_OBJ) {
        snprintf(err, errlen, "its JSON line is not an object");
        rc = -1;
    } else if (count(doc, "pp", &r->pp, err, errlen) || count(doc, "tg", &r->tg, err, errlen) ||
               count(doc, "pl", &r->pl, err, errlen) || count(doc, "n_threads", &r->n_threads, err, errlen) ||
               positive(doc, "t_tg", &r->t_tg, err, errlen) || positive(doc, "speed_tg", &r->speed_tg, err, errlen)) {
        rc = -1;
    }
    bb_jv_free(doc);
    return rc;
}

int bb_batched_bench_check(const bb_batched_bench_spec *spec, const bb_batched_bench_result *r, char *err,
                           size_t errlen)
{
    if (r->pp != spec->depth || r->tg != spec->gen || r->pl != 1 || r->n_threads != spec->threads) {
        snprintf(err, errlen, "it ran pp %d tg %d pl %d at %d threads, asked pp %d tg %d pl 1 at %d", r->pp, r->tg,
                 r->pl, r->n_threads, spec->depth, spec->gen, spec->threads);
        return -1;
    }
    return 0;
}

int bb_batched_bench_version_commit(const char *text, char *commit, size_t len)
{
    if (len) commit[0] = 0;
    const char *v = strstr(text, "version: ");
    if (!v || len == 0) return -1;
    v += strlen("version: ");
    size_t digits = strspn(v, "0123456789");
    if (!digits || v[digits] != ' ' || v[digits + 1] != '(') return -1;
    const char *c = v + digits + 2;
    size_t n = strspn(c, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._-");
    if (n == 0 || n > 40 || c[n] != ')' || n >= len) return -1;
    memcpy(commit, c, n);
    commit[n] = 0;
    return 0;
}
