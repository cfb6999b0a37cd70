/* The raw samples of a run (samples.h) as the sweep runner writes them: samples.csv and
 * e2e_samples.csv in the run directory, appended just before each point's summary row, and on
 * --resume cut back to the points whose summary row is there. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv_append.h"
#include "results/samples.h"
#include "run/sweep_state.h"

static int cmp_key(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Is the point of a kernel sample among results.csv's rows (the sorted done keys of sweep.c)? */
static bool kernel_sample_kept(void *ctx, const void *row)
{
    const sweep_state *st = ctx;
    const bb_sample_row *s = row;
    char key[512], *kp = key;
    bb_point_base_key(s->sweep, s->kernel, s->variant, s->m, s->k, s->n, s->threads, s->cache, key, sizeof key);
    return st->ndone && bsearch(&kp, st->done_base_keys, (size_t)st->ndone, sizeof *st->done_base_keys, cmp_key);
}

static bool e2e_sample_kept(void *ctx, const void *row)
{
    const sweep_state *st = ctx;
    const bb_e2e_sample_row *s = row;
    for (int i = 0; i < st->ne2e_rows; i++) {
        const bb_e2e_row *r = &st->e2e_rows[i];
        if (!strcmp(r->sweep, s->sweep) && !strcmp(r->model, s->model) && !strcmp(r->kernel, s->kernel) &&
            !strcmp(r->variant, s->variant) && r->threads == s->threads && r->prompt == s->prompt &&
            r->gen == s->gen && !r->peer[0])
            return true;
    }
    return false;
}

int sweep_open_samples(sweep_state *st)
{
    char err[1024];
    snprintf(st->samples_path, sizeof st->samples_path, "%s/%s", st->dir, BB_SAMPLES_NAME);
    st->samples = bb_samples_open(st->samples_path, &bb_samples_kernel, st->opt->resume, kernel_sample_kept, st, err,
                                  sizeof err);
    if (!st->samples) fprintf(stderr, "bitbench run: %s\n", err);
    return st->samples ? 0 : -1;
}

int sweep_open_e2e_samples(sweep_state *st)
{
    char err[1024];
    snprintf(st->e2e_samples_path, sizeof st->e2e_samples_path, "%s/%s", st->dir, BB_E2E_SAMPLES_NAME);
    st->e2e_samples = bb_samples_open(st->e2e_samples_path, &bb_samples_e2e, st->opt->resume, e2e_sample_kept, st,
                                      err, sizeof err);
    if (!st->e2e_samples) fprintf(stderr, "bitbench run: %s\n", err);
    return st->e2e_samples ? 0 : -1;
}

static int write_failed(sweep_state *st, const char *path)
{
    bb_progress_clear(&st->progress);
    fprintf(stderr, "bitbench run: cannot write %s: %s; " BB_CSV_APPEND_REMEDY "\n", path, strerror(errno));
    return -1;
}

int sweep_write_samples(sweep_state *st, const bb_result_row *row, const double *seconds, int count)
{
    bb_sample_row base = {.point = row->point, .m = row->m, .k = row->k, .n = row->n, .threads = row->threads};
    snprintf(base.run_id, sizeof base.run_id, "%s", st->rec.run_id);
    snprintf(base.experiment, sizeof base.experiment, "%s", row->experiment);
    snprintf(base.sweep, sizeof base.sweep, "%s", row->sweep);
    snprintf(base.kernel, sizeof base.kernel, "%s", row->kernel);
    snprintf(base.variant, sizeof base.variant, "%s", row->variant);
    snprintf(base.cache, sizeof base.cache, "%s", row->cache);
    return bb_samples_write(st->samples, &base, seconds, count) ? write_failed(st, st->samples_path) : 0;
}

int sweep_write_e2e_samples(sweep_state *st, const bb_e2e_row *row, const double *pp_seconds,
                            const double *tg_seconds, int reps)
{
    bb_e2e_sample_row base = {.point = row->point, .threads = row->threads, .prompt = row->prompt, .gen = row->gen,
                              .depth = row->depth};
    snprintf(base.kv_type_k, sizeof base.kv_type_k, "%s", row->kv_type_k);
    snprintf(base.kv_type_v, sizeof base.kv_type_v, "%s", row->kv_type_v);
    snprintf(base.run_id, sizeof base.run_id, "%s", st->rec.run_id);
    snprintf(base.experiment, sizeof base.experiment, "%s", row->experiment);
    snprintf(base.sweep, sizeof base.sweep, "%s", row->sweep);
    snprintf(base.model, sizeof base.model, "%s", row->model);
    snprintf(base.kernel, sizeof base.kernel, "%s", row->kernel);
    snprintf(base.variant, sizeof base.variant, "%s", row->variant);
    int rc = 0;
    if (row->prompt > 0) rc |= bb_e2e_samples_write(st->e2e_samples, &base, "pp", row->prompt, pp_seconds, reps);
    if (row->gen > 0) rc |= bb_e2e_samples_write(st->e2e_samples, &base, "tg", row->gen, tg_seconds, reps);
    return rc ? write_failed(st, st->e2e_samples_path) : 0;
}
