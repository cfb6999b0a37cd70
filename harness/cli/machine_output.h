/* What `bitbench gemm` and `bitbench e2e` print: text for a reader, or one table row for a program
 * (--csv: a header line and the row; --json: the row as one JSON object on one line, io/jsonl.h).
 * With --csv or --json stdout holds only that; notes and errors go to stderr, as always. */
#ifndef BB_MACHINE_OUTPUT_H
#define BB_MACHINE_OUTPUT_H

#include <stdio.h>

#include "io/csv.h"

enum { BB_OUT_TEXT = 0, BB_OUT_CSV, BB_OUT_JSON };

/* --csv or --json (want) seen: set *format, or refuse a second, other format with one line on
 * stderr prefixed by who.  Returns 0 or -1. */
int bb_machine_output_option(const char *who, int want, int *format);

/* The row of a cols table, then the extra columns names[i] = extra[i], as CSV (header and row) or
 * JSONL on f.  Returns 0, or -1 after one line on stderr when f could not be written. */
int bb_machine_output_row(FILE *f, int format, const bb_column *cols, int ncols, const void *row,
                          const char *const *names, const double *extra, int nextra);

#endif
