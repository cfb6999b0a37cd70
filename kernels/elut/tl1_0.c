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
        {"avx2", BB_ISA_AVX2, bb_tl1_0_avx2, bb_tl1_0_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_tl1_0_avx512, bb_tl1_0_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tl1_0_neon, bb_tl1_0_prepare_neon},
#endif
    },
};
