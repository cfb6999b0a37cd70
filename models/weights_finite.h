/* Weights that are not finite (NaN, +-Inf) are refused where a model file is read (the llama2.c
 * and GGUF weight sources), with the file, the tensor and the first bad element named: such a
 * model computes NaN logits, and sampling from them gives the same token (or <unk>) forever with
 * exit status 0, which looks like a kernel bug.  A user who wants to run one anyway (to study how
 * a kernel propagates NaN) sets BITBENCH_ALLOW_NONFINITE=1 or passes --allow-nonfinite to any
 * bitbench command. */
#ifndef BB_WEIGHTS_FINITE_H
#define BB_WEIGHTS_FINITE_H

#include <stdbool.h>
#include <stddef.h>

/* Keep non-finite weights from now on (the command-line flag). */
void bb_weights_allow_nonfinite(bool on);
/* Are they kept (the flag, or BITBENCH_ALLOW_NONFINITE=1)? */
bool bb_weights_nonfinite_allowed(void);

/* 0 when every value is finite or non-finite values are allowed, else -1 with "FILE: tensor 'T'
 * holds a non-finite value (nan) at element I; ..." (layer >= 0 names the layer; offset is the
 * index of v[0] in the tensor, for a tensor checked in pieces). */
int bb_weights_check_finite(const char *file, const char *tensor, int layer, const float *v, size_t n, size_t offset,
                            char *err, size_t errlen);

#endif
