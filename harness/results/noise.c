#include "results/noise.h"

#include <stdlib.h>
#include <string.h>

#include "support/stats.h"

bool bb_too_noisy(double spread, double sd_over_median, double spread_limit, double sd_limit)
{
    return spread > spread_limit || sd_over_median > sd_limit;
}

bool bb_reps_too_noisy(const double *v, int n, double spread_limit, double sd_limit, double *spread,
                       double *sd_over_median)
{
    *spread = *sd_over_median = 0;
    if (n < 2) return false;
    double small[16], *copy = n <= 16 ? small : malloc(sizeof *copy * (size_t)n);
    if (!copy) return false; /* out of memory: not judged (the row keeps attempts 1, no flag) */
    memcpy(copy, v, sizeof *copy * (size_t)n);
    bb_stats st = bb_stats_of(copy, n);
    if (copy != small) free(copy);
    *spread = bb_stats_spread(&st);
    *sd_over_median = st.median > 0 ? st.sd / st.median : 0;
    return bb_too_noisy(*spread, *sd_over_median, spread_limit, sd_limit);
}
