/* Raw samples of a run: the time of every timed repetition, kept beside the summary rows so that
 * a later comparison can do statistics on them (bitbench compare) instead of on medians alone,
 * as llama-bench keeps samples_ns.
 *
 *   samples.csv      one row per timed call of a kernel point (results.csv's points): the point's
 *                    identity (run_id, experiment, sweep, point, kernel, variant, m, k, n, threads,
 *                    cache), rep (0-based, in the order the calls ran) and seconds (prepare +
 *                    matmul of that call)
 *   e2e_samples.csv  one row per repetition and phase of an end-to-end point (e2e.csv's points):
 *                    run_id, experiment, sweep, point, model, kernel, variant, threads, prompt, gen,
 *                    phase ("pp" prefill or "tg" generation), rep (0-based, in the order they
 *                    ran, over every round of a sweep's rounds), tokens, seconds
 *
 * The samples of a point are written just before its summary row, so a run killed between the two
 * leaves samples without their row: --resume drops those (bb_samples_open's keep) before the point
 * is measured again, and the files hold exactly the samples of the rows there are. */
#ifndef BB_SAMPLES_H
#define BB_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "io/csv.h"

#define BB_SAMPLES_NAME "samples.csv"
#define BB_E2E_SAMPLES_NAME "e2e_samples.csv"

typedef struct {
    char run_id[48], experiment[64], sweep[64];
    int point;
    char kernel[64], variant[16];
    int m, k, n, threads;
    char cache[12];
    int rep;
    double seconds;
} bb_sample_row;

typedef struct {
    char run_id[48], experiment[64], sweep[64];
    int point;
    char model[64], kernel[64], variant[16];
    int threads, prompt, gen;
    char phase[4];                   /* "pp" or "tg" */
    int rep, tokens;
    double seconds;
    int depth;                       /* e2e.csv's depth and KV types (after seconds: files without them read as 0, "") */
    char kv_type_k[8], kv_type_v[8];
} bb_e2e_sample_row;

extern const bb_column bb_sample_columns[];
extern const int bb_sample_ncolumns;
extern const bb_column bb_e2e_sample_columns[];
extern const int bb_e2e_sample_ncolumns;

/* A samples file of one of the two tables. */
typedef struct {
    const bb_column *cols;
    int ncols;
    size_t row_size;
} bb_samples_table;

extern const bb_samples_table bb_samples_kernel, bb_samples_e2e;

/* Open path for appending rows of table t.  A new run (resume false) writes the header.  A resumed
 * run keeps the rows of the existing file for which keep(ctx, row) is true (the points whose
 * summary row is there), drops a final line cut short and every other row, and appends after
 * them; a missing file (a run from before samples were kept) is started afresh.  Returns the file,
 * or NULL with err. */
FILE *bb_samples_open(const char *path, const bb_samples_table *t, bool resume,
                      bool (*keep)(void *ctx, const void *row), void *ctx, char *err, size_t errlen);

/* count rows, base with rep = 0..count-1 and seconds[rep], then flush.  Returns 0 or -1. */
int bb_samples_write(FILE *f, const bb_sample_row *base, const double *seconds, int count);
/* count rows of one phase of an end-to-end point.  Returns 0 or -1. */
int bb_e2e_samples_write(FILE *f, const bb_e2e_sample_row *base, const char *phase, int tokens,
                         const double *seconds, int count);

#endif
