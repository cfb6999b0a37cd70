/* What a run was started with that shapes its plan or its measurement, recorded in run.json as
 * "run_settings": --resume continues a run only when every one of them is the same now, so that
 * one results.csv never mixes the points of two different runs (a run begun with --threads 1 and
 * resumed with --threads 2 would otherwise end "complete" with both thread counts' rows).
 *
 * Every field is text, "" where the command line did not give the option (the file's own value
 * then holds, and the experiment file's sha256 covers it).  A run.json without "run_settings"
 * (written by a bitbench from before this check) is not resumed: what it was run with cannot be
 * shown to be the same. */
#ifndef BB_RUN_SETTINGS_H
#define BB_RUN_SETTINGS_H

#include <stddef.h>

#include "io/json.h"
#include "io/json_read.h"
#include "plan/experiment.h"
#include "plan/plan.h"

typedef struct {
    char experiment_sha256[65]; /* of the experiment file's bytes */
    char git_commit[64];        /* of the bitbench that measures */
    char size[16];              /* --smoke: "smoke", --full: "full" */
    char threads[256];          /* --threads as given */
    char reps[32];              /* --reps */
    char min_time[48];          /* --min-time */
    char only[512];             /* --only, joined by ',' */
    char meters[256];           /* --meters */
    char cpus[256];             /* the CPUs this process may run on (its affinity mask, "0-3,6") */
    char plan_sha256[65];       /* every planned point and sweep setting (shard.h, bb_plan_sha256) */
} bb_run_settings;

/* Fill what does not come from the command line: the file's hash, the commit, the CPUs, the
 * plan's hash. */
void bb_run_settings_complete(bb_run_settings *s, const bb_experiment *ex, const bb_plan *plan);

/* run.json's "run_settings" member. */
void bb_run_settings_write_json(bb_json *j, const bb_run_settings *s);

/* May a run whose run.json is `json` (in run directory dir) be resumed with `now`?  Returns 0, or
 * -1 with one line in err naming each setting that differs, then and now. */
int bb_run_settings_check_resume(const bb_jv *json, const bb_run_settings *now, const char *dir, char *err,
                                 size_t errlen);

#endif
