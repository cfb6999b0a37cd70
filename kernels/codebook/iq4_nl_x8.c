/* iq4_nl_x8: packing, the reference and the descriptor.  See iq4_nl_x8.h. */
#include "iq4_nl_x8.h"
#include "../common/amx_rule.h"

#include <string.h>

static size_t iq4_nl_x8_packed_size(int m, int k) { return (size_t)m * (k / BB_QK4_NL) * sizeof(bb_iq4_nl_block); }

_Static_assert(sizeof(bb_iq4_nl_block) == BB_NIBBLE_BLOCK_BYTES, "an IQ4_NL block is the 18-byte block of the nibble records");

/* The 8-row nibble records (common/nibble_records.h's bb_nibble_x8_layout, q4_0x8's too) of IQ4_NL blocks, indices stored as they are. */
static void quant_block(const bb_weights *w, int r, int b, void *dst)
{
    bb_iq4_nl_block blk;
    bb_iq4_nl_quant_block(w->f32 + (size_t)r * w->k + (size_t)b * BB_QK4_NL, &blk);
    memcpy(dst, &blk, sizeof blk); /* dst: row_interleave's byte buffer */
}

static int iq4_nl_x8_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    bb_il_pack(&bb_nibble_x8_layout, w, dst, quant_block);
    return 0;
}

/* Block b of row r, put back together from its record. */
static void iq4_nl_x8_get(const void *w, int k, int r, int b, bb_iq4_nl_block *out)
{
    bb_il_block(&bb_nibble_x8_layout, w, k, r, b, out);
}

static void iq4_nl_x8_unpack(const void *src, int m, int k, float *dst)
{
    bb_iq4_nl_unpack_with(iq4_nl_x8_get, src, m, k, dst);
}

static void iq4_nl_x8_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_iq4_nl_matmul_ref_with(iq4_nl_x8_get, w, act, y, m, k, n, m0, m1);
}

/* A GGUF IQ4_NL tensor's blocks into the records, indices as they are (kernel.h
 * gguf_repack_type), as llama.cpp's CPU_REPACK buffers repack IQ4_NL at load. */
static void iq4_nl_x8_repack(const void *src, int m, int k, void *dst) { bb_il_repack(&bb_nibble_x8_layout, src, m, k, dst); }

const bb_kernel bb_kernel_iq4_nl_x8 = {
    .name = "iq4_nl_x8",
    .family = "codebook",
    .description = "IQ4_NL with 8 rows interleaved (SIMD-aware packing), 8 outputs per pass",
    .paper = "Arm paper §4.1 packing of the §6.3 IQ4_NL codebook; llama.cpp's IQ4_NL repack",
    .bits_per_weight = 4.5,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK32,
    .plain_rows = false,
    .float_accumulation = false,
    .k_multiple = BB_QK4_NL,
    .gguf_repack_type = "IQ4_NL",
    .repack_stored = iq4_nl_x8_repack,
    .m_multiple = BB_NIBBLE_X8_ROWS,
    .packed_size = iq4_nl_x8_packed_size,
    .pack = iq4_nl_x8_pack,
    .unpack = iq4_nl_x8_unpack,
    .act_size = bb_qx_act_size,
    .prepare = bb_qx_prepare,
    .variants = {
        {"scalar", 0, iq4_nl_x8_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_iq4_nl_x8_matmul_avx2, bb_qx_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_iq4_nl_x8_matmul_avx512, bb_qx_prepare_avx512},
        {"amx", BB_ISA_AMX, bb_iq4_nl_x8_matmul_amx, bb_qx_prepare_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#endif
#if defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_iq4_nl_x8_matmul_dotprod, bb_qx_prepare_neon},
        {"i8mm", BB_ISA_I8MM, bb_iq4_nl_x8_matmul_i8mm, bb_qx_prepare_neon},
#endif
    },
    .about = {
        .layout_text = "q4_0x8's records (M/8 row groups, K/32 records of 144 bytes: 8 fp16 d, then the rows' "
            "index bytes in 8-byte chunks)\n"
            "holding iq4_nl blocks, indices as they are (no XOR) (Arm paper §4.1.1, llama.cpp's "
            "IQ4_NL repack): the same bytes as iq4_nl, rearranged",
        .block_weights = 256,
        .block_bytes = 144,
        .outside_blocks = "none",
        .activation = "q8_0: int8 in blocks of 32 with an fp16 scale d = amax/127 (llama.cpp block_q8_0), plus "
            "per-block float scales and 4-activation sums for the SIMD variants (kernels/mad/qx_0.h)",
        .act_bytes = 34.0 / 32,
        .int_ops = 2.0,
        .float_ops = 3.0 / 32,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .error = "weights: per block of 32 the nearest of the 16 IQ4_NL table values times an fp16 scale, "
            "the best of 15 candidate scales (least squares); the same numbers as iq4_nl's reference",
    },
};
