/* CSV as bitbench writes and reads it (RFC 4180 quoting, one record per line), and typed
 * column tables.
 *
 * Every output table (results.csv in results_csv.c, e2e.csv in results_e2e.c) is a row struct
 * plus one array of bb_column naming each field, its type, its printf format and a one-line
 * description: the header, the writer, the reader (for --resume) and the docs all come from that
 * array, so adding a column is one struct field and one line in the array.
 *
 * One reader (bb_csv_load) serves --resume, `bitbench plot` and every other reader of these
 * files: a table of text cells addressed by row and column name. */
#ifndef BB_CSV_H
#define BB_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { BB_COL_STR, BB_COL_INT, BB_COL_NUM } bb_col_kind;

typedef struct {
    const char *name;
    bb_col_kind kind;                /* STR: char[size]; INT: int; NUM: double (not finite: empty) */
    size_t offset, size;             /* of the field in its row struct */
    const char *doc;                 /* one line, for README and `--help` */
    const char *fmt;                 /* printf format of a NUM column (an integer count: "%.0f"); NULL: the
                                      * shortest text that reads back as the same double (bb_num_text) */
} bb_column;

/* A column of row type T, field F. */
#define BB_COLUMN(T, name, kind, field, doc) {name, kind, offsetof(T, field), sizeof(((T *)0)->field), doc, NULL}
#define BB_COLUMN_FMT(T, name, kind, field, fmt, doc) \
    {name, kind, offsetof(T, field), sizeof(((T *)0)->field), doc, fmt}

/* ---- writing ---- */

/* RFC 4180: quote a field when it holds a comma, a quote or a line break. */
void bb_csv_field(FILE *f, const char *s);
/* A double at full precision: the shortest of %.15g, %.16g and %.17g that strtod reads back as v
 * exactly (a CSV cell, a JSONL value and the database's REAL all hold the same number). */
#define BB_NUM_TEXT_MAX 40
void bb_num_text(double v, char buf[BB_NUM_TEXT_MAX]);
/* A NUM cell's text: "" when v is not finite (not measured), else in fmt, else bb_num_text. */
void bb_csv_num_text(const char *fmt, double v, char buf[BB_NUM_TEXT_MAX]);
/* The same, written to f. */
void bb_csv_num(FILE *f, const char *fmt, double v);
/* "name,name,...": the columns, then the extra names (meter columns). */
void bb_csv_header_line(const bb_column *cols, int ncols, const char *const *extra, int nextra, char *buf,
                        size_t len);
/* The fields of one row struct, comma-separated (no newline). */
void bb_csv_write_columns(FILE *f, const bb_column *cols, int ncols, const void *row);
/* Fill a row struct from text fields, one per column; empty NUM cells become NAN.
 * Returns 0, or -1 when a field does not fit its column. */
int bb_csv_parse_columns(char *const *fields, const bb_column *cols, int ncols, void *row);
/* A number cell: empty -> NAN.  Returns 0, or -1 when it is not a number. */
int bb_csv_parse_num(const char *s, double *out);
/* One whole line of a table: the row struct's columns, then its meter values; flushed so an
 * interrupted run keeps it.  Returns 0, or -1 when writing failed. */
int bb_csv_write_table_row(FILE *f, const bb_column *cols, int ncols, const void *row, const double *meter,
                           int nmeter);
/* The inverse: columns into the row struct, the nmeter fields after them into meter. */
int bb_csv_parse_table_row(char *const *fields, const bb_column *cols, int ncols, void *row, double *meter,
                           int nmeter);

/* ---- reading ---- */

enum {
    BB_CSV_TRUNCATE = 1,             /* cut the file back to its last complete line (see below) */
    BB_CSV_LENIENT = 2,              /* '#' and blank lines are skipped, short rows padded with empty cells
                                      * and extra fields dropped (files from elsewhere, for plotting) */
};

typedef struct {
    int ncols, nrows;
    char **head;                     /* ncols names */
    char **cell;                     /* nrows * ncols, row-major */
    int *lineno;                     /* of each row in the file, for messages */
    char *text;                      /* the file, split in place */
} bb_csv_table;

/* The largest table bb_csv_load reads: a sweep's results.csv is a few MB; a gibibyte is hundreds
 * of times a large one and bounds what a shared run directory can cost (the file is read whole). */
#define BB_CSV_MAX_BYTES ((uint64_t)1 << 30)

/* Read a whole CSV file: a header line, then rows of as many fields.  A final line without its
 * newline is a write cut short by a kill: it is dropped, and with BB_CSV_TRUNCATE the file is
 * truncated to its last complete line so that appending continues cleanly.  Only a regular file of
 * at most BB_CSV_MAX_BYTES is read (support/input_file.h).  Returns 0, or -1 with err ("PATH: is a
 * FIFO, not a regular file; ...", "PATH has no header line", "PATH:LINE: ..."). */
int bb_csv_load(const char *path, unsigned flags, bb_csv_table *t, char *err, size_t errlen);
void bb_csv_table_free(bb_csv_table *t);

/* The rows of a file this run appends to (--resume): loads path with BB_CSV_TRUNCATE, requires its
 * header to be exactly `header`, and turns each row into a row struct of row_size bytes with
 * parse (returns 0, or -1 for a malformed row).  *rows is malloc'd.  Returns 0, or -1 with err. */
int bb_csv_read_rows(const char *path, const char *header, size_t row_size,
                     int (*parse)(char *const *fields, void *row, int nmeter), int nmeter, void **rows, int *count,
                     char *err, size_t errlen);

/* The index of the column named name, or -1. */
int bb_csv_col(const bb_csv_table *t, const char *name);
/* Is the header exactly this "a,b,c" line? */
bool bb_csv_header_is(const bb_csv_table *t, const char *line);
/* Cell text ("" for column -1) and cell number (NAN when empty or column -1). */
const char *bb_csv_cell(const bb_csv_table *t, int row, int col);
double bb_csv_cell_num(const bb_csv_table *t, int row, int col);

#endif
