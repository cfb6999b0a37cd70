/* What this machine is: CPU model, cores, caches (from hwloc), memory. */
#ifndef BB_MACHINE_H
#define BB_MACHINE_H

#include <stddef.h>

typedef struct {
    char cpu_model[128];
    char cpu_flags[256]; /* the SIMD features bitbench dispatches on */
    int cores, pus, numa_nodes;
    size_t l1d, l2, l3;  /* bytes, per instance; 0 when unknown */
    size_t mem_total, mem_available;
} bb_machine;

void bb_machine_detect(bb_machine *m);
/* The size of the last-level cache, the largest of l3, l2 (bytes, >= 1 MiB). */
size_t bb_machine_llc(const bb_machine *m);

#endif
