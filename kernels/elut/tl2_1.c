/* tl2_1: the kernel descriptor (semantics: tl2_1.h).  The code is shared by the four TL
 * kernels (elut.c, elut_avx2.c, elut_avx512.c, elut_neon.c), which instantiate it for this
 * kernel's parameters (elut.h: elut_tl2_1) as the functions named here. */
#include "tl2_1.h"

#include "elut.h"

const bb_kernel bb_kernel_tl2_1 = {
    .name = "tl2_1",
    .family = "elut",
    .description = "TL2: triples -> 4-bit index + sign, TL1 tail, int16 tables as two byte tables (lossless)",
    .paper = "bitnet.cpp §3.1-3.2, Table 6, Alg. 4, eq. 5",
    .bits_per_weight = 5.0 / 3.0,
    .lossless = true,
    .weights = BB_WEIGHTS_TERNARY,
    .act = BB_ACT_I8_ROW,
    .plain_rows = false,
    .k_multiple = ELUT_KMULT,
    .m_multiple = 1,
    .shape_error = elut_shape_error,
    .packed_size = bb_tl2_packed_size,
    .pack = bb_tl2_pack,
    .unpack = bb_tl2_unpack,
    .act_size = bb_tl2_1_act_size,
    .prepare = bb_tl2_1_prepare,
    .variants = {
        {"scalar", 0, bb_tl2_1_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tl2_1_avx2, bb_tl2_1_prepare_avx2, .m_pass = ELUT_TILE * ELUT_TP_AVX2},
        {"avx512", BB_ISA_AVX512, bb_tl2_1_avx512, bb_tl2_1_prepare_avx512, .m_pass = ELUT_TILE * ELUT_TP_AVX512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tl2_1_neon, bb_tl2_1_prepare_neon, .m_pass = ELUT_TILE * ELUT_TP_NEON},
#endif
    },
    .about = {
        .layout_text = "rows in tiles of 16; the first floor(K/48)*48 columns as triples (a,b,c): 4-bit index "
            "|9a + 3b + c| in 64-byte index blocks\n"
            "(16 rows x 8 triples) and a 1-bit sign plane (16-byte blocks, padded to 64 bytes per "
            "tile) (bitnet.cpp Table 6, §3.1.2);\n"
            "the remaining 0, 16 or 32 columns as TL1 pairs (Table 5)",
        .block_weights = 1536,
        .block_bytes = 320,
        .outside_blocks = "one float per tensor (the ternary scale), padded to 64 bytes; when floor(K/48)*48 is not "
            "a multiple of 96, the sign plane's padding",
        .activation = "per-row int8 absmax (as i2_s), then one 14-entry table per triple (9-entry per TL1 pair) "
            "of activations: exact int16 sums as a low-byte and a high-byte plane (bitnet.cpp §3.2.1)",
        .act_bytes = 2.0 / 3,
        .int_ops = 4.0 / 3,
        .float_ops = 0.0,
        .column_int_ops_per_k = 28.0 / 3,
        .column_float_ops_per_k = 0.0,
        .column_cost = "K/3 tables of 14 entries per column, each at most two integer adds of +-q (28/3 per "
            "activation)",
        .shape_rules = "K at most 16777216 (the int32 sums cannot overflow)",
        .error = "lossless for ternary weights over per-row int8 activations: the int32 sum of t*q is "
            "exact, y = isum / s_a * s_w in float (bb_i8_dequant): bit for bit what i2_s, tl1_1 and "
            "tl2_1 compute (tests/test_lossless.c)",
    },
};
