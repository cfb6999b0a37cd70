/* When the repetitions of a measured point disagree too much to be a finding: one rule for
 * bitbench's kernel points (results.csv), its end-to-end points (e2e.csv) and the peers' rows of
 * both.  The interquartile range over the median (bb_stats_spread) catches a bulk that wanders;
 * sd over the median catches the few far outliers (one call in a thousand 28x slower) that leave
 * the interquartile range small.  A point so noisy is measured again, up to its sweep's
 * `remeasure` more times, the last attempt kept (docs/measurement.md); a point still noisy is
 * flagged (spread_flag).
 *
 * End-to-end points repeat a few times (a model sweep's reps, 2-5): their repetitions' times are
 * taken per phase (prefill, generation), and with 3 of them the quartiles interpolate halfway, so
 * the interquartile range is half the range: spread_limit 0.10 flags a phase whose slowest and
 * fastest repetitions differ by more than 20 % of the median, the bound the reports used for
 * end-to-end rows before they carried the flag. */
#ifndef BB_NOISE_H
#define BB_NOISE_H

#include <stdbool.h>

/* A sweep's default spread_limit and sd_limit (plan/experiment.h), also what `bitbench e2e`
 * judges its one point by. */
#define BB_DEFAULT_SPREAD_LIMIT 0.10
#define BB_DEFAULT_SD_LIMIT 0.50

/* Whether a spread (interquartile range / median) or sd / median exceeds its limit. */
bool bb_too_noisy(double spread, double sd_over_median, double spread_limit, double sd_limit);

/* The spread of n repetitions' times v (seconds, or anything proportional to them: a peer's
 * tokens/s is given as its inverse) into *spread and *sd_over_median (0 for fewer than 2), and
 * whether they exceed the limits.  v is not changed. */
bool bb_reps_too_noisy(const double *v, int n, double spread_limit, double sd_limit, double *spread,
                       double *sd_over_median);

#endif
