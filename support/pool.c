#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setaffinity_np, CPU_SET */
#endif
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity.h"
#if defined(__x86_64__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ volatile("yield")
#else
#define cpu_relax() ((void)0)
#endif

/* How long a waiting worker spins before it sleeps on the condition variable: long enough to
 * cover the gap between back-to-back matmul calls of a benchmark or a decode step. */
#define SPIN_ITERS 200000

/* The barrier's hot words sit on cache lines of their own: `generation` (with the job it
 * announces) is written by the caller and read by every worker, `pending` is written by every
 * worker and polled by the caller; sharing a line would make each worker's decrement also evict
 * the line the others are spinning on. */
#define CACHE_LINE 64

/* A thread's chunks [lo, hi) in a bb_pool_run_chunks job as lo | hi << 32, alone on its line:
 * the owner takes from lo, the others from hi. */
typedef struct {
    _Alignas(CACHE_LINE) _Atomic uint64_t range;
} pool_share;

struct bb_pool {
    _Alignas(CACHE_LINE) _Atomic unsigned generation; /* bumped once per job */
    bb_pool_fn fn;
    void *ctx;
    int n;
    _Alignas(CACHE_LINE) _Atomic int pending;         /* workers (excluding 0) still running the job */
    _Alignas(CACHE_LINE) _Atomic int stop;
    _Atomic int sleepers;
    _Atomic int starting;  /* workers that have not yet bound themselves */
    pthread_t *threads;
    char placement[1024];
    char (*desc)[48];      /* per thread: where it was bound */
    int *want;             /* per thread: the CPU it is to be bound to (support/affinity.h) */
    int *pu;               /* per thread: OS index of the PU it is bound to, -1 when unbound */
    pool_share *shares;    /* per thread: its chunks of a bb_pool_run_chunks job */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

typedef struct {
    bb_pool *p;
    int tid;
} worker_arg;

void bb_split_rows(int m, int multiple, int tid, int nthreads, int *m0, int *m1)
{
    int units = (m + multiple - 1) / multiple;
    int base = units / nthreads, extra = units % nthreads;
    int u0 = tid * base + (tid < extra ? tid : extra);
    int u1 = u0 + base + (tid < extra ? 1 : 0);
    *m0 = u0 * multiple < m ? u0 * multiple : m;
    *m1 = u1 * multiple < m ? u1 * multiple : m;
}

/* Bind the calling thread to its CPU, and record the CPU only when the kernel's mask for the
 * thread reads back as exactly that one: what is recorded is where the thread runs. */
static void bind_thread(bb_pool *p, int tid, char *desc, size_t len)
{
    int cpu = p->want[tid];
    p->pu[tid] = -1;
    if (cpu < 0 || cpu > BB_AFFINITY_MAX_CPU) {
        snprintf(desc, len, "t%d:unbound(cpu %d)", tid, cpu);
        return;
    }
    cpu_set_t set, got;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (rc == 0) rc = pthread_getaffinity_np(pthread_self(), sizeof got, &got);
    if (rc != 0 || CPU_COUNT(&got) != 1 || !CPU_ISSET(cpu, &got)) {
        snprintf(desc, len, "t%d:unbound(cpu %d refused%s%s)", tid, cpu, rc ? ": " : "", rc ? strerror(rc) : "");
        return;
    }
    p->pu[tid] = cpu;
    int core = bb_affinity_core_of(cpu);
    if (core >= 0) snprintf(desc, len, "t%d:core%d/pu%d", tid, core, cpu);
    else snprintf(desc, len, "t%d:pu%d", tid, cpu);
}

static void *worker_main(void *argp)
{
    worker_arg a = *(worker_arg *)argp;
    free(argp);
    bb_pool *p = a.p;
    unsigned seen = 0;
    bind_thread(p, a.tid, p->desc[a.tid], sizeof p->desc[a.tid]);
    atomic_fetch_sub(&p->starting, 1);
    for (;;) {
        unsigned g;
        int spins = 0;
        while ((g = atomic_load_explicit(&p->generation, memory_order_acquire)) == seen &&
               !atomic_load(&p->stop)) {
            if (++spins < SPIN_ITERS) {
                cpu_relax();
                continue;
            }
            pthread_mutex_lock(&p->mu);
            atomic_fetch_add(&p->sleepers, 1);
            while (atomic_load(&p->generation) == seen && !atomic_load(&p->stop))
                pthread_cond_wait(&p->cv, &p->mu);
            atomic_fetch_sub(&p->sleepers, 1);
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop)) break;
        seen = g;
        p->fn(p->ctx, a.tid, p->n);
        atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel);
    }
    return NULL;
}

bb_pool *bb_pool_create(int nthreads, char *err, unsigned errlen)
{
    return bb_pool_create_on(nthreads, NULL, 0, err, errlen);
}

