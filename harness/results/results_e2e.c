#include "results/results_e2e.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COL(name, kind, field, doc) BB_COLUMN(bb_e2e_row, name, kind, field, doc)
#define COLF(name, field, fmt, doc) BB_COLUMN_FMT(bb_e2e_row, name, BB_COL_NUM, field, fmt, doc)

/* Numbers at full precision (csv.h, bb_num_text: what a reader parses is the double bitbench
 * computed; rounding is the reader's choice); byte and token counts as integers. */
const bb_column bb_e2e_columns[] = {
    COL("experiment", BB_COL_STR, experiment, "the experiment's name"),
    COL("sweep", BB_COL_STR, sweep, "the sweep's name"),
    COL("point", BB_COL_INT, point, "the point's number among the run's end-to-end points (1-based)"),
    COL("model", BB_COL_STR, model, "model config name"),
    COL("kernel", BB_COL_STR, kernel, "kernel of the linear layers"),
    COL("variant", BB_COL_STR, variant, "the ISA variant asked for (scalar, avx2, avx512, amx, ...)"),
    COL("variant_ran_pp", BB_COL_STR, variant_ran_pp,
        "the variant whose code the linear layers ran in the prefill, by the asked variant's dispatch rule at each "
        "chunk's N (amx; amx+avx512 when the last chunk is below the rule's N); per-tensor for a model file run "
        "as stored, whose tensors each run their own kernel (listed in run.json's conversions); empty without a "
        "prefill"),
    COL("variant_ran_tg", BB_COL_STR, variant_ran_tg,
        "the variant whose code the linear layers ran in the decode (N = 1: i2_s@amx runs avx512; per-tensor as "
        "in variant_ran_pp); empty without one"),
    COLF("fallback_calls", fallback_calls, "%.0f",
         "matmul calls of any kernel in the timed prefills and decodes that ran other code for a reason outside the "
         "dispatch rule (float @amx variants' denormal/inf/NaN rows, an AMX call without scratch memory); 0 = none"),
    COL("family", BB_COL_STR, family, "kernel family"),
    COLF("bits_per_weight", bits_per_weight, NULL, "bits per weight of the kernel as stored, scales included"),
    COL("out_kernel", BB_COL_STR, out_kernel, "kernel of the classifier (output projection)"),
    COL("threads", BB_COL_INT, threads, "threads of the pool"),
    COL("prompt", BB_COL_INT, prompt, "prompt tokens (prefill); 0 = none"),
    COL("gen", BB_COL_INT, gen, "generated tokens (decode); 0 = none"),
    COL("reps", BB_COL_INT, reps, "repetitions of prefill + generation"),
    COLF("pp_tps", pp_tps, NULL, "prefill tokens/s, median of the repetitions"),
    COLF("pp_tps_min", pp_tps_min, NULL, "prefill tokens/s, slowest repetition"),
    COLF("pp_tps_max", pp_tps_max, NULL, "prefill tokens/s, fastest repetition"),
    COLF("tg_tps", tg_tps, NULL, "generation tokens/s, median of the repetitions"),
    COLF("tg_tps_min", tg_tps_min, NULL, "generation tokens/s, slowest repetition"),
    COLF("tg_tps_max", tg_tps_max, NULL, "generation tokens/s, fastest repetition"),
    COLF("ms_per_token", ms_per_token, NULL, "median milliseconds per generated token"),
    COLF("matmul_share", matmul_share, NULL, "fraction of decode time in the linear layers (the kernels)"),
    COLF("weight_bytes_per_token", weight_bytes_per_token, "%.0f",
         "packed linear and classifier bytes read per generated token"),
    COLF("tg_gbps_derived", tg_gbps_derived, NULL, "weight_bytes_per_token * tg_tps / 1e9"),
    COLF("read_tps", read_tps, NULL, "tokens/s if a token cost only reading its weights once (median)"),
    COLF("read_tps_max", read_tps_max, NULL, "the same bound, fastest pass"),
    COLF("read_gbps", read_gbps, NULL, "bandwidth of those plain weight reads, GB/s"),
    COLF("tg_of_read", tg_of_read, NULL, "tg_tps / read_tps: how close decode comes to reading the weights"),
    COLF("footprint_bytes", footprint_bytes, "%.0f", "model bytes in memory"),
    COL("ref_kernel", BB_COL_STR, ref_kernel, "compare_logits: the reference kernel (empty without it)"),
    COLF("logit_max_abs_err", logit_max_abs_err, NULL, "compare_logits: max |logit - reference logit|"),
    COLF("logit_rel_rms_err", logit_rel_rms_err, NULL, "compare_logits: relative RMS error of the logits"),
    COLF("top1_agreement", top1_agreement, NULL, "compare_logits: share of positions with the same top token"),
    COLF("logits_identical", logits_identical, "%.0f", "compare_logits: 1 when every logit is bit-identical"),
    COL("ppl_model", BB_COL_STR, ppl_model,
        "perplexity: the model scored (a checkpoint's file name, or the model config with synthetic weights)"),
    COLF("ppl", ppl, NULL, "perplexity: PPL on the sweep's text, chunked as llama-perplexity"),
    COLF("ppl_err", ppl_err, NULL, "perplexity: llama-perplexity's +/- (standard error carried through exp)"),
    COLF("ppl_tokens", ppl_tokens, "%.0f", "perplexity: tokens scored"),
    COLF("ppl_tps", ppl_tps, NULL, "perplexity: tokens/s through the model (ctx per chunk / forward time)"),
    COL("peer", BB_COL_STR, peer, "peers: the implementation that ran the row (llama.cpp, bitnet.cpp; llama.cpp-batched, bitnet.cpp-batched: its llama-batched-bench measured a depth point, pp empty); empty for bitbench"),
    COL("peer_commit", BB_COL_STR, peer_commit, "peers: the peer's build commit, as its llama-bench reports it"),
    COL("pp_samples", BB_COL_STR, pp_samples, "peers: prefill tokens/s of each repetition, ';'-separated"),
    COL("tg_samples", BB_COL_STR, tg_samples, "peers: generation tokens/s of each repetition, ';'-separated"),
    COLF("energy_per_token_j", energy_per_token_j, NULL,
         "measured energy of the median generation repetition / gen (empty without an energy meter)"),
    /* last of the fixed columns, added after the others: the columns before it keep their places */
    COL("cpus", BB_COL_STR, cpus,
        "OS index of the processing unit of each thread, ';'-separated (a peer's row: the CPUs its program was "
        "allowed)"),
    /* added after cpus, in this order; files without them read as depth 0 and unrecorded types */
    COL("depth", BB_COL_INT, depth,
        "tokens in the KV cache before the prompt, filled untimed (llama-bench's -d); pp and tg run after them"),
    COL("kv_type_k", BB_COL_STR, kv_type_k, "KV cache type of the keys (f32, f16, bf16, q8_0; llama.cpp's -ctk)"),
    COL("kv_type_v", BB_COL_STR, kv_type_v, "KV cache type of the values (llama.cpp's -ctv)"),
    COLF("kv_bytes_per_token", kv_bytes_per_token, "%.0f",
         "KV cache bytes a generated token reads at the middle of the generation (read_tps reads them too)"),
    BB_PROVENANCE_COLUMNS(bb_e2e_row),
    /* added after the provenance columns, so that the columns before them keep their places; a file
     * written before them reads with spread_flag 0 and attempts 0 (run_tables.h), which the
     * readers take for "not recorded" (compare and the reports then judge the row by its range) */
    COLF("pp_spread", pp_spread, NULL,
         "interquartile range / median of the prefill repetitions' times (harness/results/noise.h); empty without a prefill "
         "or a repetition"),
    COLF("tg_spread", tg_spread, NULL, "the same for the generation repetitions"),
    COL("spread_flag", BB_COL_INT, spread_flag,
        "1 when a phase's spread exceeds the sweep's spread_limit or its sd / median the sd_limit (after remeasure)"),
    COL("attempts", BB_COL_INT, attempts,
        "measurements of the point: 1, or more when its repetitions disagreed and the sweep's remeasure allowed "
        "another (the row is the last attempt's)"),
    /* added after attempts; a file written before them reads with rounds and round 0, "not recorded" */
    COL("rounds", BB_COL_INT, rounds,
        "rounds that measured the point (a model sweep's rounds: every point's round 1, then every point's round "
        "2, ...); 1 for a point measured once"),
    COL("round", BB_COL_INT, round,
        "the round the row's figures are (1-based): the one whose tg_of_read is the median of the rounds' (the "
        "slower of the two middle ones of an even count; tg_tps without a read-alone bound, pp_tps without a "
        "decode)"),
    COL("rounds_pp_tps", BB_COL_STR, rounds_pp_tps,
        "prefill tokens/s (median of its repetitions) of each round, ';'-separated in round order; empty with one "
        "round or without a prefill"),
    COL("rounds_tg_tps", BB_COL_STR, rounds_tg_tps, "the same for generation tokens/s"),
    COL("rounds_tg_of_read", BB_COL_STR, rounds_tg_of_read, "the same for tg_of_read"),
    /* added after the rounds; a file written before reads with it empty */
    COL("interleaved", BB_COL_STR, interleaved,
        "the kernels whose repetitions alternated with this point's (a model sweep's interleave: their models held "
        "together, each repetition running every one in turn), its own among them, ';'-separated in the sweep's "
        "order; empty for a point measured alone"),
    /* added after interleaved; a file written before reads with it empty */
    COLF("read_streams", read_streams, "%.0f",
         "the streams per thread of the read_ columns' reads (1 or 8): the bytes are read both ways, alternating, "
         "and the faster by median is the bound; empty without a decode or for a peer"),
    /* added after read_streams; a file written before reads with it empty */
    COL("stream_prefetch", BB_COL_STR, stream_prefetch,
        "on or off when a linear layer or the classifier ran code that follows the CPU's one-stream rule "
        "(q8_0_x16; tq2_0_x16, q2_k_x16 and tq1_0_x16 at AVX-512; kernels/cpu.h, BITBENCH_STREAM_PREFETCH); "
        "empty when none did, or for a peer"),
    BB_CPU_MODEL_COLUMN(bb_e2e_row),
};
const int bb_e2e_ncolumns = (int)(sizeof bb_e2e_columns / sizeof bb_e2e_columns[0]);

