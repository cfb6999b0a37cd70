#include "io/csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/input_file.h"

/* ---- writing ---- */

void bb_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void bb_num_text(double v, char buf[BB_NUM_TEXT_MAX])
{
    /* the fewest significant digits (15, 16 or 17) that strtod reads back as v: every double has
     * one, 17 at most (IEEE 754 binary64) */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, BB_NUM_TEXT_MAX, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) return;
    }
}

void bb_csv_num_text(const char *fmt, double v, char buf[BB_NUM_TEXT_MAX])
{
    if (!isfinite(v)) buf[0] = 0;
    else if (fmt) snprintf(buf, BB_NUM_TEXT_MAX, fmt, v);
    else bb_num_text(v, buf);
}

void bb_csv_num(FILE *f, const char *fmt, double v)
{
    char buf[BB_NUM_TEXT_MAX];
    bb_csv_num_text(fmt, v, buf);
    fputs(buf, f);
}

void bb_csv_header_line(const bb_column *cols, int ncols, const char *const *extra, int nextra, char *buf,
                        size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < ncols + nextra; i++) {
        const char *name = i < ncols ? cols[i].name : extra[i - ncols];
        int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "", name);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

void bb_csv_write_columns(FILE *f, const bb_column *cols, int ncols, const void *row)
{
    for (int i = 0; i < ncols; i++) {
        const bb_column *c = &cols[i];
        const char *p = (const char *)row + c->offset;
        if (i) fputc(',', f);
        switch (c->kind) {
        case BB_COL_STR: bb_csv_field(f, p); break;
        case BB_COL_INT: fprintf(f, "%d", *(const int *)p); break;
        case BB_COL_NUM: bb_csv_num(f, c->fmt, *(const double *)p); break;
        }
    }
}

int bb_csv_parse_num(const char *s, double *out)
{
    char *end;
    if (!*s) {
        *out = NAN;
        return 0;
    }
    *out = strtod(s, &end);
    return *end ? -1 : 0;
}

int bb_csv_write_table_row(FILE *f, const bb_column *cols, int ncols, const void *row, const double *meter,
                           int nmeter)
{
    bb_csv_write_columns(f, cols, ncols, row);
    for (int i = 0; i < nmeter; i++) {
        fputc(',', f);
        bb_csv_num(f, NULL, meter[i]);
    }
    fputc('\n', f);
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

int bb_csv_parse_table_row(char *const *fields, const bb_column *cols, int ncols, void *row, double *meter,
                           int nmeter)
{
    if (bb_csv_parse_columns(fields, cols, ncols, row)) return -1;
    for (int i = 0; i < nmeter; i++)
        if (bb_csv_parse_num(fields[ncols + i], &meter[i])) return -1;
    return 0;
}

int bb_csv_parse_columns(char *const *fields, const bb_column *cols, int ncols, void *row)
{
    for (int i = 0; i < ncols; i++) {
        const bb_column *c = &cols[i];
        char *p = (char *)row + c->offset, *end;
        switch (c->kind) {
        case BB_COL_STR:
            if (strlen(fields[i]) >= c->size) return -1;
            strcpy(p, fields[i]);
            break;
        case BB_COL_INT:
            *(int *)p = (int)strtol(fields[i], &end, 10);
            if (end == fields[i] || *end) return -1;
            break;
        case BB_COL_NUM:
            if (bb_csv_parse_num(fields[i], (double *)p)) return -1;
            break;
        }
    }
    return 0;
}

/* ---- reading ---- */

/* Split one record (no line break) into fields, in place: quotes are removed and "" becomes ".
 * Returns the field count, or -1 for an unterminated quote, text after a closing quote, or more
 * than max fields. */
static int split_record(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max) return -1;
        if (*p == '"') {
            char *out = ++p;
            fields[n++] = out;
            for (;;) {
                if (!*p) return -1;
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            *out = 0;
            if (*p == ',') {
                p++;
                continue;
            }
            return *p ? -1 : n;
        }
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma) return n;
        *comma = 0;
        p = comma + 1;
    }
}

static int count_fields(const char *line)
{
    int n = 1;
    for (const char *p = line; *p; p++) n += *p == ',';
    return n;
}

/* Append one split row, padded or checked against the header's width. */
static int add_row(bb_csv_table *t, char **fields, int n, int lineno, unsigned flags, int *cap)
{
    if (n != t->ncols && !(flags & BB_CSV_LENIENT)) return -1;
    if (t->nrows == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        char **c = realloc(t->cell, sizeof *c * (size_t)*cap * (size_t)t->ncols);
        int *l = realloc(t->lineno, sizeof *l * (size_t)*cap);
        if (c) t->cell = c;
        if (l) t->lineno = l;
        if (!c || !l) return -2;
    }
    static char empty[1];
    for (int c = 0; c < t->ncols; c++) t->cell[(size_t)t->nrows * (size_t)t->ncols + (size_t)c] = c < n ? fields[c] : empty;
    t->lineno[t->nrows++] = lineno;
    return 0;
}

