/* `bitbench roofline` measurements: see roofline.h for what is measured and how. */
#include "bench/roofline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/gemm_bench.h"
#include "io/json.h"
#include "kernels/cpu.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/output_file.h"
#include "support/pool.h"
#include "support/rng.h"
#include "support/timer.h"

const char *const bb_roof_level_names[BB_ROOF_LEVELS] = {"L1", "L2", "L3", "DRAM"};

/* ---- read bandwidth ---- */

typedef struct {
    uint8_t *buf[BB_ROOF_MAX_THREADS];
    size_t bytes;      /* each thread's buffer */
    size_t chunk, off; /* what one run reads of it */
    int passes, streams;
    bool zmm;
} read_job;

static void read_worker(void *ctx, int tid, int n)
{
    read_job *j = ctx;
    (void)n;
    for (int p = 0; p < j->passes; p++) {
        if (j->zmm) bb_read512(j->buf[tid] + j->off, j->chunk, j->streams);
        else bb_read256(j->buf[tid] + j->off, j->chunk, j->streams);
    }
}

/* GB/s of nthreads threads each reading `bytes` of its own buffer; the best of `runs` timed runs
 * of enough passes to last about `seconds` each (fastest = least disturbed by other processes). */
static double read_bw(bb_pool *pool, int nthreads, size_t bytes, double seconds, int runs)
{
    read_job j = {.bytes = bytes, .chunk = bytes, .passes = 1, .streams = 1, .zmm = bb_read512_usable()};
    for (int t = 0; t < nthreads; t++) {
        j.buf[t] = bb_alloc(bytes);
        if (!j.buf[t]) {
            for (int u = 0; u < t; u++) free(j.buf[u]);
            return NAN;
        }
        memset(j.buf[t], t + 1, bytes); /* touch: pages exist before timing */
    }
    bb_pool_run(pool, read_worker, &j); /* untimed pass: warm the level */
    double t0 = bb_now();
    bb_pool_run(pool, read_worker, &j);
    double one = bb_now() - t0;
    j.passes = one > 0 ? (int)fmin(1e6, fmax(1, seconds / one)) : 1;
    double best = INFINITY;
    for (int r = 0; r < runs; r++) {
        t0 = bb_now();
        bb_pool_run(pool, read_worker, &j);
        double t = bb_now() - t0;
        if (t < best) best = t;
    }
    for (int t = 0; t < nthreads; t++) free(j.buf[t]);
    return (double)bytes * nthreads * j.passes / best / 1e9;
}

/* DRAM: each thread's buffer (together BB_DRAM_LLC_SPAN times the last-level cache) is read in
 * 4 MiB chunks, each chunk a timed run, cycling through the buffers so that a chunk was last
 * touched at least a whole last-level cache ago; the fastest chunk counts.  Short runs, because on
 * a shared machine a pass over the whole buffer (hundreds of ms) is always preempted somewhere.
 * The runs alternate one stream per thread and BB_READ_STREAMS (the read-alone bound's two reads,
 * support/memory.h), so that the ceiling is the faster. */
static double dram_bw(bb_pool *pool, int nthreads, size_t bytes, int runs)
{
    read_job j = {.bytes = bytes, .chunk = (size_t)4 << 20, .passes = 1, .streams = 1, .zmm = bb_read512_usable()};
    if (j.chunk > bytes) j.chunk = bytes;
    for (int t = 0; t < nthreads; t++) {
        j.buf[t] = bb_alloc(bytes);
        if (!j.buf[t]) {
            for (int u = 0; u < t; u++) free(j.buf[u]);
            return NAN;
        }
        memset(j.buf[t], t + 1, bytes);
    }
    size_t nchunks = bytes / j.chunk;
    double best = INFINITY;
    for (int r = 0; r < runs; r++) {
        j.off = (size_t)r % nchunks * j.chunk;
        j.streams = r % 2 ? BB_READ_STREAMS : 1;
        double t0 = bb_now();
        bb_pool_run(pool, read_worker, &j);
        double t = bb_now() - t0;
        if (t < best) best = t;
    }
    for (int t = 0; t < nthreads; t++) free(j.buf[t]);
    return (double)j.chunk * nthreads / best / 1e9;
}

/* ---- instruction peaks ---- */

typedef struct {
    long (*fn)(long);
    long iters;
} peak_job;

static void peak_worker(void *ctx, int tid, int n)
{
    peak_job *j = ctx;
    (void)tid, (void)n;
    j->fn(j->iters);
}

