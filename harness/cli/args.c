#include "cli/args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/affinity.h"

int bb_parse_int(const char *opt, const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || errno) {
        fprintf(stderr, "bitbench: %s: '%s' is not an integer (valid: %ld..%ld)\n", opt, s ? s : "", lo, hi);
        return -1;
    }
    if (v < lo || v > hi) {
        fprintf(stderr, "bitbench: %s: %ld is out of range (valid: %ld..%ld)\n", opt, v, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int bb_parse_u64(const char *opt, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = s ? strtoull(s, &end, 0) : 0;
    if (!s || !*s || *end || errno || *s == '-') {
        fprintf(stderr, "bitbench: %s: '%s' is not a non-negative integer\n", opt, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int bb_parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || !*s || *end || errno || !(v >= lo && v <= hi)) {
        fprintf(stderr, "bitbench: %s: '%s' is not a number in %g..%g\n", opt, s ? s : "", lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int bb_parse_int_list(const char *opt, const char *s, long lo, long hi, int **out, int *count)
{
    *out = NULL;
    *count = 0;
    int cap = 0, n = 0, *v = NULL;
    const char *p = s ? s : "";
    if (!*p) {
        fprintf(stderr, "bitbench: %s: empty list (valid: integers in %ld..%ld, e.g. 1,2 or 1-4)\n", opt, lo, hi);
        return -1;
    }
    while (*p) {
        char *end;
        errno = 0;
        long a = strtol(p, &end, 10), b;
        if (end == p || errno) goto bad;
        b = a;
        if (*end == '-') {
            const char *q = end + 1;
            b = strtol(q, &end, 10);
            if (end == q || errno) goto bad;
        }
        if (*end && *end != ',') goto bad;
        if (b < a) {
            fprintf(stderr, "bitbench: %s: '%.*s' is a backwards range (write first-last)\n", opt, (int)(end - p), p);
            free(v);
            return -1;
        }
        if (a < lo || a > hi || b < lo || b > hi) {
            fprintf(stderr, "bitbench: %s: '%.*s' is out of range (valid: %ld..%ld)\n", opt, (int)(end - p), p, lo, hi);
            free(v);
            return -1;
        }
        for (long x = a; x <= b; x++) {
            for (int i = 0; i < n; i++)
                if (v[i] == x) {
                    fprintf(stderr, "bitbench: %s: %ld is listed twice\n", opt, x);
                    free(v);
                    return -1;
                }
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                int *nv = realloc(v, sizeof *v * (size_t)cap);
                if (!nv) {
                    free(v);
                    fprintf(stderr, "bitbench: %s: out of memory\n", opt);
                    return -1;
                }
                v = nv;
            }
            v[n++] = (int)x;
        }
        p = *end ? end + 1 : end;
        if (*end == ',' && !*p) goto bad;
    }
    *out = v;
    *count = n;
    return 0;
bad:
    fprintf(stderr, "bitbench: %s: '%s' is not a list of integers (valid: integers in %ld..%ld, e.g. 1,2 or 1-4)\n",
            opt, s, lo, hi);
    free(v);
    return -1;
}

int bb_parse_cpus(const char *s, int **out, int *count)
{
    if (bb_parse_int_list("--cpus", s, 0, BB_AFFINITY_MAX_CPU, out, count)) return -1;
    char err[512];
    if (bb_affinity_check_cpus(*out, *count, err, sizeof err)) {
        fprintf(stderr, "bitbench: --cpus %s: %s\n", s, err);
        free(*out);
        *out = NULL;
        *count = 0;
        return -1;
    }
    bb_affinity_set_cpus(*out, *count);
    return 0;
}

int bb_check_threads(const char *opt, int threads)
{
    char err[512];
    if (bb_affinity_check_threads(threads, NULL, 0, err, sizeof err) == 0) return 0;
    fprintf(stderr, "bitbench: %s %d: %s\n", opt, threads, err);
    return -1;
}

int bb_parse_kv_option(const char *cmd, const char *opt, const char *s, bb_kv_type *keys, bb_kv_type *values)
{
    char err[160];
    bb_kv_type t;
    if (bb_kv_type_parse(s, &t, err, sizeof err)) {
        fprintf(stderr, "bitbench %s: %s: %s\n", cmd, opt, err);
        return -1;
    }
    if (strcmp(opt, "--kv-type-v")) *keys = t;
    if (strcmp(opt, "--kv-type-k")) *values = t;
    return 0;
}
