#include "plan/run_settings.h"

#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "io/sha256.h"
#include "plan/shard.h"

#include "bb_git_commit.h" /* generated at build time: BB_GIT_COMMIT */

/* One recorded setting: its run.json key, and how a difference is said: the option that sets it
 * ("--threads": "it was run with --threads 1, this command asks --threads 2"), or for those no
 * option sets, what it is ("the experiment file": "sha256 ab.. then, cd.. now"). */
typedef struct {
    const char *key, *option, *what;
    size_t offset;
} setting_field;

static const setting_field fields[] = {
    {"experiment_sha256", NULL, "the experiment file (sha256)", offsetof(bb_run_settings, experiment_sha256)},
    {"bitbench_commit", NULL, "the bitbench commit", offsetof(bb_run_settings, git_commit)},
    {"size", "--smoke/--full", "size", offsetof(bb_run_settings, size)},
    {"threads", "--threads", "threads", offsetof(bb_run_settings, threads)},
    {"reps", "--reps", "reps", offsetof(bb_run_settings, reps)},
    {"min_time", "--min-time", "min-time", offsetof(bb_run_settings, min_time)},
    {"only", "--only", "only", offsetof(bb_run_settings, only)},
    {"meters", "--meters", "meters", offsetof(bb_run_settings, meters)},
    {"cpus", NULL, "the CPUs the process may run on", offsetof(bb_run_settings, cpus)},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static const char *field_of(const bb_run_settings *s, const setting_field *f)
{
    return (const char *)s + f->offset;
}

/* The affinity mask as ranges, "0-3,6"; "" when it cannot be read. */
static void allowed_cpus(char *buf, size_t len)
{
    cpu_set_t set;
    size_t used = 0;
    buf[0] = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return;
    for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) last++;
        int w = last > c ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, last)
                         : snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
        c = last;
    }
}

void bb_run_settings_complete(bb_run_settings *s, const bb_experiment *ex, const bb_plan *plan)
{
    if (bb_sha256_file(ex->file, s->experiment_sha256))
        snprintf(s->experiment_sha256, sizeof s->experiment_sha256, "unreadable");
    snprintf(s->git_commit, sizeof s->git_commit, "%s", BB_GIT_COMMIT);
    allowed_cpus(s->cpus, sizeof s->cpus);
    bb_plan_sha256(ex, plan, s->plan_sha256);
}

void bb_run_settings_write_json(bb_json *j, const bb_run_settings *s)
{
    bb_json_object_begin(j, "run_settings");
    for (size_t i = 0; i < NFIELDS; i++) bb_json_string(j, fields[i].key, field_of(s, &fields[i]));
    bb_json_string(j, "plan_sha256", s->plan_sha256);
    bb_json_object_end(j);
}

/* "with --threads 1", "with --smoke", or "without --threads" for an option not given (then_:
 * how the run was run; else how this command asks: "asks --threads 2", "gives no --threads"). */
static void option_text(const setting_field *f, const char *v, bool then_, char *buf, size_t len)
{
    const char *verb = then_ ? "with" : "asks";
    if (!*v) snprintf(buf, len, "%s %s", then_ ? "without" : "gives no", f->option);
    else if (!strcmp(f->key, "size")) snprintf(buf, len, "%s --%s", verb, v);
    else snprintf(buf, len, "%s %s %s", verb, f->option, v);
}

static void append(char *buf, size_t len, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (w > 0) *used += (size_t)w;
}

int bb_run_settings_check_resume(const bb_jv *json, const bb_run_settings *now, const char *dir, char *err,
                                 size_t errlen)
{
    const bb_jv *then = bb_jv_get(json, "run_settings");
    if (!then || then->type != BB_JV_OBJ) {
        snprintf(err, errlen, "--resume: %s/run.json does not record the settings the run began with (it was "
                              "written by an older bitbench), so this command cannot be shown to continue the same "
                              "run; run without --resume for a new run", dir);
        return -1;
    }
    char diffs[3072] = "";
    size_t used = 0;
    int ndiff = 0;
    for (size_t i = 0; i < NFIELDS; i++) {
        const setting_field *f = &fields[i];
        const char *was = bb_jv_str(then, f->key), *is = field_of(now, f);
        if (!was) was = "(not recorded)";
        if (!strcmp(was, is)) continue;
        const char *sep = ndiff++ ? "; " : "";
        if (f->option) {
            char a[600], b[600];
            option_text(f, was, true, a, sizeof a);
            option_text(f, is, false, b, sizeof b);
            append(diffs, sizeof diffs, &used, "%s%s: it was run %s, this command %s", sep, f->what, a, b);
        } else {
            append(diffs, sizeof diffs, &used, "%s%s: %s then, %s now", sep, f->what, was, is);
        }
    }
    /* the plan's hash catches what no option says: a file that reads its environment, a CPU mask
     * (BITBENCH_CPU_MASK) that picks other variants */
    const char *plan = bb_jv_str(then, "plan_sha256");
    if (!ndiff && (!plan || strcmp(plan, now->plan_sha256))) {
        ndiff++;
        append(diffs, sizeof diffs, &used, "the planned points differ (plan sha256 %.16s then, %.16s now: the file "
               "chose other points or sweep settings in this environment)", plan ? plan : "(not recorded)",
               now->plan_sha256);
    }
    if (!ndiff) return 0;
    snprintf(err, errlen, "--resume: %s was run with other settings than this command: %s; continue it with its own "
                          "settings, or run without --resume for a new run", dir, diffs);
    return -1;
}
