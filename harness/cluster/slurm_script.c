#include "cluster/slurm_script.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "io/shell_word.h"
#include "support/output_file.h"

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

static bool is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* value for an error line: its control characters as \n, \t, \r, \xNN, at most about 160 bytes. */
static void shown(const char *value, char *buf, size_t len)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)value; *p && n + 8 < len; p++) {
        if (n >= 160) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        if (*p == '\n') n += (size_t)snprintf(buf + n, len - n, "\\n");
        else if (*p == '\t') n += (size_t)snprintf(buf + n, len - n, "\\t");
        else if (*p == '\r') n += (size_t)snprintf(buf + n, len - n, "\\r");
        else if (is_control(*p)) n += (size_t)snprintf(buf + n, len - n, "\\x%02x", *p);
        else buf[n++] = (char)*p;
    }
    buf[n] = 0;
}

int bb_slurm_check_value(const char *option, const char *value, bool sbatch_line, char *err, size_t errlen)
{
    char show[200];
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if (is_control(*p)) {
            shown(value, show, sizeof show);
            snprintf(err, errlen,
                     "%s '%s': holds a control character (\\x%02x); a value in a job script must be one line "
                     "without control characters",
                     option, show, *p);
            return -1;
        }
        /* sbatch reads an #SBATCH line as words split at blanks, with quotes and backslashes as
         * syntax and '#' starting a comment; '%' is a pattern in --output. */
        if (sbatch_line && strchr(" '\"\\#%", *p)) {
            shown(value, show, sizeof show);
            snprintf(err, errlen,
                     "%s '%s': holds '%c', which an #SBATCH line cannot carry (no blanks, quotes, backslashes, "
                     "'#' or '%%')",
                     option, show, *p);
            return -1;
        }
    }
    return 0;
}

static int check_sha256(const char *what, const char *hex, char *err, size_t errlen)
{
    size_t n = strspn(hex, "0123456789abcdef");
    if (n != 64 || hex[n]) {
        snprintf(err, errlen, "the SHA-256 of %s is not 64 lowercase hex digits", what);
        return -1;
    }
    return 0;
}

int bb_slurm_check_job(const bb_slurm_job *job, char *err, size_t errlen)
{
    if (job->shards < 1 || job->cpus_per_task < 1 || job->ngroups < 1 || job->ngroups > BB_SLURM_MAX_GROUPS ||
        job->nrun_args < 0 || job->nrun_args > BB_SLURM_MAX_ARGS) {
        snprintf(err, errlen, "the job's counts are out of range (shards %d, cpus %d, groups %d, run options %d)",
                 job->shards, job->cpus_per_task, job->ngroups, job->nrun_args);
        return -1;
    }
    if (bb_slurm_check_value("the bitbench binary's path", job->bitbench, false, err, errlen) ||
        bb_slurm_check_value("the experiment path", job->experiment, false, err, errlen) ||
        bb_slurm_check_value("--out", job->dir, true, err, errlen) ||
        bb_slurm_check_value("the working directory", job->workdir, true, err, errlen) ||
        (job->partition && bb_slurm_check_value("--partition", job->partition, true, err, errlen)) ||
        (job->account && bb_slurm_check_value("--account", job->account, true, err, errlen)) ||
        (job->time && bb_slurm_check_value("--time", job->time, true, err, errlen)) ||
        (job->command_line && bb_slurm_check_value("the command line", job->command_line, false, err, errlen)) ||
        check_sha256(job->bitbench, job->bitbench_sha256, err, errlen) ||
        check_sha256(job->experiment, job->experiment_sha256, err, errlen))
        return -1;
    for (int g = 0; g < job->ngroups; g++) {
        /* A group is "" only when it is the one group without a constraint. */
        bool constrained = job->groups[g][0] != 0;
        if (constrained != (job->constraints[g] != NULL) || (!constrained && job->ngroups > 1)) {
            snprintf(err, errlen, "node type %d has %s", g + 1, constrained ? "no constraint" : "no group label");
            return -1;
        }
        if (constrained && (bb_slurm_check_value("--constraint", job->constraints[g], true, err, errlen) ||
                            bb_slurm_check_value("the group label", job->groups[g], true, err, errlen)))
            return -1;
    }
    for (int i = 0; i < job->nrun_args; i++)
        if (bb_slurm_check_value("a run option", job->run_args[i], false, err, errlen)) return -1;
    return 0;
}

/* The one way a value gets into the bash code of a script: one single-quoted word, a quote inside
 * written as '\'' (io/shell_word.h).  Inside single quotes bash takes every byte as it is, so no
 * value can expand, run or split; values reaching here hold no control character
 * (bb_slurm_check_job), so the script's lines are its own. */
static void sh_word(FILE *f, const char *s) { bb_shell_quote(f, s); }

/* name='value' on a line of its own. */
static void assign(FILE *f, const char *name, const char *value)
{
    fprintf(f, "%s=", name);
    sh_word(f, value);
    fputc('\n', f);
}

