/* q8_0_x16: packing, the reference and the descriptor.  See q8_0_x16.h. */
#include "q8_0_x16.h"

#include <string.h>

#include "../common/amx_rule.h"

#define layout bb_q8_0_x16_layout

static size_t q8_0_x16_packed_size(int m, int k) { return (size_t)m * (k / BB_QK) * sizeof(bb_block_q8_0); }

/* Block b of row r as q8_0 quantizes it (quantize_row_q8_0_ref, one block at a time). */
static void pack_block(const bb_weights *w, int r, int b, void *blk)
{
    bb_quant_q8_0(w->f32 + (size_t)r * w->k + (size_t)b * BB_QK, BB_QK, blk);
}

static int q8_0_x16_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    bb_il_pack(&layout, w, dst, pack_block);
    return 0;
}

/* Block b of row r put back together: its fp16 scale and its 32 weights (qx_0.h's getter). */
static uint16_t q8_0_x16_get(const void *w, int m, int k, int r, int b, int8_t vals[BB_QK])
{
    (void)m;
    bb_block_q8_0 blk;
    bb_il_block(&layout, w, k, r, b, &blk);
    memcpy(vals, blk.qs, BB_QK);
    return blk.d;
}

static void q8_0_x16_unpack(const void *src, int m, int k, float *dst) { bb_qx_unpack(q8_0_x16_get, src, m, k, dst); }

static void q8_0_x16_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_qx_matmul_ref(q8_0_x16_get, w, act, y, m, k, n, m0, m1);
}

static void q8_0_x16_repack(const void *src, int m, int k, void *dst) { bb_il_repack(&layout, src, m, k, dst); }

const bb_kernel bb_kernel_q8_0_x16 = {
    .name = "q8_0_x16",
    .family = "mad",
    .description = "Q8_0 with 16 rows interleaved (SIMD-aware packing), 16 outputs per pass",
    .paper = "Arm paper §4.1 SIMD-aware packing of GGUF Q8_0 (as compared in bitnet.cpp §2)",
    .bits_per_weight = 8.5,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK32,
    .plain_rows = false,
    .float_accumulation = false,
    .k_multiple = BB_QK,
    .gguf_repack_type = "Q8_0",
    .repack_stored = q8_0_x16_repack,
    .m_multiple = BB_Q8_0_X16_ROWS,
    .packed_size = q8_0_x16_packed_size,
    .pack = q8_0_x16_pack,
    .unpack = q8_0_x16_unpack,
    .act_size = bb_qx_act_size,
    .prepare = bb_qx_prepare,
    .variants = {
        {"scalar", 0, q8_0_x16_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_q8_0_x16_matmul_avx2, bb_qx_prepare_avx2, .stream_prefetch = true},
        {"avx512", BB_ISA_AVX512, bb_q8_0_x16_matmul_avx512, bb_qx_prepare_avx512, .stream_prefetch = true},
        {"amx", BB_ISA_AMX, bb_q8_0_x16_matmul_amx, bb_qx_prepare_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#endif
#if defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_q8_0_x16_matmul_dotprod, bb_qx_prepare_neon, .stream_prefetch = true},
#endif
    },
    .about = {
        .layout_text = "M/16 row groups; group g is K/32 records of 544 bytes, record b = block b (q8_0's) of "
            "rows 16g..16g+15:\n"
            "16 fp16 d, then 512 int8 (4 of each row in turn: one 32-bit lane per row)\n"
            "(Arm paper §4.1.1): the same bytes as q8_0, rearranged",
        .block_weights = 512,
        .block_bytes = 544,
        .outside_blocks = "none",
        .activation = "q8_0: int8 in blocks of 32 with an fp16 scale d = amax/127 (llama.cpp block_q8_0), plus "
            "per-block float scales and sums for the SIMD variants (kernels/mad/qx_0.h)",
        .act_bytes = 34.0 / 32,
        .int_ops = 2.0,
        .float_ops = 3.0 / 32,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .error = "as q8_0: the same blocks and the same numbers as q8_0's reference",
    },
};
