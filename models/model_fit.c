/* Whether a model fits in the memory available now: model_fit.h. */
#include "model_fit.h"

#include <stdio.h>

#include "support/machine.h"

int bb_model_check_fits(const char *name, const bb_tf_dims *d, const bb_tf_options *opt, char *err, size_t errlen)
{
    bb_tf_memory mem;
    char e[1024];
    if (bb_tf_estimate_memory(d, opt, &mem, e, sizeof e)) {
        snprintf(err, errlen, "model %s with kernel %s: %s", name, opt->kernel, e);
        return -1;
    }
    bb_machine m;
    bb_machine_detect(&m);
    if (m.mem_available && mem.total > m.mem_available / 100 * 90) {
        const double G = 1073741824.0;
        snprintf(err, errlen, "model %s with kernel %s at a %d-token context needs %.2f GiB (packed weights %.2f, "
                 "embedding %.2f, KV cache %.2f, buffers %.2f, build scratch %.2f) but %.2f GiB is available (the "
                 "limit is 90%% of it)", name, opt->kernel, d->seq_len, mem.total / G, mem.weights / G,
                 mem.embedding / G, mem.kv_cache / G, mem.buffers / G, mem.build_scratch / G, m.mem_available / G);
        return -1;
    }
    return 0;
}
