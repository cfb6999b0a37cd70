/* bitbench e2e: one model, one kernel — prompt-processing and token-generation speed with
 * synthetic weights for a config name, or a model file's own weights (.gguf, llama2.c .bin): the
 * quick path; Lua experiments sweep models × kernels × threads. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "archive/run_db.h"
#include "bench/e2e_bench.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/machine_output.h"
#include "kernels/cpu.h"
#include "models/kernel_choice.h"
#include "models/model_load.h"
#include "results/noise.h"
#include "results/result_row.h"
#include "support/machine.h"
#include "support/sizes.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench e2e --model NAME|FILE.gguf|FILE.bin --kernel K [--out-kernel K] [--threads T] [--prompt P]\n"
               "                    [--gen G] [--depth D] [--reps R] [--kv T]\n"
               "                    [--kv-type-k T] [--kv-type-v T] [--distinct-layers L] [--seed S] [--csv | --json]\n"
               "                    [--db FILE.sqlite] [--cpus LIST] [--no-repack] [--breakdown]\n"
               "  --depth D     D tokens in the KV cache before the prompt, filled untimed (llama-bench's -d); default 0\n"
               "  --kv T        KV cache type of keys and values: f32 (default), f16, bf16, q8_0 (q8_0: head dim a multiple of 32)\n"
               "  --kv-type-k T, --kv-type-v T   the keys' and the values' type apart (llama.cpp's -ctk, -ctv)\n"
               "  --threads T   default 1, or one per CPU of --cpus; at most the CPUs this process may run on\n"
               "  --cpus LIST   thread t on the t-th CPU of LIST (e.g. 0,2-3); default: one per core first\n"
               "  --breakdown   also print where a decode token's time goes: each matmul group's prepare, matmul\n"
               "                (dispatch to last chunk) and barrier, the row-wise stages, attention, each thread's\n"
               "                wait at the end of the matmuls (text output only)\n"
               "  A model file's tensors go through the kernels that store their types unless --kernel K (the linear\n"
               "  layers; stderr lists what it requantizes); the classifier stays as stored unless --out-kernel.\n"
               "  Q8_0, Q4_0, IQ4_NL, Q2_K, TQ1_0 and TQ2_0 blocks are rearranged at load into the faster interleaved\n"
               "  layout (bits unchanged; stderr says so); --no-repack keeps every tensor's stored layout.\n"
               "  A config (synthetic weights) needs --kernel; its classifier defaults to f16.\n"
               "  --csv         the result as e2e.csv's header and row (its columns, provenance included, numbers\n"
               "                at full precision), then weight_pad_bytes_per_token\n"
               "  --json        the same row as one JSON object on one line (JSONL); with --csv or --json stdout\n"
               "                holds only that, everything else goes to stderr\n");
}

/* One option into spec (model, threads and --csv aside); returns -1 to go on, else the exit status. */
static int parse_option(int c, char **argv, bb_e2e_spec *spec, const char **model, int *threads, int **cpus,
                        int *ncpus, int *format, const char **db, int *breakdown)
{
    switch (c) {
    case 'b': *breakdown = 1; return -1;
    case 'B': *db = optarg; return -1;
    case 'm': *model = optarg; return -1;
    case 'K': spec->kernel = optarg; return -1;
    case 'O': spec->out_kernel = optarg; return -1;
    case 'R': spec->keep_layout = true; return -1;
    case 't': return bb_parse_int("--threads", optarg, 1, 1 << 16, threads) ? 2 : -1;
    case 'P':
        free(*cpus);
        return bb_parse_cpus(optarg, cpus, ncpus) ? 2 : -1;
    case 'p': return bb_parse_int("--prompt", optarg, 0, 1 << 16, &spec->prompt_len) ? 2 : -1;
    case 'g': return bb_parse_int("--gen", optarg, 0, 1 << 16, &spec->gen_len) ? 2 : -1;
    case 'r': return bb_parse_int("--reps", optarg, 1, 10000, &spec->reps) ? 2 : -1;
    case 'L': return bb_parse_int("--distinct-layers", optarg, 0, 1 << 16, &spec->distinct_layers) ? 2 : -1;
    case 's': return bb_parse_u64("--seed", optarg, &spec->seed) ? 2 : -1;
    case 'd': return bb_parse_int("--depth", optarg, 0, 1 << 20, &spec->depth) ? 2 : -1;
    case 'v': return bb_parse_kv_option("e2e", "--kv", optarg, &spec->kv_k, &spec->kv_v) ? 2 : -1;
    case 'k': return bb_parse_kv_option("e2e", "--kv-type-k", optarg, &spec->kv_k, &spec->kv_v) ? 2 : -1;
    case 'V': return bb_parse_kv_option("e2e", "--kv-type-v", optarg, &spec->kv_k, &spec->kv_v) ? 2 : -1;
    case 'C':
    case 'J': return bb_machine_output_option("bitbench e2e", c == 'C' ? BB_OUT_CSV : BB_OUT_JSON, format) ? 2 : -1;
    case 'h': usage(stdout); return 0;
    default:
        fprintf(stderr, "bitbench e2e: unknown or incomplete option '%s'\n", argv[optind - 1]);
        usage(stderr);
        return 2;
    }
}

