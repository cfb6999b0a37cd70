/* JSON Lines (https://jsonlines.org): one JSON object per table row, one row per line, for readers
 * that want typed values without a CSV parser (pandas.read_json(lines=True), jq, DuckDB) — as
 * llama-bench's `-o jsonl`.
 *
 * A row's object has the columns of its bb_column table (csv.h) as keys, in the table's order, then
 * the extra columns (meters, a command's own additions).  Text is a JSON string (RFC 8259 escapes,
 * json.h); an INT column is an integer; a NUM column is a number written as its CSV cell is
 * (bb_csv_num_text: full precision, so both files parse to the same double), or null where the CSV
 * cell is empty (not measured, never 0). */
#ifndef BB_JSONL_H
#define BB_JSONL_H

#include <stdio.h>

#include "io/csv.h"

/* One row's object and its newline.  extra_names[i] and extra[i] for i < nextra follow the
 * columns (NULL when nextra is 0).  Returns 0, or -1 when writing failed. */
int bb_jsonl_write_row(FILE *f, const bb_column *cols, int ncols, const void *row, const char *const *extra_names,
                       const double *extra, int nextra);

/* A whole table as a file at path through support/output_file.h (a failure leaves what was there):
 * rows of row_size bytes; the extra values of row i at (const double *)(row + extra_off), -1 for
 * none.  Returns 0, or -1 with err. */
int bb_jsonl_write_file(const char *path, const bb_column *cols, int ncols, const void *rows, int nrows,
                        size_t row_size, const char *const *extra_names, int nextra, long extra_off, char *err,
                        size_t errlen);

#endif
