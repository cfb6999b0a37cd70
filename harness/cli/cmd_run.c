/* bitbench run FILE.lua: load and check an experiment, apply the command-line overrides, plan
 * it (checking every point before any work), then run it (sweep.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/run_db.h"
#include "bench/roofline.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "io/shell_word.h"
#include "meters/meter.h"
#include "peers/peer.h"
#include "plan/experiment.h"
#include "plan/plan.h"
#include "plan/shard.h"
#include "report/html_page.h"
#include "report/html_report.h"
#include "run/run_repeat.h"
#include "run/sweep.h"
#include "support/lua_sandbox.h"
#include "support/machine.h"
#include "support/not_a_link.h"
#include "support/sizes.h"
#include "support/term_text.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bitbench run FILE.lua [options]\n"
            "       bitbench run --repeat RUN_DIR [options]\n"
            "  --repeat RUN_DIR run that run's experiment again from the texts its folder keeps\n"
            "                   (experiment.lua, models/*.lua; refused when they are missing or their\n"
            "                   sha256 differs from run.json's), with the size, threads, reps, min-time,\n"
            "                   only and meters its run.json records unless given here; a new run folder\n"
            "  --threads LIST   thread counts for every sweep, e.g. 1,2 or 1-4 (replaces the file's)\n"
            "  --cpus LIST      thread t of every point on the t-th CPU of LIST, e.g. 0,2-3 (replaces the\n"
            "                   sweeps' cpus); default: one thread per allowed core first, then SMT siblings\n"
            "  --reps R         minimum timed repetitions per point\n"
            "  --min-time S     minimum timed seconds per point\n"
            "  --out DIR        results directory (a run writes DIR/<experiment>-<date>-<time>/)\n"
            "  --only K[,K..]   only these kernels (\"i2_s\" or one variant \"i2_s@avx2\"); repeatable\n"
            "  --resume         continue the newest incomplete run of this experiment in the results\n"
            "                   directory, measuring only the points it does not have yet\n"
            "  --meters M[,M..] also these meters (papi, pcm, rapl; see 'bitbench list meters')\n"
            "  --db FILE.sqlite also store the run in this results database when it ends (README, Results database)\n"
            "  --smoke          run the file at its smallest size (bitbench.size = \"smoke\": seconds; tests)\n"
            "  --full           run the file at the paper's full size (bitbench.size = \"full\")\n"
            "  --shard i/n      measure shard i (0-based) of n: a share of the points balanced by their\n"
            "                   estimated time; `bitbench merge` joins the n run directories into one\n"
            "  --shard-group G  the node type this shard runs on (`bitbench slurm --constraint`)\n"
            "  --peer NAME=PATH the program of a peer the file names (NAME: llama.cpp or bitnet.cpp, their\n"
            "                   llama-bench; test-backend-ops for kernel sweeps; llama.cpp-batched or\n"
            "                   bitnet.cpp-batched, their llama-batched-bench, for depth points when the\n"
            "                   llama-bench has no -d); repeatable.  Else $BITBENCH_LLAMA_BENCH,\n"
            "                   $BITBENCH_BITNET_BENCH, $BITBENCH_TEST_BACKEND_OPS,\n"
            "                   $BITBENCH_LLAMA_BATCHED_BENCH, $BITBENCH_BITNET_BATCHED_BENCH,\n"
            "                   else the program on PATH; an experiment file never names a program\n"
            "  --max-points N   allow a plan of up to N points (default 100000; larger plans are refused)\n"
            "  --unsafe-lua     run the file with every Lua library (os.execute, io writes, ...); recorded\n"
            "                   in run.json.  Without it the file gets the sandbox (README, Experiments in Lua)\n"
            "  --lua-max-instructions N, --lua-max-memory MIB\n"
            "                   bounds of the file's Lua evaluation (default 1000000000 and 1024)\n"
            "  --dry-run        check the file and print the planned points (with --shard: the shard's)\n"
            "  --quiet          no progress line and no notes on stderr\n"
            "  --allow-missing-peers\n"
            "                   a run whose sweeps ask for peers (peers = {...}) is \"complete\" even when\n"
            "                   peer points gave no row (no program found, it failed)\n"
            "Exit status: 0 complete; 1 points failed or results could not be written; 2 bad\n"
            "arguments or experiment file; 3 only peer points failed: the last line says \"k of N peer\n"
            "points ran\" and run.json's status is \"incomplete\" with that reason (not with\n"
            "--allow-missing-peers); 128+N interrupted by signal N.\n"
            "Results: results.csv (one row per point, appended as they finish), run.json (machine,\n"
            "build, command line, meters, status), results.md and report.html (one page of it all,\n"
            "for a browser: bitbench report); the table is also printed.\n"
            "results.jsonl holds the rows as JSON Lines (written when the run ends); experiment.lua,\n"
            "models/*.lua and, for a -dirty build, source.diff are the texts the run came from.\n"
            "The file's `profile` field adds machine-profile.json, its `plots` field RUN_DIR/plots/.\n"
            "Model sweeps (models = {...}) write e2e.csv (one row per end-to-end point) beside them.\n");
}

/* One line on stderr that may hold values from the experiment file or a results folder (names,
 * paths): shown through bb_term_fputs, so a control sequence in a shared file reaches the
 * terminal as text (issue 29). */
