#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_SET */
#endif
#include "affinity.h"

#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCPU (BB_AFFINITY_MAX_CPU + 1)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int order[NCPU];      /* the allowed CPUs, cores first, then their SMT siblings */
static int norder;
static int ncores;           /* physical cores among the allowed CPUs */
static int core_of[NCPU];    /* hwloc logical index of each CPU's core, -1 unknown */
static bool allowed[NCPU];
static char mask_text[4096];
static int *explicit_cpus;   /* --cpus */
static int nexplicit;

/* Cores first: round r takes the r-th allowed PU of every core (in hwloc's core order), so that
 * the first `cores` threads each have a core of their own.  Allowed CPUs hwloc does not place in a
 * core (a topology that disagrees with the mask) follow in ascending order. */
static void order_by_cores(hwloc_topology_t topo)
{
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    bool placed[NCPU] = {false};
    for (int round = 0;; round++) {
        int added = 0;
        for (int c = 0; c < n; c++) {
            hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
            if (!core || !core->cpuset) continue;
            int seen = 0, id;
            hwloc_bitmap_foreach_begin(id, core->cpuset)
            {
                if (id >= 0 && id < NCPU && allowed[id]) {
                    if (round == 0) core_of[id] = (int)core->logical_index;
                    if (seen++ == round && !placed[id]) {
                        placed[id] = true;
                        order[norder++] = id;
                        added++;
                        if (round == 0) ncores++;
                    }
                }
            }
            hwloc_bitmap_foreach_end();
        }
        if (!added) break;
    }
    for (int cpu = 0; cpu < NCPU; cpu++)
        if (allowed[cpu] && !placed[cpu]) {
            order[norder++] = cpu;
            ncores++; /* hwloc does not know its core: count it as one */
        }
}

static void init_once(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    int have_mask = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0;
    for (int cpu = 0; cpu < NCPU; cpu++) {
        allowed[cpu] = have_mask ? CPU_ISSET(cpu, &set) != 0 : cpu == 0;
        core_of[cpu] = -1;
    }
    hwloc_topology_t topo;
    int have_topo = hwloc_topology_init(&topo) == 0;
    if (have_topo && hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        have_topo = 0;
    }
    if (have_topo) {
        /* hwloc's allowed cpuset (its view of the cgroup cpuset), unless it leaves nothing: a
         * topology that disagrees with the kernel's mask (an emulator, a container's /sys) does
         * not take the CPUs the kernel gives */
        hwloc_const_cpuset_t hw = hwloc_topology_get_allowed_cpuset(topo);
        int both = 0;
        for (int cpu = 0; cpu < NCPU; cpu++) both += allowed[cpu] && hwloc_bitmap_isset(hw, (unsigned)cpu);
        if (both > 0)
            for (int cpu = 0; cpu < NCPU; cpu++) allowed[cpu] = allowed[cpu] && hwloc_bitmap_isset(hw, (unsigned)cpu);
        order_by_cores(topo);
        hwloc_topology_destroy(topo);
    } else {
        for (int cpu = 0; cpu < NCPU; cpu++)
            if (allowed[cpu]) order[norder++] = cpu;
        ncores = norder;
    }
    int sorted[NCPU], n = 0;
    for (int cpu = 0; cpu < NCPU; cpu++)
        if (allowed[cpu]) sorted[n++] = cpu;
    bb_cpu_list_format(sorted, n, mask_text, sizeof mask_text);
}

void bb_affinity_init(void) { pthread_once(&once, init_once); }

int bb_affinity_count(void)
{
    bb_affinity_init();
    return norder;
}

int bb_affinity_cores(void)
{
    bb_affinity_init();
    return ncores > 0 ? ncores : 1;
}

bool bb_affinity_allows(int cpu)
{
    bb_affinity_init();
    return cpu >= 0 && cpu < NCPU && allowed[cpu];
}

const char *bb_affinity_mask(void)
{
    bb_affinity_init();
    return mask_text;
}

int bb_affinity_core_of(int cpu)
{
    bb_affinity_init();
    return cpu >= 0 && cpu < NCPU ? core_of[cpu] : -1;
}

void bb_affinity_set_cpus(const int *cpus, int n)
{
    free(explicit_cpus);
    explicit_cpus = NULL;
    nexplicit = 0;
    if (n <= 0) return;
    explicit_cpus = malloc(sizeof *explicit_cpus * (size_t)n);
    if (!explicit_cpus) return; /* the default placement, rather than none */
    memcpy(explicit_cpus, cpus, sizeof *explicit_cpus * (size_t)n);
    nexplicit = n;
}

const int *bb_affinity_cpus(int *n)
{
    *n = nexplicit;
    return explicit_cpus;
}

int bb_affinity_cpu_for(int t, const int *cpus, int n)
{
    bb_affinity_init();
    if (!cpus || n <= 0) cpus = explicit_cpus, n = nexplicit;
    if (cpus && n > 0) return cpus[t % n];
    return order[t % norder];
}

int bb_affinity_check_threads(int nthreads, const int *cpus, int n, char *err, size_t errlen)
{
    bb_affinity_init();
    if (!cpus || n <= 0) cpus = explicit_cpus, n = nexplicit;
    if (cpus && n > 0) {
        if (nthreads <= n) return 0;
        char list[512];
        bb_cpu_list_format(cpus, n, list, sizeof list);
        snprintf(err, errlen, "the CPU list %s names %d CPU%s (one thread each); valid: 1..%d", list, n,
                 n == 1 ? "" : "s", n);
        return -1;
    }
    if (nthreads <= norder) return 0;
    snprintf(err, errlen,
             "this process may run on %d CPU%s (affinity mask %s); valid: 1..%d (taskset, Slurm's --cpus-per-task or "
             "a cgroup cpuset gives more)",
             norder, norder == 1 ? "" : "s", mask_text, norder);
    return -1;
}

int bb_affinity_check_cpus(const int *cpus, int n, char *err, size_t errlen)
{
    bb_affinity_init();
    for (int i = 0; i < n; i++)
        if (!bb_affinity_allows(cpus[i])) {
            snprintf(err, errlen, "CPU %d is not one this process may run on (affinity mask %s)", cpus[i], mask_text);
            return -1;
        }
    return 0;
}

void bb_cpu_list_format(const int *cpus, int n, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = 0;
    for (int i = 0; i < n && used < len; i++) {
        int j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1) j++;
        int w = j > i ? snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "", cpus[i], cpus[j])
                      : snprintf(buf + used, len - used, "%s%d", i ? "," : "", cpus[i]);
        if (w < 0) break;
        used += (size_t)w;
        i = j;
    }
}
