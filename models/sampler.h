/* Next-token choice: greedy (temperature 0) or top-k with temperature, from a seeded RNG so a
 * run is reproducible. */
#ifndef BB_SAMPLER_H
#define BB_SAMPLER_H

#include <stdint.h>

#include "support/rng.h"

typedef struct {
    float temperature; /* 0 = greedy argmax */
    int top_k;         /* 0 = whole vocabulary */
    bb_rng rng;
} bb_sampler;

void bb_sampler_init(bb_sampler *s, float temperature, int top_k, uint64_t seed);
/* logits is modified (scaled, softmaxed) when sampling. */
int bb_sample(bb_sampler *s, float *logits, int vocab);
int bb_argmax(const float *v, int n);

#endif
