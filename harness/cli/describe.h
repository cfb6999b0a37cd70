/* A kernel described (cmd_describe.c): the JSON object `bitbench describe --json` prints and
 * each element of `bitbench list kernels --json`, so both say the same. */
#ifndef BB_DESCRIBE_H
#define BB_DESCRIBE_H

#include "io/json.h"
#include "kernels/kernel.h"

/* Write kernel k as one JSON object (member `key` of an object, or NULL in an array), v the
 * variant asked for by name (KERNEL@ISA), or NULL for the one dispatch picks on this CPU. */
void bb_describe_kernel_json(bb_json *j, const char *key, const bb_kernel *k, const bb_variant *v);

#endif