/* The options into spec and the model's config; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, bb_e2e_spec *spec, bb_model_config *cfg, int *threads, int *format,
                      const char **db, int *breakdown)
{
    static const struct option opts[] = {
        {"model", required_argument, 0, 'm'}, {"kernel", required_argument, 0, 'K'},
        {"out-kernel", required_argument, 0, 'O'}, {"threads", required_argument, 0, 't'},
        {"prompt", required_argument, 0, 'p'}, {"gen", required_argument, 0, 'g'},
        {"reps", required_argument, 0, 'r'}, {"kv", required_argument, 0, 'v'},
        {"kv-type-k", required_argument, 0, 'k'}, {"kv-type-v", required_argument, 0, 'V'},
        {"depth", required_argument, 0, 'd'},
        {"distinct-layers", required_argument, 0, 'L'}, {"seed", required_argument, 0, 's'},
        {"csv", no_argument, 0, 'C'}, {"help", no_argument, 0, 'h'}, {"db", required_argument, 0, 'B'},
        {"cpus", required_argument, 0, 'P'}, {"no-repack", no_argument, 0, 'R'}, {"json", no_argument, 0, 'J'},
        {"breakdown", no_argument, 0, 'b'},
        {0, 0, 0, 0}};
    const char *model = NULL;
    int *cpus = NULL, ncpus = 0;
    *threads = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        int rc = parse_option(c, argv, spec, &model, threads, &cpus, &ncpus, format, db, breakdown);
        if (rc >= 0) {
            free(cpus);
            return rc;
        }
    }
    free(cpus); /* bb_parse_cpus kept its own copy for the pool */
    if (!*threads) *threads = ncpus ? ncpus : 1;
    if (bb_check_threads("--threads", *threads)) return 2;
    if (!model || (!spec->kernel && !bb_model_is_path(model))) {
        fprintf(stderr, "bitbench e2e: --model is required, and --kernel for a model config (a model file's tensors "
                "go through the kernels that store their types unless --kernel says otherwise)\n");
        usage(stderr);
        return 2;
    }
    if (*breakdown && *format != BB_OUT_TEXT) {
        fprintf(stderr, "bitbench e2e: --breakdown prints a text table, --csv and --json one row: give one of them\n");
        return 2;
    }
    if (*breakdown && spec->gen_len < 1) {
        fprintf(stderr, "bitbench e2e: --breakdown times the decode steps: --gen must be at least 1, got 0\n");
        return 2;
    }
    if (spec->prompt_len + spec->gen_len < 1) {
        fprintf(stderr, "bitbench e2e: --prompt and --gen are both 0: nothing to measure\n");
        return 2;
    }
    char err[BB_ERR_MAX];
    if (bb_model_config_resolve(model, cfg, err, sizeof err)) {
        fprintf(stderr, "bitbench e2e: %s\n", err);
        return 2;
    }
    spec->model = cfg;
    return -1;
}

/* The point as e2e.csv's row, its noise judged by a sweep's default limits: what `--db` stores and
 * what --csv and --json print. */
