#include "peers/peer_kernels.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "models/gguf_types.h"
#include "peers/backend_ops.h"
#include "peers/peer.h"
#include "peers/peer_exec.h"
#include "peers/peer_sweep.h"

/* One sweep's peer program: run once, at the first point that needs it. */
typedef struct {
    bool ran, failed;
    bb_backend_ops_result out;
    char path[1024];
    bool *written;                  /* [entry][shape][n index]: the row was written (or its absence noted) */
    bb_load_around load;            /* while the program ran: every row of its output shares it */
} sweep_peers;

struct bb_kernel_peers {
    const bb_experiment *ex;
    sweep_peers *sweeps;
};

bb_kernel_peers *bb_kernel_peers_new(const bb_experiment *ex)
{
    bb_kernel_peers *kp = calloc(1, sizeof *kp);
    if (!kp) return NULL;
    kp->ex = ex;
    kp->sweeps = calloc((size_t)ex->nsweeps + 1, sizeof *kp->sweeps);
    for (int i = 0; kp->sweeps && i < ex->nsweeps; i++) {
        const bb_sweep *sw = &ex->sweeps[i];
        if (!sw->npeers || sw->is_model) continue;
        kp->sweeps[i].written = calloc((size_t)sw->npeers * (size_t)sw->nshapes * (size_t)sw->nn, sizeof(bool));
        if (!kp->sweeps[i].written) {
            bb_kernel_peers_free(kp);
            return NULL;
        }
    }
    if (!kp->sweeps) {
        free(kp);
        return NULL;
    }
    return kp;
}

void bb_kernel_peers_free(bb_kernel_peers *kp)
{
    if (!kp) return;
    for (int i = 0; kp->sweeps && i < kp->ex->nsweeps; i++) {
        bb_backend_ops_result_free(&kp->sweeps[i].out);
        free(kp->sweeps[i].written);
    }
    free(kp->sweeps);
    free(kp);
}

/* Locate, run and read the sweep's peer program.  Returns 0, or -1 with why. */
static int run_program(const bb_sweep *sw, const char *peer_name, sweep_peers *sp, char *why, size_t whylen)
{
    const bb_peer *peer = bb_peer_find(peer_name);
    const bb_peer *tool = bb_peer_kernel_tool(peer);
    if (bb_peer_locate(tool, sp->path, sizeof sp->path, why, whylen)) return -1;
    char *argv[8] = {sp->path};
    for (int i = 0; bb_backend_ops_args[i]; i++) argv[i + 1] = (char *)bb_backend_ops_args[i];
    bb_exec_result x;
    char e[1200];
    if (bb_exec_capture(argv, sw->peer_timeout, sw->cpus, sw->ncpus, &x, e, sizeof e)) {
        snprintf(why, whylen, "%s", e);
        return -1;
    }
    int rc = 0;
    if (!x.exited || x.exit_code != 0) {
        bb_exec_describe(&x, sw->peer_timeout, e, sizeof e);
        snprintf(why, whylen, "%s %s", sp->path, e);
        rc = -1;
    } else if (bb_backend_ops_parse(x.out, &sp->out, e, sizeof e)) {
        snprintf(why, whylen, "%s: %s", sp->path, e);
        rc = -1;
    }
    bb_exec_result_free(&x);
    return rc;
}

static void fill_row(const bb_kernel_peer_sink *s, const bb_sweep *sw, const bb_point *p, const char *entry,
                     const bb_backend_ops_case *c, bb_result_row *row)
{
    const bb_shape *sh = &sw->shapes[p->shape];
    char upper[16];
    size_t i = 0;
    for (const char *t = strchr(entry, ':') + 1; *t && i + 1 < sizeof upper; t++) upper[i++] = (char)(*t >= 'a' && *t <= 'z' ? *t - 32 : *t);
    upper[i] = 0;
    const bb_ggml_type *g = bb_ggml_type_by_name(upper);
    double t = c->us_per_run * 1e-6;
    memset(row, 0, sizeof *row);
    snprintf(row->experiment, sizeof row->experiment, "%s", s->experiment);
    snprintf(row->sweep, sizeof row->sweep, "%s", sw->name);
    row->point = p->index;
    snprintf(row->kernel, sizeof row->kernel, "%s", entry);
    snprintf(row->variant, sizeof row->variant, "peer");
    snprintf(row->variant_ran, sizeof row->variant_ran, "peer");
    row->fallback_calls = NAN; /* the peer's own dispatch is not seen from here */
    snprintf(row->family, sizeof row->family, "peer");
    row->bits_per_weight = g ? 8.0 * g->block_bytes / g->block : NAN;
    snprintf(row->model, sizeof row->model, "%s", sh->model);
    snprintf(row->roles, sizeof row->roles, "%s", sh->model[0] ? sh->roles : "");
    row->m = sh->m;
    row->k = sh->k;
    row->n = p->n;
    row->threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    bb_exec_cpus_text(sw->cpus, sw->ncpus, row->cpus, sizeof row->cpus); /* the CPUs it was allowed */
    snprintf(row->cache, sizeof row->cache, "resident");
    row->warmup = 1;
    row->reps = (int)c->runs;
    row->t_median_s = t;
    row->t_min_s = row->t_max_s = row->t_sd_s = row->spread = NAN;
    row->gops = 2.0 * sh->m * sh->k * p->n / t / 1e9;
    row->weight_bytes = (double)sh->m * sh->k * row->bits_per_weight / 8;
    row->gbps = row->weight_bytes / t / 1e9;
    row->err_max_abs = row->err_rel_rms = row->err_master_rel_rms = row->weight_rel_rms = NAN;
    /* the peer's own working set and repetition rule: not bitbench's rotation, not its settings */
    row->rotated_bytes = row->min_seconds = row->delay_s = row->roofline_fraction = NAN;
    snprintf(row->roofline_ceiling, sizeof row->roofline_ceiling, "a peer's row");
    /* one run of the program, its mean time per case: no repetitions to judge (spread_flag 0; its
     * load columns still say whether it was disturbed) */
    row->attempts = 1;
    row->nmeter = s->nmeter;
    for (int m = 0; m < s->nmeter; m++) row->meter[m] = NAN;
}

