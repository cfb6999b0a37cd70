#include "bench/gemm_bench.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/error_bound.h"
#include "support/machine.h"
#include "support/memory.h"
#include "support/rng.h"
#include "support/stats.h"
#include "support/timer.h"

typedef struct {
    const bb_variant *v;
    const void *w, *act;
    float *y;
    int m, k, n, chunk_rows;
} matmul_job;

static void matmul_chunk(void *ctx, int tid, int c)
{
    (void)tid;
    const matmul_job *j = ctx;
    int r0 = c * j->chunk_rows, r1 = r0 + j->chunk_rows < j->m ? r0 + j->chunk_rows : j->m;
    j->v->matmul(j->w, j->act, j->y, j->m, j->k, j->n, r0, r1);
}

void bb_matmul_pool_chunks(bb_pool *pool, const bb_variant *v, const void *w, const void *act, float *y, int m,
                           int k, int n, int chunk_rows)
{
    matmul_job j = {v, w, act, y, m, k, n, chunk_rows};
    bb_pool_chunks job = {(m + chunk_rows - 1) / chunk_rows, matmul_chunk, NULL, &j};
    bb_pool_run_chunks(pool, &job);
}

void bb_matmul_pool(bb_pool *pool, const bb_kernel *kern, const bb_variant *v, const void *w,
                    const void *act, float *y, int m, int k, int n)
{
    int rows = bb_variant_chunk_rows(kern, v, m, k, n), threads = bb_pool_size(pool);
    if ((m + rows - 1) / rows < threads) { /* a small M: one slice per thread, whole row units */
        int units = (m / kern->m_multiple + threads - 1) / threads;
        rows = (units > 0 ? units : 1) * kern->m_multiple;
    }
    bb_matmul_pool_chunks(pool, v, w, act, y, m, k, n, rows);
}

void bb_random_weights(const bb_kernel *kern, int m, int k, uint64_t seed, float *w)
{
    bb_rng r;
    bb_rng_seed(&r, seed);
    if (kern->weights == BB_WEIGHTS_TERNARY) bb_fill_ternary(&r, w, (size_t)m * k, 0.0421875f);
    else bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
}

int bb_packed_set_make(const bb_kernel *kern, int m, int k, bb_cache_mode cache, int threads, uint64_t seed,
                       const bb_machine *mach, bb_packed_set *ps, char *err, size_t errlen)
{
    memset(ps, 0, sizeof *ps);
    if (bb_kernel_check_shape(kern, m, k, 1, err, errlen)) return -1;
    size_t psize = kern->packed_size(m, k);
    int copies;
    if (bb_cache_copies(cache, psize, threads, mach, &copies, err, errlen)) return -1;
    size_t wcount = (size_t)m * k;
    float *w = bb_alloc(wcount * sizeof(float));
    uint8_t *packed = bb_alloc_stream((size_t)copies * psize);
    if (!w || !packed) {
        snprintf(err, errlen, "out of memory: M=%d K=%d needs %.1f MiB of weights and %d packed copies of %.1f MiB",
                 m, k, wcount * 4.0 / 1048576.0, copies, psize / 1048576.0);
        free(w);
        free(packed);
        return -1;
    }
    bb_random_weights(kern, m, k, seed, w);
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    int rc = bb_kernel_pack(kern, &bw, packed, err, errlen);
    free(w);
    if (rc) {
        free(packed);
        return -1;
    }
    for (int c = 1; c < copies; c++) memcpy(packed + (size_t)c * psize, packed, psize);
    *ps = (bb_packed_set){.kernel = kern, .m = m, .k = k, .seed = seed, .cache = cache, .threads = threads,
                          .psize = psize, .copies = copies, .packed = packed};
    if (cache != BB_CACHE_RESIDENT) snprintf(ps->cache_source, sizeof ps->cache_source, "%s", mach->cache_source);
    return 0;
}

void bb_packed_set_free(bb_packed_set *ps)
{
    free(ps->packed);
    memset(ps, 0, sizeof *ps);
}

static bool stopped(const bb_measure_spec *ms) { return ms->stop && *ms->stop; }

