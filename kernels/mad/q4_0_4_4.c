/* q4_0_4_4: the kernel descriptor (layout and semantics: q4_0_4_4.h).  Its parameters are its
 * records' layout (bb_q4_0_4_4_layout); the shared code (q4_0_interleaved.c over row_interleave.c,
 * q4_0's scalar reference in qx_0.c) is instantiated for it as the functions named here. */
#include "q4_0_4_4.h"

const bb_kernel bb_kernel_q4_0_4_4 = {
    .name = "q4_0_4_4",
    .family = "mad",
    .description = "Q4_0 with 4 rows interleaved in 4-byte chunks (for SDOT by element), 4 outputs per pass",
    .paper = "Arm §4.1 SIMD-aware packing, Q4_0_4_4 of Table 2",
    .bits_per_weight = 4.5,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK32,
    .plain_rows = false,
    .float_accumulation = false,
    .k_multiple = BB_QK,
    .m_multiple = BB_Q4_0_4_4_ROWS,
    .packed_size = bb_q4_0il_packed_size,
    .pack = bb_q4_0_4_4_pack,
    .unpack = bb_q4_0_4_4_unpack,
    .act_size = bb_qx_act_size,
    .prepare = bb_qx_prepare,
    .variants = {
        {"scalar", 0, bb_q4_0_4_4_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_q4_0_4_4_matmul_avx2, bb_qx_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_q4_0_4_4_matmul_avx512, bb_qx_prepare_avx512},
#endif
#if defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_q4_0_4_4_matmul_dotprod, NULL},
#endif
    },
};
