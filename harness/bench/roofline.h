/* `bitbench roofline`: this machine's ceilings, measured, stored as a machine profile (JSON) for
 * plots and reports.
 *   - read bandwidth (GB/s, 1e9 bytes/s) from L1, L2, L3 and DRAM for 1..T threads: each thread
 *     reads its own buffer sized for the level (L1: half the L1d; L2: half the L2; L3: 4 x L2,
 *     within half the L3 shared by all threads; DRAM: 4x the last-level cache in total, read
 *     in 4 MiB chunks timed one by one, alternately front to back and as BB_READ_STREAMS parts
 *     in lockstep), with 512-bit loads (256-bit without AVX-512), the fastest of many short
 *     runs (1 ms; other processes share the cores);
 *   - peak throughput of vpdpbusd, vpmaddubsw, vpshufb, vpermb (512-bit), fp32 FMA (512-bit)
 *     and the bf16 dot vdpbf16ps on x86-64, of FMLA (f32, f16), SDOT, SMMLA, TBL and BFDOT
 *     (128-bit) on aarch64, in instructions/s and operations/s, for 1 and T threads;
 *   - the effective core clock from a chain of dependent adds (one per cycle);
 *   - per kernel, the gamma of the Intel up-convert paper (Sec. 3, Eq. 2): cycles per 256-bit
 *     vector of up-converted int8 weights (32 weights), measured as one thread's GEMV (N = 1,
 *     matmul alone on activations prepared once, the fastest of many 0.2 ms batches) on a matrix whose packed weights fit in half the L1d, times the
 *     measured clock; with it the effective-bandwidth roofline ebw = min(beta, B/gamma), B the
 *     packed bytes of 32 weights (4 x bits/weight), B/gamma given in GB/s at the measured clock.
 * Every number is measured; the only derived ones (ops/s from instructions/s, per-cycle figures
 * and B/gamma) are computed from measured ones and named so in the JSON. */
#ifndef BB_ROOFLINE_H
#define BB_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "support/machine.h"
#include "support/pool.h"

#define BB_ROOF_LEVELS 4
#define BB_ROOF_MAX_THREADS 64
#define BB_ROOF_NPEAK 6
#define BB_ROOF_MAX_GAMMA 128

typedef struct {
    const char *name;       /* "vpdpbusd" */
    double ops_per_instr;   /* operations one instruction does (a multiply-add = 2) */
    bool available;
    char reason[96];        /* when not: which CPU feature is missing */
    double ginstr_1t, ginstr_tt; /* 1e9 instructions/s: one thread, all threads */
} bb_roof_peak;

typedef struct {
    /* variant: the best this CPU can run (asked for); variant_ran: the code the GEMV (N = 1) ran by
     * its dispatch rule (bb_variant_ran: @amx runs avx512), which the tables label gamma with */
    char kernel[40], variant[16], variant_ran[16];
    double bpw;
    int m, k;
    bool ok;
    char reason[128];
    double t_call;          /* seconds per GEMV matmul call (no prepare), fastest batch */
    double gamma;           /* cycles per 32 weights */
    double ebw_compute_gbps; /* B/gamma: packed weight GB/s the computation alone sustains */
} bb_roof_gamma;

typedef struct {
    bool quick;
    int maxthreads;
    double ghz;                            /* effective clock */
    size_t level_bytes[BB_ROOF_LEVELS];    /* per-thread buffer (DRAM: total) */
    double bw[BB_ROOF_MAX_THREADS + 1][BB_ROOF_LEVELS]; /* [threads][level], GB/s */
    bb_roof_peak peak[BB_ROOF_NPEAK];
    bb_roof_gamma gamma[BB_ROOF_MAX_GAMMA];
    int ngamma;
} bb_roofline;

extern const char *const bb_roof_level_names[BB_ROOF_LEVELS];

/* Measure everything; quick: about a tenth of the time per figure (fewer runs; the DRAM buffer
 * is the same, 4x the last-level cache within a quarter of the available memory).
 * only_kernels: NULL for all, else a comma list.  Progress lines go to log (may be NULL). */
int bb_roofline_measure(bb_roofline *r, const bb_machine *m, int maxthreads, bool quick, const char *only_kernels,
                        FILE *log, char *err, size_t errlen);
int bb_roofline_write_json(const bb_roofline *r, const bb_machine *m, const char *path, char *err, size_t errlen);
void bb_roofline_print(const bb_roofline *r, FILE *f);

/* roofline_simd.c */
long bb_roof_vpdpbusd(long iters);
long bb_roof_vpmaddubsw(long iters);
long bb_roof_vpshufb(long iters);
long bb_roof_vpermb(long iters);
long bb_roof_fma(long iters);
long bb_roof_bf16dot(long iters);
long bb_roof_fmla_f32(long iters);
long bb_roof_fmla_f16(long iters);
long bb_roof_sdot(long iters);
long bb_roof_smmla(long iters);
long bb_roof_tbl(long iters);
long bb_roof_bfdot(long iters);
long bb_roof_add_chain(long iters);

#endif
