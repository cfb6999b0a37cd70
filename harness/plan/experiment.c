/* The experiment struct: freeing, locations for messages, command-line overrides. */
#include "plan/experiment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/suggest.h"

void bb_experiment_free(bb_experiment *ex)
{
    for (int i = 0; i < ex->nsweeps; i++) {
        bb_sweep *s = &ex->sweeps[i];
        free(s->kernels);
        free(s->shapes);
        free(s->n);
        free(s->threads);
        free(s->cpus);
        free(s->models);
        free(s->peers);
        free(s->prompt);
        free(s->gen);
        free(s->depth);
    }
    free(ex->sweeps);
    free(ex->meters);
    free(ex->plots);
    for (int i = 0; i < ex->nwarnings; i++) free(ex->warnings[i]);
    free(ex->warnings);
    memset(ex, 0, sizeof *ex);
}

void bb_experiment_where(const bb_experiment *ex, int line, char *buf, size_t len)
{
    if (line > 0) snprintf(buf, len, "%s:%d: ", ex->file, line);
    else snprintf(buf, len, "%s: ", ex->file);
}

/* Does --only entry `want` select this kernel choice? */
static bool only_matches(const char *want, const bb_kernel_choice *kc)
{
    if (!strchr(want, '@')) return strcmp(want, kc->kernel->name) == 0;
    const bb_kernel *k;
    const bb_variant *v;
    char err[8];
    if (bb_kernel_resolve(want, &k, &v, err, sizeof err)) return false;
    return k == kc->kernel && v == kc->variant;
}

static int apply_only(bb_experiment *ex, const bb_overrides *o, char *err, size_t errlen)
{
    for (int i = 0; i < o->nonly; i++) {
        const bb_kernel *k;
        const bb_variant *v;
        if (bb_kernel_resolve(o->only[i], &k, &v, err, errlen)) {
            char msg[1600];
            snprintf(msg, sizeof msg, "--only: %s", err);
            snprintf(err, errlen, "%s", msg);
            return -1;
        }
    }
    /* what the file has, for the message when nothing matches */
    char used[1024] = "";
    for (int s = 0; s < ex->nsweeps; s++)
        for (int j = 0; j < ex->sweeps[s].nkernels; j++) {
            const char *spec = ex->sweeps[s].kernels[j].spec;
            char pat[BB_NAME_MAX + 4];
            snprintf(pat, sizeof pat, ", %s,", spec);
            char hay[1100];
            snprintf(hay, sizeof hay, ", %s,", used);
            if (strstr(hay, pat)) continue;
            size_t len = strlen(used);
            snprintf(used + len, sizeof used - len, "%s%s", len ? ", " : "", spec);
        }
    /* every entry must select something: a list is not a set of guesses, one miss is a typo */
    for (int i = 0; i < o->nonly; i++) {
        bool used_somewhere = false;
        for (int s = 0; s < ex->nsweeps && !used_somewhere; s++)
            for (int j = 0; j < ex->sweeps[s].nkernels && !used_somewhere; j++)
                used_somewhere = only_matches(o->only[i], &ex->sweeps[s].kernels[j]);
        if (!used_somewhere) {
            snprintf(err, errlen, "--only %s: no sweep of %s uses this kernel (kernels in the file: %s)", o->only[i],
                     ex->file, used);
            return -1;
        }
    }
    int kept_sweeps = 0;
    for (int s = 0; s < ex->nsweeps; s++) {
        bb_sweep *sw = &ex->sweeps[s];
        int kept = 0;
        for (int j = 0; j < sw->nkernels; j++) {
            bool keep = false;
            for (int i = 0; i < o->nonly && !keep; i++) keep = only_matches(o->only[i], &sw->kernels[j]);
            if (keep) sw->kernels[kept++] = sw->kernels[j];
        }
        sw->nkernels = kept;
        if (kept) {
            if (kept_sweeps != s) {
                bb_sweep tmp = ex->sweeps[kept_sweeps];
                ex->sweeps[kept_sweeps] = *sw;
                *sw = tmp; /* the emptied sweep moves back and is freed with the rest */
            }
            kept_sweeps++;
        }
    }
    /* sweeps past kept_sweeps have no kernels left: free them */
    for (int s = kept_sweeps; s < ex->nsweeps; s++) {
        bb_sweep *sw = &ex->sweeps[s];
        free(sw->kernels);
        free(sw->peers);
        free(sw->shapes);
        free(sw->n);
        free(sw->threads);
        free(sw->cpus);
    }
    ex->nsweeps = kept_sweeps;
    return 0;
}

int bb_experiment_override(bb_experiment *ex, const bb_overrides *o, const bb_machine *mach, char *err,
                           size_t errlen)
{
    (void)mach;
    if (o->nonly && apply_only(ex, o, err, errlen)) return -1;
    for (int s = 0; s < ex->nsweeps; s++) {
        bb_sweep *sw = &ex->sweeps[s];
        if (o->ncpus) {
            int *c = malloc(sizeof *c * (size_t)o->ncpus);
            if (!c) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            memcpy(c, o->cpus, sizeof *c * (size_t)o->ncpus);
            free(sw->cpus);
            sw->cpus = c;
            sw->ncpus = o->ncpus;
            if (sw->threads_default && sw->nthreads == 1) sw->threads[0] = o->ncpus;
        }
        if (o->nthreads) {
            int *t = malloc(sizeof *t * (size_t)o->nthreads);
            if (!t) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            memcpy(t, o->threads, sizeof *t * (size_t)o->nthreads);
            free(sw->threads);
            sw->threads = t;
            sw->nthreads = o->nthreads;
        }
        /* --reps and --min-time replace a list as they replace a value */
        if (o->reps > 0) {
            sw->min_reps = o->reps;
            if (sw->max_reps < o->reps) sw->max_reps = o->reps;
            sw->reps_list[0] = o->reps;
            sw->nreps_list = 1;
        }
        if (o->min_seconds >= 0) {
            sw->min_seconds = o->min_seconds;
            sw->min_seconds_list[0] = o->min_seconds;
            sw->nmin_seconds_list = 1;
        }
    }
    if (o->out) {
        if (strlen(o->out) >= sizeof ex->out) {
            snprintf(err, errlen, "--out: path too long");
            return -1;
        }
        snprintf(ex->out, sizeof ex->out, "%s", o->out);
    }
    return 0;
}
