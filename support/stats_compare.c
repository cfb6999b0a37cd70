#include "stats_compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* The k-th smallest of v[0..n) (0-based), v reordered: Hoare's selection, O(n) on average. */
static double select_kth(double *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return v[k];
    }
    return v[k];
}

double bb_median_inplace(double *v, int n)
{
    double upper = select_kth(v, n, n / 2);
    if (n % 2) return upper;
    double lower = v[0]; /* the largest of v[0 .. n/2), all <= upper after the selection */
    for (int i = 1; i < n / 2; i++)
        if (v[i] > lower) lower = v[i];
    return 0.5 * (lower + upper);
}

/* At most max of v, evenly spaced, into out.  Returns the count. */
static int thin(const double *v, int n, int max, double *out)
{
    if (n <= max) {
        memcpy(out, v, sizeof *v * (size_t)n);
        return n;
    }
    for (int i = 0; i < max; i++) out[i] = v[(long long)i * n / max];
    return max;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int bb_median_ratio_ci(const double *a, int na, const double *b, int nb, int iterations, uint64_t seed,
                       bb_ratio_ci *out)
{
    memset(out, 0, sizeof *out);
    if (na < 1 || nb < 1) return -1;
    int ma = na < BB_BOOT_MAX_SAMPLES ? na : BB_BOOT_MAX_SAMPLES, mb = nb < BB_BOOT_MAX_SAMPLES ? nb : BB_BOOT_MAX_SAMPLES;
    double *sa = malloc(sizeof *sa * (size_t)ma), *sb = malloc(sizeof *sb * (size_t)mb);
    double *ta = malloc(sizeof *ta * (size_t)(na > nb ? na : nb));
    double *ratios = malloc(sizeof *ratios * (size_t)(iterations > 0 ? iterations : 1));
    int rc = -1;
    if (!sa || !sb || !ta || !ratios) goto done;
    memcpy(ta, a, sizeof *a * (size_t)na);
    out->median_a = bb_median_inplace(ta, na);
    memcpy(ta, b, sizeof *b * (size_t)nb);
    out->median_b = bb_median_inplace(ta, nb);
    out->ratio = out->median_b / out->median_a;
    out->na = thin(a, na, BB_BOOT_MAX_SAMPLES, sa);
    out->nb = thin(b, nb, BB_BOOT_MAX_SAMPLES, sb);
    out->lo = out->hi = NAN;
    rc = 0;
    if (na < 2 || nb < 2 || iterations < 1) goto done;
    bb_rng r;
    bb_rng_seed(&r, seed);
    for (int it = 0; it < iterations; it++) {
        for (int i = 0; i < ma; i++) ta[i] = sa[bb_rng_next(&r) % (uint64_t)ma];
        double m_a = bb_median_inplace(ta, ma);
        for (int i = 0; i < mb; i++) ta[i] = sb[bb_rng_next(&r) % (uint64_t)mb];
        ratios[it] = bb_median_inplace(ta, mb) / m_a;
    }
    qsort(ratios, (size_t)iterations, sizeof *ratios, cmp_double);
    out->lo = ratios[(int)floor(0.025 * (iterations - 1))];
    out->hi = ratios[(int)ceil(0.975 * (iterations - 1))];
done:
    free(sa);
    free(sb);
    free(ta);
    free(ratios);
    return rc;
}
