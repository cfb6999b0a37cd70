#include "cluster/merge.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A found run directory (its sidecar read later). */
typedef struct {
    char **dirs;
    int n;
} dir_list;

static int add_dir(dir_list *l, const char *dir)
{
    char **v = realloc(l->dirs, sizeof *v * (size_t)(l->n + 1));
    if (!v) return -1;
    l->dirs = v;
    if (!(v[l->n] = strdup(dir))) return -1;
    l->n++;
    return 0;
}

static bool has_run_json(const char *dir)
{
    char path[BB_MERGE_PATH_MAX + 16];
    struct stat st;
    snprintf(path, sizeof path, "%s/run.json", dir);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* dir itself when it is a run directory, else the run directories below it (depth levels). */
static int find_runs(const char *dir, int depth, dir_list *out)
{
    if (has_run_json(dir)) return add_dir(out, dir);
    if (depth == 0) return 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    dir_list sub = {0};
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[BB_MERGE_PATH_MAX];
        struct stat st;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) continue;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) rc = add_dir(&sub, path);
    }
    closedir(d);
    if (sub.n) qsort(sub.dirs, (size_t)sub.n, sizeof *sub.dirs, cmp_str);
    for (int i = 0; i < sub.n; i++) {
        if (rc == 0) rc = find_runs(sub.dirs[i], depth - 1, out);
        free(sub.dirs[i]);
    }
    free(sub.dirs);
    return rc;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* A JSON array of integers into a sorted malloc'd array.  Returns 0 or -1. */
static int int_list(const bb_jv *arr, int **out, int *n)
{
    *n = 0;
    *out = malloc(sizeof **out * (size_t)((arr && arr->type == BB_JV_ARR ? arr->n : 0) + 1));
    if (!*out) return -1;
    for (int i = 0; arr && arr->type == BB_JV_ARR && i < arr->n; i++)
        if (arr->items[i].type == BB_JV_NUM) (*out)[(*n)++] = (int)arr->items[i].num;
    qsort(*out, (size_t)*n, sizeof **out, cmp_int);
    return 0;
}

static int group_of(bb_merge *m, const char *name)
{
    for (int g = 0; g < m->ngroups; g++)
        if (!strcmp(m->groups[g], name)) return g;
    void *v = realloc(m->groups, sizeof *m->groups * (size_t)(m->ngroups + 1));
    if (!v) return -1;
    m->groups = v;
    snprintf(m->groups[m->ngroups], sizeof m->groups[0], "%s", name);
    return m->ngroups++;
}

static void add_problem(bb_merge *m, const char *line)
{
    char **v = realloc(m->problems, sizeof *v * (size_t)(m->nproblems + 1));
    if (!v) return;
    m->problems = v;
    if ((v[m->nproblems] = strdup(line))) m->nproblems++;
}

/* "shard 1/3" or "shard 1/3 of group zen4", for messages. */
static const char *shard_name(const bb_merge *m, const bb_merge_shard *s, char *buf, size_t len)
{
    const char *g = m->groups[s->group];
    snprintf(buf, len, "shard %d/%d%s%s", s->index, s->count, g[0] ? " of group " : "", g);
    return buf;
}

/* Read one run directory's sidecar into a shard.  Returns 0, 1 for a previous merge (skipped, so
 * that OUT may lie below the directories merged), or -1 with err. */
