/* Codebook builder: the two-phase ("constraint-satisfaction-guided") clustering of the Arm paper,
 * Arm paper §5.2 and §5.3 (Algorithm 1), usable from C and from the harness.
 *
 *   0. The weights are cut into groups of `group` consecutive values; each group is scaled by its
 *      own absmax so that its values lie in [-1, 1] (the paper scales each group into the range of
 *      the codebook's integer type; here that is the last step, q = round(value * qmax)).
 *   1. Phase 1: every scaled group becomes a probability distribution, its normalized histogram
 *      over `bins` equal bins of [-1, 1]; k-means (k-means++ seeding from `seed`, `restarts`
 *      tries, the lowest inertia kept) clusters these distributions into `books` clusters of
 *      groups with similar shapes.
 *   2. Phase 2: for each cluster, a 1-D k-means over all the scaled values of its groups finds
 *      `entries` centroids: that cluster's codebook.  (The values are accumulated in a fine
 *      histogram of BB_CB_FINE_BINS bins that keeps the exact sum of the values in each bin, so
 *      the k-means runs on exact bin means with bin counts as weights.)
 *
 * Deterministic: the same weights, parameters and seed give the same codebooks, bit for bit, on
 * any x86-64 (all arithmetic in double, no libm calls in the clustering itself).
 * Codebooks come out in a canonical order: centroids ascending within a codebook, codebooks in
 * lexicographic order of their centroids. */
#ifndef BB_CB_BUILDER_H
#define BB_CB_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#define BB_CB_MAX_BOOKS 16
#define BB_CB_MAX_ENTRIES 16
#define BB_CB_MAX_BINS 256
#define BB_CB_FINE_BINS 4096

typedef struct {
    int books;         /* codebooks to find = phase-1 clusters (1..BB_CB_MAX_BOOKS) */
    int entries;       /* centroids per codebook = 2^(index bits) (1..BB_CB_MAX_ENTRIES) */
    int group;         /* weights per group, each group scaled by its own absmax */
    int bins;          /* phase-1 histogram bins over [-1, 1] (2..BB_CB_MAX_BINS) */
    int qmax;          /* integer centroids q = round(value * qmax), in [-qmax, qmax] (1..127) */
    int iters;         /* at most this many Lloyd iterations per k-means */
    int restarts;      /* phase-1 k-means++ restarts, lowest inertia kept */
    size_t max_groups; /* phase 1 clusters a seeded sample of at most this many groups (0: all);
                        * phase 2 always assigns every group */
    uint64_t seed;
} bb_cb_params;

typedef struct {
    int books, entries, qmax;
    float value[BB_CB_MAX_BOOKS][BB_CB_MAX_ENTRIES]; /* centroids in scaled units, ascending */
    int8_t q[BB_CB_MAX_BOOKS][BB_CB_MAX_ENTRIES];    /* round(value * qmax) */
    double share[BB_CB_MAX_BOOKS];                    /* fraction of groups in each cluster */
} bb_cb_set;

/* cb2's parameters: 8 codebooks of 4 centroids, groups of 16, 128 bins, qmax 63, seed 1. */
void bb_cb_params_cb2(bb_cb_params *p);

/* Build a codebook set from `count` float weights (count a multiple of p->group).  Returns 0, or
 * -1 with a message in err (bad parameters, out of memory, no non-zero group). */
int bb_cb_build(const float *w, size_t count, const bb_cb_params *p, bb_cb_set *out, char *err,
                size_t errlen);

/* The seeded 64-bit generator the builder uses (splitmix64), exposed so generators of training
 * data (cb2_default.c, tests) need nothing else. */
uint64_t bb_cb_rand(uint64_t *state);
/* Uniform in [0, 1) with 53 bits. */
double bb_cb_uniform(uint64_t *state);

#endif