static void say(const char *line)
{
    fputs("bitbench run: ", stderr);
    bb_term_fputs(line, stderr);
    fputc('\n', stderr);
}

/* The same, for a fixed lead-in and a value (a path, a message naming one). */
static void say_that(const char *lead, const char *value)
{
    fprintf(stderr, "bitbench run: %s", lead);
    bb_term_fputs(value, stderr);
    fputc('\n', stderr);
}

/* Split "a,b" arguments of repeated --only options into one list (pointers into argv copies). */
static int add_only(char ***only, int *n, const char *arg)
{
    char *copy = strdup(arg);
    if (!copy) return -1;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        char **v = realloc(*only, sizeof *v * (size_t)(*n + 1));
        if (!v) return -1;
        *only = v;
        if (!(v[*n] = strdup(tok))) return -1;
        (*n)++;
    }
    free(copy);
    return 0;
}

static void print_plan(const bb_experiment *ex, const bb_plan *plan)
{
    printf("| point | sweep | kernel | M | K | N | threads | cache | shape |\n");
    printf("|---:|---|---|---:|---:|---:|---:|---|---|\n");
    for (int i = 0; i < plan->npoints; i++) {
        const bb_point *p = &plan->points[i];
        const bb_sweep *sw = &ex->sweeps[p->sweep];
        const bb_shape *sh = &sw->shapes[p->shape];
        char name[256], model[256], roles[256]; /* the file's strings, for a terminal */
        printf("| %d | %s | %s@%s | %d | %d | %d | %d | %s | %s%s%s |\n", p->index, bb_term_text(sw->name, name, sizeof name),
               sw->kernels[p->kernel].kernel->name, sw->kernels[p->kernel].variant->isa, sh->m, sh->k, p->n,
               p->threads, bb_cache_mode_name(p->cache), bb_term_text(sh->model, model, sizeof model),
               sh->model[0] ? " " : "", bb_term_text(sh->roles, roles, sizeof roles));
    }
    printf("%d points, %d skipped\n", plan->npoints, plan->nskipped);
    if (plan->ne2e) {
        printf("\n| e2e point | sweep | model | kernel | threads | prompt | gen | depth |\n"
               "|---:|---|---|---|---:|---:|---:|---:|\n");
        for (int i = 0; i < plan->ne2e; i++) {
            const bb_e2e_point *p = &plan->e2e[i];
            const bb_sweep *sw = &ex->sweeps[p->sweep];
            char name[256], model[256];
            printf("| %d | %s | %s | %s@%s | %d | %d | %d | %d |\n", p->index,
                   bb_term_text(sw->name, name, sizeof name), bb_term_text(sw->models[p->model].name, model, sizeof model),
                   sw->kernels[p->kernel].kernel->name, sw->kernels[p->kernel].variant->isa, p->threads, p->prompt,
                   p->gen, p->depth);
        }
        printf("%d end-to-end points\n", plan->ne2e);
    }
    for (int s = 0; s < ex->nsweeps; s++) { /* each of its points measured that many times, or side by side */
        char name[256];
        if (ex->sweeps[s].rounds > 1)
            printf("sweep '%s': every point measured in %d rounds, round by round over the sweep\n",
                   bb_term_text(ex->sweeps[s].name, name, sizeof name), ex->sweeps[s].rounds);
        if (ex->sweeps[s].interleave)
            printf("sweep '%s': the points that differ only in their kernel measured side by side, their "
                   "repetitions interleaved\n", bb_term_text(ex->sweeps[s].name, name, sizeof name));
    }
}

