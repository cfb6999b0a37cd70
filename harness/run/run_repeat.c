#include "run/run_repeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/json_read.h"
#include "results/run_texts.h"
#include "support/input_file.h"

/* The text dir/name (read within the bound) must have the sha256 `want`. */
static int check_text(const char *dir, const char *name, const char *want, char *err, size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (access(path, F_OK) != 0) {
        snprintf(err, errlen, "%s has no %s, so its run cannot be repeated from the folder (a run from a bitbench "
                 "that did not keep it, or a copy without it); run the experiment file itself", dir, name);
        return -1;
    }
    size_t len;
    char *text = bb_input_read_all(path, "run text", BB_RUN_TEXT_MAX_BYTES, &len, err, errlen);
    if (!text) return -1;
    bb_run_text *t = NULL;
    int n = 0, rc = bb_run_texts_add(&t, &n, name, text, len, err, errlen);
    free(text);
    if (rc == 0 && (!want || strcmp(t->sha256, want))) {
        snprintf(err, errlen, "%s: its sha256 is %s but run.json records %s: the folder was changed after the run; "
                 "not repeated", path, t->sha256, want ? want : "none");
        rc = -1;
    }
    bb_run_texts_free(t, n);
    return rc;
}

/* run.json's run_settings member `key` into buf ("" when absent). */
static void setting(const bb_jv *settings, const char *key, char *buf, size_t len)
{
    const char *v = bb_jv_str(settings, key);
    snprintf(buf, len, "%s", v ? v : "");
}

int bb_repeat_prepare(const char *dir, bb_repeat *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    char path[4400], why[600];
    snprintf(path, sizeof path, "%s/run.json", dir);
    if (access(path, F_OK) != 0) {
        snprintf(err, errlen, "--repeat %s: no run.json there: not a run folder (bitbench run writes "
                 "results/<experiment>-<date>-<time>/)", dir);
        return -1;
    }
    bb_jv *json = bb_json_load(path, why, sizeof why);
    if (!json) {
        snprintf(err, errlen, "--repeat: %s", why);
        return -1;
    }
    int rc = -1;
    const bb_jv *sources = bb_jv_get(json, "sources");
    const char *sha = bb_jv_str(bb_jv_get(json, "experiment"), "sha256");
    if (!sources || sources->type != BB_JV_OBJ) {
        snprintf(err, errlen, "--repeat: %s has no \"sources\": the run was made by a bitbench that did not keep its "
                 "experiment's text; run the experiment file itself", path);
        goto out;
    }
    if (check_text(dir, BB_RUN_EXPERIMENT_TEXT, sha, err, errlen)) goto out;
    const bb_jv *models = bb_jv_get(sources, "models");
    for (int i = 0; models && models->type == BB_JV_ARR && i < models->n; i++) {
        const bb_jv *m = &models->items[i];
        const char *file = bb_jv_str(m, "file");
        if (!file || !bb_run_text_name_ok(file) || strncmp(file, BB_RUN_MODELS_DIR "/", strlen(BB_RUN_MODELS_DIR) + 1)) {
            snprintf(err, errlen, "--repeat: %s: sources.models entry %d names no model config file "
                     "(models/NAME.lua)", path, i + 1);
            goto out;
        }
        if (check_text(dir, file, bb_jv_str(m, "sha256"), err, errlen)) goto out;
    }
    snprintf(r->file, sizeof r->file, "%s/%s", dir, BB_RUN_EXPERIMENT_TEXT);
    snprintf(r->models_dir, sizeof r->models_dir, "%s/%s", dir, BB_RUN_MODELS_DIR);
    const char *id = bb_jv_str(json, "run_id");
    snprintf(r->run_id, sizeof r->run_id, "%s", id ? id : "");
    const bb_jv *s = bb_jv_get(json, "run_settings");
    setting(s, "size", r->size, sizeof r->size);
    setting(s, "threads", r->threads, sizeof r->threads);
    setting(s, "reps", r->reps, sizeof r->reps);
    setting(s, "min_time", r->min_time, sizeof r->min_time);
    setting(s, "only", r->only, sizeof r->only);
    setting(s, "meters", r->meters, sizeof r->meters);
    rc = 0;
out:
    bb_jv_free(json);
    return rc;
}
