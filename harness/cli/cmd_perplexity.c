/* bitbench perplexity: a model's perplexity on a text through any kernel, chunked and printed as
 * llama.cpp's llama-perplexity does (harness/bench/perplexity.h), so the two can be set side by side;
 * with --csv, the per-chunk values and a JSON sidecar (tool, build, machine, the run, the result). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/perplexity_job.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "io/json.h"
#include "run/results_json.h"
#include "support/machine.h"
#include "support/output_file.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench perplexity --model FILE.gguf|FILE.bin|NAME --file TEXT --ctx C [--chunks N] [--kernel K]\n"
               "                           [--out-kernel K] [--kv T] [--kv-type-k T] [--kv-type-v T] [--threads T]\n"
               "                           [--cpus LIST] [--batch B]\n"
               "                           [--tokenizer T] [--seed S] [--csv FILE.csv] [--max-text-bytes N] [--no-repack]\n"
               "  FILE.gguf: a GGUF model and its tokenizer; FILE.bin: a llama2.c checkpoint (tokenizer tok<vocab>.bin\n"
               "  or tokenizer.bin beside it, or --tokenizer);\n"
               "  NAME: a model config (bitbench list models) with synthetic weights, the text fed as bytes (speed only).\n"
               "  Chunks of C tokens, BOS first, second half scored, as llama-perplexity; --chunks N runs the first N.\n"
               "  A model file's tensors each go through the kernel that stores their type (as llama.cpp computes\n"
               "  them); --kernel K puts the linear layers through K (stderr lists what it requantizes) and\n"
               "  --out-kernel the classifier, which otherwise stays as stored.  Q4_0, IQ4_NL, Q2_K, TQ1_0 and\n"
               "  TQ2_0 blocks are rearranged at load into the faster interleaved layout (bits unchanged; stderr\n"
               "  says so);\n"
               "  --no-repack keeps every tensor's stored layout.  A config: --kernel defaults to f32,\n"
               "  --out-kernel to f16.  --batch (prefill piece) defaults to C.\n"
               "  --kv T: the KV cache's type, keys and values (f32 default, f16, bf16, q8_0: llama.cpp's -ctk/-ctv;\n"
               "  --kv-type-k, --kv-type-v set them apart).\n"
               "  --csv writes chunk,ppl,chunk_nll,scored,seconds rows and FILE.json beside it.\n"
               "  --max-text-bytes N: the largest TEXT read (default %llu, 256 MiB); TEXT must be a regular file.\n",
            (unsigned long long)BB_PPL_DEFAULT_MAX_TEXT_BYTES);
}

typedef struct {
    FILE *csv;
    int printed;
} chunk_out;

/* "[i]ppl," as llama-perplexity prints it, and the CSV row. */
static void on_chunk(void *ctx, const bb_ppl_chunk *c)
{
    chunk_out *o = ctx;
    printf("[%d]%.4f,", c->index, c->ppl);
    fflush(stdout);
    o->printed++;
    if (o->csv) fprintf(o->csv, "%d,%.6f,%.8f,%d,%.6f\n", c->index, c->ppl, c->nll, c->scored, c->seconds);
}

