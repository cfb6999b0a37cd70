#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bb_stats bb_stats_of(double *v, int n)
{
    bb_stats s = {0};
    if (n <= 0) return s;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s.count = n;
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += v[i];
    s.mean = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (v[i] - s.mean) * (v[i] - s.mean);
    s.sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
    return s;
}
