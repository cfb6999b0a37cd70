#include "run/run_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/model_config.h"
#include "run/source_diff.h"
#include "support/input_file.h"

static int add_file(bb_run_sources *s, const char *path, const char *name, const char *what, char *err, size_t errlen)
{
    size_t len;
    char *text = bb_input_read_all(path, what, BB_RUN_TEXT_MAX_BYTES, &len, err, errlen);
    if (!text) return -1;
    int rc = bb_run_texts_add(&s->texts, &s->ntexts, name, text, len, err, errlen);
    free(text);
    return rc;
}

int bb_run_sources_take(const bb_experiment *ex, bb_run_sources *s, char *err, size_t errlen)
{
    if (add_file(s, ex->file, BB_RUN_EXPERIMENT_TEXT, "experiment file", err, errlen)) return -1;
    for (int i = 0; i < ex->nmodel_configs; i++) {
        char path[4400], name[BB_RUN_TEXT_NAME_MAX];
        snprintf(path, sizeof path, "%s/%s.lua", bb_model_dir(), ex->model_configs[i]);
        snprintf(name, sizeof name, "%s/%s.lua", BB_RUN_MODELS_DIR, ex->model_configs[i]);
        if (add_file(s, path, name, "model config", err, errlen)) return -1;
    }
    char *diff;
    size_t len;
    s->diff_reason[0] = 0;
    if (bb_source_diff(bb_build_commit(), bb_build_source_dir(), &diff, &len, s->diff_reason, sizeof s->diff_reason))
        return 0;
    int rc = bb_run_texts_add(&s->texts, &s->ntexts, BB_RUN_DIFF_TEXT, diff, len, err, errlen);
    free(diff);
    return rc;
}

int bb_run_sources_write(const char *dir, const bb_run_sources *s, char *err, size_t errlen)
{
    return bb_run_texts_write(dir, s->texts, s->ntexts, err, errlen);
}

const char *bb_run_sources_sha256(const bb_run_sources *s)
{
    const bb_run_text *t = bb_run_texts_find(s->texts, s->ntexts, BB_RUN_EXPERIMENT_TEXT);
    return t ? t->sha256 : "";
}

static void text_members(bb_json *j, const bb_run_text *t)
{
    bb_json_string(j, "file", t->name);
    bb_json_string(j, "sha256", t->sha256);
    bb_json_int(j, "bytes", (long long)t->len);
}

void bb_run_sources_json(bb_json *j, const bb_run_sources *s)
{
    bb_json_object_begin(j, "sources");
    const bb_run_text *t = bb_run_texts_find(s->texts, s->ntexts, BB_RUN_EXPERIMENT_TEXT);
    if (t) {
        bb_json_object_begin(j, "experiment");
        text_members(j, t);
        bb_json_object_end(j);
    } else {
        bb_json_null(j, "experiment");
    }
    bb_json_array_begin(j, "models");
    size_t pl = strlen(BB_RUN_MODELS_DIR) + 1;
    for (int i = 0; i < s->ntexts; i++)
        if (!strncmp(s->texts[i].name, BB_RUN_MODELS_DIR "/", pl)) {
            char name[BB_RUN_TEXT_NAME_MAX];
            snprintf(name, sizeof name, "%.*s", (int)(strlen(s->texts[i].name) - pl - 4), s->texts[i].name + pl);
            bb_json_object_begin(j, NULL);
            bb_json_string(j, "name", name);
            text_members(j, &s->texts[i]);
            bb_json_object_end(j);
        }
    bb_json_array_end(j);
    bb_json_object_begin(j, "source_diff");
    if ((t = bb_run_texts_find(s->texts, s->ntexts, BB_RUN_DIFF_TEXT))) {
        char taken[1200];
        text_members(j, t);
        snprintf(taken, sizeof taken, "git diff HEAD of %s when the run started", bb_build_source_dir());
        bb_json_string(j, "taken", taken);
    } else {
        bb_json_null(j, "file");
        bb_json_string(j, "reason", s->diff_reason);
    }
    bb_json_object_end(j);
    if (s->repeat_of_dir[0]) {
        bb_json_object_begin(j, "repeat_of");
        bb_json_string(j, "run_id", s->repeat_of_id[0] ? s->repeat_of_id : NULL);
        bb_json_string(j, "dir", s->repeat_of_dir);
        bb_json_object_end(j);
    } else {
        bb_json_null(j, "repeat_of");
    }
    bb_json_object_end(j);
}

void bb_run_sources_free(bb_run_sources *s)
{
    bb_run_texts_free(s->texts, s->ntexts);
    s->texts = NULL;
    s->ntexts = 0;
}