static void write_sidecar(FILE *f, const bb_machine *mach, int argc, char **argv, const bb_ppl_job *job, int threads,
                          const bb_ppl_outcome *r)
{
    bb_json j;
    bb_json_init(&j, f);
    bb_json_object_begin(&j, NULL);
    bb_json_int(&j, "schema_version", 1);
    bb_json_write_provenance(&j, mach);
    bb_json_array_begin(&j, "command_line");
    for (int i = 0; i < argc; i++) bb_json_string(&j, NULL, argv[i]);
    bb_json_array_end(&j);
    bb_json_string(&j, "model", job->model);
    bb_json_string(&j, "text", job->text_file);
    bb_json_string(&j, "tokenization", r->tokenization);
    bb_json_int(&j, "text_tokens", r->n_tokens);
    bb_json_int(&j, "ctx", job->ctx);
    bb_json_int(&j, "chunks", r->chunks);
    bb_json_int(&j, "batch", job->batch > 0 ? job->batch : job->ctx);
    bb_json_string(&j, "kernel", r->kernel);
    bb_json_string(&j, "out_kernel", r->out_kernel);
    bb_json_string(&j, "kv", job->kv_k == job->kv_v ? bb_kv_type_name(job->kv_k) : "mixed");
    bb_json_string(&j, "kv_type_k", bb_kv_type_name(job->kv_k));
    bb_json_string(&j, "kv_type_v", bb_kv_type_name(job->kv_v));
    bb_json_int(&j, "threads", threads);
    bb_json_number(&j, "ppl", r->ppl);
    bb_json_number(&j, "ppl_err", r->ppl_err);
    bb_json_int(&j, "scored_tokens", r->sums.count);
    bb_json_number(&j, "forward_seconds", r->sums.seconds);
    bb_json_number(&j, "tokens_per_second", r->tokens_per_second);
    bb_json_number(&j, "tokenize_seconds", r->tokenize_seconds);
    bb_json_number(&j, "build_seconds", r->build_seconds);
    bb_json_write_conversions(&j, "conversions", r->conversions);
    bb_json_object_end(&j);
    bb_json_finish(&j);
}

/* FILE.csv -> FILE.json (or FILE + ".json" when it does not end in .csv). */
static void sidecar_path(const char *csv, char *out, size_t len)
{
    size_t n = strlen(csv);
    if (n > 4 && !strcmp(csv + n - 4, ".csv")) snprintf(out, len, "%.*s.json", (int)(n - 4), csv);
    else snprintf(out, len, "%s.json", csv);
}

