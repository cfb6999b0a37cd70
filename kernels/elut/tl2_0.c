/* tl2_0: descriptor and scalar reference; the work is shared with the other TL kernels in
 * elut.c (pack, tables, reference) and elut_avx2.c / elut_avx512.c / elut_neon.c.  Semantics:
 * tl2_0.h. */
#include "tl2_0.h"

#include "elut.h"

ELUT_KERNEL_FUNCS(tl2_0, true, true)
#if defined(__x86_64__)
ELUT_KERNEL_X86_FUNCS(tl2_0)
#elif defined(__aarch64__)
ELUT_KERNEL_ARM_FUNCS(tl2_0)
#endif

static double tl2_0_error_bound(const float *wdeq_row, const float *x, int k)
{
    return elut_error_bound(wdeq_row, x, k, true);
}

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
    .packed_size = tl2_0_packed_size,
    .pack = tl2_0_pack,
    .unpack = tl2_0_unpack,
    .act_size = tl2_0_act_size,
    .prepare = tl2_0_prepare,
    .error_bound = tl2_0_error_bound,
    .variants = {
        {"scalar", 0, tl2_0_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, tl2_0_avx2, tl2_0_prepare_avx2},
        {"avx512", BB_ISA_AVX512, tl2_0_avx512, tl2_0_prepare_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, tl2_0_neon, tl2_0_prepare_neon},
#endif
    },
};