/* 1e9 instructions/s over the pool's threads: the best of `runs` short runs.  Other processes
 * share the cores; a run that was preempted is only slower, so the fastest run is the ceiling. */
static double peak_rate(bb_pool *pool, long (*fn)(long), double run_s, int runs)
{
    peak_job j = {fn, 1000};
    for (;;) { /* calibrate on the calling thread */
        double t0 = bb_now();
        fn(j.iters);
        double t = bb_now() - t0;
        if (t > run_s / 4 || j.iters > (1L << 40)) {
            j.iters = (long)fmax(1000, j.iters * run_s / fmax(t, 1e-9));
            break;
        }
        j.iters *= 4;
    }
    double best = INFINITY;
    for (int r = 0; r < runs; r++) {
        double t0 = bb_now();
        bb_pool_run(pool, peak_worker, &j);
        double t = bb_now() - t0;
        if (t < best) best = t;
    }
    return (double)j.iters * 12 * bb_pool_size(pool) / best / 1e9;
}

/* GHz from the dependent add chain: the fastest of many short runs (0.5 ms each), since on a
 * shared machine any longer run is likely preempted somewhere and would read low. */
static double measure_clock(int runs)
{
    long iters = 1000;
    for (;;) {
        double t0 = bb_now();
        bb_roof_add_chain(iters);
        if (bb_now() - t0 > 5e-4 || iters > (1L << 40)) break;
        iters *= 2;
    }
    double best = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = bb_now();
        long adds = bb_roof_add_chain(iters);
        double t = bb_now() - t0;
        if (t > 0 && adds / t / 1e9 > best) best = adds / t / 1e9;
    }
    return best;
}

/* ---- gamma ---- */

static void measure_gamma(bb_pool *pool1, const bb_kernel *kern, const bb_machine *mach, double ghz, bool quick,
                          bb_roof_gamma *g)
{
    memset(g, 0, sizeof *g);
    snprintf(g->kernel, sizeof g->kernel, "%s", kern->name);
    g->bpw = kern->bits_per_weight;
    const bb_kernel *k2;
    const bb_variant *v;
    char err[256];
    if (bb_kernel_resolve(kern->name, &k2, &v, err, sizeof err)) {
        snprintf(g->reason, sizeof g->reason, "%.120s", err);
        return;
    }
    snprintf(g->variant, sizeof g->variant, "%s", v->isa);
    snprintf(g->variant_ran, sizeof g->variant_ran, "%s", bb_variant_ran(v, 1)); /* gamma is of a GEMV */
    size_t budget = (mach->l1d ? mach->l1d : 32768) / 2;
    int mm = kern->m_multiple > 0 ? kern->m_multiple : 1, km = kern->k_multiple > 0 ? kern->k_multiple : 1;
    int k = 0, m = 0;
    for (int kk = 1024; kk <= 8192 && !m; kk *= 2) {
        int kt = (kk + km - 1) / km * km;
        int mt = 0;
        for (int mc = mm; mc <= 4096; mc += mm) {
            if (kern->packed_size(mc, kt) > budget) break;
            if (!kern->shape_error || !kern->shape_error(mc, kt)) mt = mc;
        }
        if (mt) k = kt, m = mt;
    }
    if (!m) {
        snprintf(g->reason, sizeof g->reason, "no legal shape with packed weights within half the L1d (%zu bytes)",
                 budget);
        return;
    }
    g->m = m;
    g->k = k;
    (void)pool1;
    /* Time the matmul alone (the up-convert-and-compute sequence of the paper's gamma), on
     * activations prepared once: batches of calls lasting about 0.2 ms, the fastest batch of
     * many (the machine is shared; a disturbed batch is only slower). */
    bb_packed_set ps;
    if (bb_packed_set_make(kern, m, k, BB_CACHE_RESIDENT, 1, 1, mach, &ps, err, sizeof err)) {
        snprintf(g->reason, sizeof g->reason, "%.120s", err);
        return;
    }
    float *x = bb_alloc((size_t)k * sizeof(float)), *y = bb_alloc((size_t)m * sizeof(float));
    void *act = bb_alloc(kern->act_size(1, k));
    if (!x || !y || !act) {
        snprintf(g->reason, sizeof g->reason, "out of memory");
        free(x), free(y), free(act);
        bb_packed_set_free(&ps);
        return;
    }
    bb_rng rng;
    bb_rng_seed(&rng, 2);
    for (int i = 0; i < k; i++) x[i] = (float)bb_rng_gauss(&rng);
    (v->prepare ? v->prepare : kern->prepare)(x, 1, k, act);
    int batch = 1;
    for (;;) {
        double t0 = bb_now();
        for (int i = 0; i < batch; i++) v->matmul(ps.packed, act, y, m, k, 1, 0, m);
        if (bb_now() - t0 > 2e-4 || batch > (1 << 24)) break;
        batch *= 2;
    }
    double best = INFINITY;
    for (int r = 0; r < (quick ? 40 : 200); r++) {
        double t0 = bb_now();
        for (int i = 0; i < batch; i++) v->matmul(ps.packed, act, y, m, k, 1, 0, m);
        double t = (bb_now() - t0) / batch;
        if (t < best) best = t;
    }
    free(x), free(y), free(act);
    bb_packed_set_free(&ps);
    g->ok = true;
    g->t_call = best;
    double vectors = (double)m * k / 32;
    g->gamma = best * ghz * 1e9 / vectors;
    g->ebw_compute_gbps = 4.0 * g->bpw / g->gamma * ghz; /* bytes per 32 weights / cycles * cycles/ns */
}

