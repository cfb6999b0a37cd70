/* tmac_w4, tmac_w4_fa, tmac_w4_exact: the kernel descriptors (tmac_w4.h).  The code they
 * bind is shared by the four bit widths (tmac.c, tmac_avx2.c, tmac_avx512.c, tmac_neon.c) and
 * takes the bit width and the table mode as parameters; the functions here only fix b = 4 and the
 * mode. */
#include "tmac_w4.h"

static size_t packed_size(int m, int k) { return bb_tmac_packed_size(m, k, 4); }

static int pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return bb_tmac_pack(w, dst, 4);
}

static void unpack(const void *src, int m, int k, float *dst) { bb_tmac_unpack(src, m, k, dst, 4); }

static void lut8_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_ref(w, a, y, m, k, n, m0, m1, 4, TMAC_LUT8);
}
#if defined(__x86_64__)
static void lut8_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx2(w, a, y, m, k, n, m0, m1, 4, TMAC_LUT8);
}
static void lut8_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx512(w, a, y, m, k, n, m0, m1, 4, TMAC_LUT8);
}
#elif defined(__aarch64__)
static void lut8_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_neon(w, a, y, m, k, n, m0, m1, 4, TMAC_LUT8);
}
#endif

static void fa_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_ref(w, a, y, m, k, n, m0, m1, 4, TMAC_FA);
}
#if defined(__x86_64__)
static void fa_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx2(w, a, y, m, k, n, m0, m1, 4, TMAC_FA);
}
static void fa_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx512(w, a, y, m, k, n, m0, m1, 4, TMAC_FA);
}
#elif defined(__aarch64__)
static void fa_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_neon(w, a, y, m, k, n, m0, m1, 4, TMAC_FA);
}
#endif

static void exact_ref(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_ref(w, a, y, m, k, n, m0, m1, 4, TMAC_EXACT);
}
#if defined(__x86_64__)
static void exact_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx2(w, a, y, m, k, n, m0, m1, 4, TMAC_EXACT);
}
static void exact_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_avx512(w, a, y, m, k, n, m0, m1, 4, TMAC_EXACT);
}
#elif defined(__aarch64__)
static void exact_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    bb_tmac_matmul_neon(w, a, y, m, k, n, m0, m1, 4, TMAC_EXACT);
}
#endif

const bb_kernel bb_kernel_tmac_w4 = {
    .name = "tmac_w4",
    .family = "bitlut",
    .description = "T-MAC 4-bit planes, g=4 LUT, int8 tables (T-MAC default)",
    .paper = "T-MAC §3-4",
    .bits_per_weight = 4.3125, /* 4 bit planes + h (fp32) and o (int8) per 128 weights */
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

const bb_kernel bb_kernel_tmac_w4_fa = {
    .name = "tmac_w4_fa",
    .family = "bitlut",
    .description = "T-MAC 4-bit planes, int8 tables + fast 8-bit aggregation",
    .paper = "T-MAC §3-4",
    .bits_per_weight = 4.3125, /* 4 bit planes + h (fp32) and o (int8) per 128 weights */
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

const bb_kernel bb_kernel_tmac_w4_exact = {
    .name = "tmac_w4_exact",
    .family = "bitlut",
    .description = "T-MAC 4-bit planes, int16 tables (lossless over int8 activations)",
    .paper = "T-MAC §3-4",
    .bits_per_weight = 4.3125, /* 4 bit planes + h (fp32) and o (int8) per 128 weights */
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
