#include "emulation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "cpu_arm.h"

int bb_emulation_maps_emulator(const char *maps, char *path, size_t len)
{
    for (const char *line = maps; *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        /* the path is the last field and starts with '/'; the emulator is its basename */
        const char *slash = memchr(line, '/', n);
        if (slash) {
            const char *base = slash;
            for (const char *c = slash; c < line + n; c++)
                if (*c == '/') base = c + 1;
            if (strncmp(base, "qemu-", 5) == 0) {
                snprintf(path, len, "%.*s", (int)(line + n - slash), slash);
                return 0;
            }
        }
        if (!nl) break;
        line = nl + 1;
    }
    return -1;
}

static int has_line(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *line = text; *line;) {
        if (strncmp(line, key, klen) == 0) return 1;
        const char *nl = strchr(line, '\n');
        if (!nl) break;
        line = nl + 1;
    }
    return 0;
}

int bb_emulation_cpuinfo_foreign(const char *cpuinfo)
{
    int x86 = has_line(cpuinfo, "vendor_id") && has_line(cpuinfo, "flags");
    int arm = has_line(cpuinfo, "CPU implementer") && has_line(cpuinfo, "Features");
#if defined(__x86_64__)
    return arm && !x86;
#elif defined(__aarch64__)
    return x86 && !arm;
#else
    return 0;
#endif
}

/* The whole of a /proc file (they report size 0, so read until the end), or NULL. */
static char *read_proc(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 1 << 14, used = 0;
    char *buf = malloc(cap);
    while (buf) {
        used += fread(buf + used, 1, cap - 1 - used, f);
        if (used < cap - 1) break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) { free(buf); buf = NULL; break; }
        buf = bigger, cap *= 2;
    }
    fclose(f);
    if (buf) buf[used] = 0;
    return buf;
}

bb_emulation bb_emulation_detect(char *reason, size_t len)
{
    char path[256];
    /* thread-self, not self: qemu-user answers /proc/self/maps with the guest's view */
    char *maps = read_proc("/proc/thread-self/maps");
    int maps_read = maps != NULL;
    int mapped = maps && bb_emulation_maps_emulator(maps, path, sizeof path) == 0;
    free(maps);
    if (mapped) {
        snprintf(reason, len, "user-mode emulator %s is mapped into this process", path);
        return BB_EMULATION_YES;
    }
    char *cpuinfo = read_proc("/proc/cpuinfo");
    int foreign = cpuinfo && bb_emulation_cpuinfo_foreign(cpuinfo);
    free(cpuinfo);
    if (foreign) {
        snprintf(reason, len, "/proc/cpuinfo describes another architecture than this build's");
        return BB_EMULATION_YES;
    }
#if defined(__aarch64__)
    /* MIDR_EL1 read from user space is emulated by Linux when it sets HWCAP_CPUID */
    if (getauxval(AT_HWCAP) & (1UL << 11)) {
        unsigned long midr;
        __asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
        if (bb_arm_midr_split(midr).implementer == 0) {
            snprintf(reason, len, "MIDR_EL1 implementer 0 (reserved for software: an emulator's CPU model)");
            return BB_EMULATION_YES;
        }
    }
#endif
    if (!maps_read) {
        snprintf(reason, len, "cannot tell: /proc/thread-self/maps unreadable, /proc/cpuinfo shows nothing foreign");
        return BB_EMULATION_UNKNOWN;
    }
    snprintf(reason, len, "no sign of a user-mode emulator (process maps, /proc/cpuinfo); a full-system "
                          "emulator would not show");
    return BB_EMULATION_NONE_SEEN;
}
