/* The CSV tables of a merge (merge.h): every *.csv a shard's run wrote, whatever its columns,
 * so that tables added to runs later are merged without a change here.  Rows carry the plan's
 * global point ids; in the merged table they stand in plan order - group, then the kernel points,
 * then the end-to-end points, each by point id - and the rows of one point keep their order
 * (samples by repetition, a peer's row after bitbench's). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/merge.h"
#include "io/csv.h"
#include "support/output_file.h"

/* One row of the merged table: where it comes from and where it goes. */
typedef struct {
    int group, kind, point, shard, row;
} row_ref;

static int ref_order(const void *x, const void *y)
{
    const row_ref *a = x, *b = y;
    if (a->group != b->group) return a->group - b->group;
    if (a->kind != b->kind) return a->kind - b->kind;
    if (a->point != b->point) return a->point - b->point;
    if (a->shard != b->shard) return a->shard - b->shard;
    return a->row - b->row;
}

static bool is_csv(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".csv") && name[0] != '.';
}

static int add_name(bb_merge *m, const char *name)
{
    for (int i = 0; i < m->ntables; i++)
        if (!strcmp(m->tables[i], name)) return 0;
    char **v = realloc(m->tables, sizeof *v * (size_t)(m->ntables + 1));
    if (!v) return -1;
    m->tables = v;
    if (!(v[m->ntables] = strdup(name))) return -1;
    m->ntables++;
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The names of the tables any shard has. */
static int table_names(bb_merge *m)
{
    for (int i = 0; i < m->nshards; i++) {
        DIR *d = opendir(m->shards[i].dir);
        if (!d) continue;
        int rc = 0;
        for (struct dirent *e; rc == 0 && (e = readdir(d));)
            if (is_csv(e->d_name)) rc = add_name(m, e->d_name);
        closedir(d);
        if (rc) return -1;
    }
    if (m->ntables) qsort(m->tables, (size_t)m->ntables, sizeof *m->tables, cmp_str);
    return 0;
}

static bool same_header(const bb_csv_table *a, const bb_csv_table *b)
{
    if (a->ncols != b->ncols) return false;
    for (int i = 0; i < a->ncols; i++)
        if (strcmp(a->head[i], b->head[i])) return false;
    return true;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Is the point of this kind in the shard's share? */
static bool in_share(const bb_merge_shard *s, int kind, int point)
{
    const int *ids = kind ? s->e2e : s->points;
    int n = kind ? s->ne2e : s->npoints;
    return n > 0 && bsearch(&point, ids, (size_t)n, sizeof *ids, cmp_int) != NULL;
}

/* The rows of shard i's table t, as references; each row's point must be in the shard's share. */
static int add_rows(const bb_merge *m, int i, const bb_csv_table *t, const char *path, row_ref **refs, int *n,
                    char *err, size_t errlen)
{
    const bb_merge_shard *s = &m->shards[i];
    int pcol = bb_csv_col(t, "point"), scol = bb_csv_col(t, "sweep");
    row_ref *v = realloc(*refs, sizeof *v * (size_t)(*n + t->nrows + 1));
    if (!v) {
        snprintf(err, errlen, "out of memory merging %s", path);
        return -1;
    }
    *refs = v;
    for (int r = 0; r < t->nrows; r++) {
        row_ref ref = {.group = s->group, .shard = i, .row = r};
        if (pcol >= 0) {
            const char *cell = bb_csv_cell(t, r, pcol);
            char *end;
            long point = strtol(cell, &end, 10);
            ref.kind = scol >= 0 ? bb_merge_sweep_kind(m, bb_csv_cell(t, r, scol)) : 0;
            ref.point = (int)point;
            if (end == cell || *end || !in_share(s, ref.kind, ref.point)) {
                snprintf(err, errlen, "%s:%d: point '%s' is not one of the %s points of this shard's share (%d of "
                         "them); was the file edited or copied from another run?", path, t->lineno[r], cell,
                         ref.kind ? "end-to-end" : "kernel", ref.kind ? s->ne2e : s->npoints);
                return -1;
            }
        }
        v[(*n)++] = ref;
    }
    return 0;
}

static void write_row(FILE *f, const bb_csv_table *t, int r)
{
    for (int c = 0; c < t->ncols; c++) {
        if (c) fputc(',', f);
        bb_csv_field(f, bb_csv_cell(t, r, c));
    }
    fputc('\n', f);
}

/* Write out/name from the loaded tables (NULL where a shard has none), counting rows per group. */
static int write_table(const bb_merge *m, const char *out, const char *name, bb_csv_table *tabs, row_ref *refs,
                       int nrefs, int *per_group, char *err, size_t errlen)
{
    char path[BB_MERGE_PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s", out, name);
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, errlen);
    if (!f) return -1;
    const bb_csv_table *head = NULL;
    for (int i = 0; i < m->nshards && !head; i++)
        if (tabs[i].head) head = &tabs[i];
    for (int c = 0; c < head->ncols; c++) {
        if (c) fputc(',', f);
        bb_csv_field(f, head->head[c]);
    }
    fputc('\n', f);
    qsort(refs, (size_t)nrefs, sizeof *refs, ref_order);
    for (int k = 0; k < nrefs; k++) {
        write_row(f, &tabs[refs[k].shard], refs[k].row);
        per_group[refs[k].group]++;
    }
    return bb_output_commit(&o, err, errlen);
}

/* One table of every shard that has it: same header everywhere, rows in plan order. */
static int merge_one(const bb_merge *m, const char *out, const char *name, int *per_group, char *err,
                     size_t errlen)
{
    bb_csv_table *tabs = calloc((size_t)m->nshards, sizeof *tabs);
    row_ref *refs = NULL;
    int nrefs = 0, rc = -1, first = -1;
    if (!tabs) {
        snprintf(err, errlen, "out of memory merging %s", name);
        return -1;
    }
    for (int i = 0; i < m->nshards; i++) {
        char path[BB_MERGE_PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", m->shards[i].dir, name);
        /* whether it is there, not opened (a FIFO would block an open; bb_csv_load refuses it) */
        if (access(path, F_OK) != 0) continue; /* this shard wrote no such table (e.g. no end-to-end point) */
        if (bb_csv_load(path, 0, &tabs[i], err, errlen)) goto out;
        if (first < 0) first = i;
        else if (!same_header(&tabs[first], &tabs[i])) {
            snprintf(err, errlen, "%s/%s and %s have different columns (runs of different bitbench builds or "
                     "meters?); merge only shards of one build", m->shards[first].dir, name, path);
            goto out;
        }
        if (add_rows(m, i, &tabs[i], path, &refs, &nrefs, err, errlen)) goto out;
    }
    rc = first < 0 ? 0 : write_table(m, out, name, tabs, refs, nrefs, per_group, err, errlen);
out:
    for (int i = 0; i < m->nshards; i++) bb_csv_table_free(&tabs[i]);
    free(tabs);
    free(refs);
    return rc;
}

int bb_merge_tables(bb_merge *m, const char *out, int ***rows_per_group, char *err, size_t errlen)
{
    int rc = -1, **counts = NULL;
    if (table_names(m) || !(counts = calloc((size_t)m->ntables + 1, sizeof *counts))) {
        snprintf(err, errlen, "out of memory merging the tables");
        return -1;
    }
    for (int t = 0; t < m->ntables; t++)
        if (!(counts[t] = calloc((size_t)m->ngroups + 1, sizeof **counts))) {
            snprintf(err, errlen, "out of memory merging the tables");
            goto out;
        }
    rc = 0;
    for (int t = 0; t < m->ntables && rc == 0; t++) rc = merge_one(m, out, m->tables[t], counts[t], err, errlen);
out:
    if (rc == 0 && rows_per_group) {
        *rows_per_group = counts;
        return 0;
    }
    for (int t = 0; t < m->ntables; t++) free(counts[t]);
    free(counts);
    return rc;
}