int bb_gemm_measure(bb_pool *pool, const bb_packed_set *ps, const bb_measure_spec *ms, bb_gemm_result *res,
                    char *err, size_t errlen)
{
    const bb_kernel *kern = ps->kernel;
    const bb_variant *v = ms->variant;
    int m = ps->m, k = ps->k, n = ms->n;
    memset(res, 0, sizeof *res);
    if (bb_kernel_check_shape(kern, m, k, n, err, errlen)) return -1;
    size_t asize = kern->act_size(n, k);
    int max_reps = ms->max_reps > 0 ? ms->max_reps : 1000000;
    float *x = bb_alloc((size_t)n * k * sizeof(float)), *y = bb_alloc((size_t)n * m * sizeof(float));
    void *act = bb_alloc(asize);
    double *times = malloc(sizeof(double) * (size_t)max_reps);
    /* the reads of one stream per thread in [0, max_reps), of BB_READ_STREAMS after them */
    double *reads = ms->read_alone ? malloc(sizeof(double) * 2 * (size_t)max_reps) : NULL;
    double *ratios = ms->read_alone ? malloc(sizeof(double) * 2 * (size_t)max_reps) : NULL;
    int rc = -1;
    if (!x || !y || !act || !times || (ms->read_alone && (!reads || !ratios))) {
        snprintf(err, errlen, "out of memory: N=%d K=%d activations, N=%d M=%d outputs, %d timings", n, k, n, m,
                 max_reps);
        goto done;
    }
    bb_rng r;
    bb_rng_seed(&r, ms->seed ^ 0x5eed5eedull);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    void (*prepare)(const float *, int, int, void *) = v->prepare ? v->prepare : kern->prepare;

    int next = 0;
    for (int i = 0; i < ms->warmup && !stopped(ms); i++) {
        prepare(x, n, k, act);
        bb_matmul_pool(pool, kern, v, ps->packed + (size_t)next * ps->psize, act, y, m, k, n);
        next = (next + 1) % ps->copies;
    }
    double total = 0;
    int reps = 0;
    double *mv = ms->meter_values;
    for (int i = 0; i < ms->nmeters; i++) bb_meter_begin(&ms->meters[i]);
    uint64_t fallbacks_before = bb_kernel_fallback_calls();
    while (reps < max_reps && (reps < ms->min_reps || total < ms->min_seconds) && !stopped(ms)) {
        const uint8_t *wp = ps->packed + (size_t)next * ps->psize;
        double t0 = bb_now();
        prepare(x, n, k, act);
        bb_matmul_pool(pool, kern, v, wp, act, y, m, k, n);
        double t = bb_now() - t0;
        next = (next + 1) % ps->copies;
        if (reads) {
            /* the next copies read alone, right after the call: both see the memory system of
             * the same moment, however the host's DRAM rate drifts over the point.  Once with
             * one stream per thread and once with BB_READ_STREAMS, first one then the other
             * first, so that neither always reads after the call's own traffic. */
            for (int o = 0; o < 2; o++) {
                int kind = (o + reps) % 2;
                const void *buf = ps->packed + (size_t)next * ps->psize;
                double rd = bb_read_buffers(pool, &buf, &ps->psize, 1, kind ? BB_READ_STREAMS : 1, NULL);
                reads[(size_t)kind * max_reps + reps] = rd;
                ratios[(size_t)kind * max_reps + reps] = t / rd;
                next = (next + 1) % ps->copies;
            }
        }
        times[reps++] = t;
        total += t;
    }
    res->fallback_calls = bb_kernel_fallback_calls() - fallbacks_before;
    for (int i = 0; i < ms->nmeters; i++) {
        bb_meter_end(&ms->meters[i], reps, mv);
        mv += ms->meters[i].type->ncolumns;
    }
    res->interrupted = stopped(ms);
    if (ms->keep_samples && (res->samples = malloc(sizeof *res->samples * (size_t)(reps ? reps : 1))))
        memcpy(res->samples, times, sizeof *times * (size_t)reps); /* before bb_stats_of sorts them */
    bb_stats st = bb_stats_of(times, reps);
    res->reps = reps;
    res->copies = ps->copies;
    res->t_median = st.median;
    res->t_min = st.min;
    res->t_max = st.max;
    res->t_sd = st.sd;
    res->t_q1 = st.q1;
    res->t_q3 = st.q3;
    res->spread = bb_stats_spread(&st);
    res->packed_bytes = ps->psize;
    res->rotated_bytes = ps->psize * (size_t)ps->copies;
    snprintf(res->cache_source, sizeof res->cache_source, "%s", ps->cache_source);
    res->act_bytes = asize;
    res->gops = reps ? 2.0 * m * (double)k * n / st.median / 1e9 : 0;
    res->gbps = reps ? (double)ps->psize / st.median / 1e9 : 0;
    if (reads && reps) {
        /* the bound is the faster of the two reads by median; the ratios are to that read */
        bb_stats s1 = bb_stats_of(reads, reps), sn = bb_stats_of(reads + max_reps, reps);
        int kind = sn.median < s1.median;
        bb_stats sr = kind ? sn : s1;
        res->read_alone = true;
        res->read_streams = kind ? BB_READ_STREAMS : 1;
        res->read_t_median = sr.median;
        res->read_t_min = sr.min;
        res->read_gbps = (double)ps->psize / sr.median / 1e9;
        res->read_ratio_paired = bb_stats_of(ratios + (size_t)kind * max_reps, reps).median;
    }
    rc = 0;
done:
    free(x);
    free(y);
    free(act);
    free(times);
    free(reads);
    free(ratios);
    return rc;
}

