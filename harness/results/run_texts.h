/* The texts a run folder carries besides its tables, so that a run travels whole (issue 33): the
 * experiment file as it was run, the model configs it named, and for a build from changed files
 * (commit "...-dirty") the source diff.  `bitbench run --repeat RUN_DIR` runs the experiment again
 * from them; the results database stores them with the run (results_db.h, table run_files).
 *
 *   experiment.lua      the experiment file, byte for byte (run.json's experiment.sha256 is its hash)
 *   models/NAME.lua     each model config the sweeps name (not model files: those are data)
 *   source.diff         `git diff HEAD` of the source tree the build came from (run/run_sources.h)
 *
 * Each is one text of at most BB_RUN_TEXT_MAX_BYTES; its name is its path in the run folder. */
#ifndef BB_RUN_TEXTS_H
#define BB_RUN_TEXTS_H

#include <stddef.h>
#include <stdint.h>

#define BB_RUN_EXPERIMENT_TEXT "experiment.lua"
#define BB_RUN_MODELS_DIR "models"
#define BB_RUN_DIFF_TEXT "source.diff"
/* The bound of one text: an experiment file's (16 MiB, plan/experiment.h) */
#define BB_RUN_TEXT_MAX_BYTES ((uint64_t)16 << 20)
#define BB_RUN_TEXT_NAME_MAX 160

typedef struct {
    char name[BB_RUN_TEXT_NAME_MAX]; /* "experiment.lua", "models/tiny.lua", "source.diff" */
    char *text;                      /* malloc'd, NUL-terminated */
    size_t len;                      /* without the NUL */
    char sha256[65];                 /* of the len bytes */
} bb_run_text;

/* Is name one a run folder may hold (one of the three forms above, a model name of letters, digits,
 * '.', '_' and '-' not starting with '.')?  Names from a database or a folder are checked before
 * they become paths. */
int bb_run_text_name_ok(const char *name);

/* Append a copy of text (len bytes) named name to *v (count *n), its sha256 computed.  Returns 0,
 * or -1 with err (out of memory, a name bb_run_text_name_ok refuses). */
int bb_run_texts_add(bb_run_text **v, int *n, const char *name, const char *text, size_t len, char *err,
                     size_t errlen);
/* The texts present in run folder dir (regular files within the bound; a missing one is no error).
 * Returns 0, or -1 with err naming the file. */
int bb_run_texts_read(const char *dir, bb_run_text **v, int *n, char *err, size_t errlen);
/* Write them into dir (models/ created as needed), each through support/output_file.h.  Returns 0,
 * or -1 with err. */
int bb_run_texts_write(const char *dir, const bb_run_text *v, int n, char *err, size_t errlen);
/* The text of that name, or NULL. */
const bb_run_text *bb_run_texts_find(const bb_run_text *v, int n, const char *name);
void bb_run_texts_free(bb_run_text *v, int n);

#endif
