/* Whether a model fits in the memory available now: the one refusal that e2e, perplexity and
 * generate make before they allocate a model that would have the OOM killer end the run. */
#ifndef BB_MODEL_FIT_H
#define BB_MODEL_FIT_H

#include <stddef.h>

#include "transformer.h"

/* 0 when the engine's estimate for d built with opt (bb_tf_estimate_memory) is at most 90% of the
 * memory available now (the rest: the OS, the caller's buffers); else -1 with one line in err
 * naming the model `name`, the kernel, the context, the estimate's parts and what is available.
 * Passes when the available memory cannot be read. */
int bb_model_check_fits(const char *name, const bb_tf_dims *d, const bb_tf_options *opt, char *err, size_t errlen);

#endif
