/* The merged run.json (merge.h): the first shard's sidecar, member by member, so that whatever a
 * run records is kept without a change here, with the members that describe the whole run
 * recomputed from all shards, and "shards" holding what each shard alone knows: its machine,
 * build, placement, meters, times and status. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/merge.h"
#include "io/json.h"
#include "io/sha256.h"
#include "run/results_json.h"
#include "support/output_file.h"

/* Any parsed value back into the writer. */
static void write_value(bb_json *j, const char *key, const bb_jv *v)
{
    switch (v->type) {
    case BB_JV_NULL: bb_json_null(j, key); break;
    case BB_JV_BOOL: bb_json_bool(j, key, v->b); break;
    case BB_JV_STR: bb_json_string(j, key, v->str); break;
    case BB_JV_NUM:
        if (v->num == floor(v->num) && fabs(v->num) < 9007199254740992.0) bb_json_int(j, key, (long long)v->num);
        else bb_json_number(j, key, v->num);
        break;
    case BB_JV_ARR:
        bb_json_array_begin(j, key);
        for (int i = 0; i < v->n; i++) write_value(j, NULL, &v->items[i]);
        bb_json_array_end(j);
        break;
    case BB_JV_OBJ:
        bb_json_object_begin(j, key);
        for (int i = 0; i < v->n; i++) write_value(j, v->keys[i], &v->items[i]);
        bb_json_object_end(j);
        break;
    }
}

/* Members that describe the whole run (the same in every shard, or recomputed below); the
 * others are each shard's own and go into its entry of "shards". */
static bool run_wide(const char *key)
{
    static const char *const keys[] = {"schema_version", "experiment", "kernels", "sweeps", "csv", "markdown",
                                       "e2e_csv", "skipped", "warnings", "conversions", "failed", "shard"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i])) return true;
    return false;
}

static void write_shards(bb_json *j, const bb_merge *m)
{
    bb_json_array_begin(j, "shards");
    for (int i = 0; i < m->nshards; i++) {
        const bb_merge_shard *s = &m->shards[i];
        const bb_jv *sh = bb_jv_get(s->json, "shard");
        bb_json_object_begin(j, NULL);
        bb_json_int(j, "index", s->index);
        bb_json_int(j, "count", s->count);
        bb_json_string(j, "group", m->groups[s->group]);
        bb_json_string(j, "dir", s->dir);
        bb_json_string(j, "plan_sha256", bb_jv_str(sh, "plan_sha256"));
        bb_json_number(j, "estimate_s", bb_jv_num(sh, "estimate_s"));
        for (int k = 0; k < s->json->n; k++)
            if (!run_wide(s->json->keys[k])) write_value(j, s->json->keys[k], &s->json->items[k]);
        bb_json_object_end(j);
    }
    bb_json_array_end(j);
}

/* Sum of a numeric member of an object member over all shards. */
static long long sum(const bb_merge *m, const char *outer, const char *key)
{
    long long n = 0;
    for (int i = 0; i < m->nshards; i++) {
        double v = bb_jv_num(bb_jv_get(m->shards[i].json, outer), key);
        if (isfinite(v)) n += (long long)v;
    }
    return n;
}

/* The whole plan's points (every group's) and how many the shards finished. */
static void write_points(bb_json *j, const bb_merge *m, const char *key, const char *plan_key)
{
    long long total = 0;
    for (int g = 0; g < m->ngroups; g++)
        for (int i = 0; i < m->nshards; i++)
            if (m->shards[i].group == g) {
                total += (long long)bb_jv_num(bb_jv_get(m->shards[i].json, "shard"), plan_key);
                break;
            }
    const bb_jv *first = bb_jv_get(m->shards[0].json, key);
    bb_json_object_begin(j, key);
    bb_json_int(j, "total", total);
    for (int k = 0; first && first->type == BB_JV_OBJ && k < first->n; k++) {
        if (!strcmp(first->keys[k], "total")) continue;
        if (!strcmp(first->keys[k], "skipped")) write_value(j, "skipped", &first->items[k]);
        else bb_json_int(j, first->keys[k], sum(m, key, first->keys[k]));
    }
    bb_json_object_end(j);
}

/* The lines of an array member of every shard, each prefixed by its shard; with unique, a line
 * already written is left out and no prefix is added (warnings common to all shards). */
static void write_lines(bb_json *j, const bb_merge *m, const char *key, bool unique)
{
    bb_json_array_begin(j, key);
    for (int i = 0; i < m->nshards; i++) {
        const bb_jv *a = bb_jv_get(m->shards[i].json, key);
        for (int k = 0; a && a->type == BB_JV_ARR && k < a->n; k++) {
            const bb_jv *v = &a->items[k];
            if (v->type != BB_JV_STR) continue;
            bool seen = false;
            for (int p = 0; unique && p <= i && !seen; p++) {
                const bb_jv *b = bb_jv_get(m->shards[p].json, key);
                for (int q = 0; b && b->type == BB_JV_ARR && q < (p == i ? k : b->n) && !seen; q++)
                    seen = b->items[q].type == BB_JV_STR && !strcmp(b->items[q].str, v->str);
            }
            if (seen) continue;
            char line[4096];
            const char *g = m->groups[m->shards[i].group];
            if (unique) snprintf(line, sizeof line, "%s", v->str);
            else snprintf(line, sizeof line, "shard %d/%d%s%s: %s", m->shards[i].index, m->count,
                          g[0] ? " of group " : "", g, v->str);
            bb_json_string(j, NULL, line);
        }
    }
    bb_json_array_end(j);
}

