#include "tq2_0.h"
#include "../common/amx_rule.h"

#include <string.h>

static size_t tq2_0_packed_size(int m, int k) { return (size_t)m * bb_tq2_0_row_bytes(k); }

void bb_tq2_0_pack_block(const int8_t *t, uint16_t d, bb_block_tq2_0 *out)
{
    memset(out->qs, 0, sizeof out->qs);
    for (int j = 0; j < 2; j++)
        for (int l = 0; l < 4; l++)
            for (int mm = 0; mm < 32; mm++)
                out->qs[32 * j + mm] |= (uint8_t)((t[128 * j + 32 * l + mm] + 1) << (2 * l));
    out->d = d;
}

static int tq2_0_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    uint16_t d = bb_fp32_to_fp16(w->ternary_scale);
    size_t nblk = (size_t)w->m * (w->k / BB_QK_K);
    /* rows are whole blocks: block b is t[256b..] */
    for (size_t b = 0; b < nblk; b++) bb_tq2_0_pack_block(w->ternary + b * BB_QK_K, d, (bb_block_tq2_0 *)dst + b);
    return 0;
}

static inline int tq2_0_code(const bb_block_tq2_0 *blk, int i)
{
    return (blk->qs[32 * (i / 128) + i % 32] >> (2 * ((i % 128) / 32))) & 3;
}

void bb_tq2_0_unpack_block(const bb_block_tq2_0 *blk, float *dst)
{
    float d = bb_fp16_to_fp32(blk->d);
    for (int i = 0; i < BB_QK_K; i++) dst[i] = (float)(tq2_0_code(blk, i) - 1) * d;
}

static void tq2_0_unpack(const void *src, int m, int k, float *dst)
{
    const bb_block_tq2_0 *blk = src;
    size_t nblk = (size_t)m * (k / BB_QK_K);
    for (size_t b = 0; b < nblk; b++) bb_tq2_0_unpack_block(&blk[b], dst + b * BB_QK_K);
}

float bb_tq2_0_block_term(const bb_block_tq2_0 *x, const bb_block_q8_K *a)
{
    int32_t isum = 0;
    for (int i = 0; i < BB_QK_K; i++) isum += (tq2_0_code(x, i) - 1) * a->qs[i];
    return (float)isum * (a->d * bb_fp16_to_fp32(x->d));
}

static void tq2_0_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK_K;
    for (int c = 0; c < n; c++) {
        const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nblk;
        for (int r = m0; r < m1; r++) {
            const bb_block_tq2_0 *x = (const bb_block_tq2_0 *)w + (size_t)r * nblk;
            float sumf = 0.0f;
            for (int b = 0; b < nblk; b++) sumf += bb_tq2_0_block_term(&x[b], &a[b]);
            y[(size_t)c * m + r] = sumf;
        }
    }
}

const bb_kernel bb_kernel_tq2_0 = {
    .name = "tq2_0",
    .family = "mad",
    .description = "llama.cpp TQ2_0: ternary 2-bit codes, fp16 scale per 256, q8_K activations",
    .paper = "bitnet.cpp §2, element-wise MAD; GGUF TQ2_0",
    .bits_per_weight = 66 * 8 / 256.0,
    .lossless = false,
    .weights = BB_WEIGHTS_TERNARY,
    .act = BB_ACT_I8_BLOCK256,
    .plain_rows = false,
    .gguf_type = "TQ2_0",
    .float_accumulation = true,
    .k_multiple = BB_QK_K,
    .m_multiple = 1,
    .shape_error = bb_gk_shape_error,
    .packed_size = tq2_0_packed_size,
    .pack = tq2_0_pack,
    .unpack = tq2_0_unpack,
    .act_size = bb_q8_K_rows_size,
    .prepare = bb_quant_q8_K_rows,
    .variants = {
        {"scalar", 0, tq2_0_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_tq2_0_matmul_avx2, NULL},
        {"avx512", BB_ISA_AVX512, bb_tq2_0_matmul_avx512, bb_quant_q8_K_rows_avx512},
        {"amx", BB_ISA_AMX, bb_tq2_0_matmul_amx, bb_quant_q8_K_rows_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#endif
#if defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_tq2_0_matmul_neon, bb_quant_q8_K_rows_neon},
        {"dotprod", BB_ISA_DOTPROD, bb_tq2_0_matmul_dotprod, bb_quant_q8_K_rows_neon},
#endif
    },
    .about = {
        .layout_text = "row-major; each row K/256 blocks of 66 bytes { uint8 qs[64]; fp16 d } (ggml TQ2_0):\n"
            "codes t + 1, value 128j + 32l + m in bits 2l..2l+1 of qs[32j + m];\n"
            "d: the per-tensor ternary scale rounded to fp16, in every block",
        .block_weights = 256,
        .block_bytes = 66,
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
        .error = "ternary weights stored exactly, the per-tensor scale rounded to fp16; activations "
            "rounded per block of 256 (q8_K), so not lossless for BitNet b1.58, which quantizes "
            "activations per tensor",
    },
};
