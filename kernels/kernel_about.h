/* What bitbench says about a kernel (`bitbench describe`, `bitbench list kernels --json`, Lua's
 * bitbench.kernel()): the figures derived from a descriptor's `about` facts (kernel.h), the
 * words for its activation format, and which variant this machine picks and why.  One place, so
 * the three say the same. */
#ifndef BB_KERNEL_ABOUT_H
#define BB_KERNEL_ABOUT_H

#include <stddef.h>

#include "kernel.h"

/* Bytes and operations per weight, at N = 1 and for each activation column beyond the first, for
 * an M x K matrix: the bytes from memory (the stored weights once per call, whatever N, and each
 * prepared activation column once, kept in cache for the M rows), the bytes each weight's
 * multiply or lookup touches (from cache), and the operations with the per-column table building
 * spread over the M rows. */
typedef struct {
    double weight_bytes;      /* stored bytes per weight, blocks only: block_bytes / block_weights */
    double bytes_n1;          /* from memory per weight at N = 1: weight_bytes + act_size(1, K) / (K M) */
    double bytes_per_column;  /* from memory per weight, each extra column: act_size(1, K) / (K M) */
    double touched_per_column; /* touched per weight and column (from cache): about.act_bytes */
    double int_ops_n1, float_ops_n1;                 /* per weight at N = 1, table building included */
    double int_ops_per_column, float_ops_per_column; /* per weight, each extra column */
} bb_kernel_figures;

void bb_kernel_figures_at(const bb_kernel *k, int m, int kdim, bb_kernel_figures *f);

/* The M and K at which descriptions give these figures: 4096 x 4096, a typical projection
 * (what depends on M or K is also given as a formula beside them). */
#define BB_ABOUT_M 4096
#define BB_ABOUT_K 4096

/* How operations are counted, in one sentence (kernel.h, bb_kernel_about.int_ops). */
extern const char bb_ops_counted[];

/* "i8_row", "i8_block32", ... and what the format is, in words. */
const char *bb_act_format_name(bb_act_format a);
/* The conformance suite's bound for the format (kernels/common/error_bound.h), as a formula;
 * for BB_ACT_CUSTOM: "the kernel's own (error_bound)". */
const char *bb_act_format_bound(bb_act_format a);
const char *bb_weight_kind_name(bb_weight_kind w);

/* The variant bb_kernel_resolve picks without @isa (the last usable one); NULL when none is. */
const bb_variant *bb_kernel_default_variant(const bb_kernel *k);

/* One line: why variant v of k is usable here or not (the features it needs that this CPU lacks,
 * and those BITBENCH_CPU_MASK turned off). */
void bb_variant_why(const bb_variant *v, char *buf, size_t len);

/* One line: why bb_kernel_resolve picks `chosen` for k (the variants after it and what they lack). */
void bb_variant_choice_why(const bb_kernel *k, const bb_variant *chosen, char *buf, size_t len);

#endif
