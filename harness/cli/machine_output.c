#include "cli/machine_output.h"

#include <errno.h>
#include <string.h>

#include "io/jsonl.h"

int bb_machine_output_option(const char *who, int want, int *format)
{
    if (*format != BB_OUT_TEXT && *format != want) {
        fprintf(stderr, "%s: --csv and --json exclude each other (one format on stdout)\n", who);
        return -1;
    }
    *format = want;
    return 0;
}

int bb_machine_output_row(FILE *f, int format, const bb_column *cols, int ncols, const void *row,
                          const char *const *names, const double *extra, int nextra)
{
    if (format == BB_OUT_JSON) {
        bb_jsonl_write_row(f, cols, ncols, row, names, extra, nextra);
    } else {
        char header[8192];
        bb_csv_header_line(cols, ncols, names, nextra, header, sizeof header);
        fprintf(f, "%s\n", header);
        bb_csv_write_table_row(f, cols, ncols, row, extra, nextra);
    }
    if (fflush(f) == 0 && !ferror(f)) return 0;
    fprintf(stderr, "bitbench: cannot write the result to stdout: %s\n", strerror(errno));
    return -1;
}
