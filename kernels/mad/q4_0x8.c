/* q4_0x8: the kernel descriptor (layout and semantics: q4_0x8.h).  Its parameters are its
 * records' layout (bb_nibble_x8_layout); the shared code (q4_0_interleaved.c over row_interleave.c,
 * q4_0's scalar reference in qx_0.c) is instantiated for it as the functions named here. */
#include "q4_0x8.h"
#include "../common/amx_rule.h"

const bb_kernel bb_kernel_q4_0x8 = {
    .name = "q4_0x8",
    .family = "mad",
    .description = "Q4_0 with 8 rows interleaved (SIMD-aware packing), 8 outputs per pass",
    .paper = "Arm paper §4.1 SIMD-aware packing, Q4_0_8_8",
    .bits_per_weight = 4.5,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK32,
    .plain_rows = false,
    .float_accumulation = false,
    .k_multiple = BB_QK,
    .gguf_repack_type = "Q4_0",
    .repack_stored = bb_q4_0x8_repack,
    .m_multiple = BB_NIBBLE_X8_ROWS,
    .packed_size = bb_q4_0il_packed_size,
    .pack = bb_q4_0x8_pack,
    .unpack = bb_q4_0x8_unpack,
    .act_size = bb_qx_act_size,
    .prepare = bb_qx_prepare,
    .variants = {
        {"scalar", 0, bb_q4_0x8_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_q4_0x8_matmul_avx2, bb_qx_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_q4_0x8_matmul_avx512, bb_qx_prepare_avx512},
        {"amx", BB_ISA_AMX, bb_q4_0x8_matmul_amx, bb_qx_prepare_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#endif
#if defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_q4_0x8_matmul_dotprod, NULL},
        {"i8mm", BB_ISA_I8MM, bb_q4_0x8_matmul_i8mm, NULL},
#endif
    },
    .about = {
        .layout_text = "M/8 row groups; group g is K/32 records of 144 bytes, record b = block b of rows "
            "8g..8g+7:\n"
            "8 fp16 d, then 128 bytes of the rows' q4_0 nibble bytes in 8-byte chunks, rows taking "
            "turns, XOR 0x88\n"
            "(llama.cpp block_q4_0x8, Arm paper §4.1.1): the same bytes as q4_0, rearranged",
        .block_weights = 256,
        .block_bytes = 144,
        .outside_blocks = "none",
        .activation = "q8_0: int8 in blocks of 32 with an fp16 scale d = amax/127 (llama.cpp block_q8_0), plus "
            "per-block float scales and 4-activation sums for the SIMD variants (kernels/mad/qx_0.h)",
        .act_bytes = 34.0 / 32,
        .int_ops = 2.0,
        .float_ops = 3.0 / 32,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .error = "weights rounded per block of 32 to 16 levels (nibble - 8) * d, d = max / -8 "
            "(quantize_row_q4_0_ref); the same numbers as q4_0's reference",
    },
};
