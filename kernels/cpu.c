#include "cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static uint64_t detect(void)
{
    unsigned a, b, c, d;
    uint64_t f = 0;
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
    unsigned a1, b1, c1, d1;
    __cpuid_count(7, 1, a1, b1, c1, d1);
    if (a1 & (1u << 4)) f |= BB_CPU_AVXVNNI;
    if (zmm_os && (a1 & (1u << 5))) f |= BB_CPU_AVX512BF16;
    (void)b1; (void)c1; (void)d1;
    return f;
}
#else
static uint64_t detect(void) { return 0; }
#endif

/* The CPU generations a user can ask to be run as, by the features each keeps. */
static const struct {
    const char *name;
    uint64_t keep;
} cpu_levels[] = {
    {"scalar", 0},                                 /* no SIMD variant: the scalar references */
    {"avx2", BB_CPU_SSSE3 | BB_ISA_AVX2},          /* Haswell / Zen 2 class */
    {"avx512", BB_CPU_SSSE3 | BB_ISA_AVX512},      /* Ice Lake / Zen 4 without BF16 and FP16 */
};

int bb_cpu_mask_parse(const char *text, uint64_t *clear)
{
    for (size_t i = 0; i < sizeof cpu_levels / sizeof cpu_levels[0]; i++)
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

uint64_t bb_cpu_features(void)
{
    static uint64_t cached;
    static int done;
    if (!done) {
        uint64_t f = detect();
        const char *mask = getenv("BITBENCH_CPU_MASK");
        uint64_t clear = 0;
        if (mask && *mask && bb_cpu_mask_parse(mask, &clear)) {
            /* a typo here would silently benchmark the wrong variants: stop instead */
            fprintf(stderr, "BITBENCH_CPU_MASK='%s': not a hex mask of feature bits to clear nor one of "
                            "scalar, avx2, avx512\n", mask);
            exit(2);
        }
        cached = f & ~clear;
        done = 1;
    }
    return cached;
}

void bb_cpu_feature_string(uint64_t f, char *buf, unsigned len)
{
    static const struct { uint64_t bit; const char *name; } names[] = {
        {BB_CPU_SSSE3, "ssse3"}, {BB_CPU_AVX2, "avx2"}, {BB_CPU_FMA, "fma"},
        {BB_CPU_F16C, "f16c"}, {BB_CPU_BMI2, "bmi2"}, {BB_CPU_AVX512F, "avx512f"},
        {BB_CPU_AVX512BW, "avx512bw"}, {BB_CPU_AVX512VL, "avx512vl"},
        {BB_CPU_AVX512DQ, "avx512dq"}, {BB_CPU_AVX512VNNI, "avx512vnni"},
        {BB_CPU_AVX512VBMI, "avx512vbmi"}, {BB_CPU_AVX512BF16, "avx512bf16"},
        {BB_CPU_AVXVNNI, "avxvnni"}, {BB_CPU_AVX512FP16, "avx512fp16"},
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
