/* What code a variant's matmul runs (kernel.h, bb_variant): the documented small-N rule, and the
 * process-wide count of fallbacks outside it. */
#include <stdatomic.h>
#include <string.h>

#include "kernel.h"

const char *bb_variant_ran(const bb_variant *v, int n)
{
    return v->small_n_isa && n < v->min_n ? v->small_n_isa : v->isa;
}

bool bb_variant_follows_stream_prefetch(const bb_kernel *kern, const bb_variant *v, int n)
{
    const char *ran = bb_variant_ran(v, n);
    for (int i = 0; i < BB_MAX_VARIANTS && kern->variants[i].isa; i++)
        if (!strcmp(kern->variants[i].isa, ran)) return kern->variants[i].stream_prefetch;
    return false;
}

/* Relaxed: a count, read before and after the timed calls from the thread that started them
 * (the pool's join orders the workers' increments before the read). */
static _Atomic uint64_t fallback_calls;

void bb_kernel_fallback_note(void)
{
    atomic_fetch_add_explicit(&fallback_calls, 1, memory_order_relaxed);
}

uint64_t bb_kernel_fallback_calls(void) { return atomic_load_explicit(&fallback_calls, memory_order_relaxed); }
