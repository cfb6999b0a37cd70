/* tl1_0: descriptor and scalar reference; the work is shared with the other TL kernels in
 * elut.c (pack, tables, reference) and elut_avx2.c / elut_avx512.c / elut_neon.c.  Semantics:
 * tl1_0.h. */
#include "tl1_0.h"

#include "elut.h"

ELUT_KERNEL_FUNCS(tl1_0, false, true)
#if defined(__x86_64__)
ELUT_KERNEL_X86_FUNCS(tl1_0)
#elif defined(__aarch64__)
ELUT_KERNEL_ARM_FUNCS(tl1_0)
#endif

static double tl1_0_error_bound(const float *wdeq_row, const float *x, int k)
{
    return elut_error_bound(wdeq_row, x, k, false);
}

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
    .packed_size = tl1_0_packed_size,
    .pack = tl1_0_pack,
    .unpack = tl1_0_unpack,
    .act_size = tl1_0_act_size,
    .prepare = tl1_0_prepare,
    .error_bound = tl1_0_error_bound,
    .variants = {
        {"scalar", 0, tl1_0_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, tl1_0_avx2, tl1_0_prepare_avx2},
        {"avx512", BB_ISA_AVX512, tl1_0_avx512, tl1_0_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, tl1_0_neon, tl1_0_prepare_neon},
#endif
    },
};
