#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results.h"

#define COL(name, kind, field, doc) {name, kind, offsetof(bb_result_row, field), sizeof(((bb_result_row *)0)->field), doc}

const bb_column bb_result_columns[] = {
    COL("experiment", BB_COL_STR, experiment, "the experiment's name"),
    COL("sweep", BB_COL_STR, sweep, "the sweep's name"),
    COL("point", BB_COL_INT, point, "the point's number in the run's plan (1-based)"),
    COL("kernel", BB_COL_STR, kernel, "kernel name"),
    COL("variant", BB_COL_STR, variant, "the ISA variant that ran (scalar, avx2, avx512, ...)"),
    COL("family", BB_COL_STR, family, "kernel family (the registry's, as bitbench list kernels shows)"),
    COL("bits_per_weight", BB_COL_NUM, bits_per_weight, "bits per weight as stored, scales included"),
    COL("lossless", BB_COL_INT, lossless, "1 when the kernel is exact w.r.t. its reference semantics"),
    COL("model", BB_COL_STR, model, "the model the shape comes from (empty for a literal shape)"),
    COL("roles", BB_COL_STR, roles, "the model's projections with this shape (q+o, k+v, gate+up, down)"),
    COL("m", BB_COL_INT, m, "M: weight rows (outputs)"),
    COL("k", BB_COL_INT, k, "K: weight columns (inputs)"),
    COL("n", BB_COL_INT, n, "N: activation rows (1 = GEMV)"),
    COL("threads", BB_COL_INT, threads, "threads of the pool"),
    COL("cpus", BB_COL_STR, cpus, "OS index of the processing unit of each thread, ';'-separated"),
    COL("cache", BB_COL_STR, cache, "resident (one packed copy) or dram (rotating copies > 2x LLC)"),
    COL("warmup", BB_COL_INT, warmup, "untimed calls before timing"),
    COL("reps", BB_COL_INT, reps, "timed calls"),
    COL("t_median_s", BB_COL_NUM, t_median_s, "median seconds per call (prepare + matmul)"),
    COL("t_min_s", BB_COL_NUM, t_min_s, "fastest call, seconds"),
    COL("t_max_s", BB_COL_NUM, t_max_s, "slowest call, seconds"),
    COL("t_sd_s", BB_COL_NUM, t_sd_s, "standard deviation of the calls, seconds"),
    COL("spread", BB_COL_NUM, spread, "interquartile range of the calls / t_median_s"),
    COL("spread_flag", BB_COL_INT, spread_flag, "1 when spread exceeds the sweep's spread_limit"),
    COL("gops", BB_COL_NUM, gops, "2*M*K*N / t_median_s / 1e9"),
    COL("weight_bytes", BB_COL_NUM, weight_bytes, "packed weight bytes read per call"),
    COL("gbps", BB_COL_NUM, gbps, "attained weight bandwidth: weight_bytes / t_median_s / 1e9"),
    COL("err_max_abs", BB_COL_NUM, err_max_abs,
        "verify: max |y - W_deq x| over the outputs of one call (W_deq = the kernel's own dequantized weights, fp64)"),
    COL("err_rel_rms", BB_COL_NUM, err_rel_rms,
        "verify: ||y - W_deq x|| / ||W_deq x||, the error the kernel's arithmetic adds (activation and table "
        "quantization, aggregation)"),
    COL("err_master_rel_rms", BB_COL_NUM, err_master_rel_rms,
        "verify: ||y - W x|| / ||W x|| with the master float weights W, the total error including the weight format"),
    COL("weight_rel_rms", BB_COL_NUM, weight_rel_rms,
        "verify: ||W_deq - W|| / ||W||, the weight format's reconstruction error"),
};
const int bb_result_ncolumns = (int)(sizeof bb_result_columns / sizeof bb_result_columns[0]);

void bb_csv_header(const char *const *meter_cols, int nmeter, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < bb_result_ncolumns + nmeter; i++) {
        const char *name = i < bb_result_ncolumns ? bb_result_columns[i].name : meter_cols[i - bb_result_ncolumns];
        int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "", name);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

void bb_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void write_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.9g", v); /* not finite: not measured, an empty cell */
}

