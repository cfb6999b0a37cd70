/* Working sets by cache level (issue 33 item 5): the caches read from a sysfs tree (the fallback
 * where hwloc sees none) and from hwloc (a synthetic topology through HWLOC_SYNTHETIC), the copies
 * each level gets for a thread count, the refusals, and the roofline fraction against a machine
 * profile.  Every machine here is described by the test, never this host's caches. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/cache_sizing.h"
#include "bench/roof_ceiling.h"
#include "check.h"
#include "support/cache_sysfs.h"
#include "support/machine.h"

static const size_t KiB = 1024, MiB = (size_t)1 << 20;

static void put(const char *dir, const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* cpu0's caches of a 4-CPU, 2-way SMT machine: L1d 32K and L1i 32K per core, L2 1M per core,
 * L3 6M shared by all. */
static void fake_sysfs(const char *root)
{
    static const struct {
        const char *level, *type, *size, *shared;
    } idx[] = {{"1", "Data", "32K", "0-1"}, {"1", "Instruction", "32K", "0-1"}, {"2", "Unified", "1024K", "0-1"},
               {"3", "Unified", "6144K", "0-3"}};
    char dir[1100];
    put(root, "online", "0-3\n");
    snprintf(dir, sizeof dir, "%s/cpu0", root);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/cpu0/cache", root);
    mkdir(dir, 0755);
    for (int i = 0; i < 4; i++) {
        snprintf(dir, sizeof dir, "%s/cpu0/cache/index%d", root, i);
        mkdir(dir, 0755);
        put(dir, "level", idx[i].level);
        put(dir, "type", idx[i].type);
        put(dir, "size", idx[i].size);
        put(dir, "shared_cpu_list", idx[i].shared);
        put(dir, "coherency_line_size", "64\n");
    }
}

static int copies(bb_cache_mode c, size_t psize, int threads, const bb_machine *m, char *err, size_t len)
{
    int n = 0;
    err[0] = 0;
    return bb_cache_copies(c, psize, threads, m, &n, err, len) ? -1 : n;
}