/* After the sweeps of a run that was not interrupted: the machine profile the file asks for
 * (unless a resumed run already has one), then its plots.  Neither changes the exit status: the
 * measured rows are the result; a plot that cannot be drawn (no gnuplot, no data of that kind) is
 * reported and can be redrawn with `bitbench plot RUN_DIR --kind KIND`. */
static void finish_run(const bb_experiment *ex, const bb_machine *mach, const char *dir, bool quiet)
{
    char path[1400], err[256];
    if (ex->profile) {
        snprintf(path, sizeof path, "%s/machine-profile.json", dir);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) { /* a resumed folder from someone else: not followed */
            bb_not_a_link(path, "the run's machine profile", err, sizeof err);
            say_that("machine profile not measured: ", err);
        } else if (access(path, F_OK) != 0) { /* whether it is there, not opened: a FIFO would block an open */
            static bb_roofline r;
            int threads = ex->profile_threads ? ex->profile_threads : mach->allowed_cores > 0 ? mach->allowed_cores : 1;
            if (threads > BB_ROOF_MAX_THREADS) threads = BB_ROOF_MAX_THREADS;
            bool quick = !strcmp(ex->size, "smoke");
            if (bb_roofline_measure(&r, mach, threads, quick, ex->profile_kernels[0] ? ex->profile_kernels : NULL,
                                    quiet ? NULL : stderr, err, sizeof err) ||
                bb_roofline_write_json(&r, mach, path, err, sizeof err))
                say_that("machine profile: ", err);
            else if (!quiet)
                say_that("machine profile: ", path);
        }
    }
    /* the report inlines the plots drawn here, now, and draws no others (that is `bitbench
     * report`'s work: a run's end stays cheap) */
    bb_report_plots rp = {.draw = false};
    if (ex->nplots) {
        snprintf(path, sizeof path, "%s/plots", dir);
        rp.drawn_dir = path;
        for (int i = 0; i < ex->nplots; i++) {
            /* "--" before the folder: an experiment's `out` may begin with '-' */
            char *pargv[9] = {"plot", "--kind", (char *)ex->plots[i], "--out", path};
            int pargc = 5;
            if (quiet) pargv[pargc++] = "--quiet";
            pargv[pargc++] = "--";
            pargv[pargc++] = (char *)dir;
            if (bb_cmd_plot(pargc, pargv)) {
                /* a command to copy into a shell: the folder (the experiment's `out`) quoted for it */
                fprintf(stderr, "bitbench run: plot %s was not drawn (see above); redraw with: bitbench plot ",
                        ex->plots[i]);
                bb_shell_path_shown(stderr, dir);
                fprintf(stderr, " --kind %s\n", ex->plots[i]);
            } else if (rp.ndrawn < BB_REPORT_MAX_KINDS)
                rp.drawn[rp.ndrawn++] = ex->plots[i];
        }
    }
    char report[1400], rerr[2048];
    snprintf(report, sizeof report, "%s/report.html", dir);
    /* a resumed folder may be someone else's: a link there is not written through */
    if (bb_not_a_link(report, "the run's report", rerr, sizeof rerr) || bb_page_replaceable(report, rerr, sizeof rerr) ||
        bb_report_run_dir(dir, report, &rp, rerr, sizeof rerr)) {
        fputs("bitbench run: report.html was not written: ", stderr);
        bb_term_fputs(rerr, stderr);
        fputs("; write it with: bitbench report ", stderr);
        bb_shell_path_shown(stderr, dir);
        fputc('\n', stderr);
    } else if (!quiet)
        say_that("report: ", report);
}

