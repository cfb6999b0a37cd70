#include "gemm_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/error_bound.h"
#include "machine.h"
#include "rng.h"
#include "stats.h"
#include "timer.h"

const char *bb_cache_mode_name(bb_cache_mode c) { return c == BB_CACHE_DRAM ? "dram" : "resident"; }

int bb_cache_mode_parse(const char *s, bb_cache_mode *c)
{
    if (strcmp(s, "resident") == 0) *c = BB_CACHE_RESIDENT;
    else if (strcmp(s, "dram") == 0) *c = BB_CACHE_DRAM;
    else return -1;
    return 0;
}

void *bb_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) bytes = 64;
    if (posix_memalign(&p, 64, (bytes + 63) & ~(size_t)63) != 0) return NULL;
    return p;
}

typedef struct {
    const bb_kernel *kern;
    const bb_variant *v;
    const void *w, *act;
    float *y;
    int m, k, n;
} matmul_job;

static void matmul_fn(void *ctx, int tid, int nthreads)
{
    matmul_job *j = ctx;
    int m0, m1;
    bb_split_rows(j->m, j->kern->m_multiple, tid, nthreads, &m0, &m1);
    if (m1 > m0) j->v->matmul(j->w, j->act, j->y, j->m, j->k, j->n, m0, m1);
}

void bb_matmul_pool(bb_pool *pool, const bb_kernel *kern, const bb_variant *v, const void *w,
                    const void *act, float *y, int m, int k, int n)
{
    matmul_job j = {kern, v, w, act, y, m, k, n};
    bb_pool_run(pool, matmul_fn, &j);
}

void bb_random_weights(const bb_kernel *kern, int m, int k, uint64_t seed, float *w)
{
    bb_rng r;
    bb_rng_seed(&r, seed);
    if (kern->weights == BB_WEIGHTS_TERNARY) bb_fill_ternary(&r, w, (size_t)m * k, 0.0421875f);
    else bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
}

static void verify(const bb_kernel *kern, const void *packed, const float *x, const float *y, int m,
                   int k, int n, bb_gemm_result *res, float *wdeq)
{
    kern->unpack(packed, m, k, wdeq);
    double max_err = 0, max_ref = 0, worst_ratio = 0;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < m; r++) {
            const float *wr = wdeq + (size_t)r * k, *xr = x + (size_t)c * k;
            double ref = 0;
            for (int i = 0; i < k; i++) ref += (double)wr[i] * xr[i];
            double e = fabs(y[(size_t)c * m + r] - ref);
            double b = bb_error_bound(kern, wr, xr, k);
            max_err = fmax(max_err, e);
            max_ref = fmax(max_ref, fabs(ref));
            worst_ratio = fmax(worst_ratio, e / b);
        }
    res->verified = true;
    res->max_abs_err = max_err;
    res->rel_err = max_ref > 0 ? max_err / max_ref : max_err;
    res->bound_ratio = worst_ratio;
}

int bb_gemm_bench(bb_pool *pool, const bb_gemm_spec *s, bb_gemm_result *res, char *err, size_t errlen)
{
    const bb_kernel *kern = s->kernel;
    memset(res, 0, sizeof *res);
    if (bb_kernel_check_shape(kern, s->m, s->k, s->n, err, errlen)) return -1;
    size_t wcount = (size_t)s->m * s->k, psize = kern->packed_size(s->m, s->k);
    size_t asize = kern->act_size(s->n, s->k);
    int copies = 1;
    if (s->cache == BB_CACHE_DRAM) {
        bb_machine mach;
        bb_machine_detect(&mach);
        size_t target = 2 * bb_machine_llc(&mach);
        copies = (int)(target / psize + 1);
        if (copies < 2) copies = 2;
        size_t need = (size_t)copies * psize;
        if (mach.mem_available && need > mach.mem_available * 3 / 4) {
            snprintf(err, errlen,
                     "--cache dram needs %d copies of %zu bytes (%.1f GiB, twice the %.0f MiB LLC) but only "
                     "%.1f GiB is available; use --cache resident",
                     copies, psize, need / 1073741824.0, bb_machine_llc(&mach) / 1048576.0,
                     mach.mem_available / 1073741824.0);
            return -1;
        }
    }
    int rc = -1;
    float *w = bb_alloc(wcount * sizeof(float)), *x = bb_alloc((size_t)s->n * s->k * sizeof(float));
    float *y = bb_alloc((size_t)s->n * s->m * sizeof(float));
    void *act = bb_alloc(asize);
    uint8_t *packed = bb_alloc((size_t)copies * psize);
    double *times = NULL;
    if (!w || !x || !y || !act || !packed) {
        snprintf(err, errlen, "out of memory: M=%d K=%d N=%d needs %.1f MiB of weights and %d packed copies of %.1f MiB",
                 s->m, s->k, s->n, wcount * 4.0 / 1048576.0, copies, psize / 1048576.0);
        goto done;
    }
    bb_random_weights(kern, s->m, s->k, s->seed, w);
    bb_rng r;
    bb_rng_seed(&r, s->seed ^ 0x5eed5eedull);
    bb_fill_gauss(&r, x, (size_t)s->n * s->k, 1.0f);
    bb_weights bw = {.m = s->m, .k = s->k, .f32 = w};
    if (bb_kernel_pack(kern, &bw, packed, err, errlen)) goto done;
    for (int c = 1; c < copies; c++) memcpy(packed + (size_t)c * psize, packed, psize);

    void (*prepare)(const float *, int, int, void *) = s->variant->prepare ? s->variant->prepare : kern->prepare;
    int max_reps = s->max_reps > 0 ? s->max_reps : 1000000;
    times = malloc(sizeof(double) * (size_t)max_reps);
    if (!times) {
        snprintf(err, errlen, "out of memory for %d timings", max_reps);
        goto done;
    }
    int next = 0;
    for (int i = 0; i < s->warmup; i++) {
        prepare(x, s->n, s->k, act);
        bb_matmul_pool(pool, kern, s->variant, packed + (size_t)next * psize, act, y, s->m, s->k, s->n);
        next = (next + 1) % copies;
    }
    double total = 0;
    int reps = 0;
    while (reps < max_reps && (reps < s->min_reps || total < s->min_seconds)) {
        const uint8_t *wp = packed + (size_t)next * psize;
        double t0 = bb_now();
        prepare(x, s->n, s->k, act);
        bb_matmul_pool(pool, kern, s->variant, wp, act, y, s->m, s->k, s->n);
        double t = bb_now() - t0;
        times[reps++] = t;
        total += t;
        next = (next + 1) % copies;
    }
    bb_stats st = bb_stats_of(times, reps);
    res->reps = reps;
    res->copies = copies;
    res->t_median = st.median;
    res->t_min = st.min;
    res->t_max = st.max;
    res->t_sd = st.sd;
    res->packed_bytes = psize;
    res->act_bytes = asize;
    res->gops = 2.0 * s->m * (double)s->k * s->n / st.median / 1e9;
    res->gbps = (double)psize / st.median / 1e9;
    if (s->verify) verify(kern, packed, x, y, s->m, s->k, s->n, res, w);
    rc = 0;
done:
    free(times);
    free(w);
    free(x);
    free(y);
    free(act);
    free(packed);
    return rc;
}
