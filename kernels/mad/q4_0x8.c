/* q4_0x8: the kernel descriptor (layout and semantics: q4_0x8.h).  Its parameters are its
 * records' layout (bb_nibble_x8_layout); the shared code (q4_0_interleaved.c over row_interleave.c,
 * q4_0's scalar reference in qx_0.c) is instantiated for it as the functions named here. */
#include "q4_0x8.h"
#include "../common/amx_rule.h"

const bb_kernel bb_kernel_q4_0x8 = {
    .name = "q4_0x8",
    .family = "mad",
    .description = "Q4_0 with 8 rows interleaved (SIMD-aware packing), 8 outputs per pass",
    .paper = "Arm §4.1 SIMD-aware packing, Q4_0_8_8",
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
};
