/* Summary statistics of repeated measurements. */
#ifndef BB_STATS_H
#define BB_STATS_H

#include <stdbool.h>

typedef struct {
    int count;
    double median, min, max, mean, sd;
    double q1, q3; /* first and third quartiles (linear interpolation between order statistics) */
} bb_stats;

/* Sorts v in place. */
bb_stats bb_stats_of(double *v, int count);

/* The spread of a point: the interquartile range relative to the median, (q3 - q1) / median.
 * It measures how much the bulk of the repetitions disagree around the value that is reported;
 * unlike sd / median it is not blown up by the one call in a thousand that the OS preempted (sd
 * and max still show those).  A point is flagged when its spread exceeds the sweep's limit: the
 * median is still reported, but the row says the repetitions disagreed (noisy neighbour,
 * frequency change, page faults) instead of the disagreement vanishing into an average. */
double bb_stats_spread(const bb_stats *s);
bool bb_stats_spread_large(const bb_stats *s, double limit);

#endif
