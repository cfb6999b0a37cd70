#include "meters/energy.h"

#include <math.h>
#include <string.h>

static int is_energy_column(const char *name)
{
    static const char suffix[] = "_energy_j";
    size_t n = strlen(name), s = sizeof suffix - 1;
    return n > s && strcmp(name + n - s, suffix) == 0;
}

double bb_energy_per_unit(const bb_meter *meters, int nmeters, const double *values, int units)
{
    if (units < 1) return NAN;
    const double *v = values;
    for (int i = 0; i < nmeters; i++) {
        const bb_meter_type *t = meters[i].type;
        double joules = 0;
        int measured = 0;
        for (int c = 0; c < t->ncolumns; c++)
            if (is_energy_column(t->columns[c]) && isfinite(v[c])) {
                joules += v[c];
                measured++;
            }
        if (measured) return joules / units;
        v += t->ncolumns;
    }
    return NAN;
}