/* The command line of `bitbench run`. */
typedef struct {
    bb_overrides ov;
    int *threads, nthreads;
    int *cpus, ncpus;   /* --cpus */
    const char *cpus_arg;
    char **only;
    const char *db;     /* --db: the results database the run is stored in */
    bool allow_missing_peers;
    int nonly;
    bool resume, quiet, dry;
    uint64_t max_points;  /* --max-points */
    const char *file, *size;
    const char *meters; /* --meters papi,rapl: added to the file's meters */
    const char *threads_arg;
    bb_shard shard;     /* count 0: not sharded */
    const char *repeat; /* --repeat RUN_DIR */
    bb_repeat rep;      /* what that folder holds */
} run_args;

static void run_args_free(run_args *a)
{
    bb_shard_free(&a->shard);
    free(a->threads);
    free(a->cpus);
    for (int i = 0; i < a->nonly; i++) free(a->only[i]);
    free(a->only);
}

/* One option; returns -1 to go on, else the exit status (2: a bad option, said on stderr). */
static int parse_option(int c, char **argv, const bb_machine *mach, run_args *a)
{
    (void)mach; /* thread counts and CPUs are checked against the affinity mask by bb_plan_build */
    switch (c) {
    case 't':
        free(a->threads);
        a->threads = NULL;
        a->threads_arg = optarg;
        return bb_parse_int_list("--threads", optarg, 1, 1 << 16, &a->threads, &a->nthreads) ? 2 : -1;
    case 'c':
        free(a->cpus);
        a->cpus_arg = optarg;
        return bb_parse_cpus(optarg, &a->cpus, &a->ncpus) ? 2 : -1;
    case 'r': return bb_parse_int("--reps", optarg, 1, 10000000, &a->ov.reps) ? 2 : -1;
    case 'T': return bb_parse_double("--min-time", optarg, 0, 3600, &a->ov.min_seconds) ? 2 : -1;
    case 'o':
        if (!*optarg) {
            fprintf(stderr, "bitbench run: --out: empty directory name\n");
            return 2;
        }
        a->ov.out = optarg;
        return -1;
    case 'O': return add_only(&a->only, &a->nonly, optarg) ? 2 : -1;
    case 'M': a->meters = optarg; return -1;
    case 'S':
    case 'F':
        if (a->size && strcmp(a->size, c == 'S' ? "smoke" : "full")) {
            fprintf(stderr, "bitbench run: --smoke and --full exclude each other (one size per run)\n");
            return 2;
        }
        a->size = c == 'S' ? "smoke" : "full";
        return -1;
    case 'R': a->resume = true; return -1;
    case 'H':
    case 'G': {
        char err[256];
        if (c == 'H' ? bb_shard_parse(optarg, &a->shard, err, sizeof err) : bb_shard_check_group(optarg, err, sizeof err)) {
            say(err);
            return 2;
        }
        if (c == 'G') snprintf(a->shard.group, sizeof a->shard.group, "%s", optarg);
        return -1;
    }
    case 'D': a->dry = true; return -1;
    case 'q': a->quiet = true; return -1;
    case 'A': a->allow_missing_peers = true; return -1;
    case 'B': a->db = optarg; return -1;
    case 'P': return bb_parse_u64("--max-points", optarg, &a->max_points) ? 2 : -1;
    case 'U': bb_experiment_set_unsafe_lua(true); return -1;
    case 'p': {
        char err[1400];
        if (bb_peer_set_program(optarg, err, sizeof err)) {
            say(err);
            return 2;
        }
        return -1;
    }
    case 'I':
    case 'm': {
        uint64_t v;
        const char *opt = c == 'I' ? "--lua-max-instructions" : "--lua-max-memory";
        if (bb_parse_u64(opt, optarg, &v)) return 2;
        if (!v || (c == 'm' && v > ((uint64_t)1 << 30))) {
            fprintf(stderr, "bitbench run: %s: '%s' must be from 1 to %s\n", opt, optarg,
                    c == 'm' ? "1073741824 (MiB)" : "2^64-1");
            return 2;
        }
        bb_lua_set_limits(c == 'I' ? v : 0, c == 'm' ? (size_t)v << 20 : 0);
        return -1;
    }
    case 'E':
        if (!*optarg) {
            fprintf(stderr, "bitbench run: --repeat: empty run folder name\n");
            return 2;
        }
        a->repeat = optarg;
        return -1;
    case 'h': usage(stdout); return 0;
    default:
        fprintf(stderr, "bitbench run: unknown or incomplete option '%s'\n", argv[optind - 1]);
        usage(stderr);
        return 2;
    }
}

