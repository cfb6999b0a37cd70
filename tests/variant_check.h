/* A SIMD variant's output against its kernel's scalar reference, as the conformance suite and
 * the stray-code test require it: bit for bit, or, for a kernel that declares float
 * accumulation, within float rounding of sum |w x| (2 (K + 16) ulps of it). */
#ifndef BB_TEST_VARIANT_CHECK_H
#define BB_TEST_VARIANT_CHECK_H

#include <math.h>
#include <string.h>

#include "check.h"
#include "kernels/kernel.h"

/* y and yref: N x M outputs of var and of the reference; wdeq (M x K) and x (N x K) the
 * dequantized weights and the activations.  Reports up to 3 mismatches, naming `what`, and
 * returns their count (a PASS when there is none). */
static inline int variant_matches_reference(const bb_kernel *kern, const bb_variant *var, const float *y,
                                            const float *yref, const float *wdeq, const float *x, int m, int k, int n,
                                            const char *what)
{
    int mismatches = 0;
    for (int c = 0; c < n; c++)
        for (int row = 0; row < m; row++) {
            size_t i = (size_t)c * m + row;
            int same = memcmp(&y[i], &yref[i], sizeof(float)) == 0;
            if (!same && kern->float_accumulation) {
                double sum = 0;
                for (int j = 0; j < k; j++) sum += fabs((double)wdeq[(size_t)row * k + j] * x[(size_t)c * k + j]);
                same = fabs((double)y[i] - yref[i]) <= 2.0 * (k + 16) * 0x1p-23 * sum + 1e-30;
            }
            if (!same && mismatches++ < 3)
                CHECK(0, "%s@%s%s M=%d K=%d N=%d: y[%d][%d]=%.9g, reference %.9g", kern->name, var->isa, what, m, k,
                      n, c, row, y[i], yref[i]);
        }
    if (!mismatches) PASS();
    return mismatches;
}

#endif