static void e2e_row(const bb_single_run *run, const bb_e2e_spec *spec, const bb_e2e_result *r, int threads,
                    bb_e2e_row *row)
{
    bb_e2e_row_measured(row, spec, threads, r);
    snprintf(row->experiment, sizeof row->experiment, "e2e");
    snprintf(row->sweep, sizeof row->sweep, "e2e");
    row->point = 1;
    bb_e2e_row_noise(row, spec->prompt_len ? spec->pp_seconds : NULL, spec->prompt_len ? spec->reps : 0,
                     spec->gen_len ? spec->tg_seconds : NULL, spec->gen_len ? spec->reps : 0, BB_DEFAULT_SPREAD_LIMIT,
                     BB_DEFAULT_SD_LIMIT, BB_PHASES_BOTH);
    bb_single_run_provenance(run, &row->prov);
}

static void print_text(const bb_e2e_spec *spec, const bb_e2e_result *r, int threads, const bb_machine *mach)
{
    const bb_model_config *cfg = spec->model;
    /* the process's peak resident set, measured, beside the engine's own count */
    struct rusage ru;
    double peak = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss / 1048576.0 : 0; /* KiB on Linux */
    printf("%s  kernel %s  threads %d  (built in %.1f s, %.2f GiB in memory, peak RSS %.2f GiB)\n", cfg->name,
           spec->kernel, threads, r->build_seconds, r->footprint / 1073741824.0, peak);
    printf("  placed   %s  (allowed CPUs %s)\n", r->placement, mach->allowed_cpus);
    printf("  context  depth %d, KV cache keys %s, values %s\n", spec->depth, bb_kv_type_name(spec->kv_k),
           bb_kv_type_name(spec->kv_v));
    if (cfg->path[0]) /* what became of the file's tensors, one kind per line */
        for (const char *l = r->conversions; *l;) {
            const char *end = strchr(l, '\n');
            int len = end ? (int)(end - l) : (int)strlen(l);
            printf("  weights  %.*s\n", len, l);
            l += len + (end ? 1 : 0);
        }
    if (r->stream_prefetch[0])
        printf("  prefetch %s in the one-stream kernels  (%s; kernels/cpu.h)\n", r->stream_prefetch,
               bb_cpu_stream_prefetch_why());
    if (spec->prompt_len)
        printf("  pp%-5d %8.2f tok/s  (min %.2f, max %.2f)\n", spec->prompt_len, r->pp_tps_median, r->pp_tps_min,
               r->pp_tps_max);
    if (spec->gen_len)
        printf("  tg%-5d %8.2f tok/s  (min %.2f, max %.2f)  %.2f ms/token, %.1f%% in linear layers\n"
               "          %.1f MB of weights per token (%.3f MB of it padding) -> %.2f GB/s (derived), %.1f MB of KV cache\n"
               "  read     %8.2f tok/s  (max %.2f)  the same weights and KV rows read alone by the same threads, %.2f GB/s\n"
               "           (%d stream%s per thread); tg is %.0f%% of it (median over median; best over best %.0f%%)\n",
               spec->gen_len, r->tg_tps_median, r->tg_tps_min, r->tg_tps_max, r->tg_ms_per_token,
               100 * r->matmul_share, r->weight_bytes_per_token / 1e6, r->weight_pad_bytes_per_token / 1e6,
               r->tg_gbps, r->kv_bytes_per_token / 1e6, r->read_tps_median, r->read_tps_max, r->read_gbps,
               r->read_streams, r->read_streams == 1 ? "" : "s", 100 * r->tg_of_read,
               100 * r->tg_tps_max / r->read_tps_max);
    /* A token's bytes within twice the last-level cache may partly stay in it from one token to
     * the next, for the decode and for the read alike: the bound is then not a DRAM bound.
     * Measured on a 260 MiB L3: 245 MB read again came at 32 GB/s, the same bytes rotated past
     * twice the cache at 28 GB/s (docs/measurements/2026-11-29-gemm-split.md). */
    double token_bytes = r->weight_bytes_per_token + (double)r->kv_bytes_per_token;
    double llc = (double)bb_machine_llc(mach);
    if (spec->gen_len && token_bytes < 2 * llc)
        printf("  cache    the %.1f MB a token reads are %.2fx the %.1f MiB last-level cache (%s; a VM may report its\n"
               "           host's): part of them may come from it, so the read-alone bound is not a DRAM bound (it is\n"
               "           from 2x the cache on)\n",
               token_bytes / 1e6, token_bytes / llc, llc / 1048576.0,
               mach->cache_source[0] ? mach->cache_source : "assumed");
}