/* --repeat RUN_DIR: the folder checked (run/run_repeat.h), its experiment.lua the file, its models/
 * the model configs, and its recorded settings wherever the command line gave none.  Returns -1 to
 * go on, else the exit status. */
static int apply_repeat(run_args *a)
{
    char err[4096];
    bb_repeat *r = &a->rep;
    if (bb_repeat_prepare(a->repeat, r, err, sizeof err)) {
        say(err);
        return 2;
    }
    a->file = r->file;
    /* the model configs the run used, not this machine's models/ (which may have changed) */
    if (setenv("BITBENCH_MODELS", r->models_dir, 1)) {
        fprintf(stderr, "bitbench run: --repeat: cannot set BITBENCH_MODELS\n");
        return 1;
    }
    if (!a->size && r->size[0]) {
        if (strcmp(r->size, "smoke") && strcmp(r->size, "full")) {
            char line[2400];
            snprintf(line, sizeof line, "--repeat: %s/run.json: run_settings.size '%s' is not smoke or full", a->repeat,
                     r->size);
            say(line);
            return 2;
        }
        a->size = !strcmp(r->size, "smoke") ? "smoke" : "full";
    }
    if (!a->threads_arg && r->threads[0]) {
        a->threads_arg = r->threads;
        if (bb_parse_int_list("--threads", r->threads, 1, 1 << 16, &a->threads, &a->nthreads)) return 2;
    }
    if (!a->ov.reps && r->reps[0] && bb_parse_int("--reps", r->reps, 1, 10000000, &a->ov.reps)) return 2;
    if (a->ov.min_seconds < 0 && r->min_time[0] &&
        bb_parse_double("--min-time", r->min_time, 0, 3600, &a->ov.min_seconds))
        return 2;
    if (!a->nonly && r->only[0] && add_only(&a->only, &a->nonly, r->only)) return 2;
    if (!a->meters && r->meters[0]) a->meters = r->meters;
    return -1;
}

