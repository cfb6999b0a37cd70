/* Fuzz target: the CSV reader (harness/io/csv.c) as --resume and `bitbench plot` use it, and the
 * typed row readers on top (results.csv: harness/results/results_csv.c, e2e.csv: results_e2e.c).
 *
 * The first byte picks the reader, the rest is the file:
 *   0  bb_csv_load lenient (plot's reading of files from elsewhere), then every cell as text and
 *      as a number, and the columns looked up by the names of its header;
 *   1  bb_csv_load with BB_CSV_TRUNCATE (--resume cuts a row a kill left half written);
 *   2  bb_csv_read: results.csv rows against the header of a run without meters;
 *   3  bb_e2e_read: e2e.csv rows likewise.
 * Seeds: results.csv and e2e.csv of a --smoke run and tests/data/plot_results (run.sh). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "io/csv.h"
#include "results/results.h"
#include "results/results_e2e.h"

static volatile double sink;

static void read_table(const char *path, unsigned flags)
{
    bb_csv_table t;
    char err[512];
    if (bb_csv_load(path, flags, &t, err, sizeof err) != 0) return;
    for (int c = 0; c < t.ncols; c++)
        if (bb_csv_col(&t, t.head[c]) < 0) abort(); /* a column of the header must be found */
    for (int r = 0; r < t.nrows; r++)
        for (int c = -1; c < t.ncols; c++) {
            sink += (double)(bb_csv_cell(&t, r, c)[0] != 0);
            double v = bb_csv_cell_num(&t, r, c);
            if (!isnan(v)) sink += v;
        }
    (void)bb_csv_header_is(&t, "kernel,variant");
    bb_csv_table_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const char *path = fuzz_input_path(data + 1, size - 1);
    char header[8192], err[512];
    int count = 0;
    switch (data[0] % 4) {
    case 0: read_table(path, BB_CSV_LENIENT); break;
    case 1: read_table(path, BB_CSV_TRUNCATE); break;
    case 2: {
        bb_result_row *rows = NULL;
        bb_csv_header(NULL, 0, header, sizeof header);
        if (bb_csv_read(path, header, 0, &rows, &count, err, sizeof err) == 0) free(rows);
        break;
    }
    default: {
        bb_e2e_row *rows = NULL;
        bb_e2e_header(NULL, 0, header, sizeof header);
        if (bb_e2e_read(path, header, 0, &rows, &count, err, sizeof err) == 0) free(rows);
        break;
    }
    }
    return 0;
}
