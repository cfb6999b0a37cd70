#include "plan/shard.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/sha256.h"

/* Nominal rates of the estimate.  They are not this machine's: the split must come out the same
 * on every machine of a group, so it may depend on the plan only.  A point's calls are costed
 * as compute-bound or memory-bound, whichever is slower, as the roofline model says. */
#define NOMINAL_OPS_PER_THREAD_S 1e10  /* multiply-adds x 2 per second and thread */
#define NOMINAL_BYTES_S 1e10           /* bytes read per second */
#define NOMINAL_CALL_S 2e-6            /* the runner's own cost per call (README, Harness overhead) */
#define NOMINAL_BUILD_BYTES_S 5e8      /* master weights generated and packed per second */

int bb_shard_parse(const char *arg, bb_shard *s, char *err, size_t errlen)
{
    char *end;
    long i = strtol(arg, &end, 10), n = -1;
    if (end != arg && *end == '/' && end[1]) {
        const char *ns = end + 1;
        n = strtol(ns, &end, 10);
        if (*end || end == ns) n = -1;
    }
    if (n < 1 || n > BB_SHARD_MAX || i < 0 || i >= n || arg[0] == '-' || arg[0] == '+') {
        snprintf(err, errlen, "--shard: expected i/n with 0 <= i < n <= %d (i is 0-based, as Slurm's "
                 "SLURM_ARRAY_TASK_ID), got '%s'", BB_SHARD_MAX, arg);
        return -1;
    }
    s->index = (int)i;
    s->count = (int)n;
    return 0;
}

