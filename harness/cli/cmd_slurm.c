/* bitbench slurm FILE.lua --shards N [...]: the sbatch scripts that run an experiment as a Slurm
 * job array of shards and merge them (slurm_script.h), and with --submit their submission. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cluster/slurm_script.h"
#include "io/shell_word.h"
#include "io/sha256.h"
#include "peers/peer.h"
#include "plan/experiment.h"
#include "plan/shard.h"
#include "support/machine.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bitbench slurm FILE.lua --shards N [options] [run options]\n"
            "  --shards N          array tasks per node type: shard i of N runs on one whole node\n"
            "  --partition P       --time T   --account A     passed to sbatch as they are\n"
            "  --constraint C      the node type (sbatch --constraint); repeat it for a heterogeneous\n"
            "                      cluster: one array per node type, each measuring the whole plan\n"
            "  --cpus-per-task N   default: this machine's physical cores\n"
            "  --out DIR           where scripts, logs/, shards/ and merged/ go (default slurm/<experiment>)\n"
            "  --merge-after any|ok  the merge job's dependency on the arrays (default any: it runs even\n"
            "                      when shards failed, merges what finished and names the rest)\n"
            "  --submit            submit the arrays and the merge job (submit.sh) and print the job ids\n"
            "Run options passed to every shard: --smoke, --full, --threads L, --reps R, --min-time S,\n"
            "--only K, --meters M, --max-points N, --unsafe-lua, --peer NAME=PATH (the peer's program on\n"
            "the nodes), --allow-missing-peers.  The file is checked here first (`bitbench\n"
            "run --dry-run`).\n");
}

/* The binary's own path, the file's absolute path, both pinned by SHA-256. */
static int pin_paths(bb_slurm_job *job, const char *file, char *err, size_t errlen)
{
    ssize_t n = readlink("/proc/self/exe", job->bitbench, sizeof job->bitbench - 1);
    char real[PATH_MAX];
    if (n <= 0) {
        snprintf(err, errlen, "cannot find this bitbench binary (/proc/self/exe): %s", strerror(errno));
        return -1;
    }
    job->bitbench[n] = 0;
    if (!realpath(file, real)) {
        snprintf(err, errlen, "%s: %s", file, strerror(errno));
        return -1;
    }
    if (strlen(real) >= sizeof job->experiment) {
        snprintf(err, errlen, "%s: the path is too long for the scripts", file);
        return -1;
    }
    memcpy(job->experiment, real, strlen(real) + 1);
    if (bb_slurm_check_value("the experiment path", job->experiment, false, err, errlen) ||
        bb_slurm_check_value("the bitbench binary's path", job->bitbench, false, err, errlen))
        return -1;
    if (bb_sha256_file(job->bitbench, job->bitbench_sha256) || bb_sha256_file(job->experiment, job->experiment_sha256)) {
        snprintf(err, errlen, "cannot read %s or %s to pin it", job->bitbench, job->experiment);
        return -1;
    }
    if (!getcwd(job->workdir, sizeof job->workdir)) {
        snprintf(err, errlen, "cannot read the working directory: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* Check the experiment as every shard will: `bitbench run FILE --dry-run --shard 0/N ...`, its
 * plan on stdout dropped, its error (if any) on stderr.  Returns its exit status. */
static int check_experiment(const bb_slurm_job *job)
{
    char shard[32];
    snprintf(shard, sizeof shard, "0/%d", job->shards);
    const char *argv[BB_SLURM_MAX_ARGS + 12] = {job->bitbench, "run", job->experiment, "--dry-run", "--quiet",
                                                "--shard", shard};
    int n = 7;
    for (int i = 0; i < job->nrun_args; i++) argv[n++] = job->run_args[i];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        execv(job->bitbench, (char *const *)argv);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) return 2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

/* The scripts' directory: made, absolute, free of characters #SBATCH lines cannot carry (out itself
 * was checked before anything was made). */
static int make_dir(bb_slurm_job *job, const char *out, char *err, size_t errlen)
{
    char buf[1024];
    /* a longer --out would be cut short here, and the scripts written into another folder */
    if (out && strlen(out) >= sizeof buf) {
        snprintf(err, errlen, "--out '%.60s...': %zu bytes, longer than the %zu a job script's path may have", out,
                 strlen(out), sizeof buf - 1);
        return -1;
    }
    if (out) snprintf(buf, sizeof buf, "%s", out);
    else snprintf(buf, sizeof buf, "slurm/%s", job->name);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0777);
            *p = '/';
        }
    char real[PATH_MAX];
    if ((mkdir(buf, 0777) && errno != EEXIST) || !realpath(buf, real)) {
        snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
        return -1;
    }
    if (strlen(real) >= sizeof job->dir) {
        snprintf(err, errlen, "%s: the path is too long for the scripts", buf);
        return -1;
    }
    memcpy(job->dir, real, strlen(real) + 1);
    /* Both go into #SBATCH lines (--output, --chdir); the writer checks them again with the rest. */
    return bb_slurm_check_value("--out", job->dir, true, err, errlen) ||
                   bb_slurm_check_value("the working directory", job->workdir, true, err, errlen)
               ? -1
               : 0;
}

/* 0 when value can go into the scripts as option's value (slurm_script.h), else -1 after one error
 * line: checked as the options are read, before any directory is made. */
static int script_value(const char *option, const char *value, bool sbatch_line)
{
    char err[512];
    if (!bb_slurm_check_value(option, value, sbatch_line, err, sizeof err)) return 0;
    fprintf(stderr, "bitbench slurm: %s\n", err);
    return -1;
}

/* A run option passed on to every shard (and to the check). */
static int add_run_arg(bb_slurm_job *job, const char *opt, const char *value)
{
    if (value && script_value(opt, value, false)) return -1;
    if (job->nrun_args + 2 > BB_SLURM_MAX_ARGS) {
        fprintf(stderr, "bitbench slurm: too many run options (at most %d)\n", BB_SLURM_MAX_ARGS / 2);
        return -1;
    }
    job->run_args[job->nrun_args++] = opt;
    if (value) job->run_args[job->nrun_args++] = value;
    return 0;
}

/* --peer NAME=PATH for every shard: the person submitting chooses the program, as with `bitbench
 * run --peer` (the experiment file never does).  NAME is checked here; PATH is a path on the
 * nodes, so it need not exist on this machine, and is quoted for bash with the other run options. */
static int peer_arg(bb_slurm_job *job, const char *value)
{
    char err[512];
    if (bb_peer_set_program(value, err, sizeof err)) {
        fprintf(stderr, "bitbench slurm: %s\n", err);
        return -1;
    }
    return add_run_arg(job, "--peer", value);
}

static int add_constraint(bb_slurm_job *job, const char *c)
{
    if (script_value("--constraint", c, true)) return -1;
    if (job->ngroups == BB_SLURM_MAX_GROUPS || !*c) {
        fprintf(stderr, "bitbench slurm: --constraint: %s\n", *c ? "too many node types (at most 16)" : "empty");
        return -1;
    }
    job->constraints[job->ngroups] = c;
    bb_slurm_group_label(c, job->groups[job->ngroups], sizeof job->groups[0]);
    for (int g = 0; g < job->ngroups; g++)
        if (!strcmp(job->groups[g], job->groups[job->ngroups])) {
            fprintf(stderr, "bitbench slurm: --constraint '%s' and '%s' give the same group name '%s'\n",
                    job->constraints[g], c, job->groups[g]);
            return -1;
        }
    job->ngroups++;
    return 0;
}

/* One option; -1 to go on, else the exit status. */
static int parse_option(int c, char **argv, bb_slurm_job *job, const char **out, bool *submit)
{
    switch (c) {
    case 'n': return bb_parse_int("--shards", optarg, 1, BB_SHARD_MAX, &job->shards) ? 2 : -1;
    case 'p': job->partition = optarg; return script_value("--partition", optarg, true) ? 2 : -1;
    case 't': job->time = optarg; return script_value("--time", optarg, true) ? 2 : -1;
    case 'a': job->account = optarg; return script_value("--account", optarg, true) ? 2 : -1;
    case 'c': return add_constraint(job, optarg) ? 2 : -1;
    case 'C': return bb_parse_int("--cpus-per-task", optarg, 1, 1 << 20, &job->cpus_per_task) ? 2 : -1;
    case 'o': *out = optarg; return script_value("--out", optarg, true) ? 2 : -1;
    case 'm':
        if (strcmp(optarg, "any") && strcmp(optarg, "ok")) {
            fprintf(stderr, "bitbench slurm: --merge-after: expected any or ok, got '%s'\n", optarg);
            return 2;
        }
        job->merge_after_ok = !strcmp(optarg, "ok");
        return -1;
    case 's': *submit = true; return -1;
    case 'S': return add_run_arg(job, "--smoke", NULL) ? 2 : -1;
    case 'F': return add_run_arg(job, "--full", NULL) ? 2 : -1;
    case 'T': return add_run_arg(job, "--threads", optarg) ? 2 : -1;
    case 'r': return add_run_arg(job, "--reps", optarg) ? 2 : -1;
    case 'i': return add_run_arg(job, "--min-time", optarg) ? 2 : -1;
    case 'O': return add_run_arg(job, "--only", optarg) ? 2 : -1;
    case 'M': return add_run_arg(job, "--meters", optarg) ? 2 : -1;
    case 'P': return add_run_arg(job, "--max-points", optarg) ? 2 : -1;
    case 'U': return add_run_arg(job, "--unsafe-lua", NULL) ? 2 : -1;
    case 'e': return peer_arg(job, optarg) ? 2 : -1;
    case 'A': return add_run_arg(job, "--allow-missing-peers", NULL) ? 2 : -1;
    case 'h': usage(stdout); return 0;
    default:
        fprintf(stderr, "bitbench slurm: unknown or incomplete option '%s'\n", argv[optind - 1]);
        usage(stderr);
        return 2;
    }
}

/* `sbatch --parsable [dependency] script` in dir, as submit.sh runs it but from an argument vector
 * (no shell), and the job id it prints ("ID" or "ID;CLUSTER") in id.  0, or -1 after an error line. */
static int sbatch(const char *dir, const char *dependency, const char *script, char *id, size_t idlen)
{
    int fd[2];
    if (pipe(fd)) {
        fprintf(stderr, "bitbench slurm: cannot start sbatch: %s\n", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        const char *argv[] = {"sbatch", "--parsable", dependency ? dependency : script, dependency ? script : NULL,
                              NULL};
        close(fd[0]);
        if (dup2(fd[1], STDOUT_FILENO) < 0 || chdir(dir)) _exit(127);
        execvp("sbatch", (char *const *)argv);
        _exit(127);
    }
    close(fd[1]);
    char out[256], chunk[256];
    size_t n = 0;
    for (;;) { /* the first bytes kept, the rest read to the end so that sbatch never blocks */
        ssize_t got = read(fd[0], chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        size_t keep = (size_t)got < sizeof out - 1 - n ? (size_t)got : sizeof out - 1 - n;
        memcpy(out + n, chunk, keep);
        n += keep;
    }
    out[n] = 0;
    close(fd[0]);
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    size_t digits = strspn(out, "0123456789");
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || digits == 0 || digits >= idlen ||
        !strchr(";\r\n", out[digits])) {
        fprintf(stderr, "bitbench slurm: sbatch %s in %s failed (%s %d): is sbatch on PATH and the cluster up?\n",
                script, dir, pid < 0 ? "fork" : WIFEXITED(st) ? "exit" : "signal",
                pid < 0 ? errno : WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        return -1;
    }
    memcpy(id, out, digits);
    id[digits] = 0;
    return 0;
}

/* --submit: what submit.sh does, the arrays and then the merge job after them; the job ids printed. */
static int submit_all(const bb_slurm_job *job)
{
    char dependency[64 + BB_SLURM_MAX_GROUPS * 24], id[24], name[128];
    size_t n = (size_t)snprintf(dependency, sizeof dependency, "--dependency=%s",
                                job->merge_after_ok ? "afterok" : "afterany");
    for (int g = 0; g < job->ngroups; g++) {
        bb_slurm_array_name(job, g, name, sizeof name);
        if (sbatch(job->dir, NULL, name, id, sizeof id)) return 1;
        n += (size_t)snprintf(dependency + n, sizeof dependency - n, ":%s", id);
        printf("array job %s: %s, shards 0-%d\n", id, name, job->shards - 1);
        fflush(stdout);
    }
    if (sbatch(job->dir, dependency, "merge.sbatch", id, sizeof id)) return 1;
    printf("merge job %s: merge.sbatch, into %s/merged\n", id, job->dir);
    return 0;
}

static void join_args(int argc, char **argv, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < argc && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

/* The experiment's name as the run directories use it: the file's base name without .lua (the
 * job name only; the runs take the name the file declares). */
static void base_name(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(buf, len, "%s", b ? b + 1 : path);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf) *dot = 0;
}

int bb_cmd_slurm(int argc, char **argv)
{
    static const struct option opts[] = {
        {"shards", required_argument, 0, 'n'},     {"partition", required_argument, 0, 'p'},
        {"time", required_argument, 0, 't'},       {"account", required_argument, 0, 'a'},
        {"constraint", required_argument, 0, 'c'}, {"cpus-per-task", required_argument, 0, 'C'},
        {"out", required_argument, 0, 'o'},        {"merge-after", required_argument, 0, 'm'},
        {"submit", no_argument, 0, 's'},           {"smoke", no_argument, 0, 'S'},
        {"full", no_argument, 0, 'F'},             {"threads", required_argument, 0, 'T'},
        {"reps", required_argument, 0, 'r'},       {"min-time", required_argument, 0, 'i'},
        {"only", required_argument, 0, 'O'},       {"meters", required_argument, 0, 'M'},
        {"max-points", required_argument, 0, 'P'}, {"unsafe-lua", no_argument, 0, 'U'},
        {"peer", required_argument, 0, 'e'},       {"allow-missing-peers", no_argument, 0, 'A'},
        {"help", no_argument, 0, 'h'},             {0, 0, 0, 0}};
    static bb_slurm_job job;
    memset(&job, 0, sizeof job);
    const char *out = NULL;
    bool submit = false;
    char err[4096], cmdline[4096];
    optind = 1;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
        int rc = parse_option(c, argv, &job, &out, &submit);
        if (rc >= 0) return rc;
    }
    if (optind + 1 != argc || !job.shards) {
        fprintf(stderr, "bitbench slurm: %s\n", optind >= argc ? "which experiment? give a FILE.lua"
                                                : optind + 1 < argc ? "one experiment file at a time"
                                                                    : "how many shards? give --shards N");
        usage(stderr);
        return 2;
    }
    if (!job.ngroups) job.ngroups = 1; /* one node type: no constraint, group "" */
    if (!job.cpus_per_task) {
        bb_machine mach;
        bb_machine_detect(&mach);
        job.cpus_per_task = mach.cores > 0 ? mach.cores : 1;
    }
    join_args(argc + 1, argv - 1, cmdline, sizeof cmdline);
    job.command_line = cmdline;
    base_name(argv[optind], job.name, sizeof job.name);
    if (pin_paths(&job, argv[optind], err, sizeof err) || make_dir(&job, out, err, sizeof err)) {
        fprintf(stderr, "bitbench slurm: %s\n", err);
        return 2;
    }
    if (check_experiment(&job)) {
        fprintf(stderr, "bitbench slurm: %s does not run as a shard (above); no scripts written\n", argv[optind]);
        return 2;
    }
    if (bb_slurm_write_scripts(&job, err, sizeof err)) {
        fprintf(stderr, "bitbench slurm: %s\n", err);
        return 1;
    }
    printf("scripts in %s:", job.dir);
    for (int g = 0; g < job.ngroups; g++)
        printf(" %s%s%s", job.groups[g][0] ? "array-" : "array", job.groups[g], ".sbatch");
    printf(" merge.sbatch submit.sh\n");
    if (!submit) {
        /* a command to copy into a shell: the folder may be named after an experiment file from
         * someone else (slurm/NAME), whose name may hold $(...) */
        char submit_sh[sizeof job.dir + 16];
        snprintf(submit_sh, sizeof submit_sh, "%s/submit.sh", job.dir);
        printf("submit with: ");
        bb_shell_path_shown(stdout, submit_sh);
        putchar('\n');
        return 0;
    }
    return submit_all(&job);
}
