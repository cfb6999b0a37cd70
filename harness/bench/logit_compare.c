#include "bench/logit_compare.h"

#include <math.h>
#include <string.h>

#include "models/sampler.h"
#include "support/rng.h"

void bb_logits_compare(const float *ref, const float *got, int positions, int vocab, bb_logit_diff *out)
{
    memset(out, 0, sizeof *out);
    out->positions = positions;
    double err2 = 0, ref2 = 0;
    size_t count = (size_t)positions * (size_t)vocab;
    for (int p = 0; p < positions; p++) {
        const float *a = ref + (size_t)p * vocab, *b = got + (size_t)p * vocab;
        for (int v = 0; v < vocab; v++) {
            double d = (double)b[v] - a[v];
            out->max_abs_err = fmax(out->max_abs_err, fabs(d));
            out->max_abs_ref = fmax(out->max_abs_ref, fabs(a[v]));
            err2 += d * d;
            ref2 += (double)a[v] * a[v];
        }
        out->top1_agree += bb_argmax(a, vocab) == bb_argmax(b, vocab);
    }
    out->rel_rms_err = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2 / (double)(count ? count : 1));
    out->top1_agreement = positions > 0 ? (double)out->top1_agree / positions : 0;
    /* bitwise, so that -0.0 vs 0.0 or two different NaNs count as a difference */
    out->identical = memcmp(ref, got, sizeof(float) * count) == 0;
}

int bb_tf_teacher_forced(bb_transformer *tf, bb_pool *pool, const int *tokens, int n, float *logits)
{
    int vocab = bb_tf_get_dims(tf)->vocab_size;
    for (int i = 0; i < n; i++) {
        const float *l = bb_tf_forward(tf, pool, &tokens[i], 1, i, NULL);
        if (!l) return -1;
        memcpy(logits + (size_t)i * vocab, l, sizeof(float) * (size_t)vocab);
    }
    return 0;
}

void bb_logit_tokens(uint64_t seed, int vocab, int n, int *tokens)
{
    bb_rng r;
    bb_rng_seed(&r, seed ^ 0x7e57109175ull);
    for (int i = 0; i < n; i++) tokens[i] = (int)(bb_rng_next(&r) % (uint64_t)(vocab > 0 ? vocab : 1));
}