int bb_shard_check_group(const char *group, char *err, size_t errlen)
{
    size_t n = strlen(group);
    bool ok = n > 0 && n < sizeof ((bb_shard *)0)->group;
    for (size_t i = 0; ok && i < n; i++) {
        char c = group[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
             c == '-';
    }
    if (!ok) {
        snprintf(err, errlen, "--shard-group: expected 1 to 63 letters, digits, '.', '_' or '-', got '%s'", group);
        return -1;
    }
    return 0;
}

/* Seconds of warm-up and timed calls of `call` seconds each, as the runner repeats them. */
static double repeated(double call, int warmup, int min_reps, int max_reps, double min_seconds)
{
    double timed = fmax(min_reps * call, min_seconds);
    if (max_reps > 0 && timed > max_reps * call) timed = max_reps * call;
    return warmup * call + timed;
}

double bb_point_estimate_s(const bb_experiment *ex, const bb_point *p)
{
    const bb_sweep *sw = &ex->sweeps[p->sweep];
    const bb_kernel *kern = sw->kernels[p->kernel].kernel;
    const bb_shape *sh = &sw->shapes[p->shape];
    double ops = 2.0 * sh->m * sh->k * p->n;
    double bytes = (double)kern->packed_size(sh->m, sh->k) + 4.0 * p->n * sh->k;
    double call = fmax(ops / (p->threads * NOMINAL_OPS_PER_THREAD_S), bytes / NOMINAL_BYTES_S) + NOMINAL_CALL_S;
    double t = repeated(call, sw->warmup, sw->min_reps, sw->max_reps, sw->min_seconds);
    t += 4.0 * sh->m * sh->k / NOMINAL_BUILD_BYTES_S;
    if (sw->rounds > 1) t *= sw->rounds; /* each round measures it again, its weights built again */
    if (sw->verify) t += ops / (NOMINAL_OPS_PER_THREAD_S / 10); /* the fp64 reference product */
    return t;
}

double bb_e2e_estimate_s(const bb_experiment *ex, const bb_e2e_point *p)
{
    const bb_sweep *sw = &ex->sweeps[p->sweep];
    const bb_model_config *cfg = &sw->models[p->model];
    double params = (double)bb_model_param_count(cfg);
    double bytes = params * sw->kernels[p->kernel].kernel->bits_per_weight / 8;
    double prefill_token = 2 * params / (p->threads * NOMINAL_OPS_PER_THREAD_S);
    double decode_token = fmax(prefill_token, bytes / NOMINAL_BYTES_S);
    double rep = (p->depth + p->prompt) * prefill_token + p->gen * decode_token;
    double build = 4 * params / NOMINAL_BUILD_BYTES_S;
    double t = (sw->min_reps + 1) * rep + build; /* + 1: the warm-up repetition */
    if (sw->compare_logits[0]) t += 2 * sw->compare_tokens * decode_token;
    if (sw->ppl_file[0]) t += sw->ppl_ctx * (sw->ppl_chunks > 0 ? sw->ppl_chunks : 4) * prefill_token;
    if (sw->rounds > 1) t += (sw->rounds - 1) * ((sw->min_reps + 1) * rep + build);
    t += sw->npeers * (sw->rounds > 1 ? sw->rounds : 1) * ((sw->min_reps + 1) * rep + build); /* every round */
    return t;
}

static void hash_printf(bb_sha256 *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hash_printf(bb_sha256 *h, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) bb_sha256_update(h, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* What a sweep measures besides its points' identities: repetitions, seeds, checks, peers. */
static void hash_sweep(bb_sha256 *h, const bb_sweep *sw)
{
    hash_printf(h, "sweep %s model=%d warmup=%d reps=%d max_reps=%d min_seconds=%.17g spread_limit=%.17g "
                "seed=%llu verify=%d on_unsupported=%d\n", sw->name, sw->is_model, sw->warmup, sw->min_reps,
                sw->max_reps, sw->min_seconds, sw->spread_limit, (unsigned long long)sw->seed, sw->verify,
                (int)sw->on_unsupported);
    for (int i = 0; i < sw->nmodels; i++) hash_printf(h, "model %s %s\n", sw->models[i].name, sw->models[i].path);
    /* kv_f16 as before the KV types were separate, so that the hash of a sweep without the new
     * fields stays what it was */
    bool kv_f16 = sw->kv_k == BB_KV_F16 && sw->kv_v == BB_KV_F16;
    if (sw->kv_k != sw->kv_v || (sw->kv_k != BB_KV_F32 && !kv_f16))
        hash_printf(h, "kv=%s/%s\n", bb_kv_type_name(sw->kv_k), bb_kv_type_name(sw->kv_v));
    hash_printf(h, "out_kernel=%s kv_f16=%d distinct_layers=%d compare=%s/%d ppl=%s/%s/%d/%d\n", sw->out_kernel,
                kv_f16, sw->distinct_layers, sw->compare_logits, sw->compare_tokens, sw->ppl_file,
                sw->ppl_model, sw->ppl_ctx, sw->ppl_chunks);
    for (int i = 0; i < sw->npeers; i++) hash_printf(h, "peer %s\n", sw->peers[i]);
    if (sw->rounds > 1) hash_printf(h, "rounds=%d\n", sw->rounds); /* only then: older plans' hashes stay */
    if (sw->interleave) hash_printf(h, "interleave\n");
    if (bb_sweep_spread_phases(sw) != BB_PHASES_BOTH) hash_printf(h, "spread_phases=%u\n", sw->spread_phases);
}

void bb_plan_sha256(const bb_experiment *ex, const bb_plan *plan, char hex[65])
{
    bb_sha256 h;
    bb_sha256_init(&h);
    hash_printf(&h, "experiment %s size=%s\n", ex->name, ex->size);
    for (int i = 0; i < ex->nmeters; i++) hash_printf(&h, "meter %s\n", ex->meters[i]);
    for (int s = 0; s < ex->nsweeps; s++) hash_sweep(&h, &ex->sweeps[s]);
    for (int i = 0; i < plan->npoints; i++) {
        char key[512];
        bb_plan_point_key(ex, &plan->points[i], key, sizeof key);
        hash_printf(&h, "point %d %s\n", plan->points[i].index, key);
    }
    for (int i = 0; i < plan->ne2e; i++) {
        const bb_e2e_point *p = &plan->e2e[i];
        const bb_sweep *sw = &ex->sweeps[p->sweep];
        const bb_kernel_choice *kc = &sw->kernels[p->kernel];
        char depth[24] = ""; /* only when not 0: a plan without depths keeps its hash */
        if (p->depth) snprintf(depth, sizeof depth, "|d%d", p->depth);
        hash_printf(&h, "e2e %d %s|%s|%s|%s|%d|%d|%d%s\n", p->index, sw->name, sw->models[p->model].name,
                    kc->kernel->name, kc->variant->isa, p->prompt, p->gen, p->threads, depth);
    }
    uint8_t d[32];
    bb_sha256_final(&h, d);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* One point to deal: its estimate in whole microseconds (so that the order cannot hinge on the
 * last bit of a float), whether it is an end-to-end point, its position in the plan. */
typedef struct {
    int64_t us;
    int e2e, pos;
} deal_item;

static int deal_order(const void *a, const void *b)
{
    const deal_item *x = a, *y = b;
    if (x->us != y->us) return x->us > y->us ? -1 : 1;
    if (x->e2e != y->e2e) return x->e2e - y->e2e;
    return x->pos - y->pos;
}

/* Longest processing time first: owner[i] of every item, each to the least loaded shard. */
static int deal(deal_item *items, int n, int count, int *owner_k, int *owner_e, double *share_s)
{
    int64_t *load = calloc((size_t)count, sizeof *load);
    if (!load) return -1;
    qsort(items, (size_t)n, sizeof *items, deal_order);
    for (int i = 0; i < n; i++) {
        int best = 0;
        for (int s = 1; s < count; s++)
            if (load[s] < load[best]) best = s;
        load[best] += items[i].us;
        (items[i].e2e ? owner_e : owner_k)[items[i].pos] = best;
    }
    for (int s = 0; s < count; s++) share_s[s] = load[s] / 1e6;
    free(load);
    return 0;
}

/* Keep the kernel and end-to-end points whose owner is `index`, in plan order; their ids go to s. */
static int keep_share(bb_plan *plan, bb_shard *s, const int *owner_k, const int *owner_e)
{
    s->points = malloc(sizeof *s->points * (size_t)(plan->npoints + 1));
    s->e2e = malloc(sizeof *s->e2e * (size_t)(plan->ne2e + 1));
    if (!s->points || !s->e2e) return -1;
    int nk = 0, ne = 0;
    for (int i = 0; i < plan->npoints; i++)
        if (owner_k[i] == s->index) {
            s->points[s->npoints++] = plan->points[i].index;
            plan->points[nk++] = plan->points[i];
        }
    for (int i = 0; i < plan->ne2e; i++)
        if (owner_e[i] == s->index) {
            s->e2e[s->ne2e++] = plan->e2e[i].index;
            plan->e2e[ne++] = plan->e2e[i];
        }
    plan->npoints = nk;
    plan->ne2e = ne;
    return 0;
}

int bb_shard_apply(const bb_experiment *ex, bb_plan *plan, bb_shard *s, char *err, size_t errlen)
{
    int n = plan->npoints + plan->ne2e, rc = -1;
    bb_plan_sha256(ex, plan, s->plan_sha256);
    s->plan_points = plan->npoints;
    s->plan_e2e = plan->ne2e;
    deal_item *items = malloc(sizeof *items * (size_t)(n + 1));
    int *owner_k = malloc(sizeof *owner_k * (size_t)(plan->npoints + 1));
    int *owner_e = malloc(sizeof *owner_e * (size_t)(plan->ne2e + 1));
    double *share_s = malloc(sizeof *share_s * (size_t)s->count);
    if (!items || !owner_k || !owner_e || !share_s) goto oom;
    s->plan_estimate_s = 0;
    for (int i = 0; i < n; i++) {
        bool e2e = i >= plan->npoints;
        double est = e2e ? bb_e2e_estimate_s(ex, &plan->e2e[i - plan->npoints])
                         : bb_point_estimate_s(ex, &plan->points[i]);
        items[i] = (deal_item){.us = llround(est * 1e6), .e2e = e2e, .pos = e2e ? i - plan->npoints : i};
        s->plan_estimate_s += items[i].us / 1e6;
    }
    if (deal(items, n, s->count, owner_k, owner_e, share_s) || keep_share(plan, s, owner_k, owner_e)) goto oom;
    s->estimate_s = share_s[s->index];
    if (s->npoints + s->ne2e == 0)
        snprintf(err, errlen, "--shard %d/%d: the plan has %d points, so shard %d would measure none; use at most "
                 "%d shards", s->index, s->count, n, s->index, n);
    else rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory splitting the plan into shards");
out:
    free(items);
    free(owner_k);
    free(owner_e);
    free(share_s);
    return rc;
}

void bb_shard_free(bb_shard *s)
{
    free(s->points);
    free(s->e2e);
    s->points = s->e2e = NULL;
    s->npoints = s->ne2e = 0;
}

static void int_array(bb_json *j, const char *key, const int *v, int n)
{
    bb_json_array_begin(j, key);
    for (int i = 0; i < n; i++) bb_json_int(j, NULL, v[i]);
    bb_json_array_end(j);
}

void bb_shard_write_json(bb_json *j, const bb_shard *s)
{
    if (!s) {
        bb_json_null(j, "shard");
        return;
    }
    bb_json_object_begin(j, "shard");
    bb_json_int(j, "index", s->index);
    bb_json_int(j, "count", s->count);
    bb_json_string(j, "group", s->group);
    bb_json_string(j, "settings", s->settings);
    bb_json_string(j, "plan_sha256", s->plan_sha256);
    bb_json_int(j, "plan_points", s->plan_points);
    bb_json_int(j, "plan_e2e_points", s->plan_e2e);
    bb_json_number(j, "plan_estimate_s", s->plan_estimate_s);
    bb_json_number(j, "estimate_s", s->estimate_s);
    int_array(j, "points", s->points, s->npoints);
    int_array(j, "e2e_points", s->e2e, s->ne2e);
    bb_json_object_end(j);
}

bool bb_shard_json_matches(const bb_jv *json, const bb_shard *s)
{
    const bb_jv *sh = bb_jv_get(json, "shard");
    if (!sh || sh->type != BB_JV_OBJ) return s == NULL;
    if (!s) return false;
    const char *group = bb_jv_str(sh, "group");
    return bb_jv_num(sh, "index") == s->index && bb_jv_num(sh, "count") == s->count && group &&
           !strcmp(group, s->group);
}

int bb_shard_check_resume(const bb_jv *json, const bb_shard *s, char *err, size_t errlen)
{
    const char *plan = bb_jv_str(bb_jv_get(json, "shard"), "plan_sha256");
    if (plan && strcmp(plan, s->plan_sha256)) {
        snprintf(err, errlen, "--resume: shard %d/%d began with another plan (plan_sha256 %.16s, now %.16s): the "
                 "file, the options or the machine differ, so its points would not match the other shards'; "
                 "start the shard afresh", s->index, s->count, plan, s->plan_sha256);
        return -1;
    }
    return 0;
}
