#include "sampler.h"

#include <math.h>
#include <stdlib.h>

void bb_sampler_init(bb_sampler *s, float temperature, int top_k, uint64_t seed)
{
    s->temperature = temperature;
    s->top_k = top_k;
    bb_rng_seed(&s->rng, seed);
}

int bb_argmax(const float *v, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (v[i] > v[best]) best = i;
    return best;
}

static const float *cmp_logits;
static int cmp_desc(const void *a, const void *b)
{
    float x = cmp_logits[*(const int *)a], y = cmp_logits[*(const int *)b];
    return (x < y) - (x > y);
}

int bb_sample(bb_sampler *s, float *logits, int vocab)
{
    if (s->temperature <= 0.0f) return bb_argmax(logits, vocab);
    int k = s->top_k > 0 && s->top_k < vocab ? s->top_k : vocab;
    int *idx = malloc(sizeof(int) * (size_t)vocab);
    if (!idx) return bb_argmax(logits, vocab);
    for (int i = 0; i < vocab; i++) idx[i] = i;
    cmp_logits = logits;
    qsort(idx, (size_t)vocab, sizeof(int), cmp_desc);
    float max = logits[idx[0]];
    double sum = 0;
    for (int i = 0; i < k; i++) sum += exp((logits[idx[i]] - max) / s->temperature);
    double r = bb_rng_uniform(&s->rng) * sum, acc = 0;
    int choice = idx[k - 1];
    for (int i = 0; i < k; i++) {
        acc += exp((logits[idx[i]] - max) / s->temperature);
        if (r < acc) {
            choice = idx[i];
            break;
        }
    }
    free(idx);
    return choice;
}
