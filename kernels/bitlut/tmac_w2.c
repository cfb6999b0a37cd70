/* tmac_w2, tmac_w2_fa, tmac_w2_exact: the kernel descriptors (tmac_w2.h).  The code is
 * shared by the four bit widths (tmac.c, tmac_avx2.c, tmac_avx512.c, tmac_neon.c), which
 * instantiate it for b = 2 and each table mode as the functions named here (tmac.h). */
#include "tmac_w2.h"

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
    .packed_size = bb_tmac_w2_packed_size,
    .pack = bb_tmac_w2_pack,
    .unpack = bb_tmac_w2_unpack,
    .act_size = tmac_act_size,
    .prepare = tmac_prepare,
    .error_bound = tmac_error_bound,
    .variants = {
        {"scalar", 0, bb_tmac_w2_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tmac_w2_avx2, tmac_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_tmac_w2_avx512, tmac_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tmac_w2_neon, tmac_prepare_neon},
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
    .packed_size = bb_tmac_w2_packed_size,
    .pack = bb_tmac_w2_pack,
    .unpack = bb_tmac_w2_unpack,
    .act_size = tmac_fa_act_size,
    .prepare = tmac_fa_prepare,
    .error_bound = tmac_fa_error_bound,
    .variants = {
        {"scalar", 0, bb_tmac_w2_fa_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tmac_w2_fa_avx2, tmac_fa_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_tmac_w2_fa_avx512, tmac_fa_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tmac_w2_fa_neon, tmac_fa_prepare_neon},
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
    .packed_size = bb_tmac_w2_packed_size,
    .pack = bb_tmac_w2_pack,
    .unpack = bb_tmac_w2_unpack,
    .act_size = tmac_exact_act_size,
    .prepare = tmac_exact_prepare,
    .error_bound = NULL,
    .variants = {
        {"scalar", 0, bb_tmac_w2_exact_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tmac_w2_exact_avx2, NULL},
        {"avx512", BB_ISA_AVX512, bb_tmac_w2_exact_avx512, NULL},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tmac_w2_exact_neon, NULL},
#endif
    },
};
