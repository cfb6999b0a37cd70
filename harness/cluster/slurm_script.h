/* The scripts of `bitbench slurm` (README "Running on a cluster"): per node type one sbatch
 * job-array script whose task i runs `bitbench run FILE --shard i/n` on a whole node, a merge job
 * script, and submit.sh, which submits the arrays and then the merge job depending on them.
 *
 * Benchmarks must not share a node: each array task asks for one node, --exclusive, and
 * --hint=nomultithread (one thread per core, as the harness places them).  The bitbench binary
 * and the experiment file are named by absolute path and pinned by SHA-256: a task refuses to
 * start (exit 3) when either changed after the scripts were written, so a rebuilt binary cannot
 * slip into half of the shards.  A task whose shard directory already holds a run resumes it
 * (--resume), so a requeued or resubmitted array continues where it stopped; a complete shard is
 * left alone.
 *
 * The scripts are shared and run on other machines, so they are safe by construction (issue 29):
 * every value (paths, options, run options) is checked first (bb_slurm_check_job: no control
 * character, so no value can start a line of its own), and in the bash code each value is one
 * single-quoted word (a quote inside as '\''), assigned once at the top of the script and used
 * only as "$name" after that: nothing evaluates a value.  The #SBATCH lines are read by sbatch,
 * which splits on blanks and takes quotes, backslashes and '#' as syntax, so the values written
 * there (--partition, --account, --time, --constraint, --out, the working directory) must be free
 * of those characters; the job name is a label made of the experiment's file name. */
#ifndef BB_SLURM_SCRIPT_H
#define BB_SLURM_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BB_SLURM_MAX_GROUPS 16
#define BB_SLURM_MAX_ARGS 64

typedef struct {
    char dir[1024];                   /* where the scripts, logs, shards and merged run go (absolute) */
    char bitbench[1024], bitbench_sha256[65];
    char experiment[1024], experiment_sha256[65], name[64];
    char workdir[1024];               /* the jobs' working directory: where `bitbench slurm` ran */
    int shards, cpus_per_task;
    const char *partition, *time, *account; /* NULL: the cluster's default */
    const char *constraints[BB_SLURM_MAX_GROUPS];
    char groups[BB_SLURM_MAX_GROUPS][64]; /* one per constraint, "" without one */
    int ngroups;                      /* at least 1 */
    bool merge_after_ok;              /* afterok instead of afterany */
    const char *run_args[BB_SLURM_MAX_ARGS]; /* options passed on to `bitbench run` */
    int nrun_args;
    const char *command_line;         /* for the scripts' first comment */
} bb_slurm_job;

/* A group label from a constraint: its letters, digits, '.', '_' and '-', the rest as '_'. */
void bb_slurm_group_label(const char *constraint, char *buf, size_t len);

/* 0 when value can go into a script as the value of option (a name for the error: "--partition",
 * "the experiment path"): it holds no control character (bytes below 0x20, and 0x7f), and when
 * sbatch_line is set also no blank, quote, backslash, '#' or '%'.  Else -1 with one line in err
 * naming the option and the value (its control characters written as \n, \xNN). */
int bb_slurm_check_value(const char *option, const char *value, bool sbatch_line, char *err, size_t errlen);

/* Every value of job checked as bb_slurm_check_value does, the hashes as 64 hex digits, the counts
 * in range.  0, or -1 with err. */
int bb_slurm_check_job(const bb_slurm_job *job, char *err, size_t errlen);

/* The file name of group g's array script: array.sbatch, or array-GROUP.sbatch. */
void bb_slurm_array_name(const bb_slurm_job *job, int g, char *buf, size_t len);

/* The scripts' text, for a job bb_slurm_check_job accepted (the writer below checks first). */
void bb_slurm_render_array(const bb_slurm_job *job, int g, FILE *f);
void bb_slurm_render_merge(const bb_slurm_job *job, FILE *f);
void bb_slurm_render_submit(const bb_slurm_job *job, FILE *f);

/* Check the job, then write array[-GROUP].sbatch, merge.sbatch and submit.sh into job->dir (and
 * make logs/).  Returns 0, or -1 with err. */
int bb_slurm_write_scripts(const bb_slurm_job *job, char *err, size_t errlen);

#endif