/* The options and the one experiment file; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, const bb_machine *mach, run_args *a)
{
    static const struct option opts[] = {
        {"threads", required_argument, 0, 't'}, {"reps", required_argument, 0, 'r'},
        {"db", required_argument, 0, 'B'},
        {"min-time", required_argument, 0, 'T'}, {"out", required_argument, 0, 'o'},
        {"only", required_argument, 0, 'O'},    {"resume", no_argument, 0, 'R'},
        {"dry-run", no_argument, 0, 'D'},       {"quiet", no_argument, 0, 'q'},
        {"meters", required_argument, 0, 'M'},  {"help", no_argument, 0, 'h'},
        {"smoke", no_argument, 0, 'S'},         {"full", no_argument, 0, 'F'},
        {"shard", required_argument, 0, 'H'},   {"shard-group", required_argument, 0, 'G'},
        {"max-points", required_argument, 0, 'P'}, {"unsafe-lua", no_argument, 0, 'U'},
        {"peer", required_argument, 0, 'p'},
        {"lua-max-instructions", required_argument, 0, 'I'}, {"lua-max-memory", required_argument, 0, 'm'},
        {"allow-missing-peers", no_argument, 0, 'A'},
        {"cpus", required_argument, 0, 'c'},
        {"repeat", required_argument, 0, 'E'},
        {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        int rc = parse_option(c, argv, mach, a);
        if (rc >= 0) return rc;
    }
    if (a->repeat) {
        if (optind < argc) {
            fprintf(stderr, "bitbench run: --repeat %s runs the folder's own experiment.lua; '%s' is one file too "
                    "many\n", a->repeat, argv[optind]);
            return 2;
        }
        if (a->resume) {
            fprintf(stderr, "bitbench run: --repeat and --resume exclude each other (a repeat is a new run; "
                    "--resume continues the newest run of a file)\n");
            return 2;
        }
        int rc = apply_repeat(a);
        if (rc >= 0) return rc;
    } else if (optind >= argc) {
        fprintf(stderr, "bitbench run: which experiment? give a FILE.lua (see experiments/)\n");
        usage(stderr);
        return 2;
    } else if (optind + 1 < argc) {
        fprintf(stderr, "bitbench run: unexpected argument '%s' (one experiment file per run)\n", argv[optind + 1]);
        return 2;
    } else {
        a->file = argv[optind];
    }
    if (a->shard.group[0] && !a->shard.count) {
        fprintf(stderr, "bitbench run: --shard-group needs --shard i/n\n");
        return 2;
    }
    a->ov.threads = a->threads;
    a->ov.nthreads = a->nthreads;
    a->ov.cpus = a->cpus;
    a->ov.ncpus = a->ncpus;
    a->ov.only = (const char *const *)a->only;
    a->ov.nonly = a->nonly;
    return -1;
}

/* --meters M[,M..]: each added to the file's meters once.  Returns 0, or -1 after saying why. */
static int add_meters(bb_experiment *ex, const char *arg)
{
    char list[512], names[256];
    snprintf(list, sizeof list, "%s", arg);
    for (char *save = NULL, *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        if (!bb_meter_type_by_name(m)) {
            bb_meter_type_names(names, sizeof names);
            fprintf(stderr, "bitbench run: --meters: unknown meter '%s'; valid meters: %s\n", m, names);
            return -1;
        }
        int dup = 0;
        for (int j = 0; j < ex->nmeters && !dup; j++) dup = strcmp(ex->meters[j], m) == 0;
        if (dup) continue;
        void *grown = realloc(ex->meters, sizeof *ex->meters * (size_t)(ex->nmeters + 1));
        if (!grown) return -1;
        ex->meters = grown;
        snprintf(ex->meters[ex->nmeters++], sizeof ex->meters[0], "%s", m);
    }
    return 0;
}

/* Load the file, apply the overrides and plan it; notes and skipped points on stderr.  Returns 0,
 * or -1 after saying why. */
static int load_and_plan(const run_args *a, const bb_machine *mach, bb_experiment *ex, bb_plan *plan)
{
    char err[4096];
    if (bb_experiment_load_sized(a->file, mach, a->size, ex, err, sizeof err)) {
        say(err);
        return -1;
    }
    if (a->meters && add_meters(ex, a->meters)) return -1;
    if (bb_experiment_override(ex, &a->ov, mach, err, sizeof err)) {
        say(err);
        return -1;
    }
    if (!a->quiet)
        for (int i = 0; i < ex->nwarnings; i++) say_that("note: ", ex->warnings[i]);
    if (bb_plan_check_size(ex, a->max_points, err, sizeof err)) {
        say(err);
        return -1;
    }
    int prc = bb_plan_build(ex, mach, plan, err, sizeof err);
    if (!a->quiet || prc)
        for (int i = 0; i < plan->nskipped; i++) say(plan->skipped[i]);
    if (prc) {
        say(err);
        return -1;
    }
    return 0;
}

/* The options that change what a shard measures, in a fixed order, so that `bitbench merge` can
 * refuse shards run with different ones (--out, --resume, --quiet and --dry-run change nothing
 * measured). */
static void shard_settings(const run_args *a, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "size=%s threads=%s cpus=%s reps=%d min_time=%.17g meters=%s only=",
                                   a->size ? a->size : "default", a->threads_arg ? a->threads_arg : "",
                                   a->cpus_arg ? a->cpus_arg : "", a->ov.reps, a->ov.min_seconds,
                                   a->meters ? a->meters : "");
    for (int i = 0; i < a->nonly && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", a->only[i]);
}

/* The command line's part of the run's settings (run_settings.h): each option as given, "" when
 * absent. */