/* The row of one entry after point p, or the reason there is none. */
static int entry_row(const bb_kernel_peer_sink *s, const bb_sweep *sw, sweep_peers *sp, const bb_point *p,
                     const char *entry)
{
    const bb_shape *sh = &sw->shapes[p->shape];
    char peer_name[BB_NAME_MAX], label[256], why[2400];
    snprintf(peer_name, sizeof peer_name, "%.*s", (int)strcspn(entry, ":"), entry);
    snprintf(label, sizeof label, "%s: %s M=%d K=%d N=%d", sw->name, entry, sh->m, sh->k, p->n);
    if (s->tried) s->tried(s->ctx);
    if (!sp->ran) {
        sp->ran = true;
        if (s->running) s->running(s->ctx, "llama.cpp test-backend-ops perf -o MUL_MAT (all its cases: minutes)");
        bb_load_reading before, after;
        bb_load_read(&before);
        int failed = run_program(sw, peer_name, sp, why, sizeof why);
        bb_load_read(&after);
        bb_load_between(&before, &after, &sp->load);
        if (failed) {
            sp->failed = true;
            s->fail(s->ctx, label, why);
            return 0;
        }
    }
    if (sp->failed) return 0;
    const bb_backend_ops_case *c = bb_backend_ops_find(&sp->out, strchr(entry, ':') + 1, sh->m, p->n, sh->k);
    if (!c) {
        char shapes[512];
        bb_backend_ops_shapes(&sp->out, shapes, sizeof shapes);
        snprintf(why, sizeof why, "%s ran no MUL_MAT case of this type and shape (it has no option for shapes; "
                 "its cases: %s)", sp->path, shapes);
        s->fail(s->ctx, label, why);
        return 0;
    }
    bb_result_row row;
    fill_row(s, sw, p, entry, c, &row);
    row.prov.load_before = sp->load.load_before;
    row.prov.load_after = sp->load.load_after;
    row.prov.other_cpu_share = sp->load.other_cpu_share;
    row.prov.busy = sp->load.busy;
    return s->emit(s->ctx, &row);
}

/* The flag "written" of entry e at point p's shape and N; NULL when the sweep has no peers or p's
 * N is not among its n. */
static bool *written_flag(bb_kernel_peers *kp, const bb_point *p, int e)
{
    const bb_sweep *sw = &kp->ex->sweeps[p->sweep];
    sweep_peers *sp = &kp->sweeps[p->sweep];
    if (!sw->npeers || !sp->written) return NULL;
    int ni = 0;
    while (ni < sw->nn && sw->n[ni] != p->n) ni++;
    if (ni == sw->nn) return NULL;
    return &sp->written[((size_t)e * (size_t)sw->nshapes + (size_t)p->shape) * (size_t)sw->nn + (size_t)ni];
}

int bb_kernel_peer_resumed(bb_kernel_peers *kp, const bb_point *p, const bb_result_row *rows, int nrows, int *found)
{
    const bb_sweep *sw = &kp->ex->sweeps[p->sweep];
    const bb_shape *sh = &sw->shapes[p->shape];
    int sought = 0;
    *found = 0;
    for (int e = 0; e < sw->npeers; e++) {
        bool *w = written_flag(kp, p, e);
        if (!w || *w || bb_peer_attached_kernel(sw, sw->peers[e]) != p->kernel) continue;
        *w = true;
        sought++;
        for (int i = 0; i < nrows; i++)
            if (!strcmp(rows[i].kernel, sw->peers[e]) && !strcmp(rows[i].sweep, sw->name) && rows[i].m == sh->m &&
                rows[i].k == sh->k && rows[i].n == p->n) {
                ++*found;
                break;
            }
    }
    return sought;
}

int bb_kernel_peer_rows_after(bb_kernel_peers *kp, const bb_kernel_peer_sink *s, const bb_point *p)
{
    const bb_sweep *sw = &kp->ex->sweeps[p->sweep];
    sweep_peers *sp = &kp->sweeps[p->sweep];
    for (int e = 0; e < sw->npeers; e++) {
        bool *w = written_flag(kp, p, e);
        if (!w || *w || bb_peer_attached_kernel(sw, sw->peers[e]) != p->kernel) continue;
        *w = true;
        if (entry_row(s, sw, sp, p, sw->peers[e])) return -1;
    }
    return 0;
}
