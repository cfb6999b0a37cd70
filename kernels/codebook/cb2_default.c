/* cb2's default codebook set and the generator that produced it.
 *
 * bb_cb2_generate_default(): 2^16 groups of 16 N(0, 1) values (Box-Muller over the builder's
 * splitmix64 stream seeded with BB_CB2_DEFAULT_SEED = 20250101), clustered by bb_cb_build with
 * cb2's parameters (bb_cb_params_cb2: 8 codebooks of 4 entries, 128 phase-1 bins, qmax 63) and
 * the same seed, all 2^16 groups in phase 1.  The table below is its output, printed by
 * `test_codebook --emit-default`; test_codebook checks that the generator still reproduces it. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>

#include "cb2.h"

int bb_cb2_generate_default(bb_cb_set *out, char *err, size_t errlen)
{
    size_t count = (size_t)BB_CB2_DEFAULT_GROUPS * BB_CB2_SUB;
    float *w = malloc(sizeof(float) * count);
    if (!w) {
        snprintf(err, errlen, "cb2 default codebooks: out of memory");
        return -1;
    }
    uint64_t st = BB_CB2_DEFAULT_SEED;
    for (size_t i = 0; i < count; i += 2) {
        double u1 = bb_cb_uniform(&st), u2 = bb_cb_uniform(&st);
        double r = sqrt(-2.0 * log(u1 > 0 ? u1 : 0x1p-53));
        w[i] = (float)(r * cos(6.283185307179586 * u2));
        w[i + 1] = (float)(r * sin(6.283185307179586 * u2));
    }
    bb_cb_params p;
    bb_cb_params_cb2(&p);
    p.seed = BB_CB2_DEFAULT_SEED;
    p.max_groups = 0;
    int rc = bb_cb_build(w, count, &p, out, err, errlen);
    free(w);
    return rc;
}

const int8_t bb_cb2_default_books[BB_CB2_BOOKS][BB_CB2_ENTRIES] = {
    {-54, -21, 6, 36}, /* 31.3% of the groups */
    {-52, -17, 11, 40}, /* 8.5% of the groups */
    {-51, -15, 11, 40}, /* 8.0% of the groups */
    {-42, -14, 11, 49}, /* 8.5% of the groups */
    {-40, -12, 17, 52}, /* 22.2% of the groups */
    {-39, -9, 19, 53}, /* 7.5% of the groups */
    {-39, -7, 19, 53}, /* 6.5% of the groups */
    {-38, -6, 20, 53}, /* 7.6% of the groups */
};
