#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"

#define COL(name, kind, field, doc) BB_COLUMN(bb_result_row, name, kind, field, doc)

const bb_column bb_result_columns[] = {
    COL("experiment", BB_COL_STR, experiment, "the experiment's name"),
    COL("sweep", BB_COL_STR, sweep, "the sweep's name"),
    COL("point", BB_COL_INT, point, "the point's number in the run's plan (1-based)"),
    COL("kernel", BB_COL_STR, kernel, "kernel name"),
    COL("variant", BB_COL_STR, variant, "the ISA variant asked for (scalar, avx2, avx512, amx, ...)"),
    COL("variant_ran", BB_COL_STR, variant_ran,
        "the variant whose code ran at this N by the asked variant's documented small-N rule (i2_s@amx at N < 16: "
        "avx512; kernels/kernel.h, small_n_isa and min_n); the asked variant when it has no rule"),
    COL("fallback_calls", BB_COL_NUM, fallback_calls,
        "timed matmul calls (one per thread's row slice) that ran other code for a reason outside the dispatch "
        "rule: the float @amx variants' denormal/inf/NaN rows, an AMX call without scratch memory; 0 = none, "
        "empty for a peer's row (not known)"),
    COL("family", BB_COL_STR, family, "kernel family (the registry's, as bitbench list kernels shows)"),
    COL("bits_per_weight", BB_COL_NUM, bits_per_weight, "bits per weight as stored, scales included"),
    COL("lossless", BB_COL_INT, lossless, "1 when the kernel is exact w.r.t. its reference semantics"),
    COL("model", BB_COL_STR, model, "the model the shape comes from (empty for a literal shape)"),
    COL("roles", BB_COL_STR, roles, "the model's projections with this shape (q+o, k+v, gate+up, down)"),
    COL("m", BB_COL_INT, m, "M: weight rows (outputs)"),
    COL("k", BB_COL_INT, k, "K: weight columns (inputs)"),
    COL("n", BB_COL_INT, n, "N: activation rows (1 = GEMV)"),
    COL("threads", BB_COL_INT, threads, "threads of the pool"),
    COL("cpus", BB_COL_STR, cpus, "OS index of the processing unit of each thread, ';'-separated"),
    COL("cache", BB_COL_STR, cache,
        "the weights' working set asked for: resident (one packed copy), l1, l2 or l3 (copies rotated to fill half "
        "that level for the point's threads, more than the level below holds), dram (rotating copies > 4x LLC); "
        "docs/measurement.md"),
    COL("warmup", BB_COL_INT, warmup, "untimed calls before timing"),
    COL("reps", BB_COL_INT, reps, "timed calls"),
    COL("t_median_s", BB_COL_NUM, t_median_s, "median seconds per call (prepare + matmul)"),
    COL("t_min_s", BB_COL_NUM, t_min_s, "fastest call, seconds"),
    COL("t_max_s", BB_COL_NUM, t_max_s, "slowest call, seconds"),
    COL("t_sd_s", BB_COL_NUM, t_sd_s, "standard deviation of the calls, seconds"),
    COL("spread", BB_COL_NUM, spread, "interquartile range of the calls / t_median_s"),
    COL("spread_flag", BB_COL_INT, spread_flag,
        "1 when spread exceeds the sweep's spread_limit or t_sd_s / t_median_s its sd_limit (after remeasure): the "
        "repetitions disagreed; the median is still reported"),
    COL("gops", BB_COL_NUM, gops, "2*M*K*N / t_median_s / 1e9"),
    COL("weight_bytes", BB_COL_NUM, weight_bytes, "packed weight bytes read per call"),
    COL("gbps", BB_COL_NUM, gbps, "attained weight bandwidth: weight_bytes / t_median_s / 1e9"),
    COL("err_max_abs", BB_COL_NUM, err_max_abs,
        "verify: max |y - W_deq x| over the outputs y of one call, against the fp64 product of the kernel's own "
        "dequantized weights W_deq = unpack(pack(W)) and the float activations x"),
    COL("err_rel_rms", BB_COL_NUM, err_rel_rms,
        "verify: ||y - W_deq x|| / ||W_deq x||, the error the kernel's arithmetic adds (activation and table "
        "quantization, aggregation)"),
    COL("err_master_rel_rms", BB_COL_NUM, err_master_rel_rms,
        "verify: ||y - W x|| / ||W x|| with the master float weights W, the total error including the weight format"),
    COL("weight_rel_rms", BB_COL_NUM, weight_rel_rms,
        "verify: ||W_deq - W|| / ||W||, the weight format's reconstruction error (0 for a format that holds the "
        "weights exactly, as i2_s ternary weights)"),
    COL("attempts", BB_COL_INT, attempts,
        "measurements of the point: 1, or more when its spread exceeded the bounds and the sweep's remeasure allowed "
        "(the row is the last attempt's)"),
    COL("t_q1_s", BB_COL_NUM, t_q1_s, "first quartile of the calls, seconds (the plots' error bars)"),
    COL("t_q3_s", BB_COL_NUM, t_q3_s, "third quartile of the calls, seconds (spread = (t_q3_s - t_q1_s) / t_median_s)"),
    COL("verify", BB_COL_STR, verify,
        "verify: passed, or FAILED when an output's error exceeds the format's bound (the point fails, the run "
        "ends failed, exit status 1); empty when the sweep did not ask"),
    COL("rotated_bytes", BB_COL_NUM, rotated_bytes,
        "packed weight bytes the timed calls cycled through: copies x weight_bytes (weight_bytes for resident)"),
    COL("cache_source", BB_COL_STR, cache_source,
        "where the cache sizes of an l1, l2, l3 or dram working set came from: hwloc, or sysfs where hwloc saw no "
        "caches; empty for resident"),
    COL("min_reps", BB_COL_INT, min_reps, "the sweep's reps this point ran with: at least this many timed calls"),
    COL("min_seconds", BB_COL_NUM, min_seconds, "the sweep's min_seconds this point ran with: at least this much timed time"),
    COL("seed", BB_COL_STR, seed, "the seed of the point's weights and activations"),
    COL("delay_s", BB_COL_NUM, delay_s, "the sweep's delay this point ran with: seconds of cool-down before it"),
    COL("roofline_fraction", BB_COL_NUM, roofline_fraction,
        "attained over the roofline ceiling of the point's working set and thread count: max(gops / compute peak, "
        "gbps / read bandwidth of the level), both from the machine profile (bitbench roofline) measured at this "
        "thread count; empty where that ceiling was not measured (roofline_ceiling says why)"),
    COL("roofline_ceiling", BB_COL_STR, roofline_ceiling,
        "the ceiling roofline_fraction is taken against (\"L2 read, 2 threads\" or \"int8 peak, 1 thread\"), or why "
        "there is none"),
    COL("read_t_median_s", BB_COL_NUM, read_t_median_s,
        "read: median time of a plain read (64-byte loads, no arithmetic) of the next copy of the same packed "
        "bytes by the same threads, right after each timed call, seconds; empty when the sweep did not ask"),
    COL("read_t_min_s", BB_COL_NUM, read_t_min_s, "read: the fastest of those reads, seconds"),
    COL("read_gbps", BB_COL_NUM, read_gbps, "read: weight_bytes / read_t_median_s / 1e9"),
    COL("read_ratio_paired", BB_COL_NUM, read_ratio_paired,
        "read: the median over the calls of call time / the read right after it: how many times a plain read of "
        "its bytes the kernel took, both seeing the memory system of the same moment"),
    COL("rounds", BB_COL_INT, rounds,
        "rounds that measured the point (a sweep's rounds: every point's round 1, then every point's round 2, "
        "...); 1 for a point measured once"),
    COL("round", BB_COL_INT, round,
        "the round the row's figures are (1-based): the one whose read_ratio_paired (t_median_s without a read) is "
        "the median of the rounds' (the slower of the two middle ones of an even count)"),
    COL("rounds_t_median_s", BB_COL_STR, rounds_t_median_s,
        "t_median_s of each round, ';'-separated in round order; empty with one round"),
    COL("rounds_read_ratio_paired", BB_COL_STR, rounds_read_ratio_paired,
        "the same for read_ratio_paired; empty with one round or without a read"),
    /* added after the rounds; a file written before reads with it empty */
    COL("read_streams", BB_COL_NUM, read_streams,
        "read: the streams per thread of the read the read_ columns are of (1 or 8): after each call the bytes "
        "are read both ways, one after the other, and the faster by median counts; empty without a read"),
    /* added after read_streams; a file written before reads with it empty */
    COL("stream_prefetch", BB_COL_STR, stream_prefetch,
        "on or off: whether the code that ran issued its software prefetches, for code that follows the CPU's "
        "one-stream rule (q8_0_x16's SIMD variants, and the AVX-512 ones of tq2_0_x16, q2_k_x16 and tq1_0_x16, "
        "which where it is off also read their row groups in order, not in lockstep: off on Zen 4, else on; "
        "BITBENCH_STREAM_PREFETCH overrides; kernels/cpu.h); empty for all other code, whose prefetches do not "
        "depend on it"),
    BB_PROVENANCE_COLUMNS(bb_result_row),
    BB_CPU_MODEL_COLUMN(bb_result_row),
};
const int bb_result_ncolumns = (int)(sizeof bb_result_columns / sizeof bb_result_columns[0]);

void bb_csv_header(const char *const *meter_cols, int nmeter, char *buf, size_t len)
{
    bb_csv_header_line(bb_result_columns, bb_result_ncolumns, meter_cols, nmeter, buf, len);
}

int bb_csv_write_row(FILE *f, const bb_result_row *r)
{
    return bb_csv_write_table_row(f, bb_result_columns, bb_result_ncolumns, r, r->meter, r->nmeter);
}

static int parse_row(char *const *fields, void *row, int nmeter)
{
    bb_result_row *r = row;
    memset(r, 0, sizeof *r);
    r->nmeter = nmeter;
    return bb_csv_parse_table_row(fields, bb_result_columns, bb_result_ncolumns, r, r->meter, nmeter);
}

int bb_csv_read(const char *path, const char *header, int nmeter, bb_result_row **rows, int *count, char *err, size_t errlen)
{
    void *v;
    int rc = bb_csv_read_rows(path, header, sizeof **rows, parse_row, nmeter, &v, count, err, errlen);
    *rows = v;
    return rc;
}
