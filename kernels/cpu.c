#include "cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why the detected features lack BB_CPU_AMX_INT8 (NULL: they have it). */
static const char *amx_missing = "AMX is an x86-64 feature";

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

#if defined(__x86_64__)
/* AMX tile data is a dynamically enabled state on Linux (5.16 and later, Documentation/arch/x86/
 * xstate.rst): the kernel keeps it disabled through XFD until the process asks with
 * arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); the first tile instruction without that
 * permission kills the process with SIGILL.  The permission is process-wide, so asking once,
 * before any thread runs a kernel, covers the thread pool. */
#define ARCH_GET_XCOMP_PERM 0x1022
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

static char amx_why[160];

/* 1 when Linux grants (or had granted) the tile data state, else 0 with amx_why set. */
static int amx_request_tiles(void)
{
    unsigned long perm = 0;
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, (unsigned long)XFEATURE_XTILEDATA) != 0) {
        snprintf(amx_why, sizeof amx_why, "Linux refused the AMX tile state: arch_prctl(ARCH_REQ_XCOMP_PERM, "
                 "XTILEDATA) failed: %s (kernels before 5.16 lack it)", strerror(errno));
        return 0;
    }
    if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &perm) != 0 || !(perm & (1ul << XFEATURE_XTILEDATA))) {
        snprintf(amx_why, sizeof amx_why, "Linux did not grant the AMX tile state (ARCH_GET_XCOMP_PERM "
                 "mask 0x%lx lacks bit %d)", perm, XFEATURE_XTILEDATA);
        return 0;
    }
    return 1;
}

/* CPUID.(7,0):EDX bit 24 AMX-TILE, bit 25 AMX-INT8, bit 22 AMX-BF16; XCR0 bits 17 (XTILECFG) and
 * 18 (XTILEDATA). */
static uint64_t detect_amx(unsigned edx7, uint64_t xcr0)
{
    if (!(edx7 & (1u << 24)) || !(edx7 & (1u << 25))) {
        amx_missing = "this CPU has no AMX-INT8 (CPUID.(7,0):EDX bits 24-25)";
        return 0;
    }
    if ((xcr0 & (3ull << 17)) != (3ull << 17)) {
        amx_missing = "the OS does not enable the AMX tile state (XCR0 bits 17-18 clear)";
        return 0;
    }
    if (!amx_request_tiles()) {
        amx_missing = amx_why;
        return 0;
    }
    amx_missing = NULL;
    return BB_CPU_AMX_INT8 | (edx7 & (1u << 22) ? BB_CPU_AMX_BF16 : 0);
}
#endif

static uint64_t detect(void)
{
    unsigned a, b, c, d;
    uint64_t f = 0;
    amx_missing = "this CPU has no AVX-512 (the AMX variants use it around the tiles)";
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    int osxsave = (c >> 27) & 1;
    if (c & (1u << 9)) f |= BB_CPU_SSSE3;
    int fma = (c >> 12) & 1, f16c = (c >> 29) & 1, avx = (c >> 28) & 1;
    uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    int ymm_os = (xcr0 & 0x6) == 0x6;
    int zmm_os = (xcr0 & 0xe6) == 0xe6;
    if (!avx || !ymm_os)
        return f;
    if (fma) f |= BB_CPU_FMA;
    if (f16c) f |= BB_CPU_F16C;
    if (__get_cpuid_max(0, NULL) < 7)
        return f;
    __cpuid_count(7, 0, a, b, c, d);
    if (b & (1u << 5)) f |= BB_CPU_AVX2;
    if (b & (1u << 8)) f |= BB_CPU_BMI2;
    if (zmm_os) {
        if (b & (1u << 16)) f |= BB_CPU_AVX512F;
        if (b & (1u << 17)) f |= BB_CPU_AVX512DQ;
        if (b & (1u << 30)) f |= BB_CPU_AVX512BW;
        if (b & (1u << 31)) f |= BB_CPU_AVX512VL;
        if (c & (1u << 1)) f |= BB_CPU_AVX512VBMI;
        if (c & (1u << 11)) f |= BB_CPU_AVX512VNNI;
        if (d & (1u << 23)) f |= BB_CPU_AVX512FP16;
    }
#if defined(__x86_64__)
    if ((f & BB_ISA_AVX512 & ~BB_ISA_AVX2) == (BB_ISA_AVX512 & ~BB_ISA_AVX2)) f |= detect_amx(d, xcr0);
#endif
    unsigned a1, b1, c1, d1;
    __cpuid_count(7, 1, a1, b1, c1, d1);
    if (a1 & (1u << 4)) f |= BB_CPU_AVXVNNI;
    if (zmm_os && (a1 & (1u << 5))) f |= BB_CPU_AVX512BF16;
    (void)b1; (void)c1; (void)d1;
    return f;
}
#elif defined(__aarch64__)
#include <sys/auxv.h>

