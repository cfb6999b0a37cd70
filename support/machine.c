#include "machine.h"

#include <hwloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "affinity.h"
#include "cache_sysfs.h"
#include "cpu_arm.h"
#include "emulation.h"
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

/* Vendor, family/model/stepping and the hypervisor bit, from CPUID. */
static void read_cpuid(bb_machine *m)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid(0, &a, &b, &c, &d)) {
        memcpy(m->cpu_vendor, &b, 4);
        memcpy(m->cpu_vendor + 4, &d, 4);
        memcpy(m->cpu_vendor + 8, &c, 4);
        m->cpu_vendor[12] = 0;
    }
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        unsigned fam = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
        if (fam == 0xf) fam += (a >> 20) & 0xff;
        if (fam == 0x6 || fam >= 0xf) model |= ((a >> 16) & 0xf) << 4;
        m->cpu_family = (int)fam;
        m->cpu_model_id = (int)model;
        m->cpu_stepping = (int)(a & 0xf);
        m->virtualized = (c >> 31) & 1;
    }
    if (m->virtualized) {
        __cpuid(0x40000000, a, b, c, d);
        memcpy(m->hypervisor, &b, 4);
        memcpy(m->hypervisor + 4, &c, 4);
        memcpy(m->hypervisor + 8, &d, 4);
        m->hypervisor[12] = 0;
    }
#else
    snprintf(m->cpu_vendor, sizeof m->cpu_vendor, "unknown");
#endif
}

#if defined(__aarch64__)
/* Model, vendor and ids from MIDR_EL1: read directly where Linux emulates the read for user space
 * (HWCAP_CPUID), else from /proc/cpuinfo's "CPU implementer" / "CPU part" lines.  Arm's
 * /proc/cpuinfo has no "model name". */
static void read_arm_midr(bb_machine *m)
{
    bb_arm_midr id;
    int have = 0;
    if (getauxval(AT_HWCAP) & (1UL << 11)) { /* HWCAP_CPUID */
        unsigned long midr;
        __asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
        id = bb_arm_midr_split(midr);
        have = 1;
    } else {
        FILE *f = fopen("/proc/cpuinfo", "r");
        if (f) {
            static char text[1 << 14];
            size_t n = fread(text, 1, sizeof text - 1, f);
            text[n] = 0;
            fclose(f);
            have = bb_arm_midr_from_cpuinfo(text, &id) == 0;
        }
    }
    if (!have) return;
    bb_arm_cpu_model(&id, m->cpu_model, sizeof m->cpu_model);
    const char *vendor = bb_arm_implementer_name(id.implementer);
    if (vendor) snprintf(m->cpu_vendor, sizeof m->cpu_vendor, "%s", vendor);
    else snprintf(m->cpu_vendor, sizeof m->cpu_vendor, "implementer 0x%02x", id.implementer);
    m->cpu_family = (int)id.implementer;
    m->cpu_model_id = (int)id.part;
    m->cpu_stepping = (int)(id.variant << 4 | id.revision);
}
#endif

/* Under an emulator every timing measures the emulator: say so once per process to a person at a
 * terminal (results record it in any case: machine.emulated in run.json).  Not into a pipe or
 * file, where a command's stderr is its one error line. */
static void check_emulation(bb_machine *m)
{
    static int warned;
    m->emulated = bb_emulation_detect(m->emulation, sizeof m->emulation);
    if (m->emulated == BB_EMULATION_YES && !warned && isatty(STDERR_FILENO)) {
        fprintf(stderr, "warning: running under emulation (%s): timings measure the emulator and mean "
                        "nothing for this CPU\n", m->emulation);
        warned = 1;
    }
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

static void read_caches(hwloc_topology_t t, bb_machine *m)
{
    static const hwloc_obj_type_t types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE,
                                             HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE};
    for (size_t i = 0; i < sizeof types / sizeof types[0] && m->ncaches < BB_MACHINE_MAX_CACHES; i++) {
        int n = hwloc_get_nbobjs_by_type(t, types[i]);
        hwloc_obj_t o = n > 0 ? hwloc_get_obj_by_type(t, types[i], 0) : NULL;
        if (!o || !o->attr) continue;
        bb_cache_info *c = &m->caches[m->ncaches++];
        c->level = (int)o->attr->cache.depth;
        snprintf(c->type, sizeof c->type, "%s",
                 o->attr->cache.type == HWLOC_OBJ_CACHE_DATA ? "data"
                 : o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? "instruction" : "unified");
        c->size = (size_t)o->attr->cache.size;
        c->line = (int)o->attr->cache.linesize;
        c->instances = n;
        c->shared_by = o->cpuset ? hwloc_bitmap_weight(o->cpuset) : 0;
    }
}

static void read_numa(hwloc_topology_t t, bb_machine *m)
{
    int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < n && m->nnuma < BB_MACHINE_MAX_NUMA; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, (unsigned)i);
        bb_numa_info *z = &m->numa[m->nnuma++];
        z->os_index = (int)o->os_index;
        z->memory = o->attr ? (size_t)o->attr->numanode.local_memory : 0;
        if (o->cpuset) hwloc_bitmap_list_snprintf(z->cpus, sizeof z->cpus, o->cpuset);
    }
}

void bb_machine_detect(bb_machine *m)
{
    memset(m, 0, sizeof *m);
    read_cpu_model(m->cpu_model, sizeof m->cpu_model);
    read_cpuid(m);
#if defined(__aarch64__)
    read_arm_midr(m);
#endif
    check_emulation(m);
    bb_cpu_feature_string(bb_cpu_features(), m->cpu_flags, sizeof m->cpu_flags);
    unsigned v = hwloc_get_api_version();
    snprintf(m->hwloc_version, sizeof m->hwloc_version, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) == 0 && hwloc_topology_load(t) == 0) {
        m->sockets = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
        m->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
        m->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
        m->numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
        m->l1d = cache_size(t, HWLOC_OBJ_L1CACHE);
        m->l2 = cache_size(t, HWLOC_OBJ_L2CACHE);
        m->l3 = cache_size(t, HWLOC_OBJ_L3CACHE);
        read_caches(t, m);
        read_numa(t, m);
        hwloc_topology_destroy(t);
    }
    bb_machine_caches_fallback(m, "/sys/devices/system/cpu");
    if (m->pus <= 0) m->pus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (m->cores <= 0) m->cores = m->pus;
    snprintf(m->allowed_cpus, sizeof m->allowed_cpus, "%s", bb_affinity_mask());
    m->nallowed = bb_affinity_count();
    m->allowed_cores = bb_affinity_cores();
    m->mem_total = meminfo("MemTotal");
    m->mem_available = meminfo("MemAvailable");
    struct utsname u;
    if (uname(&u) == 0) snprintf(m->os, sizeof m->os, "%s %s %s", u.sysname, u.release, u.machine);
}

size_t bb_machine_llc(const bb_machine *m)
{
    size_t llc = m->l3 > m->l2 ? m->l3 : m->l2;
    return llc < ((size_t)1 << 20) ? ((size_t)1 << 20) : llc;
}
