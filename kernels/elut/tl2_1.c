/* tl2_1: descriptor and scalar reference; the work is shared with the other TL kernels in
 * elut.c (pack, tables, reference) and elut_avx2.c / elut_avx512.c / elut_neon.c.  Semantics:
 * tl2_1.h. */
#include "tl2_1.h"

#include "elut.h"

/* This kernel's parameters (elut.h: TL2, int16 tables), bound to the descriptor's function
 * pointers one line each.  The names are the kernel's own: scripts/insn-table finds the variant
 * functions by name. */
static const elut_kind kind = {.tl2 = true, .q8 = false};

static size_t tl2_1_packed_size(int m, int k) { return elut_packed_size(m, k, kind.tl2); }
static int tl2_1_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return elut_pack(w, dst, kind.tl2);
}
static void tl2_1_unpack(const void *src, int m, int k, float *dst) { elut_unpack(src, m, k, dst, kind.tl2); }
static size_t tl2_1_act_size(int n, int k) { return elut_act_size(n, k, kind); }

static void tl2_1_prepare(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, kind, bb_quant_i8_rows, elut_tables_ref);
}
static void tl2_1_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_ref(w, act, y, m, k, n, m0, m1, kind);
}
#if defined(__x86_64__)
static void tl2_1_prepare_avx2(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, kind, bb_quant_i8_rows_avx2, elut_tables_avx2);
}
static void tl2_1_prepare_avx512(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, kind, bb_quant_i8_rows_avx512, elut_tables_avx512);
}
static void tl2_1_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_avx2(w, act, y, m, k, n, m0, m1, kind);
}
static void tl2_1_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_avx512(w, act, y, m, k, n, m0, m1, kind);
}
#elif defined(__aarch64__)
static void tl2_1_prepare_neon(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, kind, bb_quant_i8_rows_neon, elut_tables_neon);
}
static void tl2_1_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_neon(w, act, y, m, k, n, m0, m1, kind);
}
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
