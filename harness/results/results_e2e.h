/* e2e.csv: one row per end-to-end point of a model sweep (docs/results.md, "e2e.csv"), flushed as
 * each point finishes, read back by --resume and by `bitbench plot --kind tokens|e2e_threads`.
 *
 * As results.csv (results.h), one typed column list (bb_e2e_columns) drives the header, the writer,
 * the reader and the docs: the fixed columns, then one column per meter value.  To add a column,
 * add a field to bb_e2e_row and one BB_COLUMN line where it belongs in results_e2e.c; the header,
 * writer and reader follow, and a resumed run refuses a file written with other columns. */
#ifndef BB_RESULTS_E2E_H
#define BB_RESULTS_E2E_H

#include <stddef.h>
#include <stdio.h>

#include "io/csv.h"
#include "results/results.h"

#define BB_INTERLEAVED_MAX 1024 /* the interleaved column: a model sweep's kernels, ';'-separated */

typedef struct {
    char experiment[64], sweep[64];
    int point;                       /* 1-based index among the run's end-to-end points */
    char model[64], kernel[64], variant[16], family[16];
    char variant_ran_pp[40], variant_ran_tg[16]; /* bb_e2e_result's pp/tg_variant_ran */
    double fallback_calls;           /* bb_e2e_result's; NAN (empty) for a peer's row */
    double bits_per_weight;
    char out_kernel[64];
    int threads, prompt, gen, reps;
    double pp_tps, pp_tps_min, pp_tps_max, tg_tps, tg_tps_min, tg_tps_max;
    double ms_per_token, matmul_share, weight_bytes_per_token, tg_gbps_derived;
    double read_tps, read_tps_max, read_gbps, tg_of_read, footprint_bytes;
    double read_streams; /* bb_e2e_result's read_streams; NAN (empty) for a peer's row or without generation */
    char stream_prefetch[4]; /* bb_e2e_result's stream_prefetch */
    /* compare_logits; empty cells (ref_kernel "", the numbers NAN) without it */
    char ref_kernel[64];
    double logit_max_abs_err, logit_rel_rms_err, top1_agreement, logits_identical;
    /* perplexity; empty cells (ppl_model "", the numbers NAN) without it */
    char ppl_model[64];
    double ppl, ppl_err, ppl_tokens, ppl_tps;
    /* a peer's row (harness/peers/peer_sweep.h); empty cells for bitbench's own rows */
    char peer[24], peer_commit[48];  /* peer: "llama.cpp", or "llama.cpp-batched" for a row its llama-batched-bench measured */
    char pp_samples[640], tg_samples[640]; /* tokens/s of each repetition, ';'-separated */
    double energy_per_token_j;
    char cpus[128];                  /* OS CPU of each thread, "0;1" (bb_pool_cpus); a peer's: its allowed CPUs */
    /* after cpus (files written before have none of them: depth 0, the types ""): tokens in the KV
     * cache before the prompt, the cache's types, its bytes read per generated token */
    int depth;
    char kv_type_k[8], kv_type_v[8];
    double kv_bytes_per_token;
    bb_row_provenance prov;
    /* noise (harness/results/noise.h): each phase's interquartile range / median of its repetitions' times
     * (NAN without the phase), the flag after re-measuring, and how many attempts there were (0 in
     * a row read from a file written before these columns) */
    double pp_spread, tg_spread;
    int spread_flag, attempts;
    /* a model sweep's `rounds` (sweep_model.c): how many rounds measured the point, which of them
     * (1-based) the row is, and each round's prefill tokens/s, decode tokens/s and decode share of the
     * read-alone bound, ';'-separated in round order ("" with one round); 0 in a file written before */
    int rounds, round;
    char rounds_pp_tps[448], rounds_tg_tps[448], rounds_tg_of_read[448];
    /* a model sweep's `interleave`: the kernels whose repetitions alternated with this point's, its own
     * among them, ';'-separated in the sweep's order; "" for a point measured alone */
    char interleaved[BB_INTERLEAVED_MAX];
    int nmeter;
    double meter[BB_MAX_METER_VALUES];
} bb_e2e_row;

extern const bb_column bb_e2e_columns[];
extern const int bb_e2e_ncolumns;

/* The header line (without newline): the fixed columns, then the meter columns. */
void bb_e2e_header(const char *const *meter_cols, int nmeter, char *buf, size_t len);
/* Write one row and flush it.  Returns 0 or -1. */
int bb_e2e_write_row(FILE *f, const bb_e2e_row *r);
/* Every complete row of an existing e2e.csv whose header must equal `header` (a final row cut
 * short is dropped and the file truncated to the rows before it, as bb_csv_read does).  *rows is
 * malloc'd.  Returns 0, or -1 with err. */
int bb_e2e_read(const char *path, const char *header, int nmeter, bb_e2e_row **rows, int *count, char *err,
                size_t errlen);
/* llama-bench's table of end-to-end rows: one line per prefill (ppP) and generation (tgG) test. */
void bb_e2e_markdown_table(FILE *f, const bb_e2e_row *rows, int count);

#endif
