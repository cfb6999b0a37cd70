/* The measured part of a results.csv row (result_row.c). */
#ifndef BB_RESULT_ROW_H
#define BB_RESULT_ROW_H

#include "bench/e2e_bench.h"
#include "bench/gemm_bench.h"
#include "results/results.h"
#include "results/results_e2e.h"

/* Kernel, shape, threads, cache mode, warm-up and the result's times, rates and verify errors;
 * attempts 1; everything else zero.  The identity (experiment, sweep, point, model, roles), CPUs,
 * spread flag, meters and provenance are the caller's. */
void bb_result_row_measured(bb_result_row *row, const bb_kernel *kern, const bb_variant *v, int m, int k, int n,
                            int threads, bb_cache_mode cache, int warmup, const bb_gemm_result *r);

/* The measured part of an e2e.csv row: model, kernel and variant (resolved from spec->kernel),
 * out_kernel, threads, the CPU of each thread, lengths, repetitions and the result's rates; a phase not measured (prompt
 * or gen 0) is empty cells.  The compare_logits, perplexity, peer and spread cells are empty (NAN,
 * ""), attempts 1; identity, energy, meters and provenance are the caller's. */
void bb_e2e_row_measured(bb_e2e_row *row, const bb_e2e_spec *spec, int threads, const bb_e2e_result *r);

/* The phases whose spread judges an end-to-end point (a model sweep's spread_phases). */
enum { BB_PHASE_PP = 1, BB_PHASE_TG = 2, BB_PHASES_BOTH = BB_PHASE_PP | BB_PHASE_TG };

/* The noise of an e2e.csv row (harness/results/noise.h) from its repetitions' times of each phase (npp and
 * ntg of them; pp or tg may be NULL, and a phase the row does not measure is not judged):
 * pp_spread and tg_spread of every phase measured, spread_flag from the phases in `judged`
 * (BB_PHASE_*).  Returns the flag. */
bool bb_e2e_row_noise(bb_e2e_row *row, const double *pp, int npp, const double *tg, int ntg, double spread_limit,
                      double sd_limit, unsigned judged);

#endif
