/* The Arm side of the machine description and the emulation check (issue 19), on text, so that
 * both run on any host: MIDR fields and names, /proc/cpuinfo's Arm lines (a Neoverse N1 in
 * Linux's arm64 format), a qemu-user process's maps, cpuinfo of the other architecture, and the
 * BITBENCH_CPU_MASK levels of the architecture this test was built for. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/cpu.h"
#include "support/cpu_arm.h"
#include "support/emulation.h"

static char *slurp(const char *rel)
{
    const char *src = getenv("BITBENCH_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/cpuinfo/%s", src ? src : ".", rel);
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[3][1 << 15];
    static int next;
    char *b = buf[next++ % 3];
    size_t n = fread(b, 1, sizeof buf[0] - 1, f);
    b[n] = 0;
    fclose(f);
    return b;
}

static void test_midr(void)
{
    bb_arm_midr id = bb_arm_midr_split(0x413fd0c1UL); /* Neoverse N1 r3p1 */
    CHECK(id.implementer == 0x41 && id.variant == 3 && id.part == 0xd0c && id.revision == 1,
          "split 0x413fd0c1: %x %x %x %x", id.implementer, id.variant, id.part, id.revision);
    char model[128];
    bb_arm_cpu_model(&id, model, sizeof model);
    CHECK(strcmp(model, "Neoverse N1 r3p1") == 0, "model '%s'", model);
    id = bb_arm_midr_split(0x410fd083UL); /* what qemu's cortex-a72 reports */
    bb_arm_cpu_model(&id, model, sizeof model);
    CHECK(strcmp(model, "Cortex-A72 r0p3") == 0, "model '%s'", model);
    id = bb_arm_midr_split(0x000f0510UL); /* qemu -cpu max */
    CHECK(id.implementer == 0 && id.part == 0x051, "qemu max: %x %x", id.implementer, id.part);
    id = (bb_arm_midr){0x41, 0, 0xd99, 2};
    bb_arm_cpu_model(&id, model, sizeof model);
    CHECK(strcmp(model, "Arm CPU implementer 0x41 part 0xd99 r0p2") == 0, "unknown part: '%s'", model);
    CHECK(strcmp(bb_arm_implementer_name(0x61), "Apple") == 0, "Apple");
    CHECK(bb_arm_implementer_name(0x99) == NULL, "unknown implementer");
    CHECK(strcmp(bb_arm_part_name(0x41, 0xd4f), "Neoverse V2") == 0, "V2");
}

static void test_cpuinfo(void)
{
    const char *arm = slurp("arm_neoverse_n1.txt"), *x86 = slurp("intel_xeon_kvm.txt");
    CHECK(arm && x86, "test data in tests/data/cpuinfo (BITBENCH_SOURCE_DIR)");
    if (!arm || !x86) return;
    bb_arm_midr id;
    CHECK(bb_arm_midr_from_cpuinfo(arm, &id) == 0 && id.implementer == 0x41 && id.part == 0xd0c && id.variant == 3 &&
              id.revision == 1,
          "Neoverse N1 cpuinfo: %x %x %x %x", id.implementer, id.part, id.variant, id.revision);
    CHECK(bb_arm_midr_from_cpuinfo(x86, &id) == -1, "x86 cpuinfo has no Arm ids");
#if defined(__x86_64__)
    CHECK(bb_emulation_cpuinfo_foreign(arm) == 1 && bb_emulation_cpuinfo_foreign(x86) == 0, "x86 build: Arm cpuinfo is foreign");
#elif defined(__aarch64__)
    CHECK(bb_emulation_cpuinfo_foreign(x86) == 1 && bb_emulation_cpuinfo_foreign(arm) == 0, "Arm build: x86 cpuinfo is foreign");
#endif
}

static void test_maps(void)
{
    /* the host's view of a qemu-user process (/proc/thread-self/maps), and a native one */
    const char *qemu = "5500000000-5500001000 r--p 00000000 fe:00 10986710 /tmp/arm/m\n"
                       "5500021000-5500042000 rw-p 00000000 00:00 0 \n"
                       "7f0000000000-7f0000400000 r-xp 00000000 fe:00 123 /usr/bin/qemu-aarch64-static\n"
                       "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n";
    const char *native = "555555554000-555555556000 r-xp 00000000 fe:00 42 /work/build/bitbench\n"
                         "7ffff7dd3000-7ffff7dfc000 r-xp 00000000 fe:00 7 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
                         "7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0 [stack]";
    char path[256] = "";
    CHECK(bb_emulation_maps_emulator(qemu, path, sizeof path) == 0 && strcmp(path, "/usr/bin/qemu-aarch64-static") == 0,
          "qemu maps: '%s'", path);
    CHECK(bb_emulation_maps_emulator(native, path, sizeof path) == -1, "native maps");
    CHECK(bb_emulation_maps_emulator("", path, sizeof path) == -1, "empty maps");
    char reason[160] = "";
    bb_emulation e = bb_emulation_detect(reason, sizeof reason);
    CHECK(e >= BB_EMULATION_UNKNOWN && e <= BB_EMULATION_YES && reason[0], "detect: %d '%s'", (int)e, reason);
    printf("this process: emulated %d (%s)\n", (int)e, reason);
}

static void test_levels(void)
{
    uint64_t clear;
#if defined(__aarch64__)
    CHECK(bb_cpu_mask_parse("neon", &clear) == 0 && !(~clear & BB_CPU_DOTPROD) && (~clear & BB_CPU_NEON), "neon level");
    CHECK(bb_cpu_mask_parse("dotprod", &clear) == 0 && (~clear & BB_CPU_DOTPROD) && !(~clear & BB_CPU_I8MM), "dotprod level");
    CHECK(bb_cpu_mask_parse("avx2", &clear) == -1, "x86 level refused on Arm");
#else
    CHECK(bb_cpu_mask_parse("avx2", &clear) == 0 && (~clear & BB_CPU_AVX2), "avx2 level");
    CHECK(bb_cpu_mask_parse("neon", &clear) == -1, "Arm level refused on x86");
#endif
    CHECK(bb_cpu_mask_parse("scalar", &clear) == 0 && clear == ~(uint64_t)0, "scalar level");
    char s[256];
    bb_cpu_feature_string(BB_CPU_NEON | BB_CPU_DOTPROD | BB_CPU_I8MM, s, sizeof s);
    CHECK(strcmp(s, "neon dotprod i8mm") == 0, "feature string '%s'", s);
}

int main(void)
{
    test_midr();
    test_cpuinfo();
    test_maps();
    test_levels();
    return check_summary("machine_arm");
}
