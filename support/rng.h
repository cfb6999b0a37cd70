/* Deterministic random numbers for synthetic weights and activations (splitmix64 seeding a
 * xoshiro256** stream; Box-Muller for Gaussians): the same seed gives the same matrices on every
 * machine, so results and tests are reproducible. */
#ifndef BB_RNG_H
#define BB_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct { uint64_t s[4]; } bb_rng;

void bb_rng_seed(bb_rng *r, uint64_t seed);
uint64_t bb_rng_next(bb_rng *r);
double bb_rng_uniform(bb_rng *r); /* [0, 1) */
double bb_rng_gauss(bb_rng *r);   /* N(0, 1) */

/* Weights of a kernel's natural kind: ternary {-scale, 0, +scale} with about 1/3 zeros (as in
 * trained BitNet b1.58 layers), or Gaussian N(0, 1). */
void bb_fill_ternary(bb_rng *r, float *w, size_t count, float scale);
void bb_fill_gauss(bb_rng *r, float *w, size_t count, float stddev);

#endif
