/* The merged run's stored texts (merge.h): every shard of a run took the same experiment file
 * (check_together refuses others), its model configs and, for a -dirty build, the source diff
 * (results/run_texts.h).  The merged folder carries them once, so that `run --repeat` works on
 * it as on a single run: the first shard's copies, after each is checked against the sha256 its
 * run.json records and against every other shard's record of the same file. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/merge.h"
#include "io/json_read.h"
#include "results/run_texts.h"
#include "support/input_file.h"

/* The (file, sha256) records of a shard's "sources": the experiment, each model config, the source
 * diff when one was taken.  Returns how many were written into file/sha, or -1 when there are
 * more than max. */
static int records(const bb_jv *sources, const char **file, const char **sha, int max)
{
    int n = 0;
    const bb_jv *one[2] = {bb_jv_get(sources, "experiment"), bb_jv_get(sources, "source_diff")};
    for (int k = 0; k < 2; k++)
        if (one[k] && one[k]->type == BB_JV_OBJ && bb_jv_str(one[k], "file") && n < max) {
            file[n] = bb_jv_str(one[k], "file");
            sha[n++] = bb_jv_str(one[k], "sha256");
        }
    const bb_jv *models = bb_jv_get(sources, "models");
    for (int i = 0; models && models->type == BB_JV_ARR && i < models->n; i++) {
        if (n == max) return -1;
        file[n] = bb_jv_str(&models->items[i], "file");
        sha[n++] = bb_jv_str(&models->items[i], "sha256");
    }
    return n;
}

enum { MAX_TEXTS = 256 };

static bool same_records(const bb_jv *a, const bb_jv *b)
{
    const char *fa[MAX_TEXTS], *sa[MAX_TEXTS], *fb[MAX_TEXTS], *sb[MAX_TEXTS];
    int na = records(a, fa, sa, MAX_TEXTS), nb = records(b, fb, sb, MAX_TEXTS);
    if (na < 0 || na != nb) return false;
    for (int i = 0; i < na; i++)
        if (!fa[i] || !fb[i] || !sa[i] || !sb[i] || strcmp(fa[i], fb[i]) || strcmp(sa[i], sb[i])) return false;
    return true;
}

int bb_merge_sources(bb_merge *m, const char *out, char *err, size_t errlen)
{
    m->sources_note[0] = '\0';
    const bb_merge_shard *first = &m->shards[0];
    const bb_jv *src = bb_jv_get(first->json, "sources");
    if (!src || src->type != BB_JV_OBJ) {
        snprintf(m->sources_note, sizeof m->sources_note, "%s keeps no experiment text (made by a bitbench that did "
                 "not keep it): the merged run cannot be repeated from its folder", first->dir);
        return 0;
    }
    for (int i = 1; i < m->nshards; i++)
        if (!same_records(src, bb_jv_get(m->shards[i].json, "sources"))) {
            snprintf(m->sources_note, sizeof m->sources_note, "%s and %s recorded different stored texts (model "
                     "configs or source diffs, or too many to compare): the merged run keeps none of them; repeat a "
                     "shard instead",
                     first->dir, m->shards[i].dir);
            return 0;
        }
    const char *file[MAX_TEXTS], *sha[MAX_TEXTS];
    int n = records(src, file, sha, MAX_TEXTS), kept = 0, rc = 0;
    if (n < 0) {
        snprintf(m->sources_note, sizeof m->sources_note, "%s/run.json: sources names more than %d texts: the merged "
                 "run keeps none of them", first->dir, MAX_TEXTS);
        return 0;
    }
    bb_run_text *texts = NULL;
    char why[1000];
    for (int i = 0; i < n; i++) {
        char path[BB_MERGE_PATH_MAX + BB_RUN_TEXT_NAME_MAX + 2];
        if (!file[i] || !bb_run_text_name_ok(file[i])) {
            snprintf(m->sources_note, sizeof m->sources_note, "%s/run.json: sources names '%s', not a stored "
                     "text's name: the merged run keeps no stored texts", first->dir, file[i] ? file[i] : "(none)");
            goto out;
        }
        snprintf(path, sizeof path, "%s/%s", first->dir, file[i]);
        size_t len;
        char *text = bb_input_read_all(path, "stored text", BB_RUN_TEXT_MAX_BYTES, &len, why, sizeof why);
        if (!text) {
            snprintf(m->sources_note, sizeof m->sources_note, "%s: the merged run keeps no stored texts", why);
            goto out;
        }
        int added = bb_run_texts_add(&texts, &kept, file[i], text, len, err, errlen);
        free(text);
        if (added) {
            rc = -1;
            goto out;
        }
        if (!sha[i] || strcmp(texts[kept - 1].sha256, sha[i])) {
            snprintf(m->sources_note, sizeof m->sources_note, "%s: its sha256 is %s but run.json records %s (the "
                     "shard was changed after its run): the merged run keeps no stored texts", path,
                     texts[kept - 1].sha256, sha[i] ? sha[i] : "none");
            goto out;
        }
    }
    rc = bb_run_texts_write(out, texts, kept, err, errlen);
out:
    bb_run_texts_free(texts, kept);
    return rc;
}
