/* tl2_0: the kernel descriptor (semantics: tl2_0.h).  The code is shared by the four TL
 * kernels (elut.c, elut_avx2.c, elut_avx512.c, elut_neon.c), which instantiate it for this
 * kernel's parameters (elut.h: elut_tl2_0) as the functions named here. */
#include "tl2_0.h"

#include "elut.h"

const bb_kernel bb_kernel_tl2_0 = {
    .name = "tl2_0",
    .family = "elut",
    .description = "TL2: triples -> 4-bit index + sign, TL1 tail, int8 tables with a per-row scale (lossy)",
    .paper = "bitnet.cpp §3.1, Table 6, Alg. 4, eq. 5",
    .bits_per_weight = 5.0 / 3.0,
    .lossless = false,
    .weights = BB_WEIGHTS_TERNARY,
    .act = BB_ACT_CUSTOM,
    .plain_rows = false,
    .k_multiple = ELUT_KMULT,
    .m_multiple = 1,
    .shape_error = elut_shape_error,
    .packed_size = bb_tl2_packed_size,
    .pack = bb_tl2_pack,
    .unpack = bb_tl2_unpack,
    .act_size = bb_tl2_0_act_size,
    .prepare = bb_tl2_0_prepare,
    .error_bound = bb_tl2_error_bound,
    .variants = {
        {"scalar", 0, bb_tl2_0_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tl2_0_avx2, bb_tl2_0_prepare_avx2, .m_pass = ELUT_TILE * ELUT_TP_AVX2},
        {"avx512", BB_ISA_AVX512, bb_tl2_0_avx512, bb_tl2_0_prepare_avx512, .m_pass = ELUT_TILE * ELUT_TP_AVX512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tl2_0_neon, bb_tl2_0_prepare_neon, .m_pass = ELUT_TILE * ELUT_TP_NEON},
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
            "of activations, quantized to int8 with one step per row, d = A/127",
        .act_bytes = 1.0 / 3,
        .int_ops = 4.0 / 3,
        .float_ops = 0.0,
        .column_int_ops_per_k = 28.0 / 3,
        .column_float_ops_per_k = 28.0 / 3,
        .column_cost = "K/3 tables of 14 entries per column, each at most two integer adds of +-q (28/3 per "
            "activation), quantized to int8 with the row's step (a multiply and a rounding per entry: "
            "28/3 per activation)",
        .shape_rules = "K at most 16777216 (the int32 sums cannot overflow)",
        .error = "ternary weights exact; tables rounded to int8 with the row's step d: the per-row int8 "
            "bound plus d/2 * s_w / s_a per group with a nonzero weight (elut_error_bound)",
    },
};
