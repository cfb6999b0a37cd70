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
        {"avx2", BB_ISA_AVX2, bb_tl2_1_avx2, bb_tl2_1_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_tl2_1_avx512, bb_tl2_1_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tl2_1_neon, bb_tl2_1_prepare_neon},
#endif
    },
};
