/* What the run-time dispatch picks on this host (or under BITBENCH_CPU_MASK), so tests state
 * their expectations from the dispatch contract instead of assuming the CPU they were written
 * on: on a CPU without SIMD variants, "i2_s" and "i2_s@scalar" are the same variant. */
#ifndef BB_TEST_VARIANTS_H
#define BB_TEST_VARIANTS_H

#include <stdio.h>
#include <string.h>

#include "kernels/kernel.h"

/* 1 when the variant `spec` resolves to is the kernel's scalar reference. */
static inline int best_is_scalar(const char *spec)
{
    const bb_kernel *k;
    const bb_variant *v;
    char err[256];
    if (bb_kernel_resolve(spec, &k, &v, err, sizeof err)) return 0;
    return strcmp(v->isa, "scalar") == 0;
}

/* The isa of the code `kernel@isa` runs with n activation rows, by the variant's dispatch rule
 * (kernel.h: bb_variant_ran); "" when the spec does not resolve. */
static inline const char *variant_ran_of(const char *kernel, const char *isa, int n)
{
    char spec[128];
    const bb_kernel *k;
    const bb_variant *v;
    char err[256];
    snprintf(spec, sizeof spec, "%s@%s", kernel, isa);
    if (bb_kernel_resolve(spec, &k, &v, err, sizeof err)) return "";
    return bb_variant_ran(v, n);
}

#endif