/* One row of the breakdown: name, ms per decode token, share of the measured total. */
static void breakdown_row(const char *name, double seconds, double per, double total)
{
    printf("    %-18s %9.4f ms %6.2f%%\n", name, 1000 * seconds / per, total > 0 ? 100 * seconds / total : 0);
}

/* --breakdown: the profile of the timed decode steps (models/transformer.h, bb_tf_profile), per
 * token.  The rows but idle.* are disjoint stretches of the calling thread's time and, with other
 * (what none of them covers), add up to the measured total.  The attention line sets the KV bytes
 * of the middle generated token (the mean over the timed tokens, since a token's reads grow by one
 * row per position) against the attention's time: how close it streams the cache to the run's
 * own read rate (r's read_gbps, the weights and KV rows read alone). */
static void print_breakdown(const bb_tf_profile *p, const bb_e2e_result *r)
{
    static const char *const group[BB_TF_GROUP_KINDS] = {"qkv", "wo", "w13", "w2", "cls"};
    static const char *const stage[BB_TF_STAGES] = {"embed", "resid_norm", "rope_store", "attention",
                                                    "sub_norm", "gate", "final_norm"};
    double per = p->calls > 0 ? (double)p->calls : 1, covered = 0, matmul = 0;
    printf("  breakdown per decode token, %ld tokens, %ld matmul jobs, %d threads: %.4f ms measured\n", p->calls,
           p->jobs, p->nthreads, 1000 * p->total / per);
    for (int g = 0; g < BB_TF_GROUP_KINDS; g++) {
        char name[32];
        snprintf(name, sizeof name, "%s.prepare", group[g]);
        breakdown_row(name, p->prepare[g], per, p->total);
        snprintf(name, sizeof name, "%s.matmul", group[g]);
        breakdown_row(name, p->matmul[g], per, p->total);
        snprintf(name, sizeof name, "%s.barrier", group[g]);
        breakdown_row(name, p->barrier[g], per, p->total);
        covered += p->prepare[g] + p->matmul[g] + p->barrier[g];
        matmul += p->matmul[g];
    }
    for (int s = 0; s < BB_TF_STAGES; s++) {
        breakdown_row(stage[s], p->stage[s], per, p->total);
        covered += p->stage[s];
    }
    breakdown_row("other", p->total - covered, per, p->total);
    printf("    (of the matmuls' time, each thread's wait after its last chunk for the job's last one)\n");
    for (int t = 0; t < p->nthreads; t++) {
        char name[32];
        snprintf(name, sizeof name, "idle.t%d", t);
        breakdown_row(name, p->idle[t], per, p->total);
    }
    printf("  engine   %.4f ms/token in the matmuls' dispatch-to-last-chunk: the decode step takes %.3fx that\n",
           1000 * matmul / per, matmul > 0 ? p->total / matmul : 0);
    double att = p->stage[BB_TF_STAGE_ATTENTION] / per, gbps = att > 0 ? (double)r->kv_bytes_per_token / att / 1e9 : 0;
    printf("  attention %.4f ms/token over %.3f MB of KV cache: %.2f GB/s, %.0f%% of the run's read rate (%.2f GB/s)\n",
           1000 * att, (double)r->kv_bytes_per_token / 1e6, gbps, r->read_gbps > 0 ? 100 * gbps / r->read_gbps : 0,
           r->read_gbps);
}

