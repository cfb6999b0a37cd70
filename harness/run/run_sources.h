/* What a run folder carries so that the run can be repeated from it alone (results/run_texts.h):
 * taken when the run starts, written beside results.csv before the first point, and described in
 * run.json's "sources".
 *
 *   sources {experiment {file, sha256, bytes},
 *            models [{name, file, sha256, bytes}],
 *            source_diff {file, sha256, bytes, taken} | {file: null, reason},
 *            repeat_of {run_id, dir} | null}
 *
 * The experiment's text is read once here and its sha256 is run.json's experiment.sha256, so the
 * hash always names the stored text. */
#ifndef BB_RUN_SOURCES_H
#define BB_RUN_SOURCES_H

#include <stddef.h>

#include "io/json.h"
#include "plan/experiment.h"
#include "results/run_texts.h"

typedef struct {
    bb_run_text *texts;         /* experiment.lua, models/NAME.lua..., source.diff when taken */
    int ntexts;
    char diff_reason[1200];     /* why there is no source.diff ("" when there is one) */
    char repeat_of_id[64], repeat_of_dir[1024]; /* `run --repeat`: the run repeated ("" otherwise) */
} bb_run_sources;

/* Read the experiment file, its model configs (from bb_model_dir()) and, for a -dirty build, the
 * source diff (run/source_diff.h; its absence is no error, its reason kept).  Returns 0, or -1 with
 * err (a file unreadable, larger than the bound). */
int bb_run_sources_take(const bb_experiment *ex, bb_run_sources *s, char *err, size_t errlen);
/* Into run folder dir.  Returns 0, or -1 with err. */
int bb_run_sources_write(const char *dir, const bb_run_sources *s, char *err, size_t errlen);
/* The experiment's sha256, "" before bb_run_sources_take. */
const char *bb_run_sources_sha256(const bb_run_sources *s);
/* run.json's "sources" member. */
void bb_run_sources_json(bb_json *j, const bb_run_sources *s);
void bb_run_sources_free(bb_run_sources *s);

#endif
