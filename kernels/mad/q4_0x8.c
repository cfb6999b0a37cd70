/* q4_0x8: its records' layout (its parameters), bound to the shared code one line each:
 * q4_0_interleaved.c over row_interleave.c, and q4_0's scalar reference (qx_0.c). */
#include "q4_0x8.h"
#include "../common/amx_rule.h"

const bb_il_layout bb_q4_0x8_layout = {
    .rows = BB_Q4_0X8_ROWS,
    .block_values = BB_QK,
    .block_bytes = sizeof(bb_block_q4_0),
    .nsections = 2,
    .sections = {{2, 1}, {BB_Q4_0X8_CHUNK, BB_QK / 2 / BB_Q4_0X8_CHUNK}}, /* d, then the qs in chunks */
};

static size_t q4_0x8_packed_size(int m, int k) { return (size_t)m * (k / BB_QK) * sizeof(bb_block_q4_0); }

static int q4_0x8_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    bb_q4_0il_pack(&bb_q4_0x8_layout, w, dst);
    return 0;
}

static uint16_t q4_0x8_get(const void *w, int m, int k, int r, int b, int8_t vals[BB_QK])
{
    (void)m;
    return bb_q4_0il_get(&bb_q4_0x8_layout, w, k, r, b, vals);
}

static void q4_0x8_unpack(const void *src, int m, int k, float *dst) { bb_qx_unpack(q4_0x8_get, src, m, k, dst); }

static void q4_0x8_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_qx_matmul_ref(q4_0x8_get, w, act, y, m, k, n, m0, m1);
}

/* A GGUF Q4_0 tensor's blocks into the records (kernel.h gguf_repack_type), as llama.cpp's
 * CPU_REPACK buffers make block_q4_0x8 from Q4_0 at load. */
static void q4_0x8_repack(const void *src, int m, int k, void *dst) { bb_q4_0il_repack(&bb_q4_0x8_layout, src, m, k, dst); }

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
    .repack_stored = q4_0x8_repack,
    .m_multiple = BB_Q4_0X8_ROWS,
    .packed_size = q4_0x8_packed_size,
    .pack = q4_0x8_pack,
    .unpack = q4_0x8_unpack,
    .act_size = bb_qx_act_size,
    .prepare = bb_qx_prepare,
    .variants = {
        {"scalar", 0, q4_0x8_matmul_ref, NULL},
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
