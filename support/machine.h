/* What this machine is: CPU model, cores, caches and NUMA nodes (from hwloc), memory,
 * virtualization, OS — everything a result needs to be compared with another machine's. */
#ifndef BB_MACHINE_H
#define BB_MACHINE_H

#include <stdbool.h>
#include <stddef.h>

#define BB_MACHINE_MAX_CACHES 8
#define BB_MACHINE_MAX_NUMA 16

typedef struct {
    int level;         /* 1, 2, 3 */
    char type[12];     /* "data", "instruction", "unified" */
    size_t size;       /* bytes per instance */
    int line;          /* line size, bytes */
    int instances;     /* how many of them */
    int shared_by;     /* processing units per instance */
} bb_cache_info;

typedef struct {
    int os_index;
    size_t memory;     /* local memory, bytes */
    char cpus[64];     /* "0-1" */
} bb_numa_info;

typedef struct {
    char cpu_model[128];
    char cpu_vendor[64];
    /* x86: CPUID family, model, stepping.  aarch64: MIDR_EL1's implementer, part number and
     * (variant << 4 | revision). */
    int cpu_family, cpu_model_id, cpu_stepping;
    char cpu_flags[256]; /* the SIMD features bitbench dispatches on */
    int sockets, cores, pus, numa_nodes;
    size_t l1d, l2, l3;  /* bytes, per instance; 0 when unknown */
    bb_cache_info caches[BB_MACHINE_MAX_CACHES];
    int ncaches;
    /* where the cache sizes came from: "hwloc", "sysfs" (hwloc's topology had no caches:
     * support/cache_sysfs.h) or "" (neither said) */
    char cache_source[8];
    bb_numa_info numa[BB_MACHINE_MAX_NUMA];
    int nnuma;
    size_t mem_total, mem_available;
    bool virtualized;     /* CPUID says it runs under a hypervisor */
    char hypervisor[16];  /* its vendor signature, "KVMKVMKVM" ... */
    int emulated;         /* bb_emulation (support/emulation.h): 1 yes, 0 no sign, -1 cannot tell */
    char emulation[160];  /* the sign found, or what was checked */
    /* support/affinity.h: the CPUs this process may run on (its affinity mask at start-up, within
     * hwloc's allowed cpuset), "0-3,8", how many, and how many physical cores they span */
    char allowed_cpus[256];
    int nallowed, allowed_cores;
    char os[256];           /* "Linux 6.1.0 x86_64" */
    char hwloc_version[16];
} bb_machine;

void bb_machine_detect(bb_machine *m);
/* The size of the last-level cache, the largest of l3, l2 (bytes, >= 1 MiB). */
size_t bb_machine_llc(const bb_machine *m);

#endif
