/* CPU feature detection for run-time variant dispatch: CPUID + XGETBV on x86-64, the kernel's
 * HWCAP/HWCAP2 bits (getauxval) on aarch64.  One bit space for both; a CPU only ever has its own
 * architecture's bits. */
#ifndef BB_CPU_H
#define BB_CPU_H

#include <stdint.h>

enum {
    BB_CPU_SSSE3 = 1u << 0,
    BB_CPU_AVX2 = 1u << 1,
    BB_CPU_FMA = 1u << 2,
    BB_CPU_F16C = 1u << 3,
    BB_CPU_BMI2 = 1u << 4,
    BB_CPU_AVX512F = 1u << 5,
    BB_CPU_AVX512BW = 1u << 6,
    BB_CPU_AVX512VL = 1u << 7,
    BB_CPU_AVX512DQ = 1u << 8,
    BB_CPU_AVX512VNNI = 1u << 9,
    BB_CPU_AVX512VBMI = 1u << 10,
    BB_CPU_AVX512BF16 = 1u << 11,
    BB_CPU_AVXVNNI = 1u << 12,
    BB_CPU_AVX512FP16 = 1u << 13,
    /* AMX tiles with TDPBSSD & co.: set only when the CPU has AMX-TILE and AMX-INT8 and Linux
     * granted this process the tile data state (bb_cpu_amx_refusal says why not otherwise) */
    BB_CPU_AMX_INT8 = 1u << 14,
    /* TDPBF16PS (AMX-BF16), on the same terms: the CPU has it and the tile state is granted */
    BB_CPU_AMX_BF16 = 1u << 15,
    /* aarch64 (Linux HWCAP names in brackets) */
    BB_CPU_NEON = 1u << 16,    /* Advanced SIMD [asimd]: every aarch64 core */
    BB_CPU_DOTPROD = 1u << 17, /* SDOT/UDOT, FEAT_DotProd [asimddp] */
    BB_CPU_I8MM = 1u << 18,    /* SMMLA/UMMLA/USDOT, FEAT_I8MM [i8mm] */
    BB_CPU_BF16 = 1u << 19,    /* BFDOT/BFMMLA, FEAT_BF16 [bf16] */
    BB_CPU_FP16 = 1u << 20,    /* half-precision arithmetic, FEAT_FP16 [fphp + asimdhp] */
    BB_CPU_SVE = 1u << 21,     /* [sve] */
    BB_CPU_SVE2 = 1u << 22,    /* [sve2] */
};

/* What files named *_avx2.c are compiled for (see CMakeLists.txt). */
#define BB_ISA_AVX2 (BB_CPU_AVX2 | BB_CPU_FMA | BB_CPU_F16C | BB_CPU_BMI2)
/* What files named *_avx512.c are compiled for: Ice Lake / Zen 4 class AVX-512 with VNNI and VBMI. */
#define BB_ISA_AVX512 (BB_ISA_AVX2 | BB_CPU_AVX512F | BB_CPU_AVX512BW | BB_CPU_AVX512VL | \
                       BB_CPU_AVX512DQ | BB_CPU_AVX512VNNI | BB_CPU_AVX512VBMI)
/* What files named *_avx512bf16.c are compiled for. */
#define BB_ISA_AVX512BF16 (BB_ISA_AVX512 | BB_CPU_AVX512BF16)

/* What files named *_amx.c are compiled for: Sapphire Rapids class AVX-512 plus AMX-INT8. */
#define BB_ISA_AMX (BB_ISA_AVX512 | BB_CPU_AMX_INT8)

/* What the aarch64 files are compiled for (their -march flags in CMakeLists.txt): *_neon.c
 * Armv8.0-A, *_dotprod.c +dotprod, *_i8mm.c +dotprod+i8mm, *_fp16.c +fp16, *_bf16.c +bf16,
 * *_sve.c +dotprod+sve, *_sve2.c +dotprod+i8mm+sve2. */
