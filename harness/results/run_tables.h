/* A run's tables in memory: results.csv, e2e.csv, samples.csv and e2e_samples.csv as row structs,
 * with the meter columns each table had, and the run's sidecar as text.  One form for what reads
 * runs whole: `bitbench db import` (a run directory into the database), `db export` (the way
 * back), and `bitbench compare` (from a directory or from the database).
 *
 * Files are read by column name, so runs written before a column existed load too (the missing
 * cells are empty: NAN, 0 or ""); the columns of a table that its row struct does not know, after
 * its fixed columns, are its meter columns. */
#ifndef BB_RUN_TABLES_H
#define BB_RUN_TABLES_H

#include <stdbool.h>
#include <stddef.h>

#include "results/results.h"
#include "results/results_e2e.h"
#include "results/run_texts.h"
#include "results/samples.h"

#define BB_METER_NAME_MAX 64

typedef struct {
    char names[BB_MAX_METER_VALUES][BB_METER_NAME_MAX];
    int n;
} bb_meter_names;

typedef struct {
    char *run_json;                   /* the sidecar's text; NULL when the run has none */
    bool has_results, has_e2e, has_samples, has_e2e_samples; /* which files the run had */
    bb_result_row *rows;
    int nrows;
    bb_meter_names row_meters;
    bb_e2e_row *e2e;
    int ne2e;
    bb_meter_names e2e_meters;
    bb_sample_row *samples;
    int nsamples;
    bb_e2e_sample_row *e2e_samples;
    int ne2e_samples;
    bb_run_text *texts;               /* experiment.lua, models/NAME.lua, source.diff (run_texts.h) */
    int ntexts;
} bb_run_tables;

/* Read a run directory, its texts (run_texts.h) included (a missing file is no error, an
 * unreadable or malformed one is).  Returns 0, or -1 with err. */
int bb_run_tables_read(const char *dir, bb_run_tables *t, char *err, size_t errlen);
/* Write the files the tables came from (only those the run had) into dir, which must exist, each
 * through output_file.h (a failure leaves the file there as it was).  Returns 0, or -1 with err. */
int bb_run_tables_write(const char *dir, const bb_run_tables *t, char *err, size_t errlen);
/* The files bb_run_tables_write may write, NULL-terminated (for bb_output_dir_check). */
extern const char *const bb_run_tables_files[];
void bb_run_tables_free(bb_run_tables *t);

/* Append one row to a growing array (element size `size`).  Returns the new element or NULL. */
void *bb_run_tables_grow(void **v, int *n, size_t size);

#endif
