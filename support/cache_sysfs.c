#include "cache_sysfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first line of dir/name (sysfs attributes are one short line), "" when absent. */
static void read_attr(const char *dir, const char *name, char *buf, size_t len)
{
    char path[1200];
    buf[0] = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(buf, (int)len, f)) buf[0] = 0;
    fclose(f);
    buf[strcspn(buf, "\n")] = 0;
}

/* "32K", "1024K", "8M", "12345" in bytes; 0 when not a size. */
static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s) return 0;
    if (*end == 'K') v <<= 10;
    else if (*end == 'M') v <<= 20;
    else if (*end == 'G') v <<= 30;
    return (size_t)v;
}

/* How many CPUs a list like "0-3,8,10-11" names; 0 when it is not one. */
static int count_cpu_list(const char *s)
{
    int n = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b;
        if (end == s || a < 0) return 0;
        b = a;
        if (*end == '-') {
            s = end + 1;
            b = strtol(s, &end, 10);
            if (end == s || b < a) return 0;
        }
        n += (int)(b - a + 1);
        s = end;
        if (*s == ',') s++;
        else if (*s) return 0;
    }
    return n;
}

int bb_cache_read_sysfs(const char *cpu_dir, bb_machine *m)
{
    char online[256], dir[1100], v[256];
    read_attr(cpu_dir, "online", online, sizeof online);
    int cpus = count_cpu_list(online), found = 0;
    for (int i = 0; i < 16; i++) {
        snprintf(dir, sizeof dir, "%s/cpu0/cache/index%d", cpu_dir, i);
        read_attr(dir, "level", v, sizeof v);
        int level = atoi(v);
        if (level < 1 || level > 4) continue;
        char type[32];
        read_attr(dir, "type", type, sizeof type);
        read_attr(dir, "size", v, sizeof v);
        size_t size = parse_size(v);
        if (!size) continue;
        read_attr(dir, "shared_cpu_list", v, sizeof v);
        int shared = count_cpu_list(v);
        if (shared < 1) shared = 1;
        bool data = !strcmp(type, "Data") || !strcmp(type, "Unified");
        if (data && level == 1) m->l1d = size;
        if (data && level == 2) m->l2 = size;
        if (data && level == 3) m->l3 = size;
        found++;
        if (m->ncaches >= BB_MACHINE_MAX_CACHES) continue;
        bb_cache_info *c = &m->caches[m->ncaches++];
        memset(c, 0, sizeof *c);
        c->level = level;
        snprintf(c->type, sizeof c->type, "%s",
                 !strcmp(type, "Data") ? "data" : !strcmp(type, "Instruction") ? "instruction" : "unified");
        c->size = size;
        read_attr(dir, "coherency_line_size", v, sizeof v);
        c->line = atoi(v);
        c->shared_by = shared;
        c->instances = cpus >= shared ? cpus / shared : 1;
    }
    return found;
}

void bb_machine_caches_fallback(bb_machine *m, const char *cpu_dir)
{
    if (m->l1d || m->l2 || m->l3) {
        snprintf(m->cache_source, sizeof m->cache_source, "hwloc");
        return;
    }
    m->ncaches = 0;
    snprintf(m->cache_source, sizeof m->cache_source, "%s", bb_cache_read_sysfs(cpu_dir, m) ? "sysfs" : "");
}