static void sysfs_contract(void)
{
    char root[] = "/tmp/bb_sysfs_XXXXXX", err[512];
    if (!mkdtemp(root)) {
        CHECK(0, "mkdtemp");
        return;
    }
    fake_sysfs(root);
    bb_machine m;
    memset(&m, 0, sizeof m);
    bb_machine_caches_fallback(&m, root); /* hwloc gave nothing: sysfs */
    CHECK(!strcmp(m.cache_source, "sysfs"), "source %s", m.cache_source);
    CHECK(m.l1d == 32 * KiB && m.l2 == MiB && m.l3 == 6 * MiB, "sizes %zu %zu %zu", m.l1d, m.l2, m.l3);
    size_t size;
    int inst, shared;
    CHECK(bb_cache_level_info(&m, 1, &size, &inst, &shared) && size == 32 * KiB && inst == 2 && shared == 2,
          "L1d: %zu x %d shared by %d", size, inst, shared);
    CHECK(bb_cache_level_info(&m, 3, &size, &inst, &shared) && inst == 1 && shared == 4, "L3 one shared by 4");
    /* L1, 1 thread: half of 32 KiB holds four 4 KiB copies */
    CHECK(copies(BB_CACHE_L1, 4 * KiB, 1, &m, err, sizeof err) == 4, "l1 4 KiB: %s", err);
    /* 2 threads may be SMT siblings of one core: still one L1d counted on */
    CHECK(copies(BB_CACHE_L1, 4 * KiB, 2, &m, err, sizeof err) == 4, "l1 2 threads: %s", err);
    /* 4 threads span both cores: two L1d, 32 KiB to fill halfway */
    CHECK(copies(BB_CACHE_L1, 4 * KiB, 4, &m, err, sizeof err) == 8, "l1 4 threads: %s", err);
    /* L2, 1 thread: 512 KiB of 64 KiB copies = 8, more than the 32 KiB L1d */
    CHECK(copies(BB_CACHE_L2, 64 * KiB, 1, &m, err, sizeof err) == 8, "l2: %s", err);
    CHECK(copies(BB_CACHE_L3, MiB, 1, &m, err, sizeof err) == 3, "l3: %s", err);
    /* a matrix larger than half the L1d is refused, saying why and with which sizes */
    CHECK(copies(BB_CACHE_L1, 20 * KiB, 1, &m, err, sizeof err) == -1 && strstr(err, "does not fit in half the L1d") &&
              strstr(err, "16.0 KiB of 32.0 KiB") && strstr(err, "sysfs"),
          "too big for l1: %s", err);
    /* 4 threads reach both 1 MiB L2s (2 MiB): half the 6 MiB L3 holds one 2 MiB copy, which those L2s
     * hold as well: no L3-sized working set, refused */
    CHECK(copies(BB_CACHE_L3, 2 * MiB, 4, &m, err, sizeof err) == -1 && strstr(err, "no L3-sized working set"),
          "l3 not beyond the L2s: %s", err);
    char what[300];
    bb_cache_describe(BB_CACHE_L2, 64 * KiB, 8, 1, &m, what, sizeof what);
    CHECK(strstr(what, "8 copies of 64.00 KiB = 512.0 KiB rotated") && strstr(what, "half the L2") &&
              strstr(what, "sysfs"),
          "describe: %s", what);
    /* hwloc gave a size: sysfs is not read */
    bb_machine h;
    memset(&h, 0, sizeof h);
    h.l2 = MiB;
    bb_machine_caches_fallback(&h, root);
    CHECK(!strcmp(h.cache_source, "hwloc") && h.ncaches == 0, "hwloc kept: %s", h.cache_source);
    /* neither: no source, and the levels are refused */
    bb_machine none;
    memset(&none, 0, sizeof none);
    bb_machine_caches_fallback(&none, "/nonexistent-bitbench-sysfs");
    CHECK(!none.cache_source[0] && copies(BB_CACHE_L2, 4 * KiB, 1, &none, err, sizeof err) == -1 &&
              strstr(err, "reports no L2"),
          "no caches: %s", err);
    for (int i = 0; i < 4; i++) {
        char d[1200];
        static const char *const files[] = {"level", "type", "size", "shared_cpu_list", "coherency_line_size"};
        for (int f = 0; f < 5; f++) {
            snprintf(d, sizeof d, "%s/cpu0/cache/index%d/%s", root, i, files[f]);
            unlink(d);
        }
        snprintf(d, sizeof d, "%s/cpu0/cache/index%d", root, i);
        rmdir(d);
    }
    char d[1200];
    snprintf(d, sizeof d, "%s/cpu0/cache", root);
    rmdir(d);
    snprintf(d, sizeof d, "%s/cpu0", root);
    rmdir(d);
    snprintf(d, sizeof d, "%s/online", root);
    unlink(d);
    rmdir(root);
}