/* The #SBATCH lines both kinds of job share (values checked for #SBATCH lines). */
static void common_options(FILE *f, const bb_slurm_job *job)
{
    if (job->partition) fprintf(f, "#SBATCH --partition=%s\n", job->partition);
    if (job->account) fprintf(f, "#SBATCH --account=%s\n", job->account);
    if (job->time) fprintf(f, "#SBATCH --time=%s\n", job->time);
    fprintf(f, "#SBATCH --chdir=%s\n", job->workdir);
}

/* The job name: "bitbench-" and the experiment's file name as a label (sbatch would split it). */
static void job_name(FILE *f, const bb_slurm_job *job, const char *suffix1, const char *suffix2)
{
    char label[64];
    bb_slurm_group_label(job->name, label, sizeof label);
    fprintf(f, "#SBATCH --job-name=bitbench-%s%s%s\n", label, suffix1, suffix2);
}

/* The shell function that refuses a changed file.  The hash is read from standard input:
 * `sha256sum FILE` writes "\HASH" for a name with a backslash or newline in it. */
static void pin_function(FILE *f)
{
    fprintf(f, "# Run exactly what this script was written for: a rebuilt binary or an edited experiment\n"
               "# would make this shard measure something else than the others.\n"
               "pin() {\n"
               "  actual=$(sha256sum < \"$1\") || exit 3\n"
               "  actual=${actual%%%% *}\n"
               "  if [ \"$actual\" != \"$2\" ]; then\n"
               "    printf '%%s\\n' \"bitbench slurm: $1 has changed since the script was written (sha256 $actual, expected $2);"
               " write the scripts again\" >&2\n"
               "    exit 3\n"
               "  fi\n"
               "}\n");
}

static void pin(FILE *f, const char *variable, const char *sha256)
{
    fprintf(f, "pin \"$%s\" ", variable);
    sh_word(f, sha256);
    fputc('\n', f);
}

static const char values_comment[] =
    "# Each value is one single-quoted word (a quote inside as '\\''): nothing in this script evaluates one.\n";

void bb_slurm_array_name(const bb_slurm_job *job, int g, char *buf, size_t len)
{
    if (job->groups[g][0]) snprintf(buf, len, "array-%s.sbatch", job->groups[g]);
    else snprintf(buf, len, "array.sbatch");
}

