/* bitbench gemm: one kernel, one shape, timed (and optionally verified) — the quick path. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/run_db.h"
#include "bench/gemm_bench.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/machine_output.h"
#include "kernels/cpu.h"
#include "io/jsonl.h"
#include "results/result_row.h"
#include "support/affinity.h"
#include "support/machine.h"
#include "support/sizes.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bitbench gemm --kernel NAME[@isa] --m M --k K [--n N] [--threads T] [--cpus LIST]\n"
            "                     [--reps R] [--warmup W] [--min-time S] [--cache l1|l2|l3|resident|dram]\n"
            "                     [--seed S] [--verify] [--read] [--csv | --json] [--db FILE.sqlite]\n"
            "  --threads T   default 1, or one per CPU of --cpus; at most the CPUs this process may run on\n"
            "  --cpus LIST   thread t on the t-th CPU of LIST (e.g. 0,2-3); default: one per core first\n"
            "  --cache MODE  the weights' working set: resident (one copy, default); l1, l2, l3 (copies rotated\n"
            "                to fill half that level for T threads, sized from hwloc or sysfs; a matrix too\n"
            "                big for it is refused); dram (copies spanning 4x the last-level cache)\n"
            "  --csv         the result as results.csv's header and row (its columns, provenance included,\n"
            "                numbers at full precision), then --read's and --verify's extra columns\n"
            "  --json        the same row as one JSON object on one line (JSONL); with --csv or --json\n"
            "                stdout holds only that, everything else goes to stderr\n");
}

/* One option into spec (kernel spec, threads and --csv aside); returns -1 to go on, else the exit
 * status. */
static int parse_option(int c, char **argv, bb_gemm_spec *spec, const char **kspec, int *threads, int **cpus,
                        int *ncpus, int *format, const char **db)
{
    switch (c) {
    case 'B': *db = optarg; return -1;
    case 'K': *kspec = optarg; return -1;
    case 'm': return bb_parse_int("--m", optarg, 1, 1 << 24, &spec->m) ? 2 : -1;
    case 'k': return bb_parse_int("--k", optarg, 1, 1 << 24, &spec->k) ? 2 : -1;
    case 'n': return bb_parse_int("--n", optarg, 1, 1 << 16, &spec->n) ? 2 : -1;
    case 't': return bb_parse_int("--threads", optarg, 1, 1 << 16, threads) ? 2 : -1;
    case 'P':
        free(*cpus);
        return bb_parse_cpus(optarg, cpus, ncpus) ? 2 : -1;
    case 'r': return bb_parse_int("--reps", optarg, 1, 1000000, &spec->min_reps) ? 2 : -1;
    case 'w': return bb_parse_int("--warmup", optarg, 0, 1000000, &spec->warmup) ? 2 : -1;
    case 'T': return bb_parse_double("--min-time", optarg, 0, 3600, &spec->min_seconds) ? 2 : -1;
    case 'c':
        if (bb_cache_mode_parse(optarg, &spec->cache)) {
            fprintf(stderr, "bitbench gemm: --cache: unknown mode '%s'; valid: " BB_CACHE_MODE_NAMES "\n", optarg);
            return 2;
        }
        return -1;
    case 's': return bb_parse_u64("--seed", optarg, &spec->seed) ? 2 : -1;
    case 'v': spec->verify = true; return -1;
    case 'R': spec->read_alone = true; return -1;
    case 'C':
    case 'J': return bb_machine_output_option("bitbench gemm", c == 'C' ? BB_OUT_CSV : BB_OUT_JSON, format) ? 2 : -1;
    case 'h': usage(stdout); return 0;
    default:
        fprintf(stderr, "bitbench gemm: unknown or incomplete option '%s'\n", argv[optind - 1]);
        usage(stderr);
        return 2;
    }
}

/* The options into a checked spec (kernel resolved, shape valid for it); returns -1 to go on,
 * else the exit status. */
