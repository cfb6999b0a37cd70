/* bitbench roofline: measure this machine's ceilings and write the machine profile (roofline.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/roofline.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "kernels/kernel.h"
#include "support/machine.h"
#include "support/output_file.h"
#include "support/sizes.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench roofline [--threads T] [--cpus LIST] [--quick] [--kernels K1,K2] [--out FILE]\n"
               "  --threads T    bandwidth for 1..T threads, peaks for 1 and T (default: the physical cores this\n"
               "                 process may use, or one per CPU of --cpus)\n"
               "  --cpus LIST    thread t on the t-th CPU of LIST (e.g. 0,2-3); default: one per core first\n"
               "  --quick        about a tenth of the time per figure (tests)\n"
               "  --kernels LIST gamma for these kernels only (default: every registered kernel)\n"
               "  --out FILE     machine profile JSON (default results/machine-profile.json)\n");
}

/* Every entry of --kernels names a registered kernel (a typo would measure nothing for it and
 * still exit 0); 0, or -1 after saying which entry is wrong. */
static int check_kernels(const char *list)
{
    char copy[1024], err[1400];
    snprintf(copy, sizeof copy, "%s", list);
    if (!*copy) {
        fprintf(stderr, "bitbench roofline: --kernels: empty list; give kernel names, e.g. i2_s,q4_0\n");
        return -1;
    }
    for (char *save = NULL, *k = strtok_r(copy, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        if (bb_kernel_by_name(k)) continue;
        const bb_kernel *kern;
        const bb_variant *v;
        if (bb_kernel_resolve(k, &kern, &v, err, sizeof err) == 0)
            snprintf(err, sizeof err, "'%s' is a variant; --kernels takes kernel names (e.g. %s)", k, kern->name);
        fprintf(stderr, "bitbench roofline: --kernels: %s\n", err);
        return -1;
    }
    return 0;
}

int bb_cmd_roofline(int argc, char **argv)
{
    static const struct option opts[] = {{"threads", required_argument, 0, 't'}, {"quick", no_argument, 0, 'q'},
                                         {"kernels", required_argument, 0, 'k'}, {"out", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},          {"cpus", required_argument, 0, 'c'},
                                         {0, 0, 0, 0}};
    bb_machine mach;
    bb_machine_detect(&mach);
    int threads = 0, *cpus = NULL, ncpus = 0;
    int quick = 0;
    const char *kernels = NULL, *out = "results/machine-profile.json";
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 't': if (bb_parse_int("--threads", optarg, 1, BB_ROOF_MAX_THREADS, &threads)) return 2; break;
        case 'c':
            free(cpus);
            if (bb_parse_cpus(optarg, &cpus, &ncpus)) return 2;
            break;
        case 'q': quick = 1; break;
        case 'k': kernels = optarg; break;
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "bitbench roofline: unknown option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    free(cpus); /* bb_parse_cpus kept its own copy for the pools */
    if (!threads) threads = ncpus ? ncpus : mach.allowed_cores > 0 ? mach.allowed_cores : 1;
    if (threads > BB_ROOF_MAX_THREADS) threads = BB_ROOF_MAX_THREADS;
    if (bb_check_threads("--threads", threads)) return 2;
    if (kernels && check_kernels(kernels)) return 2;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", out);
    char *slash = strrchr(dir, '/');
    if (slash) { /* the profile's folder (results/ by default) may not exist yet */
        *slash = 0;
        if (dir[0]) mkdir(dir, 0777);
    }
    char err[BB_ERR_MAX];
    /* before the measurement, which takes minutes: a profile that cannot be written is said now */
    if (bb_output_check(out, err, sizeof err)) {
        fprintf(stderr, "bitbench roofline: --out %s\n", err);
        return 2;
    }
    static bb_roofline r;
    if (bb_roofline_measure(&r, &mach, threads, quick, kernels, stderr, err, sizeof err)) {
        fprintf(stderr, "bitbench roofline: %s\n", err);
        return 1;
    }
    bb_roofline_print(&r, stdout);
    if (bb_roofline_write_json(&r, &mach, out, err, sizeof err)) {
        fprintf(stderr, "bitbench roofline: %s\n", err);
        return 1;
    }
    printf("\nmachine profile: %s\n", out);
    return 0;
}