void bb_slurm_render_array(const bb_slurm_job *job, int g, FILE *f)
{
    const char *group = job->groups[g];
    fprintf(f, "#!/bin/bash\n");
    fprintf(f, "# Shards 0..%d of %s%s%s; written by: %s\n", job->shards - 1, job->experiment,
            group[0] ? " on node type " : "", group[0] ? job->constraints[g] : "",
            job->command_line ? job->command_line : "bitbench slurm");
    job_name(f, job, group[0] ? "-" : "", group);
    fprintf(f, "#SBATCH --array=0-%d\n", job->shards - 1);
    fprintf(f, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --exclusive\n");
    fprintf(f, "#SBATCH --cpus-per-task=%d\n#SBATCH --hint=nomultithread\n", job->cpus_per_task);
    if (group[0]) fprintf(f, "#SBATCH --constraint=%s\n", job->constraints[g]);
    fprintf(f, "#SBATCH --output=%s/logs/shard-%s%s%%a.out\n", job->dir, group, group[0] ? "-" : "");
    common_options(f, job);
    fprintf(f, "set -u\n");
    fputs(values_comment, f);
    assign(f, "bitbench", job->bitbench);
    assign(f, "experiment", job->experiment);
    assign(f, "dir", job->dir);
    if (group[0]) assign(f, "group", group);
    pin_function(f);
    pin(f, "bitbench", job->bitbench_sha256);
    pin(f, "experiment", job->experiment_sha256);
    fprintf(f, "shard=${SLURM_ARRAY_TASK_ID:?not an array task}\n");
    fprintf(f, "out=\"$dir/shards/%sshard-$shard\"\n", group[0] ? "$group-" : "");
    fprintf(f, "# A shard that ran before (a requeued or resubmitted task) continues; a complete one is left alone.\n"
               "resume=\n"
               "for sidecar in \"$out\"/*/run.json; do\n"
               "  [ -e \"$sidecar\" ] || continue\n"
               "  resume=--resume\n"
               "  if grep -q '\"status\": \"complete\"' \"$sidecar\"; then\n"
               "    printf '%%s\\n' \"bitbench slurm: shard $shard/%d is complete already: ${sidecar%%/run.json}\"\n"
               "    exit 0\n"
               "  fi\n"
               "done\n", job->shards);
    fprintf(f, "exec \"$bitbench\" run \"$experiment\" --shard \"$shard/%d\"", job->shards);
    if (group[0]) fprintf(f, " --shard-group \"$group\"");
    fprintf(f, " --out \"$out\" --quiet $resume");
    for (int i = 0; i < job->nrun_args; i++) {
        fputc(' ', f);
        sh_word(f, job->run_args[i]);
    }
    fputc('\n', f);
}

void bb_slurm_render_merge(const bb_slurm_job *job, FILE *f)
{
    fprintf(f, "#!/bin/bash\n");
    fprintf(f, "# Merges the shards of %s once every array task has ended (%s); written by: %s\n", job->experiment,
            job->merge_after_ok ? "afterok: only when all succeeded" : "afterany: failed shards are named",
            job->command_line ? job->command_line : "bitbench slurm");
    job_name(f, job, "-merge", "");
    fprintf(f, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
    fprintf(f, "#SBATCH --output=%s/logs/merge.out\n", job->dir);
    common_options(f, job);
    fprintf(f, "set -u\n");
    fputs(values_comment, f);
    assign(f, "bitbench", job->bitbench);
    assign(f, "dir", job->dir);
    if (job->groups[0][0]) {
        fputs("groups=", f);
        char all[BB_SLURM_MAX_GROUPS * 65] = "";
        size_t n = 0;
        for (int g = 0; g < job->ngroups; g++)
            n += (size_t)snprintf(all + n, sizeof all - n, "%s%s", g ? "," : "", job->groups[g]);
        sh_word(f, all);
        fputc('\n', f);
    }
    pin_function(f);
    pin(f, "bitbench", job->bitbench_sha256);
    fprintf(f, "# Exit status 1 when shards are missing or unfinished: what there is is merged, and they are named.\n");
    fprintf(f, "\"$bitbench\" merge \"$dir/shards\" -o \"$dir/merged\"%s\n",
            job->groups[0][0] ? " --groups \"$groups\"" : "");
    fprintf(f, "status=$?\n");
    if (job->ngroups > 1) {
        fprintf(f, "# Each node type also on its own, so that `bitbench compare merged-A merged-B` compares two of them.\n");
        fprintf(f, "for group in");
        for (int g = 0; g < job->ngroups; g++) {
            fputc(' ', f);
            sh_word(f, job->groups[g]);
        }
        fprintf(f, "; do\n"
                   "  \"$bitbench\" merge --quiet \"$dir/shards/$group\"-shard-* -o \"$dir/merged-$group\" || status=1\n"
                   "done\n");
    }
    fprintf(f, "[ \"$status\" -eq 0 ] || printf '%%s\\n' \"bitbench slurm: each array task's output is in $dir/logs/\" >&2\n"
               "exit \"$status\"\n");
}

void bb_slurm_render_submit(const bb_slurm_job *job, FILE *f)
{
    char name[128];
    fprintf(f, "#!/bin/bash\n");
    fprintf(f, "# Submits the array job%s, then the merge job after them; prints the job ids.\nset -eu\n",
            job->ngroups > 1 ? "s (one per node type)" : "");
    fputs(values_comment, f);
    assign(f, "dir", job->dir);
    fputs("cd \"$dir\"\nafter=\nfor array in", f);
    for (int g = 0; g < job->ngroups; g++) {
        bb_slurm_array_name(job, g, name, sizeof name);
        fputc(' ', f);
        sh_word(f, name);
    }
    fprintf(f, "; do\n"
               "  id=$(sbatch --parsable \"$array\")\n"
               "  id=${id%%%%;*}\n"
               "  after=\"$after:$id\"\n"
               "  printf '%%s\\n' \"array job $id: $array, shards 0-%d\"\n"
               "done\n", job->shards - 1);
    fprintf(f, "id=$(sbatch --parsable \"--dependency=%s$after\" merge.sbatch)\nid=${id%%%%;*}\n",
            job->merge_after_ok ? "afterok" : "afterany");
    fprintf(f, "printf '%%s\\n' \"merge job $id: merge.sbatch, into $dir/merged\"\n");
}

/* One script: written whole through a temporary file, then made executable. */
static int write_script(const bb_slurm_job *job, const char *name, int g, char *err, size_t errlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", job->dir, name);
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, errlen);
    if (!f) return -1;
    if (g >= 0) bb_slurm_render_array(job, g, f);
    else if (!strcmp(name, "merge.sbatch")) bb_slurm_render_merge(job, f);
    else bb_slurm_render_submit(job, f);
    if (bb_output_commit(&o, err, errlen)) return -1;
    if (chmod(o.path, 0755)) {
        snprintf(err, errlen, "cannot make %s executable: %s", o.path, strerror(errno));
        return -1;
    }
    return 0;
}

int bb_slurm_write_scripts(const bb_slurm_job *job, char *err, size_t errlen)
{
    if (bb_slurm_check_job(job, err, errlen)) return -1;
    char logs[1100], name[128];
    snprintf(logs, sizeof logs, "%s/logs", job->dir);
    if (mkdir(logs, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", logs, strerror(errno));
        return -1;
    }
    for (int g = 0; g < job->ngroups; g++) {
        bb_slurm_array_name(job, g, name, sizeof name);
        if (write_script(job, name, g, err, errlen)) return -1;
    }
    return write_script(job, "merge.sbatch", -1, err, errlen) || write_script(job, "submit.sh", -1, err, errlen)
               ? -1
               : 0;
}