static int parse_args(int argc, char **argv, bb_gemm_spec *spec, int *threads, int *format, const char **db)
{
    static const struct option opts[] = {
        {"kernel", required_argument, 0, 'K'}, {"m", required_argument, 0, 'm'},
        {"k", required_argument, 0, 'k'},      {"n", required_argument, 0, 'n'},
        {"threads", required_argument, 0, 't'}, {"reps", required_argument, 0, 'r'},
        {"warmup", required_argument, 0, 'w'}, {"min-time", required_argument, 0, 'T'},
        {"cache", required_argument, 0, 'c'},  {"seed", required_argument, 0, 's'},
        {"verify", no_argument, 0, 'v'},       {"csv", no_argument, 0, 'C'},
        {"read", no_argument, 0, 'R'},         {"db", required_argument, 0, 'B'},
        {"cpus", required_argument, 0, 'P'},   {"help", no_argument, 0, 'h'},
        {"json", no_argument, 0, 'J'},         {0, 0, 0, 0}};
    const char *kspec = NULL;
    int *cpus = NULL, ncpus = 0;
    *threads = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        int rc = parse_option(c, argv, spec, &kspec, threads, &cpus, &ncpus, format, db);
        if (rc >= 0) {
            free(cpus);
            return rc;
        }
    }
    free(cpus); /* bb_parse_cpus kept its own copy for the pool */
    if (!*threads) *threads = ncpus ? ncpus : 1;
    if (bb_check_threads("--threads", *threads)) return 2;
    if (optind < argc) {
        fprintf(stderr, "bitbench gemm: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!kspec || !spec->m || !spec->k) {
        fprintf(stderr, "bitbench gemm: --kernel, --m and --k are required\n");
        usage(stderr);
        return 2;
    }
    char err[BB_ERR_MAX];
    if (bb_kernel_resolve(kspec, &spec->kernel, &spec->variant, err, sizeof err) ||
        bb_kernel_check_shape(spec->kernel, spec->m, spec->k, spec->n, err, sizeof err)) {
        fprintf(stderr, "bitbench gemm: %s\n", err);
        return 2;
    }
    spec->max_reps = spec->min_reps > 100000 ? spec->min_reps : 100000;
    spec->threads = *threads;
    return -1;
}

/* The point as results.csv's row: what `--db` stores and what --csv and --json print. */
static void gemm_row(const bb_single_run *run, const bb_gemm_spec *spec, const bb_gemm_result *r, int threads,
                     const bb_pool *pool, bb_result_row *row)
{
    bb_result_row_measured(row, spec->kernel, spec->variant, spec->m, spec->k, spec->n, threads, spec->cache,
                           spec->warmup, r);
    snprintf(row->experiment, sizeof row->experiment, "gemm");
    snprintf(row->sweep, sizeof row->sweep, "gemm");
    row->point = 1;
    row->min_reps = spec->min_reps;
    row->min_seconds = spec->min_seconds;
    row->delay_s = 0;
    snprintf(row->seed, sizeof row->seed, "%llu", (unsigned long long)spec->seed);
    bb_pool_cpus(pool, row->cpus, sizeof row->cpus);
    bb_single_run_provenance(run, &row->prov);
}

/* --csv and --json: results.csv's columns (--read's figures among them), then what only this
 * command measures: --verify's error against its bound. */
static int print_row(int format, const bb_gemm_spec *spec, const bb_gemm_result *r, const bb_result_row *row)
{
    const char *names[2];
    double extra[2];
    int n = 0;
    if (spec->verify) {
        names[n] = "rel_err", extra[n++] = r->rel_err;
        names[n] = "bound_ratio", extra[n++] = r->bound_ratio;
    }
    return bb_machine_output_row(stdout, format, bb_result_columns, bb_result_ncolumns, row, names, extra, n);
}

static void print_text(const bb_gemm_spec *spec, const bb_gemm_result *r, int threads, const bb_machine *mach,
                       const bb_pool *pool)
{
    char rotation[256];
    bb_cache_describe(spec->cache, r->packed_bytes, r->copies, threads, mach, rotation, sizeof rotation);
    printf("%s@%s  M=%d K=%d N=%d  threads=%d  cache=%s (%s)\n", spec->kernel->name, spec->variant->isa, spec->m,
           spec->k, spec->n, threads, bb_cache_mode_name(spec->cache), rotation);
    printf("  placed %s  (allowed CPUs %s)\n", bb_pool_placement(pool), mach->allowed_cpus);
    if (bb_variant_follows_stream_prefetch(spec->kernel, spec->variant, spec->n))
        printf("  prefetch %s  (%s; kernels/cpu.h)\n", bb_cpu_stream_prefetch() ? "on" : "off",
               bb_cpu_stream_prefetch_why());
    const char *ran = bb_variant_ran(spec->variant, spec->n);
    if (strcmp(ran, spec->variant->isa))
        printf("  ran    %s@%s: @%s runs it below N=%d\n", spec->kernel->name, ran, spec->variant->isa,
               spec->variant->min_n);
    if (r->fallback_calls)
        printf("  ran    %llu of the timed calls' thread slices fell back to other code (denormal/inf/NaN or no "
               "scratch memory)\n", (unsigned long long)r->fallback_calls);
    printf("  time   median %.3f us  (min %.3f, max %.3f, sd %.3f; %d reps)\n", r->t_median * 1e6, r->t_min * 1e6,
           r->t_max * 1e6, r->t_sd * 1e6, r->reps);
    printf("  speed  %.2f GOP/s   weights %.2f GB/s\n", r->gops, r->gbps);
    if (spec->read_alone)
        printf("  read   the same bytes read alone after each call: median %.3f us (min %.3f), %.2f GB/s, %d "
               "stream%s per thread;\n"
               "         the kernel takes %.2fx its time (median over median; call by call %.2fx; "
               "fastest over fastest %.2fx)\n",
               r->read_t_median * 1e6, r->read_t_min * 1e6, r->read_gbps, r->read_streams,
               r->read_streams == 1 ? "" : "s", r->t_median / r->read_t_median,
               r->read_ratio_paired, r->t_min / r->read_t_min);
    if (spec->verify) {
        printf("  verify max|err| %.3g  rel %.3g  err/bound %.3g  %s\n", r->max_abs_err, r->rel_err, r->bound_ratio,
               bb_gemm_verify_passed(r) ? "(within the format's bound)" : "(EXCEEDS the format's bound)");
        printf("         rel rms: vs own dequantized weights %.3g, vs master weights %.3g; weights %.3g\n",
               r->err_rel_rms, r->err_master_rel_rms, r->weight_rel_rms);
    }
}