/* The Linux arm64 HWCAP bits (arch/arm64/include/uapi/asm/hwcap.h), for C libraries whose
 * <sys/auxv.h> predates them. */
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1UL << 1)
#endif
#ifndef HWCAP_FPHP
#define HWCAP_FPHP (1UL << 9)
#endif
#ifndef HWCAP_ASIMDHP
#define HWCAP_ASIMDHP (1UL << 10)
#endif
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1UL << 20)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#ifndef HWCAP2_SVE2
#define HWCAP2_SVE2 (1UL << 1)
#endif
#ifndef HWCAP2_I8MM
#define HWCAP2_I8MM (1UL << 13)
#endif
#ifndef HWCAP2_BF16
#define HWCAP2_BF16 (1UL << 14)
#endif

/* User space cannot read the ID registers' features reliably (they are trapped and emulated, and
 * only since Linux 4.11); the kernel's HWCAP words say what it lets processes use. */
static uint64_t detect(void)
{
    unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
    uint64_t f = 0;
    if (hw & HWCAP_ASIMD) f |= BB_CPU_NEON;
    if (hw & HWCAP_ASIMDDP) f |= BB_CPU_DOTPROD;
    /* FEAT_FP16 is scalar and vector half-precision arithmetic together */
    if ((hw & HWCAP_FPHP) && (hw & HWCAP_ASIMDHP)) f |= BB_CPU_FP16;
    if (hw & HWCAP_SVE) f |= BB_CPU_SVE;
    if (hw2 & HWCAP2_SVE2) f |= BB_CPU_SVE2;
    if (hw2 & HWCAP2_I8MM) f |= BB_CPU_I8MM;
    if (hw2 & HWCAP2_BF16) f |= BB_CPU_BF16;
    return f;
}
#else
static uint64_t detect(void) { return 0; }
#endif

/* The CPU generations a user can ask to be run as, by the features each keeps: this
 * architecture's only (another's level would silently mean "scalar"). */
static const struct {
    const char *name;
    uint64_t keep;
} cpu_levels[] = {
    {"scalar", 0},                                 /* no SIMD variant: the scalar references */
#if defined(__aarch64__)
    {"neon", BB_CPU_NEON},                         /* Armv8.0-A: Cortex-A72 (Raspberry Pi 4) */
    {"dotprod", BB_ISA_DOTPROD | BB_CPU_FP16},     /* Armv8.2-A: Cortex-A76 (Pi 5), Neoverse N1 */
    {"i8mm", BB_ISA_I8MM | BB_CPU_FP16 | BB_CPU_BF16}, /* Armv8.6-A NEON without SVE */
#else
    {"avx2", BB_CPU_SSSE3 | BB_ISA_AVX2},          /* Haswell / Zen 2 class */
    {"avx512", BB_CPU_SSSE3 | BB_ISA_AVX512},      /* Ice Lake / Zen 4 without BF16 and FP16 */
    {"amx", BB_CPU_SSSE3 | BB_ISA_AMX | BB_CPU_AMX_BF16 | BB_CPU_AVX512BF16 | BB_CPU_AVX512FP16 | BB_CPU_AVXVNNI},
                                                   /* Sapphire Rapids and later */
#endif
};
#define NLEVELS (sizeof cpu_levels / sizeof cpu_levels[0])

/* "scalar, avx2, avx512" */
static void level_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < NLEVELS && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", cpu_levels[i].name);
}

int bb_cpu_mask_parse(const char *text, uint64_t *clear)
{
    for (size_t i = 0; i < NLEVELS; i++)
        if (!strcmp(text, cpu_levels[i].name)) {
            *clear = ~cpu_levels[i].keep;
            return 0;
        }
    char *end;
    const char *hex = strncmp(text, "0x", 2) && strncmp(text, "0X", 2) ? text : text + 2;
    if (!*hex || strspn(hex, "0123456789abcdefABCDEF") != strlen(hex) || strlen(hex) > 16) return -1;
    *clear = strtoull(hex, &end, 16);
    return 0;
}

