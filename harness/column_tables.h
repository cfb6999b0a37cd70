/* The column tables of a run's CSV files by name, and their documentation as markdown.
 *
 * Each table (results.csv, e2e.csv, samples.csv, e2e_samples.csv) is one bb_column array (csv.h)
 * whose doc strings say what every column holds.  `bitbench list columns [TABLE]` prints them as
 * markdown tables, and docs/results.md carries that output between generated markers, so the
 * schema a reader sees is the one the binary writes (tests/test_docs_columns.sh compares them). */
#ifndef BB_COLUMN_TABLES_H
#define BB_COLUMN_TABLES_H

#include <stdbool.h>
#include <stdio.h>

#include "csv.h"

typedef struct {
    const char *name;       /* as `bitbench list columns` takes it: "results" */
    const char *file;       /* the file in a run directory: "results.csv" */
    const bb_column *cols;
    int ncols;
    bool meter_columns;     /* the fixed columns are followed by one column per meter value */
} bb_column_table;

int bb_column_table_count(void);
/* The i-th table, 0 <= i < bb_column_table_count(). */
bb_column_table bb_column_table_at(int i);
/* The table of that name; false when there is none. */
bool bb_column_table_by_name(const char *name, bb_column_table *out);
/* "results, e2e, samples, e2e_samples" */
void bb_column_table_names(char *buf, size_t len);

/* A markdown table of t's columns: column, type (text, integer, number), meaning.  A '|' in a doc
 * string is written as "\|" so that it stays inside its cell. */
void bb_columns_markdown(FILE *f, const bb_column_table *t);

#endif
