#include "bench/overhead.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "support/pool.h"
#include "support/stats.h"
#include "support/timer.h"

static void empty_job(void *ctx, int tid, int nthreads) { (void)ctx; (void)tid; (void)nthreads; }

/* A kernel that does nothing: what remains of a measured call is the harness. */
static size_t probe_size(int m, int k) { (void)m; (void)k; return 64; }
static size_t probe_act_size(int n, int k) { (void)n; (void)k; return 64; }
static void probe_prepare(const float *x, int n, int k, void *act) { (void)x; (void)n; (void)k; (void)act; }
static void probe_matmul(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    (void)w; (void)act; (void)y; (void)m; (void)k; (void)n; (void)m0; (void)m1;
}

static const bb_kernel probe_kernel = {
    .name = "overhead-probe",
    .family = "none",
    .description = "does nothing; measures the harness",
    .k_multiple = 1,
    .m_multiple = 1,
    .packed_size = probe_size,
    .act_size = probe_act_size,
    .prepare = probe_prepare,
    .variants = {{"scalar", 0, probe_matmul, NULL}},
};

int bb_measure_overhead(int threads, int samples, int batch, bb_overhead *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    bb_pool *pool = bb_pool_create(threads, err, (unsigned)errlen);
    if (!pool) return -1;
    double *v = malloc(sizeof *v * (size_t)samples);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        bb_pool_destroy(pool);
        return -1;
    }
    out->threads = threads;
    out->samples = samples;
    out->batch = batch;
    snprintf(out->placement, sizeof out->placement, "%s", bb_pool_placement(pool));

    for (int i = 0; i < batch; i++) bb_pool_run(pool, empty_job, NULL); /* wake and warm */
    for (int s = 0; s < samples; s++) {
        double t0 = bb_now();
        for (int i = 0; i < batch; i++) bb_pool_run(pool, empty_job, NULL);
        v[s] = (bb_now() - t0) / batch * 1e9;
    }
    bb_stats st = bb_stats_of(v, samples);
    out->barrier_ns = st.median;
    out->barrier_min_ns = st.min;

    /* The runner's own path: one bb_gemm_measure of `batch` no-op calls per sample. */
    uint8_t packed[64] = {0};
    bb_packed_set ps = {.kernel = &probe_kernel, .m = 2560, .k = 2560, .psize = sizeof packed, .copies = 1,
                        .packed = packed};
    bb_measure_spec ms = {.variant = &probe_kernel.variants[0], .n = 1, .warmup = batch, .min_reps = batch,
                          .max_reps = batch, .min_seconds = 0};
    int rc = 0;
    for (int s = 0; s < samples && rc == 0; s++) {
        bb_gemm_result r;
        rc = bb_gemm_measure(pool, &ps, &ms, &r, err, errlen);
        v[s] = r.t_median * 1e9;
        ms.warmup = 0;
    }
    if (rc == 0) {
        st = bb_stats_of(v, samples);
        out->call_ns = st.median;
        out->call_min_ns = st.min;
    }
    free(v);
    bb_pool_destroy(pool);
    return rc;
}