static bool kernel_selected(const char *only, const char *name)
{
    if (!only) return true;
    size_t n = strlen(name);
    for (const char *p = only; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return true;
        if (!e) break;
        p = e + 1;
    }
    return false;
}

/* Read bandwidth per level and thread count: a buffer of half L1, half L2, 4 x L2 (within half
 * of L3 for all threads) and BB_DRAM_LLC_SPAN times the LLC (DRAM: within a quarter of the
 * available memory). */
static int measure_read(bb_roofline *r, const bb_machine *mach, int maxthreads, bool quick, FILE *log, char *err,
                        size_t errlen)
{
    size_t l1 = mach->l1d ? mach->l1d : 32768, l2 = mach->l2 ? mach->l2 : 1 << 20, llc = bb_machine_llc(mach);
    for (int t = 1; t <= maxthreads; t++) {
        char perr[128];
        bb_pool *pool = bb_pool_create(t, perr, sizeof perr);
        if (!pool) {
            snprintf(err, errlen, "thread pool of %d: %s", t, perr);
            return -1;
        }
        size_t sizes[BB_ROOF_LEVELS];
        sizes[0] = l1 / 2;
        sizes[1] = l2 / 2;
        sizes[2] = 4 * l2;
        if (mach->l3 && sizes[2] * t > mach->l3 / 2) sizes[2] = mach->l3 / 2 / t;
        size_t dram_total = BB_DRAM_LLC_SPAN * llc; /* cache_sizing.h: no LLC hits left */
        if (mach->mem_available && dram_total > mach->mem_available / 4) dram_total = mach->mem_available / 4;
        sizes[3] = dram_total / t;
        for (int l = 0; l < BB_ROOF_LEVELS; l++) {
            sizes[l] = sizes[l] / 4096 * 4096;
            if (t == 1) r->level_bytes[l] = l == 3 ? dram_total / 4096 * 4096 : sizes[l];
            /* many short runs: see dram_bw */
            r->bw[t][l] = l == 3 ? dram_bw(pool, t, sizes[l], quick ? 200 : 600)
                                 : read_bw(pool, t, sizes[l], 0.001, quick ? 15 : 61);
            if (log) fprintf(log, "read %-4s %d thread(s), %zu bytes each: %.1f GB/s\n", bb_roof_level_names[l], t,
                             sizes[l], r->bw[t][l]);
        }
        bb_pool_destroy(pool);
    }
    return 0;
}

/* Does this CPU have feature ft (x86: __builtin_cpu_supports, which needs a literal, so the
 * known names are compared; aarch64: the HWCAP bits of kernels/cpu.c)? */
static bool cpu_has(const char *ft)
{
#if defined(__x86_64__)
    return !strcmp(ft, "avx512f")      ? __builtin_cpu_supports("avx512f")
           : !strcmp(ft, "avx512bw")   ? __builtin_cpu_supports("avx512bw")
           : !strcmp(ft, "avx512vnni") ? __builtin_cpu_supports("avx512vnni")
           : !strcmp(ft, "avx512vbmi") ? __builtin_cpu_supports("avx512vbmi")
           : !strcmp(ft, "avx512bf16") ? __builtin_cpu_supports("avx512bf16")
                                       : false;
#else
    uint64_t f = bb_cpu_features();
    uint64_t bit = !strcmp(ft, "neon")      ? BB_CPU_NEON
                   : !strcmp(ft, "dotprod") ? BB_CPU_DOTPROD
                   : !strcmp(ft, "i8mm")    ? BB_CPU_I8MM
                   : !strcmp(ft, "fp16")    ? BB_CPU_FP16
                   : !strcmp(ft, "bf16")    ? BB_CPU_BF16
                                            : 0;
    return bit && (f & bit);
#endif
}

