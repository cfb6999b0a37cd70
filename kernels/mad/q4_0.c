#include "q4_0.h"
#include "../common/amx_rule.h"

static size_t q4_0_packed_size(int m, int k) { return (size_t)m * (k / BB_QK) * sizeof(bb_block_q4_0); }

static int q4_0_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    bb_block_q4_0 *out = dst;
    for (size_t i = 0; i < (size_t)w->m * (w->k / BB_QK); i++) bb_quant_q4_0_block(w->f32 + i * BB_QK, &out[i]);
    return 0;
}

static uint16_t q4_0_get(const void *w, int m, int k, int r, int b, int8_t vals[BB_QK])
{
    (void)m;
    const bb_block_q4_0 *blk = (const bb_block_q4_0 *)w + (size_t)r * (k / BB_QK) + b;
    for (int j = 0; j < BB_QK / 2; j++) {
        vals[j] = (int8_t)((blk->qs[j] & 15) - 8);
        vals[j + BB_QK / 2] = (int8_t)((blk->qs[j] >> 4) - 8);
    }
    return blk->d;
}

static void q4_0_unpack(const void *src, int m, int k, float *dst) { bb_qx_unpack(q4_0_get, src, m, k, dst); }

static void q4_0_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_qx_matmul_ref(q4_0_get, w, act, y, m, k, n, m0, m1);
}

const bb_kernel bb_kernel_q4_0 = {
    .name = "q4_0",
    .family = "mad",
    .description = "llama.cpp Q4_0: blocks of 32 4-bit + fp16 scale, q8_0 activations",
    .paper = "llama.cpp GGUF Q4_0, as compared in bitnet.cpp §2 and Arm paper §2",
    .bits_per_weight = 4.5,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK32,
    .plain_rows = false,
    .gguf_type = "Q4_0",
    .float_accumulation = true,
    .k_multiple = BB_QK,
    .m_multiple = 1,
    .packed_size = q4_0_packed_size,
    .pack = q4_0_pack,
    .unpack = q4_0_unpack,
    .act_size = bb_qx_act_size,
    .prepare = bb_qx_prepare,
    .variants = {
        {"scalar", 0, q4_0_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_q4_0_matmul_avx2, bb_qx_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_q4_0_matmul_avx512, bb_qx_prepare_avx512},
        {"amx", BB_ISA_AMX, bb_q4_0_matmul_amx, bb_qx_prepare_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#endif
#if defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_q4_0_matmul_dotprod, bb_qx_prepare_neon},
#endif
    },
    .about = {
        .layout_text = "row-major; each row K/32 blocks of 18 bytes (ggml block_q4_0):\n"
            "fp16 d, then 16 bytes: byte j = weight j (low nibble), weight j+16 (high nibble);\n"
            "weight = (nibble - 8) * d",
        .block_weights = 32,
        .block_bytes = 18,
        .outside_blocks = "none",
        .activation = "q8_0: int8 in blocks of 32 with an fp16 scale d = amax/127 (llama.cpp block_q8_0), plus "
            "per-block float scales and 4-activation sums for the SIMD variants (kernels/mad/qx_0.h)",
        .act_bytes = 34.0 / 32,
        .int_ops = 2.0,
        .float_ops = 3.0 / 32,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .error = "weights rounded per block of 32 to 16 levels (nibble - 8) * d, d = max / -8 "
            "(quantize_row_q4_0_ref)",
    },
};
