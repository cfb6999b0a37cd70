/* bitbench gemm: one kernel, one shape, timed (and optionally verified) — the quick path. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "gemm_bench.h"
#include "support/machine.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bitbench gemm --kernel NAME[@isa] --m M --k K [--n N] [--threads T]\n"
            "                     [--reps R] [--warmup W] [--min-time S] [--cache resident|dram]\n"
            "                     [--seed S] [--verify] [--read] [--csv]\n");
}

int bb_cmd_gemm(int argc, char **argv)
{
    static const struct option opts[] = {
        {"kernel", required_argument, 0, 'K'}, {"m", required_argument, 0, 'm'},
        {"k", required_argument, 0, 'k'},      {"n", required_argument, 0, 'n'},
        {"threads", required_argument, 0, 't'}, {"reps", required_argument, 0, 'r'},
        {"warmup", required_argument, 0, 'w'}, {"min-time", required_argument, 0, 'T'},
        {"cache", required_argument, 0, 'c'},  {"seed", required_argument, 0, 's'},
        {"verify", no_argument, 0, 'v'},       {"csv", no_argument, 0, 'C'},
        {"read", no_argument, 0, 'R'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    bb_machine mach;
    bb_machine_detect(&mach);
    const char *kspec = NULL;
    int m = 0, k = 0, n = 1, threads = 1, reps = 20, warmup = 3, csv = 0;
    double min_time = 0.2;
    uint64_t seed = 42;
    bb_gemm_spec spec = {0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'K': kspec = optarg; break;
        case 'm': if (bb_parse_int("--m", optarg, 1, 1 << 24, &m)) return 2; break;
        case 'k': if (bb_parse_int("--k", optarg, 1, 1 << 24, &k)) return 2; break;
        case 'n': if (bb_parse_int("--n", optarg, 1, 1 << 16, &n)) return 2; break;
        case 't':
            if (bb_parse_int("--threads", optarg, 1, mach.pus, &threads)) return 2;
            break;
        case 'r': if (bb_parse_int("--reps", optarg, 1, 1000000, &reps)) return 2; break;
        case 'w': if (bb_parse_int("--warmup", optarg, 0, 1000000, &warmup)) return 2; break;
        case 'T': if (bb_parse_double("--min-time", optarg, 0, 3600, &min_time)) return 2; break;
        case 'c':
            if (bb_cache_mode_parse(optarg, &spec.cache)) {
                fprintf(stderr, "bitbench gemm: --cache: unknown mode '%s'; valid: resident, dram\n", optarg);
                return 2;
            }
            break;
        case 's': if (bb_parse_u64("--seed", optarg, &seed)) return 2; break;
        case 'v': spec.verify = true; break;
        case 'R': spec.read_alone = true; break;
        case 'C': csv = 1; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "bitbench gemm: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "bitbench gemm: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!kspec || !m || !k) {
        fprintf(stderr, "bitbench gemm: --kernel, --m and --k are required\n");
        usage(stderr);
        return 2;
    }
    char err[1536];
    if (bb_kernel_resolve(kspec, &spec.kernel, &spec.variant, err, sizeof err)) {
        fprintf(stderr, "bitbench gemm: %s\n", err);
        return 2;
    }
    if (bb_kernel_check_shape(spec.kernel, m, k, n, err, sizeof err)) {
        fprintf(stderr, "bitbench gemm: %s\n", err);
        return 2;
    }
    spec.m = m; spec.k = k; spec.n = n;
    spec.warmup = warmup; spec.min_reps = reps; spec.min_seconds = min_time;
    spec.max_reps = reps > 100000 ? reps : 100000;
    spec.seed = seed;
    bb_pool *pool = bb_pool_create(threads, err, sizeof err);
    if (!pool) {
        fprintf(stderr, "bitbench gemm: %s\n", err);
        return 1;
    }
    bb_gemm_result r;
    int rc = bb_gemm_bench(pool, &spec, &r, err, sizeof err);
    bb_pool_destroy(pool);
    if (rc) {
        fprintf(stderr, "bitbench gemm: %s\n", err);
        return 1;
    }
    const char *cache = bb_cache_mode_name(spec.cache);
    if (csv) {
        printf("kernel,variant,m,k,n,threads,cache,reps,t_median_s,t_min_s,t_max_s,t_sd_s,gops,gbps%s%s\n",
               spec.read_alone ? ",read_t_median_s,read_t_min_s,read_gbps" : "",
               spec.verify ? ",max_abs_err,rel_err,bound_ratio,err_rel_rms,err_master_rel_rms,weight_rel_rms" : "");
        printf("%s,%s,%d,%d,%d,%d,%s,%d,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g", spec.kernel->name, spec.variant->isa,
               m, k, n, threads, cache, r.reps, r.t_median, r.t_min, r.t_max, r.t_sd, r.gops, r.gbps);
        if (spec.read_alone) printf(",%.9g,%.9g,%.6g", r.read_t_median, r.read_t_min, r.read_gbps);
        if (spec.verify)
            printf(",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", r.max_abs_err, r.rel_err, r.bound_ratio, r.err_rel_rms,
                   r.err_master_rel_rms, r.weight_rel_rms);
        printf("\n");
    } else {
        char rotation[160];
        bb_cache_describe(spec.cache, r.packed_bytes, r.copies, &mach, rotation, sizeof rotation);
        printf("%s@%s  M=%d K=%d N=%d  threads=%d  cache=%s (%s)\n", spec.kernel->name, spec.variant->isa, m, k, n,
               threads, cache, rotation);
        printf("  time   median %.3f us  (min %.3f, max %.3f, sd %.3f; %d reps)\n", r.t_median * 1e6,
               r.t_min * 1e6, r.t_max * 1e6, r.t_sd * 1e6, r.reps);
        printf("  speed  %.2f GOP/s   weights %.2f GB/s\n", r.gops, r.gbps);
        if (spec.read_alone)
            printf("  read   the same bytes read alone: median %.3f us (min %.3f), %.2f GB/s;\n"
                   "         the kernel takes %.2fx its time (median over median; fastest over fastest %.2fx)\n",
                   r.read_t_median * 1e6, r.read_t_min * 1e6, r.read_gbps, r.t_median / r.read_t_median,
                   r.t_min / r.read_t_min);
        if (spec.verify) {
            printf("  verify max|err| %.3g  rel %.3g  err/bound %.3g  %s\n", r.max_abs_err, r.rel_err,
                   r.bound_ratio, r.bound_ratio <= 1.0 ? "(within the format's bound)" : "(EXCEEDS the format's bound)");
            printf("         rel rms: vs own dequantized weights %.3g, vs master weights %.3g; weights %.3g\n",
                   r.err_rel_rms, r.err_master_rel_rms, r.weight_rel_rms);
        }
    }
    return spec.verify && r.bound_ratio > 1.0 ? 1 : 0;
}
