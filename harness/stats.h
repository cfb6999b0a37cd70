/* Summary statistics of repeated measurements. */
#ifndef BB_STATS_H
#define BB_STATS_H

typedef struct {
    int count;
    double median, min, max, mean, sd;
} bb_stats;

/* Sorts v in place. */
bb_stats bb_stats_of(double *v, int count);

#endif
