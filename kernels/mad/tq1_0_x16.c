/* tq1_0_x16: packing, the reference and the descriptor.  See tq1_0_x16.h. */
#include "tq1_0_x16.h"
#include "../common/amx_rule.h"

#define layout bb_tq1_0_x16_layout

static size_t tq1_0_x16_packed_size(int m, int k) { return (size_t)m * bb_tq1_0_row_bytes(k); }

static void pack_block(const bb_weights *w, int r, int b, void *blk)
{
    bb_tq1_0_pack_block(w->ternary + (size_t)r * w->k + (size_t)b * BB_QK_K, bb_fp32_to_fp16(w->ternary_scale), blk);
}

static int tq1_0_x16_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    bb_il_pack(&layout, w, dst, pack_block);
    return 0;
}

static void unpack_block(const void *blk, float *dst) { bb_tq1_0_unpack_block(blk, dst); }

static void tq1_0_x16_unpack(const void *src, int m, int k, float *dst)
{
    bb_il_unpack(&layout, src, m, k, dst, unpack_block);
}

static float block_term(const void *blk, const void *a) { return bb_tq1_0_block_term(blk, a); }

static void tq1_0_x16_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_il_matmul_ref(&layout, w, act, (size_t)(k / BB_QK_K) * sizeof(bb_block_q8_K), sizeof(bb_block_q8_K), block_term,
                     y, m, k, n, m0, m1);
}

static void tq1_0_x16_repack(const void *src, int m, int k, void *dst) { bb_il_repack(&layout, src, m, k, dst); }

const bb_kernel bb_kernel_tq1_0_x16 = {
    .name = "tq1_0_x16",
    .family = "mad",
    .description = "TQ1_0 with 16 rows interleaved (SIMD-aware packing), 16 outputs per pass",
    .paper = "Arm paper §4.1 SIMD-aware packing of GGUF TQ1_0 (bitnet.cpp §2, App. B.3)",
    .bits_per_weight = 54 * 8 / 256.0,
    .lossless = false,
    .weights = BB_WEIGHTS_TERNARY,
    .act = BB_ACT_I8_BLOCK256,
    .plain_rows = false,
    .float_accumulation = false,
    .k_multiple = BB_QK_K,
    .gguf_repack_type = "TQ1_0",
    .repack_stored = tq1_0_x16_repack,
    .m_multiple = BB_TQ1_0_X16_ROWS,
    .shape_error = bb_gk_shape_error,
    .packed_size = tq1_0_x16_packed_size,
    .pack = tq1_0_x16_pack,
    .unpack = tq1_0_x16_unpack,
    .act_size = bb_q8_K_rows_size,
    .prepare = bb_quant_q8_K_rows,
    .variants = {
        {"scalar", 0, tq1_0_x16_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tq1_0_x16_matmul_avx2, NULL},
        {"avx512", BB_ISA_AVX512, bb_tq1_0_x16_matmul_avx512, bb_quant_q8_K_rows_avx512, .stream_prefetch = true},
        {"amx", BB_ISA_AMX, bb_tq1_0_x16_matmul_amx, bb_quant_q8_K_rows_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#endif
#if defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_tq1_0_x16_matmul_dotprod, bb_quant_q8_K_rows_neon},
#endif
    },
    .about = {
        .layout_text = "M/16 row groups; group g is K/256 records of 864 bytes, record b = block b (tq1_0's) of "
            "rows 16g..16g+15:\n"
            "832 code bytes (4 bytes of each row in turn: one 32-bit lane per row), then 16 fp16 d\n"
            "(Arm paper §4.1.1): the same bytes as tq1_0, rearranged",
        .block_weights = 4096,
        .block_bytes = 864,
        .outside_blocks = "none",
        .activation = "q8_K: int8 in blocks of 256 with a float scale and int16 sums of each 16 (llama.cpp "
            "block_q8_K)",
        .act_bytes = 1.0 + 4.0 / 256,
        .int_ops = 2.0,
        .float_ops = 3.0 / 256,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .shape_rules = "K at most 131072 (512 blocks of 256: the int32 block sums stay exact)",
        .error = "as tq1_0: the same blocks and the same numbers as tq1_0's reference",
    },
};
