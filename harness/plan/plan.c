#include "plan/plan.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/e2e_bench.h"
#include "support/affinity.h"

void bb_point_base_key(const char *sweep, const char *kernel, const char *variant, int m, int k, int n, int threads,
                       const char *cache, char *buf, size_t len)
{
    snprintf(buf, len, "%s|%s|%s|%d|%d|%d|%d|%s", sweep, kernel, variant, m, k, n, threads, cache);
}

void bb_point_key(const char *sweep, const char *kernel, const char *variant, int m, int k, int n, int threads,
                  const char *cache, int warmup, int min_reps, double min_seconds, const char *seed, double delay,
                  char *buf, size_t len)
{
    /* %.9g: results.csv's precision, so that the key of a row read back is the key of its point */
    snprintf(buf, len, "%s|%s|%s|%d|%d|%d|%d|%s|w%d|r%d|t%.9g|s%s|d%.9g", sweep, kernel, variant, m, k, n, threads,
             cache, warmup, min_reps, min_seconds, seed, delay);
}

void bb_plan_point_key(const bb_experiment *ex, const bb_point *p, char *buf, size_t len)
{
    const bb_sweep *sw = &ex->sweeps[p->sweep];
    const bb_kernel_choice *kc = &sw->kernels[p->kernel];
    const bb_shape *sh = &sw->shapes[p->shape];
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)p->seed);
    bb_point_key(sw->name, kc->kernel->name, kc->variant->isa, sh->m, sh->k, p->n, p->threads,
                 bb_cache_mode_name(p->cache), p->warmup, p->min_reps, p->min_seconds, seed, p->delay, buf, len);
}

/* How many entries a sweep's scalar list has: a sweep built without one (by C code rather than
 * lua_sweep.c) runs its scalar value. */
static int list_len(int n) { return n > 0 ? n : 1; }