/* --db: the point as a run "gemm" of one row and its samples (run_db.h). */
static int store(const char *db, const bb_single_run *run, int argc, char **argv, const bb_machine *mach,
                 const bb_gemm_result *r, bb_result_row *row, bb_pool *pool, int threads)
{
    bb_run_tables t = {.has_results = true, .has_samples = true, .nrows = 1, .nsamples = r->reps};
    bb_single_run placed = *run;
    placed.threads = threads;
    snprintf(placed.placement, sizeof placed.placement, "%s", bb_pool_placement(pool));
    t.rows = row;
    t.samples = calloc((size_t)(r->reps ? r->reps : 1), sizeof *t.samples);
    if (!t.samples || !r->samples) {
        fprintf(stderr, "bitbench gemm: --db: out of memory\n");
        free(t.samples);
        return -1;
    }
    for (int i = 0; i < r->reps; i++) {
        bb_sample_row *s = &t.samples[i];
        snprintf(s->run_id, sizeof s->run_id, "%s", run->run_id);
        snprintf(s->experiment, sizeof s->experiment, "gemm");
        snprintf(s->sweep, sizeof s->sweep, "gemm");
        snprintf(s->kernel, sizeof s->kernel, "%s", row->kernel);
        snprintf(s->variant, sizeof s->variant, "%s", row->variant);
        snprintf(s->cache, sizeof s->cache, "%s", row->cache);
        s->point = 1, s->m = row->m, s->k = row->k, s->n = row->n, s->threads = threads, s->rep = i;
        s->seconds = r->samples[i];
    }
    int rc = bb_single_run_store("bitbench gemm", db, &placed, argc + 1, argv - 1, mach, &t, false);
    t.rows = NULL; /* the caller's */
    free(t.samples);
    t.samples = NULL;
    bb_run_tables_free(&t);
    return rc;
}

int bb_cmd_gemm(int argc, char **argv)
{
    bb_machine mach;
    bb_machine_detect(&mach);
    int threads = 1, format = BB_OUT_TEXT;
    const char *db = NULL;
    bb_gemm_spec spec = {.n = 1, .min_reps = 20, .warmup = 3, .min_seconds = 0.2, .seed = 42};
    int rc = parse_args(argc, argv, &spec, &threads, &format, &db);
    if (rc >= 0) return rc;
    if (db && bb_run_db_check("bitbench gemm", db)) return 2;
    char err[BB_ERR_MAX];
    int copies;
    /* a working set the cache mode cannot make here is refused before any work (cache_sizing.h) */
    if (bb_cache_copies(spec.cache, spec.kernel->packed_size(spec.m, spec.k), threads, &mach, &copies, err,
                        sizeof err)) {
        fprintf(stderr, "bitbench gemm: --cache %s: %s\n", bb_cache_mode_name(spec.cache), err);
        return 2;
    }
    spec.keep_samples = db != NULL;
    bb_pool *pool = bb_pool_create(threads, err, sizeof err);
    if (!pool) {
        fprintf(stderr, "bitbench gemm: %s\n", err);
        return 1;
    }
    bb_single_run run;
    bb_single_run_begin(&run, &mach);
    bb_gemm_result r;
    rc = bb_gemm_bench(pool, &spec, &r, err, sizeof err);
    if (rc) {
        bb_pool_destroy(pool);
        fprintf(stderr, "bitbench gemm: %s\n", err);
        return 1;
    }
    bb_result_row row;
    gemm_row(&run, &spec, &r, threads, pool, &row);
    int failed = 0;
    if (format != BB_OUT_TEXT) failed = print_row(format, &spec, &r, &row);
    else print_text(&spec, &r, threads, &mach, pool);
    if (db && store(db, &run, argc, argv, &mach, &r, &row, pool, threads)) failed = -1;
    bb_pool_destroy(pool);
    free(r.samples);
    return (spec.verify && !bb_gemm_verify_passed(&r)) || failed ? 1 : 0;
}