void bb_e2e_header(const char *const *meter_cols, int nmeter, char *buf, size_t len)
{
    bb_csv_header_line(bb_e2e_columns, bb_e2e_ncolumns, meter_cols, nmeter, buf, len);
}

int bb_e2e_write_row(FILE *f, const bb_e2e_row *r)
{
    return bb_csv_write_table_row(f, bb_e2e_columns, bb_e2e_ncolumns, r, r->meter, r->nmeter);
}

static int parse_row(char *const *fields, void *row, int nmeter)
{
    bb_e2e_row *r = row;
    memset(r, 0, sizeof *r);
    r->nmeter = nmeter;
    return bb_csv_parse_table_row(fields, bb_e2e_columns, bb_e2e_ncolumns, r, r->meter, nmeter);
}

int bb_e2e_read(const char *path, const char *header, int nmeter, bb_e2e_row **rows, int *count, char *err, size_t errlen)
{
    void *v;
    int rc = bb_csv_read_rows(path, header, sizeof **rows, parse_row, nmeter, &v, count, err, errlen);
    *rows = v;
    return rc;
}

/* "i2_s@amx", or "i2_s@amx (ran avx512)" when the code that ran was another variant's. */
static void ran_label(const bb_e2e_row *r, const char *ran, char *buf, size_t len)
{
    if (ran[0] && strcmp(ran, r->variant)) snprintf(buf, len, "%s@%s (ran %s)", r->kernel, r->variant, ran);
    else snprintf(buf, len, "%s@%s", r->kernel, r->variant);
}

