#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile of sorted v, interpolating between the order statistics around p*(n-1). */
static double quantile(const double *v, int n, double p)
{
    double pos = p * (n - 1);
    int i = (int)pos;
    double f = pos - i;
    return i + 1 < n ? v[i] + f * (v[i + 1] - v[i]) : v[n - 1];
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
    s.q1 = quantile(v, n, 0.25);
    s.q3 = quantile(v, n, 0.75);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += v[i];
    s.mean = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (v[i] - s.mean) * (v[i] - s.mean);
    s.sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
    return s;
}

double bb_stats_spread(const bb_stats *s) { return s->median > 0 ? (s->q3 - s->q1) / s->median : 0; }

bool bb_stats_spread_large(const bb_stats *s, double limit) { return bb_stats_spread(s) > limit; }
