/* The state one run's parts share, and the helpers each of them uses (sweep_state.h): sweep.c
 * (the driver) and the measurers it calls (sweep_kernel.c, sweep_model.c, sweep_provenance.c,
 * sweep_samples.c) all call these, and nothing here calls back into any of them. */
#include "run/sweep_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/progress.h"
#include "run/results_json.h"
#include "support/pool.h"
#include "support/term_text.h"

volatile sig_atomic_t sweep_stop;

static int cmp_key(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

bool sweep_point_done(const sweep_state *st, const bb_point *p)
{
    char key[512], *kp = key;
    bb_plan_point_key(st->ex, p, key, sizeof key);
    return st->ndone && bsearch(&kp, st->done_keys, (size_t)st->ndone, sizeof *st->done_keys, cmp_key);
}

void sweep_add_line(char ***v, int *n, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nv = realloc(*v, sizeof **v * (size_t)(*n + 1));
    if (!nv) return;
    *v = nv;
    if ((nv[*n] = strdup(buf))) (*n)++;
}

void sweep_note(sweep_state *st, const char *fmt, ...)
{
    if (st->opt->quiet) return;
    bb_progress_clear(&st->progress);
    /* a note names sweeps, models and values of the experiment file: shown for a terminal
     * (support/term_text.h), its line breaks kept */
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf) vsnprintf(buf, (size_t)n + 1, fmt, again);
    va_end(again);
    bb_term_fputs_lines(buf ? buf : "(out of memory for a note)", stderr);
    free(buf);
    fputc('\n', stderr);
}

int sweep_write_json(sweep_state *st)
{
    char err[512];
    bb_iso_time(st->rec.updated_at);
    if (bb_run_json_write(st->json_path, &st->rec, err, sizeof err)) {
        bb_progress_clear(&st->progress);
        fprintf(stderr, "bitbench run: %s\n", err);
        return -1;
    }
    return 0;
}

int sweep_repeated_point(const int *ids, int count)
{
    int *sorted = malloc(sizeof *sorted * (size_t)(count ? count : 1)), repeated = 0;
    if (!sorted) return 0;
    memcpy(sorted, ids, sizeof *sorted * (size_t)count);
    qsort(sorted, (size_t)count, sizeof *sorted, cmp_int);
    for (int i = 1; i < count && !repeated; i++)
        if (sorted[i] == sorted[i - 1]) repeated = sorted[i];
    free(sorted);
    return repeated;
}

/* run.json's placement of a thread count: the first pool's, and any other the sweeps' cpus gave
 * the same count, joined by " | ". */
int sweep_median_round(const double *keys, int n, bool higher_is_slower)
{
    int order[BB_SWEEP_MAX_ROUNDS];
    if (n > BB_SWEEP_MAX_ROUNDS) n = BB_SWEEP_MAX_ROUNDS;
    for (int r = 0; r < n; r++) order[r] = r;
    for (int a = 1; a < n; a++) /* insertion sort, ascending: a handful of rounds */
        for (int b = a; b > 0 && keys[order[b]] < keys[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    return n > 0 ? order[higher_is_slower ? n / 2 : (n - 1) / 2] : 0;
}

static void sweep_record_placement(char **slot, const char *placement)
{
    size_t plen = strlen(placement);
    for (const char *seg = *slot; seg; seg = strstr(seg, " | ") ? strstr(seg, " | ") + 3 : NULL)
        if (!strncmp(seg, placement, plen) && (seg[plen] == 0 || seg[plen] == ' ')) return;
    size_t len = (*slot ? strlen(*slot) + 3 : 0) + strlen(placement) + 1;
    char *joined = malloc(len);
    if (!joined) return;
    snprintf(joined, len, "%s%s%s", *slot ? *slot : "", *slot ? " | " : "", placement);
    free(*slot);
    *slot = joined;
}

bb_pool *sweep_pool_for(sweep_state *st, const bb_sweep *sw, int threads, char *err, size_t errlen)
{
    if (st->pools[threads] && !bb_pool_placed_on(st->pools[threads], sw->cpus, sw->ncpus)) {
        bb_pool_destroy(st->pools[threads]);
        st->pools[threads] = NULL;
    }
    if (!st->pools[threads]) {
        st->pools[threads] = bb_pool_create_on(threads, sw->cpus, sw->ncpus, err, (unsigned)errlen);
        if (!st->pools[threads]) return NULL;
        sweep_record_placement(&st->rec.placement[threads], bb_pool_placement(st->pools[threads]));
    }
    return st->pools[threads];
}
