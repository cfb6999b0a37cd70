#include "io/jsonl.h"

#include <errno.h>
#include <string.h>

#include "io/json.h"
#include "support/output_file.h"

static void number(FILE *f, const char *fmt, double v)
{
    char buf[BB_NUM_TEXT_MAX];
    bb_csv_num_text(fmt, v, buf);
    fputs(buf[0] ? buf : "null", f);
}

int bb_jsonl_write_row(FILE *f, const bb_column *cols, int ncols, const void *row, const char *const *extra_names,
                       const double *extra, int nextra)
{
    fputc('{', f);
    for (int i = 0; i < ncols + nextra; i++) {
        if (i) fputc(',', f);
        if (i >= ncols) {
            bb_json_write_escaped(f, extra_names[i - ncols]);
            fputc(':', f);
            number(f, NULL, extra[i - ncols]);
            continue;
        }
        const bb_column *c = &cols[i];
        const char *p = (const char *)row + c->offset;
        bb_json_write_escaped(f, c->name);
        fputc(':', f);
        switch (c->kind) {
        case BB_COL_STR: bb_json_write_escaped(f, p); break;
        case BB_COL_INT: fprintf(f, "%d", *(const int *)p); break;
        case BB_COL_NUM: number(f, c->fmt, *(const double *)p); break;
        }
    }
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}

int bb_jsonl_write_file(const char *path, const bb_column *cols, int ncols, const void *rows, int nrows,
                        size_t row_size, const char *const *extra_names, int nextra, long extra_off, char *err,
                        size_t errlen)
{
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, errlen);
    if (!f) return -1;
    int rc = 0;
    for (int r = 0; r < nrows && rc == 0; r++) {
        const char *row = (const char *)rows + row_size * (size_t)r;
        rc = bb_jsonl_write_row(f, cols, ncols, row, extra_names, extra_off >= 0 ? (const double *)(row + extra_off) : NULL,
                                extra_off >= 0 ? nextra : 0);
    }
    if (rc) {
        snprintf(err, errlen, "cannot write %s: %s (the previous file, if any, is unchanged)", path, strerror(errno));
        bb_output_abort(&o);
        return -1;
    }
    return bb_output_commit(&o, err, errlen);
}
