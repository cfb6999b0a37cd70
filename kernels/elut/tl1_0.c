/* tl1_0: the kernel descriptor (semantics: tl1_0.h).  The code is shared by the four TL
 * kernels (elut.c, elut_avx2.c, elut_avx512.c, elut_neon.c), which instantiate it for this
 * kernel's parameters (elut.h: elut_tl1_0) as the functions named here. */
#include "tl1_0.h"

#include "elut.h"

const bb_kernel bb_kernel_tl1_0 = {
    .name = "tl1_0",
    .family = "elut",
    .description = "TL1: pairs -> 4-bit index, int8 tables with a per-row scale (lossy)",
    .paper = "bitnet.cpp §3.1, Table 5, Alg. 3",
    .bits_per_weight = 2.0,
    .lossless = false,
    .weights = BB_WEIGHTS_TERNARY,
    .act = BB_ACT_CUSTOM,
    .plain_rows = false,
    .k_multiple = ELUT_KMULT,
    .m_multiple = 1,
    .shape_error = elut_shape_error,
    .packed_size = bb_tl1_packed_size,
    .pack = bb_tl1_pack,
    .unpack = bb_tl1_unpack,
    .act_size = bb_tl1_0_act_size,
    .prepare = bb_tl1_0_prepare,
    .error_bound = bb_tl1_error_bound,
    .variants = {
        {"scalar", 0, bb_tl1_0_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tl1_0_avx2, bb_tl1_0_prepare_avx2, .m_pass = ELUT_TILE * ELUT_TP_AVX2},
        {"avx512", BB_ISA_AVX512, bb_tl1_0_avx512, bb_tl1_0_prepare_avx512, .m_pass = ELUT_TILE * ELUT_TP_AVX512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tl1_0_neon, bb_tl1_0_prepare_neon, .m_pass = ELUT_TILE * ELUT_TP_NEON},
#endif
    },
    .about = {
        .layout_text = "rows in tiles of 16; a tile is K/16 index blocks of 64 bytes, 16 rows x 8 weight pairs:\n"
            "byte p = row p%16, pairs p/16 (low nibble) and 4 + p/16 (high nibble); pair (a, b) "
            "stored as the 4-bit index 3(a+1) + (b+1) (bitnet.cpp Table 5)",
        .block_weights = 256,
        .block_bytes = 64,
        .outside_blocks = "one float per tensor (the ternary scale), padded to 64 bytes",
        .activation = "per-row int8 absmax (as i2_s), then one 9-entry table per pair of activations, quantized "
            "to int8 with one step per row, d = A/127",
        .act_bytes = 1.0 / 2,
        .int_ops = 1.0,
        .float_ops = 0.0,
        .column_int_ops_per_k = 4.5,
        .column_float_ops_per_k = 9.0,
        .column_cost = "K/2 tables of 9 entries per column, each at most one integer add of +-q (4.5 per "
            "activation), quantized to int8 with the row's step (a multiply and a rounding per entry: "
            "9 per activation)",
        .shape_rules = "K at most 16777216 (the int32 sums cannot overflow)",
        .error = "ternary weights exact; tables rounded to int8 with the row's step d: the per-row int8 "
            "bound plus d/2 * s_w / s_a per group with a nonzero weight (elut_error_bound)",
    },
};
