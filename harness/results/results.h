/* Results of a run: one row per measured point, written as CSV (results_csv.c, appended and
 * flushed as each point finishes), as a markdown table (results_md.c, llama-bench style), and
 * a JSON sidecar describing the run (results_json.c).
 *
 * One typed column list drives the CSV writer, the CSV reader (for --resume) and the docs:
 * the fixed columns below, then one column per meter value (names from the meters, e.g.
 * timer_tsc_ticks_per_call).  Numbers are written with full precision (csv.h, bb_num_text); a meter value
 * that was not measured is an empty cell, never 0. */
#ifndef BB_RESULTS_H
#define BB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "io/csv.h"
#include "results/provenance.h"

#define BB_MAX_METER_VALUES 32

typedef struct {
    char experiment[64], sweep[64];
    int point;                       /* 1-based index in the run's plan */
    char kernel[64], variant[16], family[16];
    char variant_ran[16];            /* the code that ran: bb_variant_ran(variant, n) */
    char stream_prefetch[4];         /* "on"/"off": bb_cpu_stream_prefetch() for a kernel that follows it; "" */
    double fallback_calls;           /* timed matmul calls outside the dispatch rule (an integer); NAN unknown */
    double bits_per_weight;
    int lossless;
    char model[64], roles[24];       /* empty for literal shapes */
    int m, k, n, threads;
    char cpus[128];                  /* PU of each thread: "0;1" */
    char cache[12];                  /* l1 | l2 | l3 | resident | dram (bench/cache_sizing.h) */
    int warmup, reps;
    double t_median_s, t_min_s, t_max_s, t_sd_s;
    double spread;                   /* interquartile range / t_median_s */
    int spread_flag;                 /* 1 when spread > the sweep's spread_limit */
    double gops;                     /* 2*M*K*N / t_median / 1e9 */
    double weight_bytes;             /* packed weight bytes one call reads */
    double gbps;                     /* weight_bytes / t_median / 1e9 */
    /* a sweep's `verify` (bb_gemm_verify); NAN (an empty cell) when not verified */
    double err_max_abs, err_rel_rms, err_master_rel_rms, weight_rel_rms;
    int attempts;                    /* 1 + re-measurements of a point whose spread was too large */
    double t_q1_s, t_q3_s;           /* quartiles of the calls (the plots' error bars) */
    char verify[8];                  /* "passed", "FAILED" (beyond its format's bound), "" not asked */
    double rotated_bytes;            /* packed bytes the calls cycled through (copies x weight_bytes) */
    char cache_source[8];            /* hwloc | sysfs: where a sized mode's cache sizes came from; "" resident */
    int min_reps;                    /* the repetition rule the point ran with (a sweep's lists, plan.h) */
    double min_seconds, delay_s;
    char seed[24];
    /* attained / the roofline ceiling of the point's working set and threads (bench/roof_ceiling.h);
     * NAN (empty) when that ceiling was not measured; roofline_ceiling names it or says why not */
    double roofline_fraction;
    char roofline_ceiling[96];
    /* a sweep's `read` (gemm --read): a plain read of the next copy after every timed call; NAN
     * (empty) when not asked */
    double read_t_median_s, read_t_min_s, read_gbps, read_ratio_paired;
    double read_streams; /* streams per thread of that read (bb_gemm_result's); NAN when not asked */
    /* a sweep's `rounds` (sweep_kernel.c): how many rounds measured the point, which of them
     * (1-based) the row is, and each round's t_median_s and read_ratio_paired, ';'-separated in
     * round order ("" with one round); 0 in a file written before */
    int rounds, round;
    char rounds_t_median_s[512], rounds_read_ratio_paired[448];
    bb_row_provenance prov;
    int nmeter;
    double meter[BB_MAX_METER_VALUES];
} bb_result_row;

extern const bb_column bb_result_columns[];
extern const int bb_result_ncolumns;

/* ---- CSV ---- */

/* The header line (without newline) for the fixed columns plus the given meter columns. */
void bb_csv_header(const char *const *meter_cols, int nmeter, char *buf, size_t len);
/* Write one row and flush it. */
int bb_csv_write_row(FILE *f, const bb_result_row *r);

/* Read every complete row of an existing results file whose header must equal `header`.
 * A final line without its newline (a write cut short by a kill) is dropped and the file is
 * truncated to its last complete row, so that appending continues cleanly.  *rows is
 * malloc'd.  Returns 0, or -1 with err. */
int bb_csv_read(const char *path, const char *header, int nmeter, bb_result_row **rows, int *count, char *err,
                size_t errlen);

/* ---- markdown ---- */

/* A table of the rows, showing the columns that vary (and always kernel, shape and time). */
void bb_markdown_table(FILE *f, const bb_result_row *rows, int count);

#endif
