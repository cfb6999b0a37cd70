/* tmac_w3, tmac_w3_fa, tmac_w3_exact: the kernel descriptors (tmac_w3.h).  The code is
 * shared by the four bit widths (tmac.c, tmac_avx2.c, tmac_avx512.c, tmac_neon.c), which
 * instantiate it for b = 3 and each table mode as the functions named here (tmac.h). */
#include "tmac_w3.h"

const bb_kernel bb_kernel_tmac_w3 = {
    .name = "tmac_w3",
    .family = "bitlut",
    .description = "T-MAC 3-bit planes, g=4 LUT, int8 tables (T-MAC default)",
    .paper = "T-MAC §3-4",
    .bits_per_weight = 3.3125, /* 3 bit planes + h (fp32) and o (int8) per 128 weights */
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_CUSTOM,
    .plain_rows = false,
    .k_multiple = TMAC_QG,
    .m_multiple = TMAC_RB,
    .packed_size = bb_tmac_w3_packed_size,
    .pack = bb_tmac_w3_pack,
    .unpack = bb_tmac_w3_unpack,
    .act_size = tmac_act_size,
    .prepare = tmac_prepare,
    .error_bound = tmac_error_bound,
    .variants = {
        {"scalar", 0, bb_tmac_w3_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tmac_w3_avx2, tmac_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_tmac_w3_avx512, tmac_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tmac_w3_neon, tmac_prepare_neon},
#endif
    },
};

const bb_kernel bb_kernel_tmac_w3_fa = {
    .name = "tmac_w3_fa",
    .family = "bitlut",
    .description = "T-MAC 3-bit planes, int8 tables + fast 8-bit aggregation",
    .paper = "T-MAC §3-4",
    .bits_per_weight = 3.3125, /* 3 bit planes + h (fp32) and o (int8) per 128 weights */
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_CUSTOM,
    .plain_rows = false,
    .k_multiple = TMAC_QG,
    .m_multiple = TMAC_RB,
    .packed_size = bb_tmac_w3_packed_size,
    .pack = bb_tmac_w3_pack,
    .unpack = bb_tmac_w3_unpack,
    .act_size = tmac_fa_act_size,
    .prepare = tmac_fa_prepare,
    .error_bound = tmac_fa_error_bound,
    .variants = {
        {"scalar", 0, bb_tmac_w3_fa_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tmac_w3_fa_avx2, tmac_fa_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_tmac_w3_fa_avx512, tmac_fa_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tmac_w3_fa_neon, tmac_fa_prepare_neon},
#endif
    },
};

const bb_kernel bb_kernel_tmac_w3_exact = {
    .name = "tmac_w3_exact",
    .family = "bitlut",
    .description = "T-MAC 3-bit planes, int16 tables (lossless over int8 activations)",
    .paper = "T-MAC §3-4",
    .bits_per_weight = 3.3125, /* 3 bit planes + h (fp32) and o (int8) per 128 weights */
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_ROW,
    .plain_rows = false,
    .k_multiple = TMAC_QG,
    .m_multiple = TMAC_RB,
    .packed_size = bb_tmac_w3_packed_size,
    .pack = bb_tmac_w3_pack,
    .unpack = bb_tmac_w3_unpack,
    .act_size = tmac_exact_act_size,
    .prepare = tmac_exact_prepare,
    .error_bound = NULL,
    .variants = {
        {"scalar", 0, bb_tmac_w3_exact_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tmac_w3_exact_avx2, NULL},
        {"avx512", BB_ISA_AVX512, bb_tmac_w3_exact_avx512, NULL},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tmac_w3_exact_neon, NULL},
#endif
    },
};
