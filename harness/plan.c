#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bb_point_key(const char *sweep, const char *kernel, const char *variant, int m, int k, int n, int threads,
                  const char *cache, char *buf, size_t len)
{
    snprintf(buf, len, "%s|%s|%s|%d|%d|%d|%d|%s", sweep, kernel, variant, m, k, n, threads, cache);
}

void bb_plan_point_key(const bb_experiment *ex, const bb_point *p, char *buf, size_t len)
{
    const bb_sweep *sw = &ex->sweeps[p->sweep];
    const bb_kernel_choice *kc = &sw->kernels[p->kernel];
    const bb_shape *sh = &sw->shapes[p->shape];
    bb_point_key(sw->name, kc->kernel->name, kc->variant->isa, sh->m, sh->k, p->n, p->threads,
                 bb_cache_mode_name(p->cache), buf, len);
}

void bb_plan_free(bb_plan *plan)
{
    free(plan->points);
    for (int i = 0; i < plan->nskipped; i++) free(plan->skipped[i]);
    free(plan->skipped);
    memset(plan, 0, sizeof *plan);
}

static int add_skip(bb_plan *plan, const char *msg)
{
    char **v = realloc(plan->skipped, sizeof *v * (size_t)(plan->nskipped + 1));
    if (!v) return -1;
    plan->skipped = v;
    if (!(v[plan->nskipped] = strdup(msg))) return -1;
    plan->nskipped++;
    return 0;
}

static void shape_label(const bb_shape *sh, char *buf, size_t len)
{
    if (sh->model[0]) snprintf(buf, len, "M=%d K=%d (%s %s)", sh->m, sh->k, sh->model, sh->roles);
    else snprintf(buf, len, "M=%d K=%d", sh->m, sh->k);
}

int bb_plan_build(const bb_experiment *ex, const bb_machine *mach, bb_plan *plan, char *err, size_t errlen)
{
    memset(plan, 0, sizeof *plan);
    size_t cap = 0;
    for (int s = 0; s < ex->nsweeps; s++) {
        const bb_sweep *sw = &ex->sweeps[s];
        char where[1100];
        bb_experiment_where(ex, sw->line ? sw->line : ex->line, where, sizeof where);
        for (int ki = 0; ki < sw->nkernels; ki++) {
            const bb_kernel *kern = sw->kernels[ki].kernel;
            for (int si = 0; si < sw->nshapes; si++) {
                const bb_shape *sh = &sw->shapes[si];
                char why[1024], label[160];
                shape_label(sh, label, sizeof label);
                if (bb_kernel_check_shape(kern, sh->m, sh->k, 1, why, sizeof why)) {
                    char msg[2048];
                    if (sw->on_unsupported == BB_UNSUPPORTED_ERROR) {
                        snprintf(err, errlen,
                                 "%ssweep '%s': %s cannot run shape %s: %s (the sweep has on_unsupported = "
                                 "\"error\"; use \"skip\" to leave such points out)",
                                 where, sw->name, sw->kernels[ki].spec, label, why);
                        bb_plan_free(plan);
                        return -1;
                    }
                    snprintf(msg, sizeof msg, "sweep '%s': skipped %s on %s: %s", sw->name, sw->kernels[ki].spec,
                             label, why);
                    if (add_skip(plan, msg)) goto oom;
                    continue;
                }
                for (int c = 0; c < sw->ncache; c++) {
                    int copies;
                    if (bb_cache_copies(sw->cache[c], kern->packed_size(sh->m, sh->k), mach, &copies, why,
                                        sizeof why)) {
                        snprintf(err, errlen, "%ssweep '%s': %s on %s: %s", where, sw->name, sw->kernels[ki].spec,
                                 label, why);
                        bb_plan_free(plan);
                        return -1;
                    }
                    for (int ni = 0; ni < sw->nn; ni++)
                        for (int ti = 0; ti < sw->nthreads; ti++) {
                            if ((size_t)plan->npoints == cap) {
                                cap = cap ? 2 * cap : 64;
                                bb_point *v = realloc(plan->points, sizeof *v * cap);
                                if (!v) goto oom;
                                plan->points = v;
                            }
                            bb_point *p = &plan->points[plan->npoints++];
                            *p = (bb_point){.index = plan->npoints, .sweep = s, .kernel = ki, .shape = si,
                                            .n = sw->n[ni], .threads = sw->threads[ti], .cache = sw->cache[c]};
                        }
                }
            }
        }
    }
    if (plan->npoints == 0) {
        snprintf(err, errlen, "%s: nothing to run: every kernel/shape combination was skipped (%d skipped; see "
                 "above or set on_unsupported = \"error\" for the reasons)", ex->file, plan->nskipped);
        return -1;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory planning the run");
    bb_plan_free(plan);
    return -1;
}