#define BB_ISA_NEON BB_CPU_NEON
#define BB_ISA_DOTPROD (BB_CPU_NEON | BB_CPU_DOTPROD)
#define BB_ISA_I8MM (BB_ISA_DOTPROD | BB_CPU_I8MM)
#define BB_ISA_FP16 (BB_CPU_NEON | BB_CPU_FP16)
#define BB_ISA_BF16 (BB_CPU_NEON | BB_CPU_BF16)
#define BB_ISA_SVE (BB_ISA_DOTPROD | BB_CPU_SVE)
#define BB_ISA_SVE2 (BB_ISA_I8MM | BB_CPU_SVE | BB_CPU_SVE2)

/* Features of this CPU, detected once.  BITBENCH_CPU_MASK in the environment runs the dispatch
 * as an older CPU would: a CPU level of this architecture (x86-64: scalar, avx2, avx512, amx;
 * aarch64: scalar, neon, dotprod, i8mm: the features such a CPU has, where this one has them) or
 * a hex mask of the bits above to clear.  An unreadable value stops the program with a message
 * (exit status 2). */
uint64_t bb_cpu_features(void);
/* The features detected, before BITBENCH_CPU_MASK clears any: what tells a variant this CPU lacks
 * from one the mask turned off (`bitbench describe`). */
uint64_t bb_cpu_features_detected(void);
/* The bits BITBENCH_CPU_MASK's value clears; -1 when it is neither a level nor hex. */
int bb_cpu_mask_parse(const char *text, uint64_t *clear);

/* NULL when BB_CPU_AMX_INT8 is in bb_cpu_features(), else one line saying why not: no AMX in
 * this CPU, tile state not enabled by the OS, Linux refused arch_prctl(ARCH_REQ_XCOMP_PERM), or
 * masked by BITBENCH_CPU_MASK. */
const char *bb_cpu_amx_refusal(void);

/* Whether the variants that follow this rule (bb_variant's stream_prefetch in kernel.h: q8_0_x16's,
 * and the AVX-512 ones of tq2_0_x16, q2_k_x16 and tq1_0_x16) issue software prefetches
 * (common/prefetch.h); where they do not, the x16 ones also read their row groups in order, one
 * forward stream, instead of in lockstep (mad/x16_rows_avx512.h).  On
 * the Zen 4 host every software prefetch made them slower: q8_0_x16@avx512 took 1.32-1.39x a
 * plain DRAM read at one thread with them, 1.37-1.46x with the far or the near one alone, and
 * 1.01-1.07x with none (1.25-1.30x and 0.98-1.08x at two threads): the hardware streamer serves
 * one stream alone there, and on Zen 4 PREFETCHT1/T2 were reported to leave lines in memory at
 * times (Wang et al. 2024, docs/papers.md; docs/measurements/2026-12-01-stream-prefetch.md).
 * The lockstep readers (common/lockstep.h) need theirs on the same core, unless they read one
 * stream: tq2_0_x16@avx512 took 1.10-1.20x in lockstep with its prefetches, 1.32-1.35x as one
 * stream with them, 0.99-1.01x as one stream without (docs/measurements/
 * 2026-12-01-x16-one-stream.md).  So: off on AMD family
 * 19h with AVX-512 (Zen 4), on elsewhere, as the kernels were measured on the Xeons.
 * BITBENCH_STREAM_PREFETCH=on or off overrides; another value stops the program with a message
 * (exit status 2). */
int bb_cpu_stream_prefetch(void);
/* Why: "BITBENCH_STREAM_PREFETCH=off" (or =on), "AMD family 19h with AVX-512 (Zen 4)", "default". */
const char *bb_cpu_stream_prefetch_why(void);

/* "avx2 fma f16c ..." or "neon dotprod i8mm ..." for reports. */
void bb_cpu_feature_string(uint64_t f, char *buf, unsigned len);

#endif
