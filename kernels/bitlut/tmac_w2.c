/* tmac_w2, tmac_w2_fa, tmac_w2_exact: the kernel descriptors (tmac_w2.h).  The code they
 * bind is shared by the four bit widths (tmac.c, tmac_avx2.c, tmac_avx512.c, tmac_neon.c) and
 * takes a bb_tmac_params; this file names the three parameter sets (b = 2, one per table mode)
 * and binds each to the descriptors' function pointers with one line. */
#include "tmac_w2.h"

static const bb_tmac_params lut8 = {2, TMAC_LUT8}, fa = {2, TMAC_FA}, exact = {2, TMAC_EXACT};

/* the packed weights depend on the bit width alone: one set of functions for the three kernels */
static size_t packed_size(int m, int k) { return bb_tmac_packed_size(&lut8, m, k); }
static int pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return bb_tmac_pack(&lut8, w, dst);
}
static void unpack(const void *src, int m, int k, float *dst) { bb_tmac_unpack(&lut8, src, m, k, dst); }

/* kernel x ISA: the variant tables' matmul functions (scripts/insn-table reads these names) */
static void lut8_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_ref(&lut8, w, a, y, m, k, n, m0, m1);
}
static void fa_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_ref(&fa, w, a, y, m, k, n, m0, m1);
}
static void exact_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_ref(&exact, w, a, y, m, k, n, m0, m1);
}
#if defined(__x86_64__)
static void lut8_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx2(&lut8, w, a, y, m, k, n, m0, m1);
}
static void fa_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx2(&fa, w, a, y, m, k, n, m0, m1);
}
static void exact_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx2(&exact, w, a, y, m, k, n, m0, m1);
}
static void lut8_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx512(&lut8, w, a, y, m, k, n, m0, m1);
}
static void fa_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx512(&fa, w, a, y, m, k, n, m0, m1);
}
static void exact_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx512(&exact, w, a, y, m, k, n, m0, m1);
}
#elif defined(__aarch64__)
static void lut8_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_neon(&lut8, w, a, y, m, k, n, m0, m1);
}
static void fa_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_neon(&fa, w, a, y, m, k, n, m0, m1);
}
static void exact_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_neon(&exact, w, a, y, m, k, n, m0, m1);
}
#endif

const bb_kernel bb_kernel_tmac_w2 = {
    .name = "tmac_w2",
    .family = "bitlut",
    .description = "T-MAC 2-bit planes, g=4 LUT, int8 tables (T-MAC default)",
    .paper = "T-MAC §3-4",
    .bits_per_weight = 2.3125, /* 2 bit planes + h (fp32) and o (int8) per 128 weights */
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_CUSTOM,
    .plain_rows = false,
    .k_multiple = TMAC_QG,
    .m_multiple = TMAC_RB,
    .packed_size = packed_size,
    .pack = pack,
    .unpack = unpack,
    .act_size = tmac_act_size,
    .prepare = tmac_prepare,
    .error_bound = tmac_error_bound,
    .variants = {
        {"scalar", 0, lut8_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, lut8_avx2, tmac_prepare_avx2},
        {"avx512", BB_ISA_AVX512, lut8_avx512, tmac_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, lut8_neon, tmac_prepare_neon},
#endif
    },
};

const bb_kernel bb_kernel_tmac_w2_fa = {
    .name = "tmac_w2_fa",
    .family = "bitlut",
    .description = "T-MAC 2-bit planes, int8 tables + fast 8-bit aggregation",
    .paper = "T-MAC §3-4",
    .bits_per_weight = 2.3125, /* 2 bit planes + h (fp32) and o (int8) per 128 weights */
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_CUSTOM,
    .plain_rows = false,
    .k_multiple = TMAC_QG,
    .m_multiple = TMAC_RB,
    .packed_size = packed_size,
    .pack = pack,
    .unpack = unpack,
    .act_size = tmac_fa_act_size,
    .prepare = tmac_fa_prepare,
    .error_bound = tmac_fa_error_bound,
    .variants = {
        {"scalar", 0, fa_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, fa_avx2, tmac_fa_prepare_avx2},
        {"avx512", BB_ISA_AVX512, fa_avx512, tmac_fa_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, fa_neon, tmac_fa_prepare_neon},
#endif
    },
};

const bb_kernel bb_kernel_tmac_w2_exact = {
    .name = "tmac_w2_exact",
    .family = "bitlut",
    .description = "T-MAC 2-bit planes, int16 tables (lossless over int8 activations)",
    .paper = "T-MAC §3-4",
    .bits_per_weight = 2.3125, /* 2 bit planes + h (fp32) and o (int8) per 128 weights */
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_ROW,
    .plain_rows = false,
    .k_multiple = TMAC_QG,
    .m_multiple = TMAC_RB,
    .packed_size = packed_size,
    .pack = pack,
    .unpack = unpack,
    .act_size = tmac_exact_act_size,
    .prepare = tmac_exact_prepare,
    .error_bound = NULL,
    .variants = {
        {"scalar", 0, exact_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, exact_avx2, NULL},
        {"avx512", BB_ISA_AVX512, exact_avx512, NULL},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, exact_neon, NULL},
#endif
    },
};