/* The instruction peaks, on one thread (p1) and on all (pt). */
static void measure_peaks(bb_roofline *r, bb_pool *p1, bb_pool *pt, bool quick, FILE *log)
{
    static const struct {
        const char *name, *feature[3];
        long (*fn)(long);
        double ops;
    } peaks[BB_ROOF_NPEAK] = {
#if defined(__x86_64__)
        /* ops per instruction: 64 u8 x s8 products summed in 16 int32 lanes = 64 multiply-adds */
        {"vpdpbusd", {"avx512f", "avx512bw", "avx512vnni"}, bb_roof_vpdpbusd, 128},
        {"vpmaddubsw", {"avx512f", "avx512bw", NULL}, bb_roof_vpmaddubsw, 96}, /* 64 mul + 32 add */
        {"vpshufb", {"avx512f", "avx512bw", NULL}, bb_roof_vpshufb, 64},       /* 64 byte lookups */
        {"vpermb", {"avx512f", "avx512bw", "avx512vbmi"}, bb_roof_vpermb, 64},
        {"fma_fp32", {"avx512f", NULL, NULL}, bb_roof_fma, 32},                /* 16 lanes x 2 */
        {"vdpbf16ps", {"avx512f", "avx512bw", "avx512bf16"}, bb_roof_bf16dot, 64}, /* 32 bf16 MACs */
#else
        /* 128-bit NEON: SDOT 16 s8 x s8 products in 4 int32 lanes = 16 multiply-adds; SMMLA a
         * 2x8 by 8x2 int8 product into 2x2 int32 = 32 */
        {"sdot", {"neon", "dotprod", NULL}, bb_roof_sdot, 32},
        {"smmla", {"neon", "i8mm", NULL}, bb_roof_smmla, 64},
        {"tbl", {"neon", NULL, NULL}, bb_roof_tbl, 16},         /* 16 byte lookups */
        {"fmla_fp32", {"neon", NULL, NULL}, bb_roof_fmla_f32, 8}, /* 4 lanes x 2 */
        {"fmla_fp16", {"neon", "fp16", NULL}, bb_roof_fmla_f16, 16}, /* 8 lanes x 2 */
        {"bfdot", {"neon", "bf16", NULL}, bb_roof_bfdot, 16},   /* 8 bf16 multiply-adds */
#endif
    };
    for (int i = 0; i < BB_ROOF_NPEAK; i++) {
        bb_roof_peak *pk = &r->peak[i];
        pk->name = peaks[i].name;
        pk->ops_per_instr = peaks[i].ops;
        pk->available = true;
        for (int f = 0; f < 3 && peaks[i].feature[f]; f++)
            if (!cpu_has(peaks[i].feature[f])) {
                pk->available = false;
                snprintf(pk->reason, sizeof pk->reason, "CPU lacks %s", peaks[i].feature[f]);
                break;
            }
        if (!pk->available) continue;
        /* two rounds, keeping the faster: a round can fall entirely inside another process's burst */
        for (int round = 0; round < 2; round++) {
            pk->ginstr_1t = fmax(pk->ginstr_1t, peak_rate(p1, peaks[i].fn, 0.001, quick ? 15 : 61));
            pk->ginstr_tt = fmax(pk->ginstr_tt, peak_rate(pt, peaks[i].fn, 0.001, quick ? 15 : 61));
        }
        if (log) fprintf(log, "%-10s %.2f G instr/s (1 thread), %.2f (%d threads)\n", pk->name, pk->ginstr_1t,
                         pk->ginstr_tt, r->maxthreads);
    }
}