/* --db: the point as a run "e2e" of one row and its samples (run_db.h). */
static int store(const char *db, const bb_single_run *run, int argc, char **argv, const bb_machine *mach,
                 const bb_e2e_spec *spec, const bb_e2e_result *r, const bb_e2e_row *point, int threads)
{
    bb_e2e_row row = *point;
    bb_single_run placed = *run;
    placed.threads = threads;
    snprintf(placed.placement, sizeof placed.placement, "%s", r->placement);
    bb_run_tables t = {.has_e2e = true, .has_e2e_samples = true, .e2e = &row, .ne2e = 1};
    t.e2e_samples = calloc(2 * (size_t)spec->reps, sizeof *t.e2e_samples);
    if (!t.e2e_samples) return -1;
    for (int ph = 0; ph < 2; ph++) {
        int tokens = ph ? spec->gen_len : spec->prompt_len;
        for (int i = 0; i < spec->reps && tokens > 0; i++) {
            bb_e2e_sample_row *s = &t.e2e_samples[t.ne2e_samples++];
            snprintf(s->run_id, sizeof s->run_id, "%s", run->run_id);
            snprintf(s->experiment, sizeof s->experiment, "e2e");
            snprintf(s->sweep, sizeof s->sweep, "e2e");
            snprintf(s->model, sizeof s->model, "%s", row.model);
            snprintf(s->kernel, sizeof s->kernel, "%s", row.kernel);
            snprintf(s->variant, sizeof s->variant, "%s", row.variant);
            snprintf(s->phase, sizeof s->phase, "%s", ph ? "tg" : "pp");
            s->point = 1, s->threads = threads, s->prompt = row.prompt, s->gen = row.gen, s->rep = i;
            s->depth = row.depth;
            snprintf(s->kv_type_k, sizeof s->kv_type_k, "%s", row.kv_type_k);
            snprintf(s->kv_type_v, sizeof s->kv_type_v, "%s", row.kv_type_v);
            s->tokens = tokens;
            s->seconds = (ph ? spec->tg_seconds : spec->pp_seconds)[i];
        }
    }
    int rc = bb_single_run_store("bitbench e2e", db, &placed, argc + 1, argv - 1, mach, &t, false);
    t.e2e = NULL; /* on the stack */
    bb_run_tables_free(&t);
    return rc;
}

int bb_cmd_e2e(int argc, char **argv)
{
    bb_machine mach;
    bb_machine_detect(&mach);
    bb_model_config cfg;
    bb_e2e_spec spec = {.kernel = NULL, .prompt_len = 32, .gen_len = 16, .reps = 3, .distinct_layers = 2, .seed = 1};
    int threads = 1, format = BB_OUT_TEXT, breakdown = 0;
    const char *db = NULL;
    int rc = parse_args(argc, argv, &spec, &cfg, &threads, &format, &db, &breakdown);
    if (rc >= 0) return rc;
    if (db && bb_run_db_check("bitbench e2e", db)) return 2;
    double *seconds = calloc(2 * (size_t)spec.reps, sizeof *seconds); /* prefill, then generation */
    if (!seconds) return 1;
    spec.pp_seconds = seconds;
    spec.tg_seconds = seconds + spec.reps;
    bb_single_run run;
    bb_single_run_begin(&run, &mach);
    char err[BB_ERR_MAX];
    bb_pool *pool = bb_pool_create(threads, err, sizeof err);
    if (!pool) {
        fprintf(stderr, "bitbench e2e: %s\n", err);
        free(seconds);
        return 1;
    }
    if (breakdown && !(spec.profile = bb_tf_profile_new(threads))) {
        fprintf(stderr, "bitbench e2e: out of memory for --breakdown's profile\n");
        bb_pool_destroy(pool);
        free(seconds);
        return 1;
    }
    bb_e2e_result r;
    rc = bb_e2e_bench(pool, &spec, &r, err, sizeof err);
    bb_pool_destroy(pool);
    if (rc) {
        fprintf(stderr, "bitbench e2e: %s\n", err);
        bb_tf_profile_free(spec.profile);
        free(seconds);
        return 1;
    }
    if (r.kernel_note[0]) fprintf(stderr, "bitbench: %s\n", r.kernel_note);
    /* what the run is called and its classifier's kernel, as kernel_choice.h decided them */
    if (!spec.kernel) spec.kernel = spec.keep_layout ? BB_KERNEL_STORED_LAYOUT : BB_KERNEL_AS_STORED;
    spec.out_kernel = r.out_kernel;
    bb_e2e_row row;
    e2e_row(&run, &spec, &r, threads, &row);
    rc = 0;
    if (format != BB_OUT_TEXT) {
        const char *name = "weight_pad_bytes_per_token";
        double pad = (double)r.weight_pad_bytes_per_token;
        rc = bb_machine_output_row(stdout, format, bb_e2e_columns, bb_e2e_ncolumns, &row, &name, &pad, 1) ? 1 : 0;
    } else {
        print_text(&spec, &r, threads, &mach);
        if (spec.profile) print_breakdown(spec.profile, &r);
    }
    bb_tf_profile_free(spec.profile);
    if (db && store(db, &run, argc, argv, &mach, &spec, &r, &row, threads)) rc = 1;
    free(seconds);
    return rc;
}
