/* The caches from Linux's sysfs, where hwloc's topology has none (a container or VM whose hwloc
 * sees no cache objects): CPU_DIR/cpu0/cache/index<i>/{level,type,size,coherency_line_size,
 * shared_cpu_list} and CPU_DIR/online.  Only cpu0's caches are read: the instances of a level are
 * the online CPUs over the CPUs sharing one (an assumption of a uniform machine, which hwloc does
 * not need; said by the source "sysfs" in every row sized from it). */
#ifndef BB_CACHE_SYSFS_H
#define BB_CACHE_SYSFS_H

#include "machine.h"

/* Fill m's l1d, l2, l3 and caches[] from cpu_dir ("/sys/devices/system/cpu"); returns how many
 * caches were read (0: none there). */
int bb_cache_read_sysfs(const char *cpu_dir, bb_machine *m);

/* After hwloc: m->cache_source = "hwloc" when hwloc gave a data or unified cache size, else the
 * caches from bb_cache_read_sysfs(cpu_dir) and "sysfs" when it found any, else "". */
void bb_machine_caches_fallback(bb_machine *m, const char *cpu_dir);

#endif
