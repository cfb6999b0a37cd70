/* Two runs point by point (bitbench compare, Lua bitbench.compare): each side is a run directory,
 * or runs in a results database — FILE.sqlite:RUN (a run key) or FILE.sqlite:COMMIT (every run
 * of a commit, by prefix, pooled).  Points are matched by what was measured, not how: a kernel
 * point by kernel, M, K, N, threads and cache mode; an end-to-end point by model, kernel, threads
 * and its prompt (pp) or generation (tg) length, as two comparisons.  The variant that ran (which
 * the machine or BITBENCH_CPU_MASK picks) and the host are columns of the comparison, A's and B's,
 * so two machines or two masks compare point by point.  A point whose variant ran on both sides
 * is matched with its own variant first; of the rest, a point is matched across variants when it
 * is the only one of its parameters left on each side (a run that swept two variants of a kernel
 * against a run with a third matches nothing it cannot tell apart).  by_variant keeps the strict
 * matching, variant included.  The
 * measure compared is time (seconds per call, or per token), from the raw samples
 * (samples.csv, e2e_samples.csv) where the run has them, else the row's median alone.
 *
 * For each matched point: the ratio of medians B / A (> 1: B is slower) with its 95 % bootstrap
 * interval (support/stats_compare.h); it is significant when the interval excludes 1, and a
 * regression when significant and the ratio exceeds 1 + threshold (an improvement: significant
 * and below 1 / (1 + threshold)).  A point with a single sample on either side has no interval
 * and is never significant. */
#ifndef BB_COMPARE_H
#define BB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "support/stats_compare.h"

typedef enum { BB_CHANGE_NONE = 0, BB_CHANGE_SLOWER = 1, BB_CHANGE_FASTER = -1 } bb_change;

typedef struct {
    char key[320];                   /* the parameters that matched, as one label (without the variant) */
    char kind[8];                    /* "kernel", "pp" or "tg" */
    char model[64], kernel[64], variant[16], cache[12]; /* variant: A's */
    char variant_b[16];              /* the variant B ran */
    char host_a[64], host_b[64];     /* where each side ran ("" when the run does not say, "several") */
    char cpu_a[128], cpu_b[128];     /* the processor of each side: its rows' cpu_model ("" when they do not
                                      * say: rows from before that column; "several") */
    int m, k, n, threads, tokens;    /* tokens: prompt or gen of an end-to-end point */
    bb_ratio_ci ci;                  /* time B / time A */
    bool significant;                /* the interval excludes 1 */
    bb_change change;                /* beyond the threshold and significant */
    bool noisy_a, noisy_b;           /* a row of the point was flagged (spread) or busy */
} bb_compare_row;

typedef struct {
    bb_compare_row *rows;
    int n;
    int only_a, only_b;              /* points on one side only */
    int regressions, improvements;
    double threshold;
    char name_a[512], name_b[512];
} bb_comparison;

/* Compare source b against source a.  threshold is a fraction (0.05 = 5 %).  Returns 0, or -1
 * with err (a source that cannot be read, no point in common). */
int bb_compare(const char *a, const char *b, double threshold, bool by_variant, bb_comparison *out, char *err,
               size_t errlen);
void bb_comparison_free(bb_comparison *c);

/* The comparison as a Markdown table (with a summary line) and as CSV. */
void bb_compare_markdown(FILE *f, const bb_comparison *c);
void bb_compare_csv(FILE *f, const bb_comparison *c);

/* The line naming which variants met, for each kernel: "i2_s: avx512 (A) against avx2 (B); ...". */
void bb_compare_variants_line(FILE *f, const bb_comparison *c);

/* bitbench.compare(a, b [, threshold [, {by_variant = true}]]) in Lua (lua_compare.c). */
struct lua_State;
int bb_lua_compare(struct lua_State *L);

#endif
