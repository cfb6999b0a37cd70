#include "rng.h"

#include <math.h>

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void bb_rng_seed(bb_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t bb_rng_next(bb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

double bb_rng_uniform(bb_rng *r) { return (double)(bb_rng_next(r) >> 11) * 0x1p-53; }

double bb_rng_gauss(bb_rng *r)
{
    double u1 = bb_rng_uniform(r), u2 = bb_rng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

void bb_fill_ternary(bb_rng *r, float *w, size_t count, float scale)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t v = bb_rng_next(r) % 3;
        w[i] = v == 0 ? 0.0f : (v == 1 ? scale : -scale);
    }
}

void bb_fill_gauss(bb_rng *r, float *w, size_t count, float stddev)
{
    for (size_t i = 0; i < count; i++) w[i] = (float)bb_rng_gauss(r) * stddev;
}