static void hwloc_contract(void)
{
    char err[512];
    /* 8 cores of 2 PUs, a 48 KiB L1d and a 2 MiB L2 each, one 32 MiB L3 */
    setenv("HWLOC_SYNTHETIC", "pack:1 l3:1(size=32MiB) l2:8(size=2MiB) l1d:1(size=48KiB) core:1 pu:2", 1);
    bb_machine m;
    bb_machine_detect(&m);
    CHECK(!strcmp(m.cache_source, "hwloc"), "hwloc source: %s", m.cache_source);
    CHECK(m.l1d == 48 * KiB && m.l2 == 2 * MiB && m.l3 == 32 * MiB, "sizes %zu %zu %zu", m.l1d, m.l2, m.l3);
    size_t least, most;
    bb_cache_level_capacity(&m, 2, 4, &least, &most);
    CHECK(least == 4 * MiB && most == 8 * MiB, "L2 for 4 threads: %zu..%zu", least, most);
    CHECK(copies(BB_CACHE_L1, 4 * KiB, 1, &m, err, sizeof err) == 6, "l1: %s", err);
    CHECK(copies(BB_CACHE_L2, 100 * KiB, 1, &m, err, sizeof err) == 10, "l2: %s", err);
    CHECK(copies(BB_CACHE_L3, MiB, 2, &m, err, sizeof err) == 16, "l3 2 threads: %s", err);
    CHECK(copies(BB_CACHE_L1, 25 * KiB, 1, &m, err, sizeof err) == -1 && strstr(err, "hwloc"), "l1 too big: %s", err);
    /* resident stays one copy, dram spans twice the 32 MiB L3 */
    CHECK(copies(BB_CACHE_RESIDENT, 25 * KiB, 1, &m, err, sizeof err) == 1, "resident");
    m.mem_available = 0;
    int n = copies(BB_CACHE_DRAM, 4 * MiB, 1, &m, err, sizeof err);
    CHECK(n > 0 && (size_t)n * 4 * MiB > 64 * MiB, "dram %d", n);
    /* a machine without an L3 */
    setenv("HWLOC_SYNTHETIC", "pack:1 l2:2(size=1MiB) l1d:1(size=32KiB) core:1 pu:1", 1);
    bb_machine n3;
    bb_machine_detect(&n3);
    CHECK(copies(BB_CACHE_L3, 4 * KiB, 1, &n3, err, sizeof err) == -1 && strstr(err, "reports no L3"),
          "no L3: %s", err);
    /* the level that bounds a resident point: the smallest holding its bytes */
    CHECK(bb_roof_level_of(BB_CACHE_RESIDENT, 40 * KiB, 1, &m) == 0 && bb_roof_level_of(BB_CACHE_RESIDENT, MiB, 1, &m) == 1 &&
              bb_roof_level_of(BB_CACHE_RESIDENT, 8 * MiB, 1, &m) == 2 &&
              bb_roof_level_of(BB_CACHE_RESIDENT, 64 * MiB, 1, &m) == 3 && bb_roof_level_of(BB_CACHE_L2, 1, 1, &m) == 1,
          "levels of resident points");
    unsetenv("HWLOC_SYNTHETIC");
}

