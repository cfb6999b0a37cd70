/* Whether two sets of measurements differ: the ratio of their medians with a 95 % confidence
 * interval from the percentile bootstrap (Efron & Tibshirani, "An Introduction to the Bootstrap",
 * 1993, ch. 13): both samples are resampled with replacement, the ratio of the resampled medians
 * taken each time, and the 2.5th and 97.5th percentiles of those ratios bound the interval.  The
 * medians match bb_stats_of's (the mean of the two middle values for an even count).
 *
 * Deterministic: the resampling uses bb_rng from a fixed seed, so the same samples give the same
 * interval on every machine.  Large samples (a fast kernel timed 100 000 times) are first thinned
 * to at most BB_BOOT_MAX_SAMPLES evenly spaced in the order they were taken, which keeps the
 * bootstrap to milliseconds per point and keeps samples from the whole measurement. */
#ifndef BB_STATS_COMPARE_H
#define BB_STATS_COMPARE_H

#include <stdint.h>

#define BB_BOOT_ITERATIONS 2000
#define BB_BOOT_MAX_SAMPLES 1000
#define BB_BOOT_SEED 0x20c0ffeeull

typedef struct {
    double median_a, median_b;
    double ratio;   /* median_b / median_a */
    double lo, hi;  /* 95 % interval of the ratio; NAN when either side has fewer than 2 samples */
    int na, nb;     /* samples used (after thinning) */
} bb_ratio_ci;

/* The ratio of medians of b over a and its interval.  Returns 0, or -1 when a side is empty or
 * memory runs out. */
int bb_median_ratio_ci(const double *a, int na, const double *b, int nb, int iterations, uint64_t seed,
                       bb_ratio_ci *out);

/* The median of v (n > 0), v left reordered. */
double bb_median_inplace(double *v, int n);

#endif
