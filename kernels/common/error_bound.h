/* How far a kernel's output may be from the fp64 product of its dequantized weights and the
 * original float activations, derived from the kernel's activation format (kernel.h):
 *   per element of x, the activation rounding error e_k of that format;
 *   bound = sum_k |w_k| e_k + (K + 16) * 2^-23 * sum_k |w_k| |x_k|   (float accumulation).
 * Used by `bitbench gemm --verify` and by the conformance suite. */
#ifndef BB_ERROR_BOUND_H
#define BB_ERROR_BOUND_H

#include "../kernel.h"

double bb_error_bound(const bb_kernel *kern, const float *wdeq_row, const float *x, int k);

#endif