int bb_csv_write_row(FILE *f, const bb_result_row *r)
{
    for (int i = 0; i < bb_result_ncolumns; i++) {
        const bb_column *c = &bb_result_columns[i];
        const char *p = (const char *)r + c->offset;
        if (i) fputc(',', f);
        switch (c->kind) {
        case BB_COL_STR: bb_csv_field(f, p); break;
        case BB_COL_INT: fprintf(f, "%d", *(const int *)p); break;
        case BB_COL_NUM: write_num(f, *(const double *)p); break;
        }
    }
    for (int i = 0; i < r->nmeter; i++) {
        fputc(',', f);
        write_num(f, r->meter[i]);
    }
    fputc('\n', f);
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

/* Split one CSV record (no trailing newline) into fields, in place.  Returns the field count. */
static int split_record(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max) return -1;
        if (*p == '"') {
            char *out = ++p;
            fields[n++] = out;
            for (;;) {
                if (!*p) return -1; /* unterminated quote */
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            *out = 0;
            if (*p == ',') {
                p++;
                continue;
            }
            return *p ? -1 : n;
        }
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma) return n;
        *comma = 0;
        p = comma + 1;
    }
}

static int parse_row(char *line, int nmeter, bb_result_row *r)
{
    char *fields[256];
    int want = bb_result_ncolumns + nmeter;
    if (want > 256 || split_record(line, fields, 256) != want) return -1;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < bb_result_ncolumns; i++) {
        const bb_column *c = &bb_result_columns[i];
        char *p = (char *)r + c->offset, *end;
        switch (c->kind) {
        case BB_COL_STR:
            if (strlen(fields[i]) >= c->size) return -1;
            strcpy(p, fields[i]);
            break;
        case BB_COL_INT:
            *(int *)p = (int)strtol(fields[i], &end, 10);
            if (end == fields[i] || *end) return -1;
            break;
        case BB_COL_NUM:
            *(double *)p = *fields[i] ? strtod(fields[i], &end) : NAN;
            if (*fields[i] && *end) return -1;
            break;
        }
    }
    r->nmeter = nmeter;
    for (int i = 0; i < nmeter; i++) {
        char *f = fields[bb_result_ncolumns + i], *end;
        r->meter[i] = *f ? strtod(f, &end) : NAN;
        if (*f && *end) return -1;
    }
    return 0;
}

int bb_csv_read(const char *path, const char *header, int nmeter, bb_result_row **rows, int *count, char *err,
                size_t errlen)
{
    *rows = NULL;
    *count = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long good_end = 0; /* offset just past the last complete line */
    int lineno = 0, rc = 0, nrows = 0, rcap = 0;
    bb_result_row *v = NULL;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] != '\n') break; /* cut short: dropped */
        line[--len] = 0;
        if (len && line[len - 1] == '\r') line[--len] = 0;
        lineno++;
        if (lineno == 1) {
            if (strcmp(line, header) != 0) {
                snprintf(err, errlen, "%s has other columns than this run would write (were meters changed?); "
                                      "start a new run instead of --resume", path);
                rc = -1;
                break;
            }
        } else {
            if (nrows == rcap) {
                rcap = rcap ? 2 * rcap : 64;
                bb_result_row *nv = realloc(v, sizeof *v * (size_t)rcap);
                if (!nv) {
                    snprintf(err, errlen, "out of memory reading %s", path);
                    rc = -1;
                    break;
                }
                v = nv;
            }
            if (parse_row(line, nmeter, &v[nrows])) {
                snprintf(err, errlen, "%s:%d: not a well-formed results row", path, lineno);
                rc = -1;
                break;
            }
            nrows++;
        }
        good_end = ftell(f);
    }
    free(line);
    fclose(f);
    if (rc == 0 && lineno == 0) {
        snprintf(err, errlen, "%s has no header line", path);
        rc = -1;
    }
    if (rc == 0 && truncate(path, good_end) != 0) {
        snprintf(err, errlen, "cannot truncate %s to its last complete row: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc) {
        free(v);
        return -1;
    }
    *rows = v;
    *count = nrows;
    return 0;
}
