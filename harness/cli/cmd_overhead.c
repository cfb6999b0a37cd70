/* bitbench overhead: what the harness adds to each measured call (pool dispatch + barrier, and
 * the runner's whole timing path with a kernel that does nothing), per thread count. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/overhead.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "support/affinity.h"
#include "support/machine.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench overhead [--threads LIST] [--cpus LIST] [--samples S] [--batch B]\n"
               "  --threads LIST  thread counts, e.g. 1,2 or 1-4 (default: 1 to the physical cores this process\n"
               "                  may use, or to the CPUs of --cpus)\n"
               "  --cpus LIST     thread t on the t-th CPU of LIST (e.g. 0,2-3); default: one per core first\n"
               "  --samples S     timed batches per figure; the median is reported (default 200)\n"
               "  --batch B       calls per timed batch (default 1000)\n");
}

int bb_cmd_overhead(int argc, char **argv)
{
    static const struct option opts[] = {{"threads", required_argument, 0, 't'},
                                         {"samples", required_argument, 0, 's'},
                                         {"batch", required_argument, 0, 'b'},
                                         {"help", no_argument, 0, 'h'},
                                         {"cpus", required_argument, 0, 'c'},
                                         {0, 0, 0, 0}};
    bb_machine mach;
    bb_machine_detect(&mach);
    int *threads = NULL, nthreads = 0, samples = 200, batch = 1000;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            free(threads);
            if (bb_parse_int_list("--threads", optarg, 1, 1 << 16, &threads, &nthreads)) return 2;
            break;
        case 'c': {
            int *cpus = NULL, ncpus = 0;
            int rc = bb_parse_cpus(optarg, &cpus, &ncpus); /* the pools place their threads on them */
            free(cpus);
            if (rc) return 2;
            break;
        }
        case 's': if (bb_parse_int("--samples", optarg, 1, 100000, &samples)) return 2; break;
        case 'b': if (bb_parse_int("--batch", optarg, 1, 10000000, &batch)) return 2; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "bitbench overhead: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "bitbench overhead: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    for (int i = 0; i < nthreads; i++)
        if (bb_check_threads("--threads", threads[i])) {
            free(threads);
            return 2;
        }
    if (!threads) {
        int ncpus;
        bb_affinity_cpus(&ncpus);
        nthreads = ncpus ? ncpus : mach.allowed_cores;
        threads = malloc(sizeof *threads * (size_t)nthreads);
        if (!threads) return 1;
        for (int i = 0; i < nthreads; i++) threads[i] = i + 1;
    }
    printf("| threads | barrier ns (median) | barrier ns (min) | measured call ns (median) | measured call ns (min) | placement |\n");
    printf("|--------:|--------------------:|-----------------:|--------------------------:|-----------------------:|-----------|\n");
    int rc = 0;
    for (int i = 0; i < nthreads && rc == 0; i++) {
        bb_overhead o;
        char err[256];
        if (bb_measure_overhead(threads[i], samples, batch, &o, err, sizeof err)) {
            fprintf(stderr, "bitbench overhead: %s\n", err);
            rc = 1;
            break;
        }
        printf("| %7d | %19.1f | %16.1f | %25.1f | %22.1f | %s |\n", o.threads, o.barrier_ns, o.barrier_min_ns,
               o.call_ns, o.call_min_ns, o.placement);
        fflush(stdout);
    }
    printf("(%d samples of %d calls each; machine: %s, %d cores)\n", samples, batch, mach.cpu_model, mach.cores);
    free(threads);
    return rc;
}
