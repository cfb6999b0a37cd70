/* Fuzz target: the machine-profile reader behind results.csv's roofline_fraction
 * (harness/bench/roof_ceiling.c), which reads a profile found in the run's folder or under
 * results/ (a file someone else may have put there).
 *
 * The input is a profile, loaded from a file with no CPU check; every level and thread count's
 * fraction is then asked for, which must be a number in [0, inf) or NAN with a reason.  Seeds:
 * regressions/roof_ceilings (a valid profile, thread counts out of range, wrong types). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/roof_ceiling.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1400], ceiling[96];
    static bb_roof_ceilings c;
    if (bb_roof_ceilings_load(fuzz_input_path(data, size), NULL, &c, err, sizeof err)) return 0;
    if (c.maxthreads < 1 || c.maxthreads > BB_ROOF_MAX_THREADS) abort();
    for (int level = -1; level <= BB_ROOF_LEVELS; level++)
        for (int t = 0; t <= BB_ROOF_MAX_THREADS + 1; t++) {
            double f;
            bool ok = bb_roofline_fraction(&c, level, t, t % 2 ? 2.0 : 32.0, 100, 10, &f, ceiling, sizeof ceiling);
            if (ok ? !(f >= 0 && isfinite(f)) : !isnan(f)) abort();
            if (!memchr(ceiling, 0, sizeof ceiling) || !ceiling[0]) abort();
        }
    return 0;
}
