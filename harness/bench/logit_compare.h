/* Comparing a model's logits across kernels: the same synthetic weights and token sequence
 * through two kernels for the linear layers, position by position.  Used by the model sweeps'
 * `compare_logits` (e2e.csv: logit_max_abs_err, logit_rel_rms_err, top1_agreement,
 * logits_identical) and by tests/test_engine_kernels.c.  bitnet.cpp (paper 000, §3 and Table 2)
 * claims its ternary kernels i2_s, tl1 and tl2 are lossless: their logits must then be
 * bit-identical to each other's. */
#ifndef BB_LOGIT_COMPARE_H
#define BB_LOGIT_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "models/transformer.h"
#include "support/pool.h"

typedef struct {
    int positions;
    double max_abs_err;    /* max |got - ref| over every position and vocabulary entry */
    double max_abs_ref;    /* max |ref|: the scale of the logits */
    double rel_rms_err;    /* ||got - ref|| / ||ref|| over all of them (the bare RMS when ref is all 0) */
    int top1_agree;        /* positions where the argmax is the same token */
    double top1_agreement; /* top1_agree / positions */
    bool identical;        /* every logit bit-identical */
} bb_logit_diff;

/* ref and got hold `positions` rows of `vocab` logits each. */
void bb_logits_compare(const float *ref, const float *got, int positions, int vocab, bb_logit_diff *out);

/* Teacher forcing: feed tokens[0..n) one at a time (the decode path, positions 0..n-1) and copy
 * the logits after each into logits[i * vocab ...].  Returns 0, or -1 when n exceeds the model's
 * context. */
int bb_tf_teacher_forced(bb_transformer *tf, bb_pool *pool, const int *tokens, int n, float *logits);

/* A fixed token sequence of length n within the vocabulary, from seed (the same on every machine). */
void bb_logit_tokens(uint64_t seed, int vocab, int n, int *tokens);

#endif