/* Earliest or latest of a time member over the shards (ISO 8601 UTC sorts as text); NULL when a
 * shard has none (a run that has not ended). */
static const char *time_bound(const bb_merge *m, const char *key, bool latest)
{
    const char *best = NULL;
    for (int i = 0; i < m->nshards; i++) {
        const char *t = bb_jv_str(m->shards[i].json, key);
        if (!t) return NULL;
        if (!best || (latest ? strcmp(t, best) > 0 : strcmp(t, best) < 0)) best = t;
    }
    return best;
}

/* A run id of the merge: the same shards give the same id. */
static void merged_run_id(const bb_merge *m, char *buf, size_t len)
{
    bb_sha256 h;
    uint8_t d[32];
    bb_sha256_init(&h);
    for (int i = 0; i < m->nshards; i++) {
        const char *id = bb_jv_str(m->shards[i].json, "run_id");
        const char *at = bb_jv_str(m->shards[i].json, "started_at");
        const char *v = id ? id : at ? at : m->shards[i].dir;
        bb_sha256_update(&h, v, strlen(v) + 1);
    }
    bb_sha256_final(&h, d);
    snprintf(buf, len, "merged-%02x%02x%02x%02x%02x%02x%02x%02x", d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]);
}

static void write_status(bb_json *j, const bb_merge *m)
{
    char reason[4096] = "";
    size_t used = 0;
    for (int i = 0; i < m->nproblems && used < sizeof reason; i++)
        used += (size_t)snprintf(reason + used, sizeof reason - used, "%s%s", i ? "; " : "", m->problems[i]);
    bb_json_string(j, "status", m->nproblems ? "incomplete" : "complete");
    bb_json_string(j, "status_reason", m->nproblems ? reason : NULL);
}

/* One member of the first shard's sidecar, recomputed for the whole run where it must be. */
static void write_member(bb_json *j, const bb_merge *m, const char *key, const bb_jv *v, int argc, char **argv)
{
    char now[32], id[48];
    if (!strcmp(key, "run_id")) {
        merged_run_id(m, id, sizeof id);
        bb_json_string(j, key, id);
    } else if (!strcmp(key, "command_line")) {
        bb_json_array_begin(j, key);
        for (int i = 0; i < argc; i++) bb_json_string(j, NULL, argv[i]);
        bb_json_array_end(j);
    } else if (!strcmp(key, "status")) {
        write_status(j, m);
    } else if (!strcmp(key, "status_reason")) {
    } else if (!strcmp(key, "started_at") || !strcmp(key, "ended_at")) {
        bb_json_string(j, key, time_bound(m, key, key[0] == 'e'));
    } else if (!strcmp(key, "updated_at")) {
        bb_iso_time(now);
        bb_json_string(j, key, now);
    } else if (!strcmp(key, "points") || !strcmp(key, "e2e_points")) {
        write_points(j, m, key, key[0] == 'p' ? "plan_points" : "plan_e2e_points");
    } else if (!strcmp(key, "failed") || !strcmp(key, "warnings")) {
        write_lines(j, m, key, key[0] == 'w');
    } else if (!strcmp(key, "shard")) {
        write_shards(j, m);
    } else if (!strcmp(key, "sources") && m->sources_note[0]) {
        bb_json_null(j, key);
        bb_json_string(j, "sources_note", m->sources_note);
    } else {
        write_value(j, key, v);
    }
}

int bb_merge_write_json(const bb_merge *m, const char *out, int argc, char **argv, char *err, size_t errlen)
{
    char path[BB_MERGE_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/run.json", out);
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, errlen);
    if (!f) return -1;
    const bb_jv *first = m->shards[0].json;
    bb_json j;
    bb_json_init(&j, f);
    bb_json_object_begin(&j, NULL);
    for (int k = 0; k < first->n; k++) write_member(&j, m, first->keys[k], &first->items[k], argc, argv);
    bb_json_object_begin(&j, "merged");
    bb_json_int(&j, "shards", m->nshards);
    bb_json_int(&j, "count", m->count);
    bb_json_array_begin(&j, "groups");
    for (int g = 0; g < m->ngroups; g++) bb_json_string(&j, NULL, m->groups[g]);
    bb_json_array_end(&j);
    bb_json_array_begin(&j, "problems");
    for (int i = 0; i < m->nproblems; i++) bb_json_string(&j, NULL, m->problems[i]);
    bb_json_array_end(&j);
    bb_json_array_begin(&j, "tables");
    for (int i = 0; i < m->ntables; i++) bb_json_string(&j, NULL, m->tables[i]);
    bb_json_array_end(&j);
    bb_json_object_end(&j);
    bb_json_object_end(&j);
    bb_json_finish(&j);
    return bb_output_commit(&o, err, errlen);
}
