/* Refusing non-finite weights (weights_finite.h). */
#include "weights_finite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool allowed;

void bb_weights_allow_nonfinite(bool on) { allowed = on; }

bool bb_weights_nonfinite_allowed(void)
{
    const char *e = getenv("BITBENCH_ALLOW_NONFINITE");
    return allowed || (e && strcmp(e, "1") == 0);
}

int bb_weights_check_finite(const char *file, const char *tensor, int layer, const float *v, size_t n, size_t offset,
                            char *err, size_t errlen)
{
    if (bb_weights_nonfinite_allowed()) return 0;
    for (size_t i = 0; i < n; i++) {
        if (isfinite(v[i])) continue;
        char where[48] = "";
        if (layer >= 0) snprintf(where, sizeof where, " of layer %d", layer);
        snprintf(err, errlen, "%s: tensor '%s'%s holds a non-finite value (%s) at element %zu; refused (pass "
                              "--allow-nonfinite or set BITBENCH_ALLOW_NONFINITE=1 to run it anyway)",
                 file, tensor, where, isnan(v[i]) ? "nan" : v[i] > 0 ? "inf" : "-inf", offset + i);
        return -1;
    }
    return 0;
}
