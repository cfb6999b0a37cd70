#include "slurm_script.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void bb_slurm_group_label(const char *constraint, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *p = constraint; *p && n + 1 < len; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '_' || c == '-';
        buf[n++] = ok ? c : '_';
    }
    buf[n] = 0;
}

/* s as one shell word: in single quotes, a quote inside as '\''. */
static void sh_word(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

/* The #SBATCH lines both kinds of job share. */
static void common_options(FILE *f, const bb_slurm_job *job)
{
    if (job->partition) fprintf(f, "#SBATCH --partition=%s\n", job->partition);
    if (job->account) fprintf(f, "#SBATCH --account=%s\n", job->account);
    if (job->time) fprintf(f, "#SBATCH --time=%s\n", job->time);
    fprintf(f, "#SBATCH --chdir=%s\n", job->workdir);
}

/* The shell function that refuses a changed file, and its calls. */
static void pin_files(FILE *f, const bb_slurm_job *job, bool experiment)
{
    fprintf(f, "# Run exactly what this script was written for: a rebuilt binary or an edited experiment\n"
               "# would make this shard measure something else than the others.\n"
               "pin() {\n"
               "  actual=$(sha256sum \"$1\" | cut -d' ' -f1) || exit 3\n"
               "  if [ \"$actual\" != \"$2\" ]; then\n"
               "    echo \"bitbench slurm: $1 has changed since the script was written (sha256 $actual, expected $2);"
               " write the scripts again\" >&2\n"
               "    exit 3\n"
               "  fi\n"
               "}\n");
    fputs("bitbench=", f);
    sh_word(f, job->bitbench);
    fprintf(f, "\npin \"$bitbench\" %s\n", job->bitbench_sha256);
    if (experiment) {
        fputs("experiment=", f);
        sh_word(f, job->experiment);
        fprintf(f, "\npin \"$experiment\" %s\n", job->experiment_sha256);
    }
}

static FILE *open_script(const bb_slurm_job *job, const char *name, char *path, size_t len, char *err, size_t errlen)
{
    snprintf(path, len, "%s/%s", job->dir, name);
    FILE *f = fopen(path, "w");
    if (!f) snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    else fprintf(f, "#!/bin/bash\n");
    return f;
}

static int close_script(FILE *f, const char *path, char *err, size_t errlen)
{
    int bad = fflush(f) != 0 || ferror(f);
    bad |= fclose(f) != 0;
    if (bad || chmod(path, 0755)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static void array_name(const bb_slurm_job *job, int g, char *buf, size_t len)
{
    if (job->groups[g][0]) snprintf(buf, len, "array-%s.sbatch", job->groups[g]);
    else snprintf(buf, len, "array.sbatch");
}

static int write_array(const bb_slurm_job *job, int g, char *err, size_t errlen)
{
    char name[128], path[1200];
    const char *group = job->groups[g];
    array_name(job, g, name, sizeof name);
    FILE *f = open_script(job, name, path, sizeof path, err, errlen);
    if (!f) return -1;
    fprintf(f, "# Shards 0..%d of %s%s%s, one array task each; written by: %s\n", job->shards - 1, job->experiment,
            group[0] ? " on node type " : "", group[0] ? job->constraints[g] : "", job->command_line);
    fprintf(f, "#SBATCH --job-name=bitbench-%s%s%s\n", job->name, group[0] ? "-" : "", group);
    fprintf(f, "#SBATCH --array=0-%d\n", job->shards - 1);
    fprintf(f, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --exclusive\n");
    fprintf(f, "#SBATCH --cpus-per-task=%d\n#SBATCH --hint=nomultithread\n", job->cpus_per_task);
    if (group[0]) fprintf(f, "#SBATCH --constraint=%s\n", job->constraints[g]);
    fprintf(f, "#SBATCH --output=%s/logs/shard-%s%s%%a.out\n", job->dir, group, group[0] ? "-" : "");
    common_options(f, job);
    fprintf(f, "set -u\n");
    pin_files(f, job, true);
    fprintf(f, "shard=${SLURM_ARRAY_TASK_ID:?not an array task}\n");
    fputs("out=", f);
    sh_word(f, job->dir);
    fprintf(f, "/shards/%s%sshard-$shard\n", group, group[0] ? "-" : "");
    fprintf(f, "# A shard that ran before (a requeued or resubmitted task) continues; a complete one is left alone.\n"
               "resume=\n"
               "for sidecar in \"$out\"/*/run.json; do\n"
               "  [ -e \"$sidecar\" ] || continue\n"
               "  resume=--resume\n"
               "  if grep -q '\"status\": \"complete\"' \"$sidecar\"; then\n"
               "    echo \"bitbench slurm: shard $shard/%d is complete already: ${sidecar%%/run.json}\"\n"
               "    exit 0\n"
               "  fi\n"
               "done\n", job->shards);
    fprintf(f, "exec \"$bitbench\" run \"$experiment\" --shard \"$shard/%d\"", job->shards);
    if (group[0]) fprintf(f, " --shard-group %s", group);
    fprintf(f, " --out \"$out\" --quiet $resume");
    for (int i = 0; i < job->nrun_args; i++) {
        fputc(' ', f);
        sh_word(f, job->run_args[i]);
    }
    fputc('\n', f);
    return close_script(f, path, err, errlen);
}

static int write_merge(const bb_slurm_job *job, char *err, size_t errlen)
{
    char path[1200];
    FILE *f = open_script(job, "merge.sbatch", path, sizeof path, err, errlen);
    if (!f) return -1;
    fprintf(f, "# Merges the shards of %s once every array task has ended (%s); written by: %s\n", job->experiment,
            job->merge_after_ok ? "afterok: only when all succeeded" : "afterany: failed shards are named",
            job->command_line);
    fprintf(f, "#SBATCH --job-name=bitbench-%s-merge\n#SBATCH --nodes=1\n#SBATCH --ntasks=1\n"
               "#SBATCH --cpus-per-task=1\n", job->name);
    fprintf(f, "#SBATCH --output=%s/logs/merge.out\n", job->dir);
    common_options(f, job);
    fprintf(f, "set -u\n");
    pin_files(f, job, false);
    fprintf(f, "# Exit status 1 when shards are missing or unfinished: what there is is merged, and they are named.\n");
    fputs("\"$bitbench\" merge ", f);
    sh_word(f, job->dir);
    fputs("/shards -o ", f);
    sh_word(f, job->dir);
    fputs("/merged", f);
    if (job->groups[0][0]) {
        fputs(" --groups ", f);
        for (int g = 0; g < job->ngroups; g++) fprintf(f, "%s%s", g ? "," : "", job->groups[g]);
    }
    fprintf(f, "\nstatus=$?\n");
    if (job->ngroups > 1) {
        fprintf(f, "# Each node type also on its own, so that `bitbench compare merged-A merged-B` compares two of them.\n");
        for (int g = 0; g < job->ngroups; g++) {
            fprintf(f, "\"$bitbench\" merge --quiet ");
            sh_word(f, job->dir);
            fprintf(f, "/shards/%s-shard-* -o ", job->groups[g]);
            sh_word(f, job->dir);
            fprintf(f, "/merged-%s || status=1\n", job->groups[g]);
        }
    }
    fprintf(f, "[ \"$status\" -eq 0 ] || echo \"bitbench slurm: each array task's output is in %s/logs/\" >&2\n"
               "exit \"$status\"\n", job->dir);
    return close_script(f, path, err, errlen);
}

static int write_submit(const bb_slurm_job *job, char *err, size_t errlen)
{
    char path[1200], name[128];
    FILE *f = open_script(job, "submit.sh", path, sizeof path, err, errlen);
    if (!f) return -1;
    fprintf(f, "# Submits the array job%s, then the merge job after them; prints the job ids.\nset -eu\ncd ",
            job->ngroups > 1 ? "s (one per node type)" : "");
    sh_word(f, job->dir);
    fputs("\nafter=\n", f);
    for (int g = 0; g < job->ngroups; g++) {
        array_name(job, g, name, sizeof name);
        fprintf(f, "id=$(sbatch --parsable %s)\nid=${id%%%%;*}\nafter=\"$after:$id\"\n", name);
        fprintf(f, "echo \"array job $id: %s, shards 0-%d\"\n", name, job->shards - 1);
    }
    fprintf(f, "id=$(sbatch --parsable --dependency=%s$after merge.sbatch)\nid=${id%%%%;*}\n",
            job->merge_after_ok ? "afterok" : "afterany");
    fprintf(f, "echo \"merge job $id: merge.sbatch, into %s/merged\"\n", job->dir);
    return close_script(f, path, err, errlen);
}

int bb_slurm_write_scripts(const bb_slurm_job *job, char *err, size_t errlen)
{
    char logs[1100];
    snprintf(logs, sizeof logs, "%s/logs", job->dir);
    if (mkdir(logs, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", logs, strerror(errno));
        return -1;
    }
    for (int g = 0; g < job->ngroups; g++)
        if (write_array(job, g, err, errlen)) return -1;
    return write_merge(job, err, errlen) || write_submit(job, err, errlen) ? -1 : 0;
}