static void command_settings(const run_args *a, bb_run_settings *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->size, sizeof s->size, "%s", a->size ? a->size : "");
    snprintf(s->threads, sizeof s->threads, "%s", a->threads_arg ? a->threads_arg : "");
    if (a->ov.reps) snprintf(s->reps, sizeof s->reps, "%d", a->ov.reps);
    if (a->ov.min_seconds >= 0) snprintf(s->min_time, sizeof s->min_time, "%.17g", a->ov.min_seconds);
    size_t used = 0;
    for (int i = 0; i < a->nonly && used < sizeof s->only; i++) {
        int w = snprintf(s->only + used, sizeof s->only - used, "%s%s", i ? "," : "", a->only[i]);
        if (w > 0) used += (size_t)w;
    }
    snprintf(s->meters, sizeof s->meters, "%s", a->meters ? a->meters : "");
}

/* --shard: cut the plan down to this shard's share; with --dry-run, say what the share is. */
static int apply_shard(run_args *a, const bb_experiment *ex, bb_plan *plan)
{
    char err[512];
    bb_shard *s = &a->shard;
    shard_settings(a, s->settings, sizeof s->settings);
    if (bb_shard_apply(ex, plan, s, err, sizeof err)) {
        say(err);
        return -1;
    }
    if (a->dry) {
        printf("shard %d/%d%s%s: %d of %d points and %d of %d end-to-end points, estimated %.1f s of %.1f s; plan "
               "sha256 %s\n", s->index, s->count, s->group[0] ? " of group " : "", s->group, s->npoints,
               s->plan_points, s->ne2e, s->plan_e2e, s->estimate_s, s->plan_estimate_s, s->plan_sha256);
    }
    return 0;
}

int bb_cmd_run(int argc, char **argv)
{
    bb_machine mach;
    bb_machine_detect(&mach);
    run_args a = {.ov = {.min_seconds = -1}, .max_points = BB_PLAN_DEFAULT_MAX_POINTS};
    bb_experiment ex = {0};
    bb_plan plan = {0};
    int status = parse_args(argc, argv, &mach, &a);
    if (status >= 0) goto out;
    status = 2;
    if (load_and_plan(&a, &mach, &ex, &plan)) goto out;
    if (a.shard.count && apply_shard(&a, &ex, &plan)) goto out;
    if (a.dry) {
        print_plan(&ex, &plan);
        status = 0;
        goto out;
    }
    bb_run_settings settings;
    command_settings(&a, &settings);
    int peer_points = 0, peer_rows = 0;
    bb_run_options ro = {.resume = a.resume, .quiet = a.quiet, .shard = a.shard.count ? &a.shard : NULL,
                         .settings = &settings, .allow_missing_peers = a.allow_missing_peers,
                         .peer_points = &peer_points, .peer_rows = &peer_rows};
    /* argv here starts at "run"; record the whole command line from the program name */
    ro.argc = argc + 1;
    ro.argv = argv - 1;
    char run_dir[BB_RUN_DIR_MAX] = "";
    ro.run_dir = run_dir;
    ro.run_dir_len = sizeof run_dir;
    if (a.repeat) {
        ro.repeat_of_dir = a.repeat;
        ro.repeat_of_id = a.rep.run_id;
    }
    if (a.db && bb_run_db_check("bitbench run", a.db)) goto out;
    status = bb_sweep_run(&ex, &plan, &mach, &ro);
    if (run_dir[0] && a.db && bb_run_db_store_dir("bitbench run", a.db, run_dir, a.quiet) && status == 0) status = 1;
    if (run_dir[0] && status < 128) finish_run(&ex, &mach, run_dir, a.quiet);
    /* the last line, even with --quiet: a comparison without its peers is no comparison */
    if (peer_rows < peer_points)
        fprintf(stderr, "bitbench run: %d of %d peer points ran%s\n", peer_rows, peer_points,
                a.allow_missing_peers ? " (allowed by --allow-missing-peers)" : " (see run.json's \"failed\")");
out:
    bb_plan_free(&plan);
    bb_experiment_free(&ex);
    run_args_free(&a);
    return status;
}