static int parse(int argc, char **argv, bb_ppl_job *job, int *threads, const char **csv)
{
    static const struct option opts[] = {
        {"model", required_argument, 0, 'm'}, {"tokenizer", required_argument, 0, 'z'},
        {"file", required_argument, 0, 'f'}, {"ctx", required_argument, 0, 'c'},
        {"chunks", required_argument, 0, 'n'}, {"kernel", required_argument, 0, 'K'},
        {"out-kernel", required_argument, 0, 'O'}, {"kv", required_argument, 0, 'v'},
        {"kv-type-k", required_argument, 0, 'k'}, {"kv-type-v", required_argument, 0, 'V'},
        {"threads", required_argument, 0, 't'}, {"batch", required_argument, 0, 'b'},
        {"seed", required_argument, 0, 's'}, {"csv", required_argument, 0, 'C'},
        {"max-text-bytes", required_argument, 0, 'X'}, {"cpus", required_argument, 0, 'P'},
        {"no-repack", no_argument, 0, 'R'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    bb_machine mach;
    bb_machine_detect(&mach);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'm': job->model = optarg; break;
        case 'z': job->tokenizer = optarg; break;
        case 'f': job->text_file = optarg; break;
        case 'c': if (bb_parse_int("--ctx", optarg, 4, 1 << 20, &job->ctx)) return 2; break;
        case 'n': if (bb_parse_int("--chunks", optarg, 1, 1 << 30, &job->max_chunks)) return 2; break;
        case 'K': job->kernel = optarg; break;
        case 'O': job->out_kernel = optarg; break;
        case 'R': job->keep_layout = true; break;
        case 't': if (bb_parse_int("--threads", optarg, 1, 1 << 16, threads)) return 2; break;
        case 'P': {
            int *cpus = NULL, ncpus = 0;
            int rc = bb_parse_cpus(optarg, &cpus, &ncpus); /* the pool places its threads on them */
            free(cpus);
            if (rc) return 2;
            break;
        }
        case 'b': if (bb_parse_int("--batch", optarg, 1, 1 << 20, &job->batch)) return 2; break;
        case 's': if (bb_parse_u64("--seed", optarg, &job->seed)) return 2; break;
        case 'C': *csv = optarg; break;
        case 'X':
            if (bb_parse_u64("--max-text-bytes", optarg, &job->max_text_bytes)) return 2;
            if (!job->max_text_bytes) {
                fprintf(stderr, "bitbench perplexity: --max-text-bytes 0: give a positive number of bytes\n");
                return 2;
            }
            break;
        case 'v':
        case 'k':
        case 'V':
            if (bb_parse_kv_option("perplexity", c == 'v' ? "--kv" : c == 'k' ? "--kv-type-k" : "--kv-type-v", optarg,
                                   &job->kv_k, &job->kv_v))
                return 2;
            break;
        case 'h': usage(stdout); return 1; /* 1: done, exit status 0 */
        default:
            fprintf(stderr, "bitbench perplexity: unknown or incomplete option '%s' (bitbench perplexity --help)\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "bitbench perplexity: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (bb_check_threads("--threads", *threads)) return 2;
    if (!job->model || !job->text_file || !job->ctx) {
        fprintf(stderr, "bitbench perplexity: --model, --file and --ctx are required (bitbench perplexity --help)\n");
        return 2;
    }
    if (job->batch > job->ctx) {
        fprintf(stderr, "bitbench perplexity: --batch %d exceeds --ctx %d (a prefill piece is at most one chunk)\n",
                job->batch, job->ctx);
        return 2;
    }
    return 0;
}

int bb_cmd_perplexity(int argc, char **argv)
{
    bb_ppl_job job = {.seed = 1};
    int threads = 1;
    const char *csv_path = NULL;
    int prc = parse(argc, argv, &job, &threads, &csv_path);
    if (prc) return prc == 1 ? 0 : prc;
    chunk_out out = {0};
    char err[2048], side[1200];
    bb_output_file csv_file;
    if (csv_path) {
        /* both files checked before the model is read and measured; the CSV is written beside its
         * place and renamed there at the end, so a failed or killed run leaves the previous one */
        sidecar_path(csv_path, side, sizeof side);
        if (bb_output_check(csv_path, err, sizeof err) || bb_output_check(side, err, sizeof err) ||
            !(out.csv = bb_output_begin(&csv_file, csv_path, err, sizeof err))) {
            fprintf(stderr, "bitbench perplexity: --csv %s\n", err);
            return 2;
        }
        fprintf(out.csv, "chunk,ppl,chunk_nll,scored,seconds\n");
    }
    job.on_chunk = on_chunk;
    job.on_chunk_ctx = &out;
    bb_pool *pool = bb_pool_create(threads, err, sizeof err);
    bb_ppl_outcome r;
    int rc = pool ? bb_ppl_job_run(pool, &job, &r, err, sizeof err) : -1;
    bb_pool_destroy(pool);
    if (out.printed) printf("\n");
    if (rc) {
        fprintf(stderr, "bitbench perplexity: %s\n", err);
        if (out.csv) bb_output_abort(&csv_file);
        return 1;
    }
    if (r.warning[0]) fprintf(stderr, "bitbench perplexity: warning: %s\n", r.warning);
    if (r.kernel_note[0]) fprintf(stderr, "bitbench: %s\n", r.kernel_note);
    printf("Final estimate: PPL = %.4f +/- %.5f\n", r.ppl, r.ppl_err);
    fprintf(stderr, "perplexity: %d chunks of %d tokens (%ld scored) of %d text tokens (%s); kernel %s, out %s, kv %s, "
            "%d threads, batch %d: %.1f tokens/s (%.3f s in the model)\n", r.chunks, job.ctx, r.sums.count,
            r.n_tokens, r.tokenization, r.kernel, r.out_kernel,
            job.kv_k == job.kv_v ? bb_kv_type_name(job.kv_k) : "mixed", threads, job.batch > 0 ? job.batch : job.ctx, r.tokens_per_second,
            r.sums.seconds);
    if (out.csv) {
        if (bb_output_commit(&csv_file, err, sizeof err)) {
            fprintf(stderr, "bitbench perplexity: %s\n", err);
            return 1;
        }
        bb_output_file side_file;
        FILE *f = bb_output_begin(&side_file, side, err, sizeof err);
        if (f) {
            bb_machine mach;
            bb_machine_detect(&mach);
            write_sidecar(f, &mach, argc, argv, &job, threads, &r);
        }
        if (!f || bb_output_commit(&side_file, err, sizeof err)) {
            fprintf(stderr, "bitbench perplexity: %s\n", err);
            return 1;
        }
    }
    return 0;
}
