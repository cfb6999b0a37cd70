/* `bitbench run --repeat RUN_DIR`: the experiment of a run folder run again, from the texts the
 * folder carries (results/run_texts.h) — its experiment.lua with its models/NAME.lua as the model
 * configs — with the settings its run.json records (run_settings: size, threads, reps, min-time,
 * only, meters; not the CPUs, which are this machine's), into a new run folder.
 *
 * The folder is checked before anything runs: run.json must be there and readable, experiment.lua
 * must be there and its sha256 equal run.json's experiment.sha256, and every model config
 * run.json's sources list must be there with its recorded sha256.  The text is then loaded as any
 * experiment file is (the Lua sandbox, plan/experiment.h): a folder from elsewhere is untrusted
 * input like any other file. */
#ifndef BB_RUN_REPEAT_H
#define BB_RUN_REPEAT_H

#include <stddef.h>

typedef struct {
    char file[4200];         /* RUN_DIR/experiment.lua */
    char models_dir[4200];   /* RUN_DIR/models: where the model configs are read from */
    char run_id[64];         /* the repeated run's ("" when its run.json has none) */
    /* run.json's run_settings, "" where the run was given no such option */
    char size[16], threads[256], reps[32], min_time[48], only[512], meters[256];
} bb_repeat;

/* Check dir and fill r.  Returns 0, or -1 with one line in err naming the folder or file, what is
 * missing or does not match, and what would do instead. */
int bb_repeat_prepare(const char *dir, bb_repeat *r, char *err, size_t errlen);

#endif