#if defined(__x86_64__) || defined(__i386__)
/* AMD family 19h with AVX-512: Zen 4 (Zen 3, the same family, has none). */
static int is_zen4(uint64_t detected)
{
    unsigned a, b, c, d;
    char vendor[13];
    if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
    memcpy(vendor, &b, 4), memcpy(vendor + 4, &d, 4), memcpy(vendor + 8, &c, 4), vendor[12] = 0;
    if (strcmp(vendor, "AuthenticAMD") || !__get_cpuid(1, &a, &b, &c, &d)) return 0;
    unsigned family = (a >> 8) & 0xF;
    if (family == 0xF) family += (a >> 20) & 0xFF;
    return family == 0x19 && (detected & BB_CPU_AVX512F);
}
#else
static int is_zen4(uint64_t detected) { return (void)detected, 0; }
#endif

static int stream_prefetch = 1;
static const char *stream_prefetch_why = "default";

/* BITBENCH_STREAM_PREFETCH, or the rule of cpu.h. */
static void decide_stream_prefetch(uint64_t detected)
{
    const char *v = getenv("BITBENCH_STREAM_PREFETCH");
    if (v && *v) {
        if (strcmp(v, "on") && strcmp(v, "off")) {
            fprintf(stderr, "BITBENCH_STREAM_PREFETCH='%s': not on or off (unset: the rule for this CPU)\n", v);
            exit(2);
        }
        stream_prefetch = !strcmp(v, "on");
        stream_prefetch_why = stream_prefetch ? "BITBENCH_STREAM_PREFETCH=on" : "BITBENCH_STREAM_PREFETCH=off";
    } else if (is_zen4(detected)) {
        stream_prefetch = 0;
        stream_prefetch_why = "AMD family 19h with AVX-512 (Zen 4)";
    }
}

static uint64_t detected_features;

uint64_t bb_cpu_features(void)
{
    static uint64_t cached;
    static int done;
    if (!done) {
        uint64_t f = detected_features = detect();
        decide_stream_prefetch(f);
        const char *mask = getenv("BITBENCH_CPU_MASK");
        uint64_t clear = 0;
        if (mask && *mask && bb_cpu_mask_parse(mask, &clear)) {
            /* a typo here would silently benchmark the wrong variants: stop instead */
            char names[64];
            level_names(names, sizeof names);
            fprintf(stderr, "BITBENCH_CPU_MASK='%s': not a hex mask of feature bits to clear nor one of "
                            "%s\n", mask, names);
            exit(2);
        }
        cached = f & ~clear;
        done = 1;
    }
    return cached;
}

uint64_t bb_cpu_features_detected(void)
{
    bb_cpu_features();
    return detected_features;
}

const char *bb_cpu_amx_refusal(void)
{
    static char masked[96];
    if (bb_cpu_features() & BB_CPU_AMX_INT8) return NULL;
    if (amx_missing) return amx_missing;
    snprintf(masked, sizeof masked, "AMX masked off by BITBENCH_CPU_MASK=%s",
             getenv("BITBENCH_CPU_MASK") ? getenv("BITBENCH_CPU_MASK") : "");
    return masked;
}

int bb_cpu_stream_prefetch(void)
{
    bb_cpu_features();
    return stream_prefetch;
}

const char *bb_cpu_stream_prefetch_why(void)
{
    bb_cpu_features();
    return stream_prefetch_why;
}

void bb_cpu_feature_string(uint64_t f, char *buf, unsigned len)
{
    static const struct { uint64_t bit; const char *name; } names[] = {
        {BB_CPU_SSSE3, "ssse3"}, {BB_CPU_AVX2, "avx2"}, {BB_CPU_FMA, "fma"},
        {BB_CPU_F16C, "f16c"}, {BB_CPU_BMI2, "bmi2"}, {BB_CPU_AVX512F, "avx512f"},
        {BB_CPU_AVX512BW, "avx512bw"}, {BB_CPU_AVX512VL, "avx512vl"},
        {BB_CPU_AVX512DQ, "avx512dq"}, {BB_CPU_AVX512VNNI, "avx512vnni"},
        {BB_CPU_AVX512VBMI, "avx512vbmi"}, {BB_CPU_AVX512BF16, "avx512bf16"},
        {BB_CPU_AVXVNNI, "avxvnni"}, {BB_CPU_AVX512FP16, "avx512fp16"}, {BB_CPU_AMX_INT8, "amx-int8"},
        {BB_CPU_AMX_BF16, "amx-bf16"},
        {BB_CPU_NEON, "neon"}, {BB_CPU_DOTPROD, "dotprod"}, {BB_CPU_I8MM, "i8mm"},
        {BB_CPU_BF16, "bf16"}, {BB_CPU_FP16, "fp16"}, {BB_CPU_SVE, "sve"}, {BB_CPU_SVE2, "sve2"},
    };
    size_t used = 0;
    if (len) buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(f & names[i].bit)) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? " " : "", names[i].name);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}
