/* The thread pool and the row split: every worker runs every job exactly once (also after the
 * workers have gone to sleep), bb_split_rows covers [0, M) in contiguous slices on the kernel's
 * row multiple and balanced to one unit, bb_pool_run_chunks runs every chunk exactly once and
 * lets a finished thread take over a slow one's chunks, bb_variant_chunk_rows cuts whole units
 * of about BB_CHUNK_BYTES, and every registered kernel variant gives, through the pool's chunks
 * with 1 and 2 threads, the single-threaded result bit for bit. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/gemm_bench.h"
#include "bench/overhead.h"
#include "check.h"
#include "support/memory.h"
#include "support/pool.h"
#include "support/rng.h"

static void test_split(void)
{
    static const int multiples[] = {1, 2, 4, 8, 32};
    int bad = 0;
    for (int mi = 0; mi < 5; mi++)
        for (int m = 1; m <= 300 && !bad; m++)
            for (int t = 1; t <= 6 && !bad; t++) {
                int mult = multiples[mi], prev_end = 0, min_units = 1 << 30, max_units = 0;
                for (int tid = 0; tid < t; tid++) {
                    int m0, m1;
                    bb_split_rows(m, mult, tid, t, &m0, &m1);
                    if (m0 != prev_end || m1 < m0 || (m0 % mult && m0 != m) || (m1 % mult && m1 != m)) bad = 1;
                    int units = (m1 - m0 + mult - 1) / mult;
                    if (units < min_units) min_units = units;
                    if (units > max_units) max_units = units;
                    prev_end = m1;
                }
                if (prev_end != m || max_units - min_units > 1) bad = 1;
                if (bad) CHECK(0, "split m=%d multiple=%d threads=%d is not a balanced cover", m, mult, t);
            }
    if (!bad) PASS();
}

typedef struct {
    _Atomic int runs[8];
    _Atomic int wrong_n;
    int expect_n;
} count_job;

static void count_fn(void *ctx, int tid, int n)
{
    count_job *c = ctx;
    atomic_fetch_add(&c->runs[tid], 1);
    if (n != c->expect_n) atomic_fetch_add(&c->wrong_n, 1);
}

/* jobs back to back, then again after the workers have had time to fall asleep */
static void run_counted(int threads, int jobs)
{
    char err[256];
    bb_pool *p = bb_pool_create(threads, err, sizeof err);
    CHECK(p != NULL, "pool: %s", err);
    if (!p) return;
    CHECK(bb_pool_size(p) == threads, "size");
    char cpus[64];
    bb_pool_cpus(p, cpus, sizeof cpus);
    int seps = 0;
    for (const char *c = cpus; *c; c++) seps += *c == ';';
    CHECK(seps == threads - 1, "one cpu per thread: %s", cpus);
    char want[16];
    snprintf(want, sizeof want, "t%d:", threads - 1);
    CHECK(strstr(bb_pool_placement(p), want) != NULL, "placement names each thread: %s", bb_pool_placement(p));
    count_job c = {0};
    c.expect_n = threads;
    for (int i = 0; i < jobs; i++) bb_pool_run(p, count_fn, &c);
    struct timespec ts = {0, 80 * 1000 * 1000};
    nanosleep(&ts, NULL);
    for (int i = 0; i < 10; i++) bb_pool_run(p, count_fn, &c);
    for (int t = 0; t < threads; t++)
        CHECK(c.runs[t] == jobs + 10, "thread %d of %d ran %d of %d jobs", t, threads, (int)c.runs[t], jobs + 10);
    CHECK(c.wrong_n == 0, "every call sees nthreads = %d", threads);
    bb_pool_destroy(p);
}

static void test_pool_runs(void)
{
    run_counted(1, 100);
    run_counted(2, 2000);
    run_counted(3, 20); /* more threads than this 2-core test machine may have: still correct */
}

typedef struct {
    _Atomic int runs[1000];   /* per chunk: how often it ran */
    _Atomic int by[1000];     /* per chunk: the thread that ran it */
    _Atomic int done[8];      /* per thread: own_done calls */
    int nchunks, nthreads, slow_tid; /* slow_tid sleeps on its first chunk (-1: none) */
} chunks_job;

