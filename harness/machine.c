#include "machine.h"

#include <hwloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernels/cpu.h"

static void read_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ') c++;
                c[strcspn(c, "\n")] = 0;
                snprintf(buf, len, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

static size_t meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    size_t kb = 0, klen = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            sscanf(line + klen + 1, "%zu", &kb);
            break;
        }
    fclose(f);
    return kb * 1024;
}

static size_t cache_size(hwloc_topology_t t, hwloc_obj_type_t type)
{
    hwloc_obj_t o = hwloc_get_obj_by_type(t, type, 0);
    return o && o->attr ? (size_t)o->attr->cache.size : 0;
}

void bb_machine_detect(bb_machine *m)
{
    memset(m, 0, sizeof *m);
    read_cpu_model(m->cpu_model, sizeof m->cpu_model);
    bb_cpu_feature_string(bb_cpu_features(), m->cpu_flags, sizeof m->cpu_flags);
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) == 0 && hwloc_topology_load(t) == 0) {
        m->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
        m->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
        m->numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
        m->l1d = cache_size(t, HWLOC_OBJ_L1CACHE);
        m->l2 = cache_size(t, HWLOC_OBJ_L2CACHE);
        m->l3 = cache_size(t, HWLOC_OBJ_L3CACHE);
        hwloc_topology_destroy(t);
    }
    if (m->pus <= 0) m->pus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (m->cores <= 0) m->cores = m->pus;
    m->mem_total = meminfo("MemTotal");
    m->mem_available = meminfo("MemAvailable");
}

size_t bb_machine_llc(const bb_machine *m)
{
    size_t llc = m->l3 > m->l2 ? m->l3 : m->l2;
    return llc < ((size_t)1 << 20) ? ((size_t)1 << 20) : llc;
}
