/* tl2_1: descriptor and scalar reference; the work is shared with the other TL kernels in
 * elut.c (pack, tables, reference) and elut_avx2.c / elut_avx512.c / elut_neon.c.  Semantics:
 * tl2_1.h. */
#include "tl2_1.h"

#include "elut.h"

ELUT_KERNEL_FUNCS(tl2_1, true, false)
#if defined(__x86_64__)
ELUT_KERNEL_X86_FUNCS(tl2_1)
#elif defined(__aarch64__)
ELUT_KERNEL_ARM_FUNCS(tl2_1)
#endif

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
    .packed_size = tl2_1_packed_size,
    .pack = tl2_1_pack,
    .unpack = tl2_1_unpack,
    .act_size = tl2_1_act_size,
    .prepare = tl2_1_prepare,
    .variants = {
        {"scalar", 0, tl2_1_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, tl2_1_avx2, tl2_1_prepare_avx2},
        {"avx512", BB_ISA_AVX512, tl2_1_avx512, tl2_1_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, tl2_1_neon, tl2_1_prepare_neon},
#endif
    },
};
