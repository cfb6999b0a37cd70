/* BitNet b1.58 weight ternarization (absmean, Ma et al. 2024, eq. 1-3):
 *     scale = mean |W|    over the whole tensor (1e-5 floor as in the reference code)
 *     t     = clamp(nearbyint(W / scale), -1, 1)
 * so that W ≈ t * scale.  Weights that are already ternary times a scale are recognised and kept
 * exactly (t and that scale), so packing synthetic BitNet weights is lossless. */
#ifndef BB_TERNARY_H
#define BB_TERNARY_H

#include <stddef.h>
#include <stdint.h>

float bb_ternarize(const float *w, size_t count, int8_t *t);

#endif