bb_pool *bb_pool_create_on(int nthreads, const int *cpus, int ncpus, char *err, unsigned errlen)
{
    if (nthreads < 1) {
        snprintf(err, errlen, "thread count must be >= 1, got %d", nthreads);
        return NULL;
    }
    bb_pool *p = aligned_alloc(CACHE_LINE, (sizeof *p + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE);
    if (p) memset(p, 0, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory creating thread pool");
        return NULL;
    }
    p->n = nthreads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->threads = calloc((size_t)nthreads, sizeof *p->threads);
    p->desc = calloc((size_t)nthreads, sizeof *p->desc);
    p->pu = calloc((size_t)nthreads, sizeof *p->pu);
    p->want = calloc((size_t)nthreads, sizeof *p->want);
    p->shares = aligned_alloc(CACHE_LINE, (size_t)nthreads * sizeof *p->shares);
    if (!p->threads || !p->desc || !p->pu || !p->want || !p->shares) {
        snprintf(err, errlen, "out of memory creating thread pool");
        bb_pool_destroy(p);
        return NULL;
    }
    for (int t = 0; t < nthreads; t++) p->want[t] = bb_affinity_cpu_for(t, cpus, ncpus);
    bind_thread(p, 0, p->desc[0], sizeof p->desc[0]);
    atomic_store(&p->starting, nthreads - 1);
    for (int t = 1; t < nthreads; t++) {
        worker_arg *a = malloc(sizeof *a);
        if (!a) {
            snprintf(err, errlen, "out of memory creating thread %d", t);
            p->n = t;
            bb_pool_destroy(p);
            return NULL;
        }
        a->p = p;
        a->tid = t;
        int rc = pthread_create(&p->threads[t], NULL, worker_main, a);
        if (rc != 0) {
            free(a);
            snprintf(err, errlen, "cannot create thread %d of %d: %s", t, nthreads, strerror(rc));
            p->n = t;
            bb_pool_destroy(p);
            return NULL;
        }
    }
    while (atomic_load(&p->starting) > 0) cpu_relax();
    size_t used = 0;
    for (int t = 0; t < nthreads && used < sizeof p->placement; t++) {
        int w = snprintf(p->placement + used, sizeof p->placement - used, "%s%s", t ? " " : "", p->desc[t]);
        if (w < 0) break;
        used += (size_t)w;
    }
    return p;
}

int bb_pool_size(const bb_pool *p) { return p->n; }

void bb_pool_run(bb_pool *p, bb_pool_fn fn, void *ctx)
{
    if (p->n == 1) {
        fn(ctx, 0, 1);
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    atomic_store_explicit(&p->pending, p->n - 1, memory_order_relaxed);
    atomic_fetch_add(&p->generation, 1); /* seq_cst: ordered before the sleepers check */
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    fn(ctx, 0, p->n);
    while (atomic_load_explicit(&p->pending, memory_order_acquire) > 0) cpu_relax();
}

/* Take one chunk of share s: from the low end (the owner) or the high end (a thief).  -1 when
 * the share is empty. */
static int take_chunk(pool_share *s, int from_high)
{
    uint64_t cur = atomic_load_explicit(&s->range, memory_order_relaxed);
    for (;;) {
        uint32_t lo = (uint32_t)cur, hi = (uint32_t)(cur >> 32);
        if (lo >= hi) return -1;
        uint64_t next = from_high ? (uint64_t)lo | (uint64_t)(hi - 1) << 32 : (uint64_t)(lo + 1) | (uint64_t)hi << 32;
        if (atomic_compare_exchange_weak_explicit(&s->range, &cur, next, memory_order_relaxed, memory_order_relaxed))
            return (int)(from_high ? hi - 1 : lo);
    }
}

typedef struct {
    bb_pool *p;
    const bb_pool_chunks *job;
} chunks_run;

static void chunks_fn(void *ctx, int tid, int nthreads)
{
    const chunks_run *r = ctx;
    const bb_pool_chunks *job = r->job;
    int c;
    while ((c = take_chunk(&r->p->shares[tid], 0)) >= 0) job->run(job->ctx, tid, c);
    if (job->own_done) job->own_done(job->ctx, tid, nthreads);
    for (int v = 1; v < nthreads; v++)
        while ((c = take_chunk(&r->p->shares[(tid + v) % nthreads], 1)) >= 0) job->run(job->ctx, tid, c);
}

void bb_pool_run_chunks(bb_pool *p, const bb_pool_chunks *job)
{
    for (int t = 0; t < p->n; t++) {
        int c0, c1;
        bb_split_rows(job->nchunks, 1, t, p->n, &c0, &c1);
        /* relaxed: bb_pool_run's seq_cst generation bump publishes these to the workers */
        atomic_store_explicit(&p->shares[t].range, (uint64_t)c0 | (uint64_t)c1 << 32, memory_order_relaxed);
    }
    chunks_run r = {p, job};
    bb_pool_run(p, chunks_fn, &r);
}

const char *bb_pool_placement(const bb_pool *p) { return p->placement; }

bool bb_pool_placed_on(const bb_pool *p, const int *cpus, int ncpus)
{
    for (int t = 0; t < p->n; t++)
        if (p->want[t] != bb_affinity_cpu_for(t, cpus, ncpus)) return false;
    return true;
}

void bb_pool_cpus(const bb_pool *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int t = 0; t < p->n; t++) {
        char one[16];
        if (p->pu[t] >= 0) snprintf(one, sizeof one, "%d", p->pu[t]);
        else snprintf(one, sizeof one, "-");
        int w = snprintf(buf + used, len - used, "%s%s", t ? ";" : "", one);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

void bb_pool_destroy(bb_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int t = 1; t < p->n; t++)
        if (p->threads && p->threads[t]) pthread_join(p->threads[t], NULL);
    free(p->threads);
    free(p->desc);
    free(p->pu);
    free(p->want);
    free(p->shares);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}
