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
        {"avx2", BB_ISA_AVX2, bb_tmac_w2_avx2, tmac_prepare_avx2, .m_pass = TMAC_RB * TMAC_TB},
        {"avx512", BB_ISA_AVX512, bb_tmac_w2_avx512, tmac_prepare_avx512, .m_pass = TMAC_RB * TMAC_TB},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tmac_w2_neon, tmac_prepare_neon, .m_pass = TMAC_RB * TMAC_TB},
#endif
    },
    .about = {
        .layout_text = "2 bit planes of the codes in 32-row blocks and 16-column chunks: per (block, chunk) 2 "
            "vectors of 64 bytes,\n"
            "byte 4d + t holding the 4-bit patterns of rows d and 16 + d (one nibble each) for one "
            "K-group and plane (T-MAC §3.2);\n"
            "then per row and group of 128 weights the fp32 h (scale / 2) and the int8 offset o "
            "(bit-serial zero point, §4)",
        .block_weights = 128,
        .block_bytes = 37,
        .outside_blocks = "none",
        .activation = "per 4 activations the 8 sums of +-x (mirror consolidation, T-MAC §3.3), quantized to "
            "int8 with one scale per 128 activations (amax / 127)",
        .act_bytes = 2.0 / 4 + 4.0 / 128,
        .int_ops = 2.0 / 2 + (2.0 * 2 + 2.0) / 128,
        .float_ops = 3.0 / 128,
        .column_int_ops_per_k = 0.25,
        .column_float_ops_per_k = 10.0,
        .column_cost = "K/4 tables of 8 entries per column, each a sum of 4 +-activations (3 float adds: 6 per "
            "activation), quantized to int8 (a multiply and a rounding per entry: 4 per activation); "
            "the offset sums SQ (0.25 integer adds per activation)",
        .error = "weights: 2-bit codes with a group-wise (128) scale and half-integer zero point, "
            "least-squares fitted (tmac.h); tables rounded to int8: |y - sum wdeq x| <= sum_g 32 d_g "
            "A_g + (K/128 + 4) 2^-23 sum |w x| (d_g the group's table step amax/127, A_g its largest "
            "|w|; tmac_error_bound)",
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
        {"avx2", BB_ISA_AVX2, bb_tmac_w2_fa_avx2, tmac_fa_prepare_avx2, .m_pass = TMAC_RB * TMAC_TB},
        {"avx512", BB_ISA_AVX512, bb_tmac_w2_fa_avx512, tmac_fa_prepare_avx512,
         .m_pass = TMAC_RB * TMAC_TB_AVX512_WIDE},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tmac_w2_fa_neon, tmac_fa_prepare_neon, .m_pass = TMAC_RB * TMAC_TB},
#endif
    },
    .about = {
        .layout_text = "2 bit planes of the codes in 32-row blocks and 16-column chunks: per (block, chunk) 2 "
            "vectors of 64 bytes,\n"
            "byte 4d + t holding the 4-bit patterns of rows d and 16 + d (one nibble each) for one "
            "K-group and plane (T-MAC §3.2);\n"
            "then per row and group of 128 weights the fp32 h (scale / 2) and the int8 offset o "
            "(bit-serial zero point, §4)",
        .block_weights = 128,
        .block_bytes = 37,
        .outside_blocks = "none",
        .activation = "as tmac_w2: int8 tables of the 8 sums of +-x per 4 activations, one scale per 128 "
            "activations",
        .act_bytes = 2.0 / 4 + 4.0 / 128,
        .int_ops = 10.0 * 2 / 16 + (2.0 * 2 + 2.0) / 128,
        .float_ops = 3.0 / 128,
        .column_int_ops_per_k = 0.25,
        .column_float_ops_per_k = 10.0,
        .column_cost = "as tmac_w2: K/4 tables of 8 entries per column (6 float adds and 4 for int8 quantization "
            "per activation), the offset sums SQ (0.25 integer adds per activation)",
        .error = "weights as tmac_w2; int8 tables and fast 8-bit aggregation (rounding averages of 4 "
            "lookups, T-MAC §4): |y - sum wdeq x| <= sum_g 64 d_g A_g + (K/128 + 4) 2^-23 sum |w x| "
            "(tmac_fa_error_bound)",
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
        {"avx2", BB_ISA_AVX2, bb_tmac_w2_exact_avx2, NULL, .m_pass = TMAC_RB * TMAC_TB},
        {"avx512", BB_ISA_AVX512, bb_tmac_w2_exact_avx512, NULL, .m_pass = TMAC_RB * TMAC_TB_AVX512_WIDE},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tmac_w2_exact_neon, NULL, .m_pass = TMAC_RB * TMAC_TB},
#endif
    },
    .about = {
        .layout_text = "2 bit planes of the codes in 32-row blocks and 16-column chunks: per (block, chunk) 2 "
            "vectors of 64 bytes,\n"
            "byte 4d + t holding the 4-bit patterns of rows d and 16 + d (one nibble each) for one "
            "K-group and plane (T-MAC §3.2);\n"
            "then per row and group of 128 weights the fp32 h (scale / 2) and the int8 offset o "
            "(bit-serial zero point, §4)",
        .block_weights = 128,
        .block_bytes = 37,
        .outside_blocks = "none",
        .activation = "per-row int8 absmax (as i2_s), then per 4 activations the 8 exact int16 sums of +-q, as "
            "a plane of low bytes and a plane of high bytes",
        .act_bytes = 2.0 * 2 / 4,
        .int_ops = 2.0 / 2 + (2.0 * 2 + 2.0) / 128,
        .float_ops = 3.0 / 128,
        .column_int_ops_per_k = 6.25,
        .column_float_ops_per_k = 0.0,
        .column_cost = "K/4 int16 tables of 8 entries per column, each a sum of 4 +-q (6 integer adds per "
            "activation), the offset sums SQ (0.25 per activation)",
        .error = "tables exact (int16 over per-row int8 activations, the int32 sums exact); the weights "
            "are rounded to 2-bit codes as tmac_w2's, so not lossless against real weights",
    },
};
