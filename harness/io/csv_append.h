/* The tables a run appends to row by row (results.csv, e2e.csv, samples.csv, e2e_samples.csv):
 * started with their header line written whole, and told apart from a table with rows when
 * resumed.
 *
 * These files are the exception to output_file.h: rows are appended (and flushed) one by one, so
 * that a kill loses at most the row being written and --resume carries on.  A table whose header
 * never got written whole (the disk filled, or a kill, before it) holds no rows yet: --resume
 * starts it again instead of calling it damaged (issue 29). */
#ifndef BB_CSV_APPEND_H
#define BB_CSV_APPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Does path hold no complete line (absent, zero bytes, or a header cut short)?  False for anything
 * that is not a regular file: the table's reader then says what is wrong with it. */
bool bb_csv_append_unstarted(const char *path);

/* A new table at path: header and a newline written through output_file.h (replacing the file
 * there, which held no rows), then path opened for appending.  NULL with one line in err. */
FILE *bb_csv_append_start(const char *path, const char *header, char *err, size_t errlen);

/* The line a failed append leaves in a run's messages: what to do about it. */
#define BB_CSV_APPEND_REMEDY "the rows before it are kept; make room and run again with --resume to continue"

#endif
