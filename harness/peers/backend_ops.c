#include "peers/backend_ops.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const bb_backend_ops_args[] = {"perf", "-o", "MUL_MAT", "-b", "CPU", NULL};

/* Copy a line without its ANSI escape sequences (ESC [ ... letter). */
static void strip_ansi(const char *s, size_t n, char *out, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < len; i++) {
        if (s[i] == '\033' && i + 1 < n && s[i + 1] == '[') {
            i += 2;
            while (i < n && !((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z'))) i++;
            continue;
        }
        out[o++] = s[i];
    }
    out[o] = 0;
}

/* One "key=value" of the parameter list: the value is read up to the next top-level comma. */
static bool param(const char *params, const char *key, char *val, size_t len)
{
    size_t kl = strlen(key);
    int depth = 0;
    for (const char *s = params; *s; s++) {
        bool at_start = s == params || (depth == 0 && s[-1] == ',');
        if (at_start && !strncmp(s, key, kl) && s[kl] == '=') {
            const char *v = s + kl + 1;
            size_t n = strcspn(v, ",");
            snprintf(val, len, "%.*s", (int)n, v);
            return true;
        }
        if (*s == '[') depth++;
        if (*s == ']') depth--;
    }
    return false;
}

static bool param_long(const char *params, const char *key, long *v)
{
    char s[32], *end;
    if (!param(params, key, s, sizeof s)) return false;
    *v = strtol(s, &end, 10);
    return end != s && !*end && *v > 0;
}

/* The rate: the number before "GFLOPS" (or MFLOPS/TFLOPS), in GFLOP/s. */
static bool rate(const char *timing, double *gflops)
{
    const char *u = strstr(timing, "FLOPS");
    if (!u || u == timing) return false;
    char prefix = u[-1];
    double scale = prefix == 'T' ? 1e3 : prefix == 'G' ? 1 : prefix == 'M' ? 1e-3 : 0;
    if (scale == 0) return false;
    const char *d = u - 1;
    while (d > timing && d[-1] == ' ') d--;
    while (d > timing && d[-1] != ' ') d--;
    char *end;
    double v = strtod(d, &end);
    if (end == d) return false;
    *gflops = v * scale;
    return true;
}

/* One MUL_MAT line (escapes stripped).  Returns 1 for a case, 0 for "not supported" or a case it
 * could not allocate, -1 with err. */
static int parse_case(const char *line, bb_backend_ops_case *c, char *err, size_t errlen)
{
    const char *open = strchr(line, '(');
    const char *close = strstr(line, "):");
    if (!open || !close || close < open) {
        snprintf(err, errlen, "no \"(parameters):\"");
        return -1;
    }
    char params[512];
    snprintf(params, sizeof params, "%.*s", (int)(close - open - 1), open + 1);
    const char *timing = close + 2;
    while (*timing == ' ') timing++;
    if (!strncmp(timing, "not supported", 13) || !strncmp(timing, "failed to allocate", 18)) return 0;
    memset(c, 0, sizeof *c);
    if (!param(params, "type_a", c->type_a, sizeof c->type_a) || !param(params, "type_b", c->type_b, sizeof c->type_b) ||
        !param_long(params, "m", &c->m) || !param_long(params, "n", &c->n) || !param_long(params, "k", &c->k)) {
        snprintf(err, errlen, "parameters without type_a, type_b, m, n and k (positive): \"%.80s\"", params);
        return -1;
    }
    if (sscanf(timing, "%ld runs - %lf us/run", &c->runs, &c->us_per_run) != 2 || c->runs <= 0 ||
        !(c->us_per_run > 0) || !rate(timing, &c->gflops)) {
        snprintf(err, errlen, "no \"N runs - T us/run - ... R GFLOPS\" after the parameters: \"%.80s\"", timing);
        return -1;
    }
    return 1;
}

static int add_case(bb_backend_ops_result *r, const bb_backend_ops_case *c)
{
    /* capacity 16, then doubled each time the count reaches a power of two */
    if (r->ncases == 0 || (r->ncases >= 16 && (r->ncases & (r->ncases - 1)) == 0)) {
        void *v = realloc(r->cases, sizeof *r->cases * (size_t)(r->ncases ? 2 * r->ncases : 16));
        if (!v) return -1;
        r->cases = v;
    }
    r->cases[r->ncases++] = *c;
    return 0;
}

int bb_backend_ops_parse(const char *out, bb_backend_ops_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    int lineno = 0;
    for (const char *s = out; *s;) {
        size_t n = strcspn(s, "\n");
        char line[1024];
        strip_ansi(s, n, line, sizeof line);
        lineno++;
        s += n + (s[n] == '\n');
        const char *t = line + strspn(line, " \t");
        if (!strncmp(t, "Device description:", 19)) {
            snprintf(r->device, sizeof r->device, "%s", t + 19 + strspn(t + 19, " "));
            continue;
        }
        if (strncmp(t, "MUL_MAT(", 8)) continue;
        bb_backend_ops_case c;
        char e[256];
        int rc = parse_case(t, &c, e, sizeof e);
        if (rc < 0) {
            snprintf(err, errlen, "line %d: %s", lineno, e);
            bb_backend_ops_result_free(r);
            return -1;
        }
        if (rc == 0) r->unsupported++;
        else if (add_case(r, &c)) {
            snprintf(err, errlen, "out of memory");
            bb_backend_ops_result_free(r);
            return -1;
        }
    }
    if (!r->ncases) {
        snprintf(err, errlen, "no timed MUL_MAT line (%d lines, %d \"not supported\"): not the output of "
                 "test-backend-ops perf -o MUL_MAT", lineno, r->unsupported);
        bb_backend_ops_result_free(r);
        return -1;
    }
    return 0;
}

void bb_backend_ops_result_free(bb_backend_ops_result *r)
{
    free(r->cases);
    r->cases = NULL;
    r->ncases = 0;
}

const bb_backend_ops_case *bb_backend_ops_find(const bb_backend_ops_result *r, const char *type_a, long m, long n,
                                               long k)
{
    for (int i = 0; i < r->ncases; i++) {
        const bb_backend_ops_case *c = &r->cases[i];
        if (!strcasecmp(c->type_a, type_a) && !strcmp(c->type_b, "f32") && c->m == m && c->n == n && c->k == k)
            return c;
    }
    return NULL;
}

void bb_backend_ops_shapes(const bb_backend_ops_result *r, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < r->ncases && o < len; i++) {
        const bb_backend_ops_case *c = &r->cases[i];
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) seen = r->cases[j].m == c->m && r->cases[j].k == c->k;
        if (seen) continue;
        o += (size_t)snprintf(buf + o, len - o, "%sm=%ld k=%ld n=", o ? "; " : "", c->m, c->k);
        int listed = 0;
        for (int j = 0; j < r->ncases && o < len; j++) {
            const bb_backend_ops_case *d = &r->cases[j];
            if (d->m != c->m || d->k != c->k) continue;
            bool dup = false;
            for (int q = 0; q < j && !dup; q++)
                dup = r->cases[q].m == d->m && r->cases[q].k == d->k && r->cases[q].n == d->n;
            if (!dup) o += (size_t)snprintf(buf + o, len - o, "%s%ld", listed++ ? "," : "", d->n);
        }
    }
}