static void roofline_contract(void)
{
    char path[] = "/tmp/bb_profile_XXXXXX", err[512], ceiling[96];
    int fd = mkstemp(path);
    if (fd < 0) {
        CHECK(0, "mkstemp");
        return;
    }
    FILE *f = fdopen(fd, "w");
    /* a profile of 2 threads: L1 and L2 at both, DRAM at 1 only; int8 peaks at 1 and 2 threads */
    fputs("{\"kind\": \"bitbench machine profile\", \"machine\": {\"cpu_model\": \"Test CPU\"},\n"
          " \"read_bandwidth\": [{\"level\": \"L1\", \"threads\": 1, \"gbps\": 200},\n"
          "  {\"level\": \"L2\", \"threads\": 1, \"gbps\": 100}, {\"level\": \"DRAM\", \"threads\": 1, \"gbps\": 10},\n"
          "  {\"level\": \"L1\", \"threads\": 2, \"gbps\": 400}, {\"level\": \"L2\", \"threads\": 2, \"gbps\": 190}],\n"
          " \"peaks\": [{\"instruction\": \"vpdpbusd\", \"gops_1t_derived\": 500, \"gops_all_derived\": 1000,\n"
          "  \"threads_all\": 2}, {\"instruction\": \"fma_fp32\", \"gops_1t_derived\": 100, \"gops_all_derived\": 200,\n"
          "  \"threads_all\": 2}]}\n", f);
    fclose(f);
    bb_roof_ceilings c;
    bb_machine other;
    memset(&other, 0, sizeof other);
    snprintf(other.cpu_model, sizeof other.cpu_model, "Other CPU");
    CHECK(bb_roof_ceilings_load(path, &other, &c, err, sizeof err) == -1 && strstr(err, "another CPU"),
          "another CPU's profile refused: %s", err);
    snprintf(other.cpu_model, sizeof other.cpu_model, "Test CPU");
    CHECK(bb_roof_ceilings_load(path, &other, &c, err, sizeof err) == 0 && c.maxthreads == 2, "load: %s", err);
    CHECK(c.dram_read_streams == 1, "a profile without dram_read_streams read one stream: %d", c.dram_read_streams);
    /* the same model string on a machine of other cores or caches: not this machine's ceilings
     * (a profile that records them; the one above records only the model) */
    char path2[] = "/tmp/bb_profile_XXXXXX";
    int fd2 = mkstemp(path2);
    FILE *f2 = fd2 >= 0 ? fdopen(fd2, "w") : NULL;
    if (f2) {
        fputs("{\"kind\": \"bitbench machine profile\", \"machine\": {\"cpu_model\": \"Test CPU\", \"cores\": 8,\n"
              " \"pus\": 16, \"l3_bytes\": 33554432}, \"read_bandwidth\": [{\"level\": \"L1\", \"threads\": 1,\n"
              " \"gbps\": 200}], \"peaks\": [], \"dram_read_streams\": 8}\n", f2);
        fclose(f2);
        other.cores = 2;
        other.pus = 16;
        other.l3 = 33554432;
        CHECK(bb_roof_ceilings_load(path2, &other, &c, err, sizeof err) == -1 &&
                  strstr(err, "another machine with this CPU model (cores 8; this one has 2)"),
              "other cores refused: %s", err);
        other.cores = 8;
        other.l3 = 16777216;
        CHECK(bb_roof_ceilings_load(path2, &other, &c, err, sizeof err) == -1 && strstr(err, "l3_bytes 33554432"),
              "other L3 refused: %s", err);
        other.l3 = 33554432;
        CHECK(bb_roof_ceilings_load(path2, &other, &c, err, sizeof err) == 0 && c.dram_read_streams == 8,
              "the same machine: %s, dram_read_streams %d", err, c.dram_read_streams);
        other.cores = other.pus = 0;
        other.l3 = 0;
        unlink(path2);
        CHECK(bb_roof_ceilings_load(path, &other, &c, err, sizeof err) == 0, "reload: %s", err);
    } else {
        CHECK(0, "mkstemp");
    }
    double fr;
    /* a GEMV at 50 GB/s from L2 on 1 thread, 100 GOP/s: bandwidth-bound, 0.5 of L2's 100 GB/s */
    CHECK(bb_roofline_fraction(&c, 1, 1, 2.0, 100, 50, &fr, ceiling, sizeof ceiling) && fabs(fr - 0.5) < 1e-12 &&
              !strcmp(ceiling, "L2 read 1 thread"),
          "L2 fraction %g %s", fr, ceiling);
    /* a GEMM at 900 GOP/s on 2 threads, 20 GB/s: compute-bound, 0.9 of 1000 */
    CHECK(bb_roofline_fraction(&c, 0, 2, 2.0, 900, 20, &fr, ceiling, sizeof ceiling) && fabs(fr - 0.9) < 1e-12 &&
              strstr(ceiling, "int8 peak 2 threads"),
          "compute fraction %g %s", fr, ceiling);
    /* float weights: the fp32 peak */
    CHECK(bb_roofline_fraction(&c, 0, 1, 32.0, 90, 1, &fr, ceiling, sizeof ceiling) && fabs(fr - 0.9) < 1e-12 &&
              strstr(ceiling, "fp32"),
          "fp32 %g %s", fr, ceiling);
    CHECK(fr >= 0 && fr <= 1.2, "in [0, 1.2]: %g", fr);
    /* DRAM at 2 threads was not measured: empty, and why */
    CHECK(!bb_roofline_fraction(&c, 3, 2, 2.0, 10, 5, &fr, ceiling, sizeof ceiling) && isnan(fr) &&
              strstr(ceiling, "no DRAM read bandwidth at 2 threads"),
          "unmeasured level: %s", ceiling);
    /* 3 threads: nothing measured */
    CHECK(!bb_roofline_fraction(&c, 0, 3, 2.0, 10, 5, &fr, ceiling, sizeof ceiling) && isnan(fr), "3 threads: %s",
          ceiling);
    unlink(path);
    CHECK(bb_roof_ceilings_load("/nonexistent/profile.json", NULL, &c, err, sizeof err) == -1, "missing file");
}

int main(void)
{
    sysfs_contract();
    hwloc_contract();
    roofline_contract();
    return check_summary("test_cache_levels");
}