/* The fp64 references of one call, split over the pool by weight rows: each worker sums its rows'
 * squares into its own slot (added in worker order afterwards, so the result does not depend on
 * timing). */
typedef struct {
    double max_err, max_ref, worst_ratio;
    double err2, ref2;         /* vs the kernel's dequantized weights */
    double merr2, master2;     /* vs the master weights */
    double werr2, w2;          /* weight reconstruction */
} verify_sums;

typedef struct {
    const bb_kernel *kern;
    const float *w, *wdeq, *x, *y;
    int m, k, n;
    verify_sums *sums;         /* one per worker */
} verify_job;

static void verify_fn(void *ctx, int tid, int nthreads)
{
    verify_job *j = ctx;
    int r0, r1;
    bb_split_rows(j->m, 1, tid, nthreads, &r0, &r1);
    verify_sums s = {0};
    size_t k = (size_t)j->k;
    for (int r = r0; r < r1; r++) {
        const float *wr = j->w + (size_t)r * k, *dr = j->wdeq + (size_t)r * k;
        for (size_t i = 0; i < k; i++) {
            double d = (double)dr[i] - wr[i];
            s.werr2 += d * d;
            s.w2 += (double)wr[i] * wr[i];
        }
        for (int c = 0; c < j->n; c++) {
            const float *xr = j->x + (size_t)c * k;
            double ref = 0, master = 0;
            for (size_t i = 0; i < k; i++) {
                ref += (double)dr[i] * xr[i];
                master += (double)wr[i] * xr[i];
            }
            double y = j->y[(size_t)c * j->m + r], e = y - ref, me = y - master;
            double e_abs = fabs(e), b = bb_error_bound(j->kern, dr, xr, j->k);
            s.max_err = fmax(s.max_err, e_abs);
            s.max_ref = fmax(s.max_ref, fabs(ref));
            s.worst_ratio = fmax(s.worst_ratio, e_abs / b);
            s.err2 += e * e;
            s.ref2 += ref * ref;
            s.merr2 += me * me;
            s.master2 += master * master;
        }
    }
    j->sums[tid] = s;
}

/* A relative RMS error: sqrt(sum e^2 / sum ref^2); the bare RMS of e when the reference is all zero. */
static double rel_rms(double err2, double ref2, double count)
{
    return ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2 / (count > 0 ? count : 1));
}