/* gamma of every registered kernel (or those `only` names), on one thread. */
static void measure_gammas(bb_roofline *r, bb_pool *p1, const bb_machine *mach, bool quick, const char *only,
                           FILE *log)
{
    for (int i = 0; i < bb_kernel_count() && r->ngamma < BB_ROOF_MAX_GAMMA; i++) {
        const bb_kernel *kern = bb_kernel_at(i);
        if (!kernel_selected(only, kern->name)) continue;
        bb_roof_gamma *g = &r->gamma[r->ngamma++];
        measure_gamma(p1, kern, mach, r->ghz, quick, g);
        if (log) {
            if (g->ok) fprintf(log, "gamma %-12s %5.2f cycles / 32 weights (M=%d K=%d)\n", g->kernel, g->gamma, g->m, g->k);
            else fprintf(log, "gamma %-12s not measured: %s\n", g->kernel, g->reason);
        }
    }
}

int bb_roofline_measure(bb_roofline *r, const bb_machine *mach, int maxthreads, bool quick, const char *only,
                        FILE *log, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (maxthreads < 1) maxthreads = 1;
    if (maxthreads > BB_ROOF_MAX_THREADS) maxthreads = BB_ROOF_MAX_THREADS;
    r->quick = quick;
    r->maxthreads = maxthreads;
    r->ghz = measure_clock(quick ? 41 : 201);
    if (log) fprintf(log, "clock (dependent adds): %.3f GHz\n", r->ghz);
    if (measure_read(r, mach, maxthreads, quick, log, err, errlen)) return -1;
    char perr[128];
    bb_pool *p1 = bb_pool_create(1, perr, sizeof perr), *pt = bb_pool_create(maxthreads, perr, sizeof perr);
    if (!p1 || !pt) {
        if (p1) bb_pool_destroy(p1);
        snprintf(err, errlen, "thread pool: %s", perr);
        return -1;
    }
    measure_peaks(r, p1, pt, quick, log);
    bb_pool_destroy(pt);
    measure_gammas(r, p1, mach, quick, only, log);
    bb_pool_destroy(p1);
    return 0;
}

static void json_machine(bb_json *j, const bb_machine *m)
{
    bb_json_object_begin(j, "machine");
    bb_json_string(j, "cpu_model", m->cpu_model);
    bb_json_string(j, "cpu_flags", m->cpu_flags);
    bb_json_int(j, "cores", m->cores);
    bb_json_int(j, "pus", m->pus);
    bb_json_int(j, "l1d_bytes", (long long)m->l1d);
    bb_json_int(j, "l2_bytes", (long long)m->l2);
    bb_json_int(j, "l3_bytes", (long long)m->l3);
    bb_json_bool(j, "virtualized", m->virtualized);
    bb_json_string(j, "os", m->os);
    bb_json_object_end(j);
}

static void json_read_bandwidth(bb_json *j, const bb_roofline *r)
{
    bb_json_array_begin(j, "read_bandwidth");
    for (int t = 1; t <= r->maxthreads; t++)
        for (int l = 0; l < BB_ROOF_LEVELS; l++) {
            bb_json_object_begin(j, NULL);
            bb_json_string(j, "level", bb_roof_level_names[l]);
            bb_json_int(j, "threads", t);
            bb_json_int(j, "buffer_bytes", (long long)(l == 3 ? r->level_bytes[3] / (size_t)t : r->level_bytes[l]));
            bb_json_number(j, "gbps", r->bw[t][l]);
            bb_json_object_end(j);
        }
    bb_json_array_end(j);
}

static void json_peaks(bb_json *j, const bb_roofline *r)
{
    bb_json_array_begin(j, "peaks");
    for (int i = 0; i < BB_ROOF_NPEAK; i++) {
        const bb_roof_peak *p = &r->peak[i];
        bb_json_object_begin(j, NULL);
        bb_json_string(j, "instruction", p->name);
        bb_json_bool(j, "available", p->available);
        bb_json_string(j, "reason", p->available ? NULL : p->reason);
        bb_json_number(j, "ops_per_instruction", p->ops_per_instr);
        if (p->available) {
            bb_json_number(j, "ginstr_per_s_1t", p->ginstr_1t);
            bb_json_number(j, "ginstr_per_s_all", p->ginstr_tt);
            bb_json_int(j, "threads_all", r->maxthreads);
            bb_json_number(j, "gops_1t_derived", p->ginstr_1t * p->ops_per_instr);
            bb_json_number(j, "gops_all_derived", p->ginstr_tt * p->ops_per_instr);
            bb_json_number(j, "instr_per_cycle_derived", p->ginstr_1t / r->ghz);
        }
        bb_json_object_end(j);
    }
    bb_json_array_end(j);
}

