/* Energy per unit of work from the meters' columns.
 *
 * Convention: a meter column whose name ends in "_energy_j" holds the joules measured over the
 * metered region (rapl_pkg_energy_j; pcm_pkg_energy_j and pcm_dram_energy_j).  The energy of a
 * region is that of the first meter, in the experiment's order, with at least one such column
 * measured: the sum of its measured "_energy_j" columns (package + DRAM for pcm).  Meters are not
 * added to each other: rapl and pcm read the same package counters. */
#ifndef BB_ENERGY_H
#define BB_ENERGY_H

#include "meters/meter.h"

/* values: the meters' columns in order (as bb_meter_end writes them).  Returns joules / units, or
 * NAN when no meter measured an energy (an empty cell, never 0) or units < 1. */
double bb_energy_per_unit(const bb_meter *meters, int nmeters, const double *values, int units);

#endif