/* The note of a flagged row: both phases' spreads (the flag is the row's; the sweep's limits are
 * not in the row), and the attempts it took. */
static void flag_note(const bb_e2e_row *r, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "flagged:");
    if (isfinite(r->pp_spread) && o < len) o += (size_t)snprintf(buf + o, len - o, " pp IQR/median %.0f%%", 100 * r->pp_spread);
    if (isfinite(r->tg_spread) && o < len)
        o += (size_t)snprintf(buf + o, len - o, "%s tg IQR/median %.0f%%", isfinite(r->pp_spread) ? "," : "",
                              100 * r->tg_spread);
    if (o < len) snprintf(buf + o, len - o, " after %d attempt%s", r->attempts, r->attempts == 1 ? "" : "s");
}

void bb_e2e_markdown_table(FILE *f, const bb_e2e_row *rows, int count)
{
    bool flagged = false; /* a note column: a flagged row, one of several rounds, or interleaved */
    for (int i = 0; i < count; i++) flagged |= rows[i].spread_flag != 0 || rows[i].rounds > 1 || rows[i].interleaved[0];
    fprintf(f, "| model | kernel | threads | test | t/s (median) | min - max |%s\n", flagged ? " note |" : "");
    fprintf(f, "|---|---|---:|---|---:|---:|%s\n", flagged ? "---|" : "");
    for (int i = 0; i < count; i++) {
        const bb_e2e_row *r = &rows[i];
        /* the asked variant, and the code that ran when that differs (i2_s@amx ran avx512 in tg) */
        char pp_kernel[160], tg_kernel[160], note[256] = "";
        ran_label(r, r->variant_ran_pp, pp_kernel, sizeof pp_kernel);
        ran_label(r, r->variant_ran_tg, tg_kernel, sizeof tg_kernel);
        if (r->spread_flag) flag_note(r, note, sizeof note);
        if (r->rounds > 1) {
            size_t o = strlen(note);
            snprintf(note + o, sizeof note - o, "%sround %d of %d (the median %s)", o ? "; " : "", r->round, r->rounds,
                     r->gen > 0 ? "share of the read-alone bound" : "prefill");
        }
        if (r->interleaved[0]) { /* a count, not the names: the cell stays the table's own text */
            int partners = 0;
            for (const char *c = r->interleaved; *c; c++) partners += *c == ';';
            size_t o = strlen(note);
            snprintf(note + o, sizeof note - o, "%srepetitions interleaved with %d other kernel%s", o ? "; " : "",
                     partners, partners == 1 ? "" : "s");
        }
        /* llama-bench's test name at a depth: "tg16 @ d4096" */
        char at[24] = "";
        if (r->depth > 0) snprintf(at, sizeof at, " @ d%d", r->depth);
        if (r->prompt > 0)
            fprintf(f, "| %s | %s | %d | pp%d%s | %.2f | %.2f - %.2f |%s%s%s\n", r->model, pp_kernel, r->threads,
                    r->prompt, at, r->pp_tps, r->pp_tps_min, r->pp_tps_max, flagged ? " " : "", note, flagged ? " |" : "");
        if (r->gen > 0)
            fprintf(f, "| %s | %s | %d | tg%d%s | %.2f | %.2f - %.2f |%s%s%s\n", r->model, tg_kernel, r->threads,
                    r->gen, at, r->tg_tps, r->tg_tps_min, r->tg_tps_max, flagged ? " " : "", note, flagged ? " |" : "");
    }
}