static void chunk_fn(void *ctx, int tid, int c)
{
    chunks_job *j = ctx;
    atomic_fetch_add(&j->runs[c], 1);
    atomic_store(&j->by[c], tid);
    int c0, c1;
    bb_split_rows(j->nchunks, 1, tid, j->nthreads, &c0, &c1);
    if (tid == j->slow_tid && c == c0) {
        struct timespec ts = {0, 60 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void chunk_done(void *ctx, int tid, int nthreads)
{
    chunks_job *j = ctx;
    (void)nthreads;
    atomic_fetch_add(&j->done[tid], 1);
}

static void test_chunks(void)
{
    static const int counts[] = {0, 1, 2, 5, 97, 1000};
    char err[256];
    for (int threads = 1; threads <= 3; threads++) {
        bb_pool *p = bb_pool_create(threads, err, sizeof err);
        CHECK(p != NULL, "pool: %s", err);
        if (!p) return;
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            static chunks_job j;
            memset(&j, 0, sizeof j);
            j.nchunks = counts[ci];
            j.nthreads = threads;
            j.slow_tid = -1;
            bb_pool_chunks job = {j.nchunks, chunk_fn, chunk_done, &j};
            bb_pool_run_chunks(p, &job);
            int bad = 0;
            for (int c = 0; c < j.nchunks; c++) bad += j.runs[c] != 1;
            CHECK(bad == 0, "%d threads, %d chunks: %d chunks did not run exactly once", threads, j.nchunks, bad);
            for (int t = 0; t < threads; t++)
                CHECK(j.done[t] == 1, "%d threads, %d chunks: own_done of thread %d called %d times", threads,
                      j.nchunks, t, (int)j.done[t]);
        }
        bb_pool_destroy(p);
    }
    /* thread 1 stalls on its first chunk: thread 0 takes over the rest of thread 1's share */
    bb_pool *p = bb_pool_create(2, err, sizeof err);
    CHECK(p != NULL, "pool: %s", err);
    if (!p) return;
    static chunks_job j;
    memset(&j, 0, sizeof j);
    j.nchunks = 200;
    j.nthreads = 2;
    j.slow_tid = 1;
    bb_pool_chunks job = {j.nchunks, chunk_fn, chunk_done, &j};
    bb_pool_run_chunks(p, &job);
    int bad = 0, by0 = 0;
    for (int c = 0; c < j.nchunks; c++) {
        bad += j.runs[c] != 1;
        by0 += j.by[c] == 0;
    }
    CHECK(bad == 0, "stalled thread: %d chunks did not run exactly once", bad);
    /* 199, or 200 when thread 0 got to chunk 100 before thread 1 woke up; 100 without stealing */
    CHECK(by0 >= 199, "thread 0 ran %d of 200 chunks while thread 1 was stalled on one (want 199)", by0);
    bb_pool_destroy(p);
}

/* A K (and M) every constraint of the kernel accepts, or 0. */
static int pick_k(const bb_kernel *k, int m)
{
    static const int ks[] = {256, 512, 768, 1024, 2048, 2560, 4096};
    char err[256];
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (bb_kernel_check_shape(k, m, ks[i], 1, err, sizeof err) == 0) return ks[i];
    return 0;
}

/* bb_variant_chunk_rows: whole row units, whole passes; about BB_CHUNK_BYTES of weights per
 * decode chunk (within half a unit's bytes, or one unit when a unit is larger); at least
 * BB_PREFILL_CHUNK_ROWS rows per prefill chunk. */
static void test_chunk_rows(void)
{
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *kern = bb_kernel_at(i);
        for (int v = 0; v < bb_variant_count(kern); v++) {
            const bb_variant *var = &kern->variants[v];
            int m = 4096, k = 2560;
            char err[256];
            if (bb_kernel_check_shape(kern, m, k, 1, err, sizeof err)) continue;
            int d = bb_variant_chunk_rows(kern, var, m, k, 1), p = bb_variant_chunk_rows(kern, var, m, k, 8);
            int pass = var->m_pass > 0 ? var->m_pass : 1;
            CHECK(d > 0 && d % kern->m_multiple == 0 && d % 16 == 0 && d % pass == 0,
                  "%s@%s: %d decode rows per chunk are not whole units", kern->name, var->isa, d);
            CHECK(p >= BB_PREFILL_CHUNK_ROWS && p >= d && p % kern->m_multiple == 0 && p % pass == 0,
                  "%s@%s: %d prefill rows per chunk", kern->name, var->isa, p);
            int unit = 16; /* the least common multiple of 16, m_multiple and m_pass */
            while (unit % kern->m_multiple || unit % pass) unit += 16;
            double row = (double)kern->packed_size(m, k) / m, bytes = d * row;
            CHECK(d == unit || fabs(bytes - BB_CHUNK_BYTES) <= 0.5 * unit * row + 1e-6,
                  "%s@%s: %d rows are %.0f bytes, more than half a unit from %d", kern->name, var->isa, d, bytes,
                  BB_CHUNK_BYTES);
        }
    }
}

static void test_kernels_split(void)
{
    char err[1024];
    bb_pool *pools[3] = {0};
    for (int t = 1; t <= 2; t++) {
        pools[t] = bb_pool_create(t, err, sizeof err);
        CHECK(pools[t] != NULL, "pool %d: %s", t, err);
        if (!pools[t]) return;
    }
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *kern = bb_kernel_at(i);
        /* 13 row units: the slices of 2 and 3 threads are uneven */
        int m = kern->m_multiple * 13;
        int k = pick_k(kern, m);
        if (!k) {
            m = kern->m_multiple * 16;
            k = pick_k(kern, m);
        }
        CHECK(k > 0, "%s: no test shape passes its constraints", kern->name);
        if (!k) continue;
        size_t psize = kern->packed_size(m, k);
        float *w = bb_alloc((size_t)m * k * sizeof(float));
        uint8_t *packed = bb_alloc(psize);
        const int n_max = 3;
        float *x = bb_alloc((size_t)n_max * k * sizeof(float));
        void *act = bb_alloc(kern->act_size(n_max, k));
        float *y[3];
        for (int t = 0; t < 3; t++) y[t] = bb_alloc((size_t)n_max * m * sizeof(float));
        bb_random_weights(kern, m, k, 1234 + (uint64_t)i, w);
        bb_weights bw = {.m = m, .k = k, .f32 = w};
        if (bb_kernel_pack(kern, &bw, packed, err, sizeof err)) {
            CHECK(0, "%s: pack: %s", kern->name, err);
            goto next;
        }
        bb_rng r;
        bb_rng_seed(&r, 99);
        bb_fill_gauss(&r, x, (size_t)n_max * k, 1.0f);
        for (int v = 0; v < bb_variant_count(kern); v++) {
            const bb_variant *var = &kern->variants[v];
            if (!bb_variant_usable(var)) continue;
            for (int n = 1; n <= n_max; n += 2) {
                (var->prepare ? var->prepare : kern->prepare)(x, n, k, act);
                /* reference: one call over all rows, no pool */
                memset(y[0], 0xff, (size_t)n * m * sizeof(float));
                var->matmul(packed, act, y[0], m, k, n, 0, m);
                /* the pool's own chunks (as bitbench gemm runs them), then chunks of one row unit:
                 * 13 of them, taken by 1 or 2 threads in whatever order the threads get to them */
                for (int t = 1; t <= 2; t++)
                    for (int unit = 0; unit <= 1; unit++) {
                        memset(y[t], 0xff, (size_t)n * m * sizeof(float));
                        if (unit) bb_matmul_pool_chunks(pools[t], var, packed, act, y[t], m, k, n, kern->m_multiple);
                        else bb_matmul_pool(pools[t], kern, var, packed, act, y[t], m, k, n);
                        CHECK(memcmp(y[0], y[t], (size_t)n * m * sizeof(float)) == 0,
                              "%s@%s M=%d K=%d N=%d: %d threads (%s chunks) differ from one call", kern->name, var->isa,
                              m, k, n, t, unit ? "one-unit" : "the pool's");
                    }
            }
        }
    next:
        free(w);
        free(packed);
        free(x);
        free(act);
        for (int t = 0; t < 3; t++) free(y[t]);
    }
    for (int t = 1; t <= 2; t++) bb_pool_destroy(pools[t]);
}

static void test_overhead(void)
{
    bb_overhead o;
    char err[256];
    int rc = bb_measure_overhead(2, 20, 200, &o, err, sizeof err);
    CHECK(rc == 0, "overhead: %s", err);
    if (rc) return;
    /* A sanity bound only (the machine may be shared): a round trip costs nanoseconds to
     * microseconds, never the milliseconds of a thread start or a missed wake-up. */
    CHECK(o.barrier_ns > 0 && o.barrier_ns < 1e6, "barrier %.1f ns", o.barrier_ns);
    CHECK(o.call_ns > 0 && o.call_ns < 1e6, "measured call %.1f ns", o.call_ns);
    printf("pool overhead with 2 threads: barrier %.0f ns, measured call %.0f ns (medians)\n", o.barrier_ns,
           o.call_ns);
}

int main(void)
{
    test_split();
    test_pool_runs();
    test_chunks();
    test_chunk_rows();
    test_kernels_split();
    test_overhead();
    return check_summary("test_pool_split");
}