static void json_gammas(bb_json *j, const bb_roofline *r)
{
    bb_json_array_begin(j, "gamma");
    for (int i = 0; i < r->ngamma; i++) {
        const bb_roof_gamma *g = &r->gamma[i];
        bb_json_object_begin(j, NULL);
        bb_json_string(j, "kernel", g->kernel);
        bb_json_string(j, "variant", g->variant[0] ? g->variant : NULL);
        bb_json_string(j, "variant_ran", g->variant_ran[0] ? g->variant_ran : NULL);
        bb_json_number(j, "bits_per_weight", g->bpw);
        if (g->ok) {
            bb_json_int(j, "m", g->m);
            bb_json_int(j, "k", g->k);
            bb_json_number(j, "t_call_s", g->t_call);
            bb_json_number(j, "gamma_cycles_per_32_weights", g->gamma);
            bb_json_number(j, "compute_bound_gbps_derived", g->ebw_compute_gbps);
        } else {
            bb_json_string(j, "reason", g->reason);
        }
        bb_json_object_end(j);
    }
    bb_json_array_end(j);
}

int bb_roofline_write_json(const bb_roofline *r, const bb_machine *m, const char *path, char *err, size_t errlen)
{
    bb_output_file out;
    FILE *f = bb_output_begin(&out, path, err, errlen);
    if (!f) return -1;
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    bb_json j;
    bb_json_init(&j, f);
    bb_json_object_begin(&j, NULL);
    bb_json_string(&j, "kind", "bitbench machine profile");
    bb_json_string(&j, "date", date);
    bb_json_bool(&j, "quick", r->quick);
    json_machine(&j, m);
    bb_json_number(&j, "clock_ghz", r->ghz);
    bb_json_string(&j, "clock_method", "dependent 64-bit add chain, one add per cycle, best of 5");
    /* how the DRAM ceilings were read: the faster of one stream per thread and this many
     * (dram_bw); profiles written before 2026-11-30 lack it and read one stream only */
    bb_json_int(&j, "dram_read_streams", BB_READ_STREAMS);
    json_read_bandwidth(&j, r);
    json_peaks(&j, r);
    json_gammas(&j, r);
    bb_json_object_end(&j);
    bb_json_finish(&j);
    return bb_output_commit(&out, err, errlen);
}

void bb_roofline_print(const bb_roofline *r, FILE *f)
{
    fprintf(f, "effective clock: %.3f GHz (dependent adds)\n\nread bandwidth, GB/s\n%-8s", r->ghz, "threads");
    for (int l = 0; l < BB_ROOF_LEVELS; l++) fprintf(f, " %9s", bb_roof_level_names[l]);
    fputc('\n', f);
    for (int t = 1; t <= r->maxthreads; t++) {
        fprintf(f, "%-8d", t);
        for (int l = 0; l < BB_ROOF_LEVELS; l++) fprintf(f, " %9.1f", r->bw[t][l]);
        fputc('\n', f);
    }
    fprintf(f, "\n%-11s %12s %12s %9s %12s\n", "instruction", "Ginstr/s 1t", "Ginstr/s all", "instr/clk",
            "GOP/s all");
    for (int i = 0; i < BB_ROOF_NPEAK; i++) {
        const bb_roof_peak *p = &r->peak[i];
        if (!p->available) {
            fprintf(f, "%-11s not measured: %s\n", p->name, p->reason);
            continue;
        }
        fprintf(f, "%-11s %12.2f %12.2f %9.2f %12.1f\n", p->name, p->ginstr_1t, p->ginstr_tt, p->ginstr_1t / r->ghz,
                p->ginstr_tt * p->ops_per_instr);
    }
    /* labelled with the code that ran: the gamma of i2_s@amx at N = 1 is avx512's */
    fprintf(f, "\n%-14s %-10s %6s %6s %6s %12s %14s\n", "kernel", "ran", "bpw", "M", "K", "gamma(cyc/32w)",
            "B/gamma GB/s");
    for (int i = 0; i < r->ngamma; i++) {
        const bb_roof_gamma *g = &r->gamma[i];
        if (!g->ok) {
            fprintf(f, "%-14s not measured: %s\n", g->kernel, g->reason);
            continue;
        }
        fprintf(f, "%-14s %-10s %6.3f %6d %6d %12.2f %14.1f\n", g->kernel, g->variant_ran, g->bpw, g->m, g->k, g->gamma,
                g->ebw_compute_gbps);
    }
}