static int parse_text(bb_csv_table *t, const char *path, unsigned flags, size_t *complete, char *err, size_t errlen)
{
    char *p = t->text;
    int lineno = 0, cap = 0;
    char **fields = NULL;
    int rc = 0;
    *complete = 0;
    while (*p && rc == 0) {
        char *nl = strchr(p, '\n');
        if (!nl) break; /* cut short: dropped */
        *nl = 0;
        if (nl > p && nl[-1] == '\r') nl[-1] = 0;
        char *line = p;
        p = nl + 1;
        lineno++;
        *complete = (size_t)(p - t->text);
        if ((flags & BB_CSV_LENIENT) && (line[0] == '#' || line[0] == 0)) continue;
        int max = count_fields(line);
        char **v = realloc(fields, sizeof *v * (size_t)max);
        if (!v) {
            snprintf(err, errlen, "out of memory reading %s", path);
            rc = -1;
            break;
        }
        fields = v;
        int n = split_record(line, fields, max);
        if (n < 0) {
            snprintf(err, errlen, "%s:%d: not a well-formed CSV record (unbalanced quotes)", path, lineno);
            rc = -1;
        } else if (!t->head) {
            t->ncols = n;
            t->head = malloc(sizeof *t->head * (size_t)n);
            if (t->head) memcpy(t->head, fields, sizeof *t->head * (size_t)n);
            else rc = -1;
        } else {
            int a = add_row(t, fields, n, lineno, flags, &cap);
            if (a == -1) snprintf(err, errlen, "%s:%d: %d fields, the header has %d", path, lineno, n, t->ncols);
            if (a == -2) snprintf(err, errlen, "out of memory reading %s", path);
            rc = a ? -1 : 0;
        }
    }
    free(fields);
    if (rc == 0 && !t->head) {
        snprintf(err, errlen, "%s has no header line", path);
        rc = -1;
    }
    return rc;
}

int bb_csv_load(const char *path, unsigned flags, bb_csv_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    size_t len = 0, complete;
    if (!(t->text = bb_input_read_all(path, "results table", BB_CSV_MAX_BYTES, &len, err, errlen))) return -1;
    int rc = parse_text(t, path, flags, &complete, err, errlen);
    if (rc == 0 && (flags & BB_CSV_TRUNCATE) && complete < len && truncate(path, (off_t)complete) != 0) {
        snprintf(err, errlen, "cannot truncate %s to its last complete row: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc) bb_csv_table_free(t);
    return rc;
}

void bb_csv_table_free(bb_csv_table *t)
{
    free(t->head);
    free(t->cell);
    free(t->lineno);
    free(t->text);
    memset(t, 0, sizeof *t);
}

int bb_csv_col(const bb_csv_table *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (!strcmp(t->head[i], name)) return i;
    return -1;
}

bool bb_csv_header_is(const bb_csv_table *t, const char *line)
{
    const char *p = line;
    for (int i = 0; i < t->ncols; i++) {
        size_t n = strlen(t->head[i]);
        if (strncmp(p, t->head[i], n) != 0) return false;
        p += n;
        if (i + 1 < t->ncols && *p++ != ',') return false;
    }
    return *p == 0;
}

const char *bb_csv_cell(const bb_csv_table *t, int row, int col)
{
    return col < 0 || col >= t->ncols ? "" : t->cell[(size_t)row * (size_t)t->ncols + (size_t)col];
}

double bb_csv_cell_num(const bb_csv_table *t, int row, int col)
{
    const char *s = bb_csv_cell(t, row, col);
    return *s ? strtod(s, NULL) : NAN;
}

int bb_csv_read_rows(const char *path, const char *header, size_t row_size,
                     int (*parse)(char *const *fields, void *row, int nmeter), int nmeter, void **rows, int *count,
                     char *err, size_t errlen)
{
    *rows = NULL;
    *count = 0;
    bb_csv_table t;
    if (bb_csv_load(path, BB_CSV_TRUNCATE, &t, err, errlen)) return -1;
    if (!bb_csv_header_is(&t, header)) {
        snprintf(err, errlen, "%s has other columns than this run would write (were meters changed?); "
                              "start a new run instead of --resume", path);
        bb_csv_table_free(&t);
        return -1;
    }
    char *v = malloc(row_size * (size_t)(t.nrows ? t.nrows : 1));
    int rc = v ? 0 : -1;
    if (!v) snprintf(err, errlen, "out of memory reading %s", path);
    for (int i = 0; i < t.nrows && rc == 0; i++)
        if (parse(&t.cell[(size_t)i * (size_t)t.ncols], v + row_size * (size_t)i, nmeter)) {
            snprintf(err, errlen, "%s:%d: a malformed row (a cell does not fit its column)", path, t.lineno[i]);
            rc = -1;
        }
    if (rc == 0) {
        *rows = v;
        *count = t.nrows;
    } else {
        free(v);
    }
    bb_csv_table_free(&t);
    return rc;
}