static int load_shard(bb_merge *m, const char *dir, bb_merge_shard *s, char *err, size_t errlen)
{
    char path[BB_MERGE_PATH_MAX + 16], why[512];
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    snprintf(path, sizeof path, "%s/run.json", dir);
    if (!(s->json = bb_json_load(path, why, sizeof why))) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (bb_jv_get(s->json, "merged")) {
        bb_jv_free(s->json);
        s->json = NULL;
        return 1;
    }
    const bb_jv *sh = bb_jv_get(s->json, "shard");
    const char *group = bb_jv_str(sh, "group");
    if (!sh || sh->type != BB_JV_OBJ || !group) {
        snprintf(err, errlen, "%s is not a shard (its run.json has no \"shard\"): merge joins the run directories "
                 "of `bitbench run --shard i/n`", dir);
        return -1;
    }
    s->index = (int)bb_jv_num(sh, "index");
    s->count = (int)bb_jv_num(sh, "count");
    s->status = bb_jv_str(s->json, "status");
    if ((s->group = group_of(m, group)) < 0 || int_list(bb_jv_get(sh, "points"), &s->points, &s->npoints) ||
        int_list(bb_jv_get(sh, "e2e_points"), &s->e2e, &s->ne2e)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* A string member of the shard's sidecar (path "a.b": member b of member a), "" when absent. */
static const char *member(const bb_merge_shard *s, const char *outer, const char *key)
{
    const char *v = bb_jv_str(outer ? bb_jv_get(s->json, outer) : s->json, key);
    return v ? v : "";
}

/* Shards that cannot be merged with the first: another experiment, settings, count or plan. */
static int check_together(const bb_merge *m, char *err, size_t errlen)
{
    const bb_merge_shard *a = &m->shards[0];
    static const struct { const char *outer, *key, *what; } same[] = {
        {"experiment", "name", "experiments"},
        {"experiment", "sha256", "experiment files (sha256)"},
        {"shard", "settings", "settings"},
    };
    for (int i = 1; i < m->nshards; i++) {
        const bb_merge_shard *b = &m->shards[i];
        for (size_t k = 0; k < sizeof same / sizeof same[0]; k++)
            if (strcmp(member(a, same[k].outer, same[k].key), member(b, same[k].outer, same[k].key))) {
                snprintf(err, errlen, "%s and %s are shards of different %s: '%s' and '%s'", a->dir, b->dir,
                         same[k].what, member(a, same[k].outer, same[k].key), member(b, same[k].outer, same[k].key));
                return -1;
            }
        if (a->count != b->count) {
            snprintf(err, errlen, "%s and %s split the plan differently: into %d and %d shards", a->dir, b->dir,
                     a->count, b->count);
            return -1;
        }
    }
    for (int i = 1; i < m->nshards; i++) {
        const bb_merge_shard *p = &m->shards[i - 1], *b = &m->shards[i];
        char n1[128];
        if (p->group == b->group && p->index == b->index) {
            snprintf(err, errlen, "%s is given twice: %s and %s; keep one of them", shard_name(m, b, n1, sizeof n1),
                     p->dir, b->dir);
            return -1;
        }
        if (p->group == b->group && strcmp(member(p, "shard", "plan_sha256"), member(b, "shard", "plan_sha256"))) {
            snprintf(err, errlen, "%s and %s of group '%s' ran different plans (plan_sha256 %.16s and %.16s): their "
                     "machines resolved the file differently (CPU features, cores); give each kind of machine its "
                     "own --shard-group", p->dir, b->dir, m->groups[b->group], member(p, "shard", "plan_sha256"),
                     member(b, "shard", "plan_sha256"));
            return -1;
        }
    }
    return 0;
}

static int shard_order(const void *x, const void *y)
{
    const bb_merge_shard *a = x, *b = y;
    return a->group != b->group ? a->group - b->group : a->index - b->index;
}

/* Missing and unfinished shards, one line each in m->problems. */
static void find_problems(bb_merge *m)
{
    for (int g = 0; g < m->ngroups; g++)
        for (int i = 0; i < m->count; i++) {
            const bb_merge_shard *s = NULL;
            for (int k = 0; k < m->nshards && !s; k++)
                if (m->shards[k].group == g && m->shards[k].index == i) s = &m->shards[k];
            char line[2048];
            int n = snprintf(line, sizeof line, "shard %d/%d%s%s", i, m->count, m->groups[g][0] ? " of group " : "",
                             m->groups[g]);
            if (!s) snprintf(line + n, sizeof line - (size_t)n, " is missing (no run directory of it was given)");
            else if (!s->status || strcmp(s->status, "complete"))
                snprintf(line + n, sizeof line - (size_t)n, " is %s: %s (%s)", s->status ? s->status : "unknown",
                         member(s, NULL, "status_reason"), s->dir);
            else continue;
            add_problem(m, line);
        }
}

int bb_merge_collect(const char *const *dirs, int ndirs, const char *const *groups, int ngroups, bb_merge *m,
                     char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    dir_list runs = {0};
    int rc = -1;
    for (int i = 0; i < ndirs; i++) {
        int before = runs.n;
        if (find_runs(dirs[i], 3, &runs)) goto oom;
        if (runs.n == before) {
            snprintf(err, errlen, "%s: no run directory (one with a run.json) in it or below it", dirs[i]);
            goto out;
        }
    }
    for (int i = 0; i < ngroups; i++)
        if (group_of(m, groups[i]) < 0) goto oom;
    if (!(m->shards = calloc((size_t)runs.n, sizeof *m->shards))) goto oom;
    for (int i = 0; i < runs.n; i++) {
        int rc_load = load_shard(m, runs.dirs[i], &m->shards[m->nshards], err, errlen);
        if (rc_load <= 0) m->nshards++; /* a failed one too, so that bb_merge_free frees what it holds */
        if (rc_load < 0) goto out;
    }
    if (m->nshards == 0) {
        snprintf(err, errlen, "no shard to merge: the run directories given are earlier merges");
        goto out;
    }
    /* groups sorted by name, the shards' group indices remapped */
    char(*named)[64] = malloc(sizeof *named * (size_t)(m->ngroups + 1));
    if (!named) goto oom;
    memcpy(named, m->groups, sizeof *named * (size_t)m->ngroups);
    qsort(m->groups, (size_t)m->ngroups, sizeof *m->groups, (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < m->nshards; i++)
        for (int g = 0; g < m->ngroups; g++)
            if (!strcmp(m->groups[g], named[m->shards[i].group])) {
                m->shards[i].group = g;
                break;
            }
    free(named);
    qsort(m->shards, (size_t)m->nshards, sizeof *m->shards, shard_order);
    m->count = m->shards[0].count;
    if (check_together(m, err, errlen)) goto out;
    find_problems(m);
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory collecting the shards");
out:
    for (int i = 0; i < runs.n; i++) free(runs.dirs[i]);
    free(runs.dirs);
    return rc;
}

void bb_merge_free(bb_merge *m)
{
    for (int i = 0; i < m->nshards; i++) {
        bb_jv_free(m->shards[i].json);
        free(m->shards[i].points);
        free(m->shards[i].e2e);
    }
    free(m->shards);
    free(m->groups);
    for (int i = 0; i < m->nproblems; i++) free(m->problems[i]);
    free(m->problems);
    for (int i = 0; i < m->ntables; i++) free(m->tables[i]);
    free(m->tables);
    memset(m, 0, sizeof *m);
}

int bb_merge_sweep_kind(const bb_merge *m, const char *name)
{
    const bb_jv *sweeps = bb_jv_get(m->shards[0].json, "sweeps");
    for (int i = 0; sweeps && sweeps->type == BB_JV_ARR && i < sweeps->n; i++) {
        const char *n = bb_jv_str(&sweeps->items[i], "name"), *type = bb_jv_str(&sweeps->items[i], "type");
        if (n && !strcmp(n, name)) return type && !strcmp(type, "model");
    }
    return 0;
}

