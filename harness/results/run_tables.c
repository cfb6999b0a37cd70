#include "results/run_tables.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/csv.h"
#include "io/json_read.h"
#include "support/input_file.h"
#include "support/output_file.h"

/* One of a run's four tables: its file, row struct and where the struct keeps meter values. */
typedef struct {
    const char *file;
    const bb_column *cols;
    int ncols;
    size_t row_size;
    long meter_off, nmeter_off; /* -1: a table without meter columns */
} table_kind;

static table_kind kind_of(int which)
{
    switch (which) {
    case 0: return (table_kind){"results.csv", bb_result_columns, bb_result_ncolumns, sizeof(bb_result_row),
                                (long)offsetof(bb_result_row, meter), (long)offsetof(bb_result_row, nmeter)};
    case 1: return (table_kind){"e2e.csv", bb_e2e_columns, bb_e2e_ncolumns, sizeof(bb_e2e_row),
                                (long)offsetof(bb_e2e_row, meter), (long)offsetof(bb_e2e_row, nmeter)};
    case 2: return (table_kind){BB_SAMPLES_NAME, bb_sample_columns, bb_sample_ncolumns, sizeof(bb_sample_row), -1, -1};
    default: return (table_kind){BB_E2E_SAMPLES_NAME, bb_e2e_sample_columns, bb_e2e_sample_ncolumns,
                                 sizeof(bb_e2e_sample_row), -1, -1};
    }
}

/* The rows of t into structs, by column name; the columns the struct does not know are meters. */
static int parse_rows(const char *path, const bb_csv_table *t, const table_kind *k, char *rows, bb_meter_names *mn,
                      char *err, size_t errlen)
{
    int map[128], meter_col[BB_MAX_METER_VALUES], nm = 0;
    for (int i = 0; i < k->ncols && i < 128; i++) map[i] = bb_csv_col(t, k->cols[i].name);
    for (int j = 0; j < t->ncols && k->meter_off >= 0; j++) {
        bool known = false;
        for (int i = 0; i < k->ncols && !known; i++) known = map[i] == j;
        if (!known && nm < BB_MAX_METER_VALUES) {
            snprintf(mn->names[nm], sizeof mn->names[nm], "%s", t->head[j]);
            meter_col[nm++] = j;
        }
    }
    if (mn) mn->n = nm;
    char *fields[128];
    for (int r = 0; r < t->nrows; r++) {
        char *row = rows + k->row_size * (size_t)r;
        for (int i = 0; i < k->ncols; i++) /* a column the file lacks (an older run): an empty cell */
            fields[i] = map[i] >= 0 ? t->cell[(size_t)r * (size_t)t->ncols + (size_t)map[i]]
                                    : (char *)(k->cols[i].kind == BB_COL_INT ? "0" : "");
        int bad = bb_csv_parse_columns(fields, k->cols, k->ncols, row);
        for (int m = 0; m < nm && !bad; m++)
            bad = bb_csv_parse_num(bb_csv_cell(t, r, meter_col[m]), (double *)(row + k->meter_off) + m);
        if (k->nmeter_off >= 0) *(int *)(row + k->nmeter_off) = nm;
        if (bad) {
            snprintf(err, errlen, "%s:%d: a malformed row (a cell does not fit its column)", path, t->lineno[r]);
            return -1;
        }
    }
    return 0;
}

static int read_table(const char *dir, const table_kind *k, void **rows, int *n, bb_meter_names *mn, bool *has,
                      char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, k->file);
    *rows = NULL;
    *n = 0;
    *has = access(path, F_OK) == 0;
    if (!*has) return 0;
    bb_csv_table t;
    if (bb_csv_load(path, 0, &t, err, errlen)) return -1;
    int rc = -1;
    if (t.ncols > 128) snprintf(err, errlen, "%s: %d columns, more than a bitbench table has", path, t.ncols);
    else if (!(*rows = calloc((size_t)(t.nrows ? t.nrows : 1), k->row_size)))
        snprintf(err, errlen, "out of memory reading %s", path);
    else if ((rc = parse_rows(path, &t, k, *rows, mn, err, errlen)) == 0)
        *n = t.nrows;
    bb_csv_table_free(&t);
    return rc;
}

