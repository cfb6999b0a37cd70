/* q2_k_x16: packing, the reference and the descriptor.  See q2_k_x16.h. */
#include "q2_k_x16.h"
#include "../common/amx_rule.h"

#define layout bb_q2_k_x16_layout

_Static_assert(sizeof(bb_block_q2_K) == 84, "a record holds 16 Q2_K blocks");

static size_t q2_k_x16_packed_size(int m, int k) { return (size_t)m * bb_q2_k_row_bytes(k); }

static void quant_block(const bb_weights *w, int r, int b, void *blk)
{
    bb_q2_k_quantize_block(w->f32 + (size_t)r * w->k + (size_t)b * BB_QK_K, blk);
}

static int q2_k_x16_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    bb_il_pack(&layout, w, dst, quant_block);
    return 0;
}

static void unpack_block(const void *blk, float *dst) { bb_q2_k_unpack_block(blk, dst); }

static void q2_k_x16_unpack(const void *src, int m, int k, float *dst)
{
    bb_il_unpack(&layout, src, m, k, dst, unpack_block);
}

static float block_term(const void *blk, const void *a) { return bb_q2_k_block_term(blk, a); }

static void q2_k_x16_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_il_matmul_ref(&layout, w, act, (size_t)(k / BB_QK_K) * sizeof(bb_block_q8_K), sizeof(bb_block_q8_K), block_term,
                     y, m, k, n, m0, m1);
}

static void q2_k_x16_repack(const void *src, int m, int k, void *dst) { bb_il_repack(&layout, src, m, k, dst); }

const bb_kernel bb_kernel_q2_k_x16 = {
    .name = "q2_k_x16",
    .family = "mad",
    .description = "Q2_K with 16 rows interleaved (SIMD-aware packing), 16 outputs per pass",
    .paper = "Arm paper §4.1 SIMD-aware packing of GGUF Q2_K; llama.cpp's Q2_K repack",
    .bits_per_weight = 84 * 8 / 256.0,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK256,
    .plain_rows = false,
    .float_accumulation = false,
    .k_multiple = BB_QK_K,
    .gguf_repack_type = "Q2_K",
    .repack_stored = q2_k_x16_repack,
    .m_multiple = BB_Q2_K_X16_ROWS,
    .shape_error = bb_gk_shape_error,
    .packed_size = q2_k_x16_packed_size,
    .pack = q2_k_x16_pack,
    .unpack = q2_k_x16_unpack,
    .act_size = bb_q8_K_rows_size,
    .prepare = bb_quant_q8_K_rows,
    .variants = {
        {"scalar", 0, q2_k_x16_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_q2_k_x16_matmul_avx2, NULL},
        {"avx512", BB_ISA_AVX512, bb_q2_k_x16_matmul_avx512, bb_quant_q8_K_rows_avx512, .stream_prefetch = true},
        {"amx", BB_ISA_AMX, bb_q2_k_x16_matmul_amx, bb_quant_q8_K_rows_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#endif
#if defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_q2_k_x16_matmul_dotprod, bb_quant_q8_K_rows_neon},
#endif
    },
    .about = {
        .layout_text = "M/16 row groups; group g is K/256 records of 1344 bytes, record b = block b (q2_k's) of "
            "rows 16g..16g+15:\n"
            "scales (256 bytes), qs (1024 bytes: 4 code bytes per row in turn, one 32-bit lane per "
            "row), d and dmin (64 bytes)\n"
            "(Arm paper §4.1.1, llama.cpp's Q2_K repack): the same bytes as q2_k, rearranged",
        .block_weights = 4096,
        .block_bytes = 1344,
        .outside_blocks = "none",
        .activation = "q8_K: int8 in blocks of 256 with a float scale and int16 sums of each 16 (llama.cpp "
            "block_q8_K)",
        .act_bytes = 1.0 + 4.0 / 256 + 2.0 / 16,
        .int_ops = 2.0 + 2.0 / 16 + 2.0 / 16,
        .float_ops = 6.0 / 256,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .shape_rules = "K at most 131072 (512 blocks of 256: the int32 block sums stay exact)",
        .error = "as q2_k: the same quantizer per block and the same numbers as q2_k's reference",
    },
};
