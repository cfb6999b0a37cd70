/* Deterministic synthetic weights (as the Intel paper and bitnet.cpp's dummy models do): every
 * tensor is generated from (seed, tensor name, layer), so the same seed gives the same model.
 * BitNet-style models get ternary linear weights {-s, 0, +s} with about one third zeros (the
 * share seen in trained BitNet b1.58 layers), Llama-style models Gaussian N(0, 1/K); norms are 1,
 * embeddings N(0, 1).  Tensors are produced one at a time, so the engine packs each before the
 * next exists.  distinct_layers > 0 makes layer l reuse layer (l % distinct_layers)'s tensors,
 * copied into its own memory: building a 70B model then packs a few layers, not 80. */
#ifndef BB_SYNTHETIC_H
#define BB_SYNTHETIC_H

#include <stdint.h>

#include "transformer.h"

typedef struct {
    bb_tf_dims dims;
    uint64_t seed;
    int distinct_layers; /* 0 = every layer distinct */
} bb_synthetic;

bb_weight_source bb_synthetic_source(bb_synthetic *s);

#endif
