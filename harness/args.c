#include "args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
