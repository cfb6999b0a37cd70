/* tl1_1: descriptor and scalar reference; the work is shared with the other TL kernels in
 * elut.c (pack, tables, reference) and elut_avx2.c / elut_avx512.c / elut_neon.c.  Semantics:
 * tl1_1.h. */
#include "tl1_1.h"

#include "elut.h"

ELUT_KERNEL_FUNCS(tl1_1, false, false)
#if defined(__x86_64__)
ELUT_KERNEL_X86_FUNCS(tl1_1)
#elif defined(__aarch64__)
ELUT_KERNEL_ARM_FUNCS(tl1_1)
#endif

const bb_kernel bb_kernel_tl1_1 = {
    .name = "tl1_1",
    .family = "elut",
    .description = "TL1: pairs -> 4-bit index, int16 tables as two byte tables (lossless)",
    .paper = "bitnet.cpp §3.1-3.2, Table 5, Alg. 3",
    .bits_per_weight = 2.0,
    .lossless = true,
    .weights = BB_WEIGHTS_TERNARY,
    .act = BB_ACT_I8_ROW,
    .plain_rows = false,
    .k_multiple = ELUT_KMULT,
    .m_multiple = 1,
    .shape_error = elut_shape_error,
    .packed_size = tl1_1_packed_size,
    .pack = tl1_1_pack,
    .unpack = tl1_1_unpack,
    .act_size = tl1_1_act_size,
    .prepare = tl1_1_prepare,
    .variants = {
        {"scalar", 0, tl1_1_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, tl1_1_avx2, tl1_1_prepare_avx2},
        {"avx512", BB_ISA_AVX512, tl1_1_avx512, tl1_1_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, tl1_1_neon, tl1_1_prepare_neon},
#endif
    },
};