void bb_plan_free(bb_plan *plan)
{
    free(plan->points);
    free(plan->e2e);
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

/* interleave holds a model's every kernel at once (bb_e2e_bench_interleaved): their estimates
 * together must fit where each alone is checked below.  Returns 0, or -1 with err (an error
 * whatever on_unsupported says: the sweep asked for them side by side). */
static int interleave_fits(const bb_sweep *sw, const bb_machine *mach, int max_seq, int max_prompt, const char *where,
                           char *err, size_t errlen)
{
    if (!sw->interleave || !mach->mem_available) return 0;
    for (int mi = 0; mi < sw->nmodels; mi++) {
        size_t total = 0;
        bb_tf_dims d;
        bb_tf_dims_from_config(&sw->models[mi], max_seq, &d);
        for (int ki = 0; ki < sw->nkernels; ki++) {
            bb_tf_options o = {.kernel = sw->kernels[ki].kernel->name,
                               .out_kernel = sw->out_kernel[0] ? sw->out_kernel : NULL, .kv_k = sw->kv_k,
                               .kv_v = sw->kv_v, .max_batch = max_prompt < 512 ? max_prompt : 512};
            size_t need = 0;
            char why[1024] = "";
            if (!bb_tf_estimate_bytes(&d, &o, &need, why, sizeof why)) total += need; /* else skipped or refused below */
        }
        if (total > mach->mem_available / 100 * 90) {
            snprintf(err, errlen, "%ssweep '%s': field 'interleave' holds model %s through its %d kernels at once: "
                     "they need %.2f GiB together but %.2f GiB is available (interleave fewer kernels per sweep, or "
                     "leave 'interleave' out)", where, sw->name, sw->models[mi].name, sw->nkernels,
                     total / 1073741824.0, mach->mem_available / 1073741824.0);
            return -1;
        }
    }
    return 0;
}

/* The end-to-end points of a model sweep: each (kernel, model) is checked up front, with the
 * engine's own estimate (every linear shape the kernel must take, the packed weights, embedding,
 * classifier and KV cache at the largest context of the sweep) against the memory available now,
 * and is skipped or refused as on_unsupported says. */
static int plan_model_sweep(const bb_experiment *ex, const bb_machine *mach, int s, bb_plan *plan, size_t *cap,
                            char *err, size_t errlen)
{
    const bb_sweep *sw = &ex->sweeps[s];
    char where[1100];
    bb_experiment_where(ex, sw->line ? sw->line : ex->line, where, sizeof where);
    int max_seq = 1, max_prompt = 1, max_depth = 0;
    for (int k = 0; k < sw->ndepth; k++)
        if (sw->depth[k] > max_depth) max_depth = sw->depth[k];
    for (int i = 0; i < sw->nprompt; i++)
        for (int j = 0; j < sw->ngen; j++) {
            if (max_depth + sw->prompt[i] + sw->gen[j] > max_seq) max_seq = max_depth + sw->prompt[i] + sw->gen[j];
            if (sw->prompt[i] > max_prompt) max_prompt = sw->prompt[i];
        }
    if (max_depth > max_prompt) max_prompt = max_depth; /* the depth is prefilled in chunks of up to 512 */
    if (sw->compare_logits[0] && sw->compare_tokens > max_seq) max_seq = sw->compare_tokens;
    /* compare_logits: the reference must take every model of the sweep (a comparison was asked for,
     * so a reference that cannot run is an error whatever on_unsupported says) */
    for (int mi = 0; sw->compare_logits[0] && mi < sw->nmodels; mi++) {
        bb_tf_dims d;
        bb_tf_dims_from_config(&sw->models[mi], sw->compare_tokens, &d);
        bb_tf_options o = {.kernel = sw->compare_logits, .out_kernel = sw->out_kernel[0] ? sw->out_kernel : NULL,
                           .kv_k = sw->kv_k, .kv_v = sw->kv_v, .max_batch = 1};
        size_t need = 0;
        char why[1024] = "";
        if (!bb_tf_estimate_bytes(&d, &o, &need, why, sizeof why) && mach->mem_available &&
            need > mach->mem_available / 100 * 90)
            snprintf(why, sizeof why, "does not fit in memory: needs %.2f GiB but %.2f GiB is available",
                     need / 1073741824.0, mach->mem_available / 1073741824.0);
        if (why[0]) {
            snprintf(err, errlen, "%ssweep '%s': field 'compare_logits': the reference kernel %s cannot run model "
                     "%s: %s", where, sw->name, sw->compare_logits, sw->models[mi].name, why);
            return -1;
        }
    }
    if (interleave_fits(sw, mach, max_seq, max_prompt, where, err, errlen)) return -1;
    for (int ki = 0; ki < sw->nkernels; ki++)
        for (int mi = 0; mi < sw->nmodels; mi++) {
            const bb_model_config *cfg = &sw->models[mi];
            bb_tf_dims d;
            bb_tf_dims_from_config(cfg, max_seq, &d);
            bb_tf_options o = {.kernel = sw->kernels[ki].kernel->name,
                               .out_kernel = sw->out_kernel[0] ? sw->out_kernel : NULL, .kv_k = sw->kv_k,
                               .kv_v = sw->kv_v, .max_batch = max_prompt < 512 ? max_prompt : 512};
            size_t need = 0;
            char why[1024] = "";
            if (!bb_tf_estimate_bytes(&d, &o, &need, why, sizeof why) && mach->mem_available &&
                need > mach->mem_available / 100 * 90)
                snprintf(why, sizeof why, "does not fit in memory: needs %.2f GiB (packed weights, embedding, KV "
                         "cache) but %.2f GiB is available", need / 1073741824.0, mach->mem_available / 1073741824.0);
            if (why[0]) {
                if (sw->on_unsupported == BB_UNSUPPORTED_ERROR) {
                    snprintf(err, errlen, "%ssweep '%s': %s cannot run model %s: %s (the sweep has on_unsupported "
                             "= \"error\"; use \"skip\" to leave such points out)", where, sw->name,
                             sw->kernels[ki].spec, cfg->name, why);
                    return -1;
                }
                char msg[2048];
                snprintf(msg, sizeof msg, "sweep '%s': skipped %s on model %s: %s", sw->name, sw->kernels[ki].spec,
                         cfg->name, why);
                if (add_skip(plan, msg)) goto oom;
                continue;
            }
            for (int pi = 0; pi < sw->nprompt; pi++)
                for (int gi = 0; gi < sw->ngen; gi++)
                    for (int di = 0; di < (sw->ndepth ? sw->ndepth : 1); di++) /* none given: depth 0 */
                        for (int ti = 0; ti < sw->nthreads; ti++) {
                            if (sw->prompt[pi] == 0 && sw->gen[gi] == 0) continue;
                            if ((size_t)plan->ne2e == *cap) {
                                *cap = *cap ? 2 * *cap : 16;
                                bb_e2e_point *v = realloc(plan->e2e, sizeof *v * *cap);
                                if (!v) goto oom;
                                plan->e2e = v;
                            }
                            int index = plan->ne2e + 1;
                            plan->e2e[plan->ne2e++] = (bb_e2e_point){
                                .index = index, .sweep = s, .kernel = ki, .model = mi, .prompt = sw->prompt[pi],
                                .gen = sw->gen[gi], .threads = sw->threads[ti], .depth = sw->ndepth ? sw->depth[di] : 0};
                        }
        }
    return 0;
oom:
    snprintf(err, errlen, "out of memory planning the run");
    return -1;
}

uint64_t bb_plan_count(const bb_experiment *ex)
{
    uint64_t total = 0;
    for (int s = 0; s < ex->nsweeps; s++) {
        const bb_sweep *sw = &ex->sweeps[s];
        uint64_t per = (uint64_t)sw->nthreads;
        if (sw->is_model) {
            uint64_t runs = 0;
            for (int pi = 0; pi < sw->nprompt; pi++)
                for (int gi = 0; gi < sw->ngen; gi++) runs += sw->prompt[pi] || sw->gen[gi];
            total += (uint64_t)sw->nkernels * (uint64_t)sw->nmodels * runs * (uint64_t)(sw->ndepth ? sw->ndepth : 1) * per;
            continue;
        }
        char why[256];
        for (int ki = 0; ki < sw->nkernels; ki++)
            for (int si = 0; si < sw->nshapes; si++)
                if (!bb_kernel_check_shape(sw->kernels[ki].kernel, sw->shapes[si].m, sw->shapes[si].k, 1, why,
                                           sizeof why))
                    total += (uint64_t)sw->ncache * (uint64_t)sw->nn * per * (uint64_t)list_len(sw->nwarmups) *
                             (uint64_t)list_len(sw->nreps_list) * (uint64_t)list_len(sw->nmin_seconds_list) *
                             (uint64_t)list_len(sw->nseeds) * (uint64_t)list_len(sw->ndelays);
    }
    return total;
}

int bb_plan_check_size(const bb_experiment *ex, uint64_t max_points, char *err, size_t errlen)
{
    uint64_t n = bb_plan_count(ex);
    if (n <= max_points) return 0;
    snprintf(err, errlen, "%s: the plan has %llu points, more than the %llu allowed without confirmation; "
             "pass --max-points %llu (or more) to run it", ex->file, (unsigned long long)n,
             (unsigned long long)max_points, (unsigned long long)n);
    return -1;
}

/* Every thread on a CPU of its own that this process may use: the sweep's cpus each allowed, and
 * each thread count within them (or within the allowed CPUs).  Here rather than at load, so that
 * --threads and --cpus are checked as well. */
static int check_placement(const bb_sweep *sw, const char *where, char *err, size_t errlen)
{
    char why[640];
    if (sw->ncpus && bb_affinity_check_cpus(sw->cpus, sw->ncpus, why, sizeof why)) {
        snprintf(err, errlen, "%ssweep '%s': cpus: %s", where, sw->name, why);
        return -1;
    }
    for (int i = 0; i < sw->nthreads; i++)
        if (bb_affinity_check_threads(sw->threads[i], sw->cpus, sw->ncpus, why, sizeof why)) {
            snprintf(err, errlen, "%ssweep '%s': threads %d: %s", where, sw->name, sw->threads[i], why);
            return -1;
        }
    return 0;
}

/* The points of one (kernel, shape, cache mode): the product of N, the thread counts the mode can
 * be sized for (ok[ti]) and the sweep's scalar lists (warmup, reps, min_seconds, seed, delay), in
 * the order the plan runs them. */
static int add_points(bb_plan *plan, size_t *cap, const bb_sweep *sw, int s, int ki, int si, int c, const bool *ok)
{
    int nw = list_len(sw->nwarmups), nr = list_len(sw->nreps_list), nm = list_len(sw->nmin_seconds_list),
        ne = list_len(sw->nseeds), nd = list_len(sw->ndelays);
    for (int ni = 0; ni < sw->nn; ni++)
        for (int ti = 0; ti < sw->nthreads; ti++) {
            if (!ok[ti]) continue;
            for (int i = 0; i < nw * nr * nm * ne * nd; i++) {
                /* i counts delay fastest, then seed, min_seconds, reps, warmup */
                int di = i % nd, ei = i / nd % ne, mi = i / nd / ne % nm, ri = i / nd / ne / nm % nr,
                    wi = i / nd / ne / nm / nr;
                if ((size_t)plan->npoints == *cap) {
                    *cap = *cap ? 2 * *cap : 64;
                    bb_point *v = realloc(plan->points, sizeof *v * *cap);
                    if (!v) return -1;
                    plan->points = v;
                }
                bb_point *p = &plan->points[plan->npoints++];
                *p = (bb_point){.index = plan->npoints, .sweep = s, .kernel = ki, .shape = si, .n = sw->n[ni],
                                .threads = sw->threads[ti], .cache = sw->cache[c],
                                .warmup = sw->nwarmups ? sw->warmups[wi] : sw->warmup,
                                .min_reps = sw->nreps_list ? sw->reps_list[ri] : sw->min_reps,
                                .min_seconds = sw->nmin_seconds_list ? sw->min_seconds_list[mi] : sw->min_seconds,
                                .seed = sw->nseeds ? sw->seeds[ei] : sw->seed,
                                .delay = sw->ndelays ? sw->delays[di] : sw->delay};
            }
        }
    return 0;
}

int bb_plan_build(const bb_experiment *ex, const bb_machine *mach, bb_plan *plan, char *err, size_t errlen)
{
    memset(plan, 0, sizeof *plan);
    size_t cap = 0, e2e_cap = 0;
    for (int s = 0; s < ex->nsweeps; s++) {
        const bb_sweep *sw = &ex->sweeps[s];
        char where[1100];
        bb_experiment_where(ex, sw->line ? sw->line : ex->line, where, sizeof where);
        if (check_placement(sw, where, err, errlen)) {
            bb_plan_free(plan);
            return -1;
        }
        if (sw->is_model) {
            if (plan_model_sweep(ex, mach, s, plan, &e2e_cap, err, errlen)) {
                bb_plan_free(plan);
                return -1;
            }
            continue;
        }
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
                    size_t psize = kern->packed_size(sh->m, sh->k);
                    int copies;
                    /* dram: one rotation for every thread count, refused outright when memory cannot
                     * hold it; a cache level: sized per thread count, a count it cannot be made for
                     * skipped or refused as on_unsupported says (never run with another working set) */
                    if (!bb_cache_mode_level(sw->cache[c]) &&
                        bb_cache_copies(sw->cache[c], psize, 1, mach, &copies, why, sizeof why)) {
                        snprintf(err, errlen, "%ssweep '%s': %s on %s: %s", where, sw->name, sw->kernels[ki].spec,
                                 label, why);
                        bb_plan_free(plan);
                        return -1;
                    }
                    bool *ok = malloc(sizeof *ok * (size_t)sw->nthreads);
                    if (!ok) goto oom;
                    for (int ti = 0; ti < sw->nthreads; ti++) {
                        ok[ti] = !bb_cache_mode_level(sw->cache[c]) ||
                                 !bb_cache_copies(sw->cache[c], psize, sw->threads[ti], mach, &copies, why, sizeof why);
                        if (ok[ti]) continue;
                        if (sw->on_unsupported == BB_UNSUPPORTED_ERROR) {
                            snprintf(err, errlen, "%ssweep '%s': %s on %s, threads %d: %s (the sweep has "
                                     "on_unsupported = \"error\"; use \"skip\" to leave such points out)", where,
                                     sw->name, sw->kernels[ki].spec, label, sw->threads[ti], why);
                            free(ok);
                            bb_plan_free(plan);
                            return -1;
                        }
                        char msg[2048];
                        snprintf(msg, sizeof msg, "sweep '%s': skipped %s on %s, threads %d: %s", sw->name,
                                 sw->kernels[ki].spec, label, sw->threads[ti], why);
                        if (add_skip(plan, msg)) {
                            free(ok);
                            goto oom;
                        }
                    }
                    int rc = add_points(plan, &cap, sw, s, ki, si, c, ok);
                    free(ok);
                    if (rc) goto oom;
                }
            }
        }
    }
    if (plan->npoints == 0 && plan->ne2e == 0) {
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