int bb_gemm_verify(bb_pool *pool, const bb_packed_set *ps, const bb_variant *variant, int n, uint64_t seed,
                   bb_gemm_result *res, char *err, size_t errlen)
{
    const bb_kernel *kern = ps->kernel;
    int m = ps->m, k = ps->k, nt = bb_pool_size(pool);
    size_t wcount = (size_t)m * k;
    float *x = bb_alloc((size_t)n * k * sizeof(float)), *y = bb_alloc((size_t)n * m * sizeof(float));
    float *w = bb_alloc(wcount * sizeof(float)), *wdeq = bb_alloc(wcount * sizeof(float));
    void *act = bb_alloc(kern->act_size(n, k));
    verify_sums *sums = calloc((size_t)nt, sizeof *sums);
    int rc = -1;
    if (!x || !y || !w || !wdeq || !act || !sums) {
        snprintf(err, errlen, "out of memory verifying M=%d K=%d N=%d (two float copies of the weights: %.1f MiB)",
                 m, k, n, 2.0 * wcount * sizeof(float) / 1048576.0);
        goto done;
    }
    /* the activations bb_gemm_measure times, and its first copy of the packed weights */
    bb_rng r;
    bb_rng_seed(&r, seed ^ 0x5eed5eedull);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    (variant->prepare ? variant->prepare : kern->prepare)(x, n, k, act);
    bb_matmul_pool(pool, kern, variant, ps->packed, act, y, m, k, n);
    bb_random_weights(kern, m, k, ps->seed, w);
    kern->unpack(ps->packed, m, k, wdeq);
    verify_job job = {.kern = kern, .w = w, .wdeq = wdeq, .x = x, .y = y, .m = m, .k = k, .n = n, .sums = sums};
    bb_pool_run(pool, verify_fn, &job);
    verify_sums t = {0};
    for (int i = 0; i < nt; i++) {
        t.max_err = fmax(t.max_err, sums[i].max_err);
        t.max_ref = fmax(t.max_ref, sums[i].max_ref);
        t.worst_ratio = fmax(t.worst_ratio, sums[i].worst_ratio);
        t.err2 += sums[i].err2, t.ref2 += sums[i].ref2;
        t.merr2 += sums[i].merr2, t.master2 += sums[i].master2;
        t.werr2 += sums[i].werr2, t.w2 += sums[i].w2;
    }
    double outputs = (double)m * n;
    res->verified = true;
    res->max_abs_err = t.max_err;
    res->rel_err = t.max_ref > 0 ? t.max_err / t.max_ref : t.max_err;
    res->bound_ratio = t.worst_ratio;
    res->err_rel_rms = rel_rms(t.err2, t.ref2, outputs);
    res->err_master_rel_rms = rel_rms(t.merr2, t.master2, outputs);
    res->weight_rel_rms = rel_rms(t.werr2, t.w2, (double)wcount);
    rc = 0;
done:
    free(x);
    free(y);
    free(w);
    free(wdeq);
    free(act);
    free(sums);
    return rc;
}

bool bb_gemm_verify_passed(const bb_gemm_result *res) { return res->verified && res->bound_ratio <= 1.0; }

int bb_gemm_bench(bb_pool *pool, const bb_gemm_spec *s, bb_gemm_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (bb_kernel_check_shape(s->kernel, s->m, s->k, s->n, err, errlen)) return -1;
    bb_machine mach;
    bb_machine_detect(&mach);
    bb_packed_set ps;
    if (bb_packed_set_make(s->kernel, s->m, s->k, s->cache, s->threads, s->seed, &mach, &ps, err, errlen)) return -1;
    bb_measure_spec ms = {.variant = s->variant, .n = s->n, .warmup = s->warmup, .min_reps = s->min_reps,
                          .max_reps = s->max_reps, .min_seconds = s->min_seconds, .seed = s->seed,
                          .keep_samples = s->keep_samples, .read_alone = s->read_alone};
    int rc = bb_gemm_measure(pool, &ps, &ms, res, err, errlen);
    if (rc == 0 && s->verify) rc = bb_gemm_verify(pool, &ps, s->variant, s->n, s->seed, res, err, errlen);
    bb_packed_set_free(&ps);
    return rc;
}