int bb_run_tables_read(const char *dir, bb_run_tables *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    /* absent is allowed (a run killed before it wrote one); present, it must be a regular file
     * within the JSON bound (support/input_file.h) */
    if (access(path, F_OK) == 0 && !(t->run_json = bb_input_read_all(path, "run.json", BB_JSON_MAX_BYTES, NULL, err,
                                                                     errlen)))
        return -1;
    table_kind k[4] = {kind_of(0), kind_of(1), kind_of(2), kind_of(3)};
    if (read_table(dir, &k[0], (void **)&t->rows, &t->nrows, &t->row_meters, &t->has_results, err, errlen) ||
        read_table(dir, &k[1], (void **)&t->e2e, &t->ne2e, &t->e2e_meters, &t->has_e2e, err, errlen) ||
        read_table(dir, &k[2], (void **)&t->samples, &t->nsamples, NULL, &t->has_samples, err, errlen) ||
        read_table(dir, &k[3], (void **)&t->e2e_samples, &t->ne2e_samples, NULL, &t->has_e2e_samples, err, errlen) ||
        bb_run_texts_read(dir, &t->texts, &t->ntexts, err, errlen)) {
        bb_run_tables_free(t);
        return -1;
    }
    if (!t->run_json && !t->has_results && !t->has_e2e) {
        snprintf(err, errlen, "%s is not a run directory (no run.json, results.csv or e2e.csv)", dir);
        return -1;
    }
    return 0;
}

static int write_table(const char *dir, const table_kind *k, const void *rows, int n, const bb_meter_names *mn,
                       char *err, size_t errlen)
{
    char path[4200], header[8192];
    const char *names[BB_MAX_METER_VALUES];
    int nm = mn ? mn->n : 0;
    for (int i = 0; i < nm; i++) names[i] = mn->names[i];
    snprintf(path, sizeof path, "%s/%s", dir, k->file);
    bb_csv_header_line(k->cols, k->ncols, names, nm, header, sizeof header);
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, errlen);
    if (!f) return -1;
    int rc = fprintf(f, "%s\n", header) > 0 ? 0 : -1;
    for (int i = 0; i < n && rc == 0; i++) {
        const char *row = (const char *)rows + k->row_size * (size_t)i;
        if (k->meter_off >= 0) {
            rc = bb_csv_write_table_row(f, k->cols, k->ncols, row, (const double *)(row + k->meter_off), nm);
        } else {
            bb_csv_write_columns(f, k->cols, k->ncols, row);
            rc = fputc('\n', f) == EOF ? -1 : 0;
        }
    }
    if (rc) {
        snprintf(err, errlen, "cannot write %s: %s (the previous file, if any, is unchanged)", path, strerror(errno));
        bb_output_abort(&o);
        return -1;
    }
    return bb_output_commit(&o, err, errlen);
}

const char *const bb_run_tables_files[] = {"results.csv",          "e2e.csv",         BB_SAMPLES_NAME,
                                           BB_E2E_SAMPLES_NAME,    "run.json",        BB_RUN_EXPERIMENT_TEXT,
                                           BB_RUN_DIFF_TEXT,       NULL};

int bb_run_tables_write(const char *dir, const bb_run_tables *t, char *err, size_t errlen)
{
    table_kind k[4] = {kind_of(0), kind_of(1), kind_of(2), kind_of(3)};
    if ((t->has_results && write_table(dir, &k[0], t->rows, t->nrows, &t->row_meters, err, errlen)) ||
        (t->has_e2e && write_table(dir, &k[1], t->e2e, t->ne2e, &t->e2e_meters, err, errlen)) ||
        (t->has_samples && write_table(dir, &k[2], t->samples, t->nsamples, NULL, err, errlen)) ||
        (t->has_e2e_samples && write_table(dir, &k[3], t->e2e_samples, t->ne2e_samples, NULL, err, errlen)) ||
        bb_run_texts_write(dir, t->texts, t->ntexts, err, errlen))
        return -1;
    if (!t->run_json) return 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, errlen);
    if (!f) return -1;
    if (fputs(t->run_json, f) == EOF) {
        snprintf(err, errlen, "cannot write %s: %s (the previous file, if any, is unchanged)", path, strerror(errno));
        bb_output_abort(&o);
        return -1;
    }
    return bb_output_commit(&o, err, errlen);
}

void bb_run_tables_free(bb_run_tables *t)
{
    free(t->run_json);
    free(t->rows);
    free(t->e2e);
    free(t->samples);
    free(t->e2e_samples);
    bb_run_texts_free(t->texts, t->ntexts);
    memset(t, 0, sizeof *t);
}

void *bb_run_tables_grow(void **v, int *n, size_t size)
{
    if ((*n & (*n - 1)) == 0) { /* capacity doubles at powers of two */
        char *nv = realloc(*v, size * (size_t)(*n ? 2 * *n : 1));
        if (!nv) return NULL;
        *v = nv;
    }
    char *e = (char *)*v + size * (size_t)(*n)++;
    memset(e, 0, size);
    return e;
}
