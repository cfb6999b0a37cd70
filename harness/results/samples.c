#include "results/samples.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/csv_append.h"
#include "support/output_file.h"

#define KCOL(name, kind, field, doc) BB_COLUMN(bb_sample_row, name, kind, field, doc)
#define ECOL(name, kind, field, doc) BB_COLUMN(bb_e2e_sample_row, name, kind, field, doc)

const bb_column bb_sample_columns[] = {
    KCOL("run_id", BB_COL_STR, run_id, "the run (run.json's run_id)"),
    KCOL("experiment", BB_COL_STR, experiment, "the experiment's name"),
    KCOL("sweep", BB_COL_STR, sweep, "the sweep's name"),
    KCOL("point", BB_COL_INT, point, "the point's number in the run's plan, as in results.csv"),
    KCOL("kernel", BB_COL_STR, kernel, "kernel name"),
    KCOL("variant", BB_COL_STR, variant, "the ISA variant that ran"),
    KCOL("m", BB_COL_INT, m, "M: weight rows"),
    KCOL("k", BB_COL_INT, k, "K: weight columns"),
    KCOL("n", BB_COL_INT, n, "N: activation rows"),
    KCOL("threads", BB_COL_INT, threads, "threads of the pool"),
    KCOL("cache", BB_COL_STR, cache, "the working set: l1, l2, l3, resident or dram, as in results.csv"),
    KCOL("rep", BB_COL_INT, rep, "the timed call, 0-based, in the order they ran"),
    KCOL("seconds", BB_COL_NUM, seconds, "seconds of that call (prepare + matmul)"),
};
const int bb_sample_ncolumns = (int)(sizeof bb_sample_columns / sizeof bb_sample_columns[0]);

const bb_column bb_e2e_sample_columns[] = {
    ECOL("run_id", BB_COL_STR, run_id, "the run (run.json's run_id)"),
    ECOL("experiment", BB_COL_STR, experiment, "the experiment's name"),
    ECOL("sweep", BB_COL_STR, sweep, "the sweep's name"),
    ECOL("point", BB_COL_INT, point, "the point's number among the end-to-end points, as in e2e.csv"),
    ECOL("model", BB_COL_STR, model, "model config name"),
    ECOL("kernel", BB_COL_STR, kernel, "kernel of the linear layers"),
    ECOL("variant", BB_COL_STR, variant, "the ISA variant that ran"),
    ECOL("threads", BB_COL_INT, threads, "threads of the pool"),
    ECOL("prompt", BB_COL_INT, prompt, "prompt tokens of the point"),
    ECOL("gen", BB_COL_INT, gen, "generated tokens of the point"),
    ECOL("phase", BB_COL_STR, phase, "pp (one prefill of the prompt) or tg (the generation of gen tokens)"),
    ECOL("rep", BB_COL_INT, rep,
         "the repetition, 0-based, in the order they ran (a sweep of several rounds: round r's are r * reps ..)"),
    ECOL("tokens", BB_COL_INT, tokens, "tokens of the phase (tokens / seconds = tokens/s)"),
    ECOL("seconds", BB_COL_NUM, seconds, "seconds of the phase in that repetition"),
    ECOL("depth", BB_COL_INT, depth, "tokens in the KV cache before the prompt, as in e2e.csv"),
    ECOL("kv_type_k", BB_COL_STR, kv_type_k, "KV cache type of the keys, as in e2e.csv"),
    ECOL("kv_type_v", BB_COL_STR, kv_type_v, "KV cache type of the values, as in e2e.csv"),
};
const int bb_e2e_sample_ncolumns = (int)(sizeof bb_e2e_sample_columns / sizeof bb_e2e_sample_columns[0]);

const bb_samples_table bb_samples_kernel = {bb_sample_columns, (int)(sizeof bb_sample_columns / sizeof bb_sample_columns[0]),
                                            sizeof(bb_sample_row)};
const bb_samples_table bb_samples_e2e = {bb_e2e_sample_columns,
                                         (int)(sizeof bb_e2e_sample_columns / sizeof bb_e2e_sample_columns[0]),
                                         sizeof(bb_e2e_sample_row)};

/* Rewrite path with the rows of t that keep accepts (through output_file.h: a failure leaves the
 * file as it was).  Returns 0, or -1 with err. */
static int keep_rows(const char *path, const bb_samples_table *st, const bb_csv_table *t, const char *header,
                     bool (*keep)(void *, const void *), void *ctx, char *err, size_t errlen)
{
    void *row = calloc(1, st->row_size);
    if (!row) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, errlen);
    if (!f) {
        free(row);
        return -1;
    }
    int rc = fprintf(f, "%s\n", header) < 0 ? -1 : 0;
    for (int i = 0; i < t->nrows && rc == 0; i++) {
        if (bb_csv_parse_columns(&t->cell[(size_t)i * (size_t)t->ncols], st->cols, st->ncols, row)) {
            snprintf(err, errlen, "%s:%d: a malformed row (a cell does not fit its column)", path, t->lineno[i]);
            rc = -2;
            break;
        }
        if (!keep(ctx, row)) continue;
        bb_csv_write_columns(f, st->cols, st->ncols, row);
        if (fputc('\n', f) == EOF) rc = -1;
    }
    free(row);
    if (rc) {
        if (rc == -1) snprintf(err, errlen, "cannot rewrite %s: %s (it is unchanged)", path, strerror(errno));
        bb_output_abort(&o);
        return -1;
    }
    return bb_output_commit(&o, err, errlen);
}

FILE *bb_samples_open(const char *path, const bb_samples_table *st, bool resume,
                      bool (*keep)(void *ctx, const void *row), void *ctx, char *err, size_t errlen)
{
    char header[1024];
    bb_csv_header_line(st->cols, st->ncols, NULL, 0, header, sizeof header);
    /* resumed: the rows there are kept, unless its header never got written (no rows yet) */
    if (resume && !bb_csv_append_unstarted(path)) {
        bb_csv_table t;
        if (bb_csv_load(path, BB_CSV_TRUNCATE, &t, err, errlen)) return NULL;
        int rc = 0;
        if (!bb_csv_header_is(&t, header)) {
            snprintf(err, errlen, "%s has other columns than this run would write; start a new run instead of --resume",
                     path);
            rc = -1;
        }
        if (rc == 0) rc = keep_rows(path, st, &t, header, keep, ctx, err, errlen);
        bb_csv_table_free(&t);
        if (rc) return NULL;
        FILE *f = fopen(path, "a");
        if (!f) snprintf(err, errlen, "cannot append to %s: %s", path, strerror(errno));
        return f;
    }
    return bb_csv_append_start(path, header, err, errlen);
}

int bb_samples_write(FILE *f, const bb_sample_row *base, const double *seconds, int count)
{
    bb_sample_row r = *base;
    for (int i = 0; i < count; i++) {
        r.rep = i;
        r.seconds = seconds[i];
        bb_csv_write_columns(f, bb_sample_columns, bb_sample_ncolumns, &r);
        fputc('\n', f);
    }
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

int bb_e2e_samples_write(FILE *f, const bb_e2e_sample_row *base, const char *phase, int tokens,
                         const double *seconds, int count)
{
    bb_e2e_sample_row r = *base;
    snprintf(r.phase, sizeof r.phase, "%s", phase);
    r.tokens = tokens;
    for (int i = 0; i < count; i++) {
        r.rep = i;
        r.seconds = seconds[i];
        bb_csv_write_columns(f, bb_e2e_sample_columns, bb_e2e_sample_ncolumns, &r);
        fputc('\n', f);
    }
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
