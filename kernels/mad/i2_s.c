#include "i2_s.h"

#include <string.h>

#include "../common/act_quant.h"
#include "../common/i8_rows_simd.h"
#include "../common/amx_rule.h"

/* The AVX-512 variant keeps 64*code*q sums in int32: exact while 128*127*K/4 < 2^31. */
static const char *i2_s_shape_error(int m, int k)
{
    (void)m;
    return k > (1 << 18) ? "K must be at most 262144 (int32 accumulators stay exact)" : NULL;
}

static size_t i2_s_packed_size(int m, int k) { return (size_t)m * k / 4 + 64; }

static int i2_s_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    uint8_t *out = dst;
    size_t row_bytes = (size_t)w->k / 4;
    for (int r = 0; r < w->m; r++) {
        const int8_t *t = w->ternary + (size_t)r * w->k;
        uint8_t *o = out + (size_t)r * row_bytes;
        for (int b = 0; b < w->k / BB_I2S_BLOCK; b++)
            for (int j = 0; j < 32; j++) {
                uint8_t byte = 0;
                for (int s = 0; s < 4; s++)
                    byte |= (uint8_t)((t[b * BB_I2S_BLOCK + 32 * s + j] + 1) << (6 - 2 * s));
                o[b * 32 + j] = byte;
            }
    }
    memset(out + (size_t)w->m * row_bytes, 0, 64);
    memcpy(out + (size_t)w->m * row_bytes, &w->ternary_scale, sizeof(float));
    return 0;
}

static inline int i2_s_code(const uint8_t *row, int kk)
{
    int b = kk / BB_I2S_BLOCK, s = (kk % BB_I2S_BLOCK) / 32, j = kk % 32;
    return (row[b * 32 + j] >> (6 - 2 * s)) & 3;
}

static void i2_s_unpack(const void *src, int m, int k, float *dst)
{
    float s = bb_i2_s_scale(src, m, k);
    for (int r = 0; r < m; r++) {
        const uint8_t *row = (const uint8_t *)src + (size_t)r * k / 4;
        for (int i = 0; i < k; i++) dst[(size_t)r * k + i] = (float)(i2_s_code(row, i) - 1) * s;
    }
}

static void i2_s_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    float ws = bb_i2_s_scale(w, m, k);
    for (int c = 0; c < n; c++) {
        const int8_t *q = bb_i8_row_q(act, k, c);
        float as = bb_i8_row(act, k, c)->scale;
        for (int r = m0; r < m1; r++) {
            const uint8_t *row = (const uint8_t *)w + (size_t)r * k / 4;
            int32_t sum = 0;
            for (int i = 0; i < k; i++) sum += (i2_s_code(row, i) - 1) * q[i];
            y[(size_t)c * m + r] = bb_i8_dequant(sum, as, ws);
        }
    }
}

const bb_kernel bb_kernel_i2_s = {
    .name = "i2_s",
    .family = "mad",
    .description = "ternary 2-bit codes, per-tensor scale, int8 activations (lossless)",
    .paper = "bitnet.cpp §2, Table 2",
    .bits_per_weight = 2.0,
    .lossless = true,
    .weights = BB_WEIGHTS_TERNARY,
    .act = BB_ACT_I8_ROW,
    .plain_rows = false,
    .gguf_type = "I2_S",
    .k_multiple = BB_I2S_BLOCK,
    .m_multiple = 1,
    .shape_error = i2_s_shape_error,
    .packed_size = i2_s_packed_size,
    .pack = i2_s_pack,
    .unpack = i2_s_unpack,
    .act_size = bb_i8_rows_size,
    .prepare = bb_quant_i8_rows,
    .variants = {
        {"scalar", 0, i2_s_matmul_ref, NULL},
        /* the SIMD activation quantizers write the same bytes as bb_quant_i8_rows */
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_i2_s_matmul_avx2, bb_quant_i8_rows_avx2},
        {"avx512", BB_ISA_AVX512, bb_i2_s_matmul_avx512, bb_quant_i8_rows_avx512},
        {"amx", BB_ISA_AMX, bb_i2_s_matmul_amx, bb_quant_i8_rows_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#endif
#if defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_i2_s_matmul_neon, bb_quant_i8_rows_neon},
        {"dotprod", BB_ISA_DOTPROD, bb_i2_s_matmul_dotprod, bb_quant_i8_rows_neon},
#endif
    },
    .about = {
        .layout_text = "row-major; each row K/128 blocks of 32 bytes: byte j of block b holds the 2-bit codes t "
            "+ 1\n"
            "of weights 128b + 32s + j, s = 0..3 (plane s in bits 7-2s..6-2s)",
        .block_weights = 128,
        .block_bytes = 32,
        .outside_blocks = "one float per tensor (the absmean ternary scale), padded to 64 bytes",
        .activation = "per-row int8 absmax: s = 127 / max|x|, q = round(x s) (common/act_quant.h, the same q as "
            "i2_s)",
        .act_bytes = 1.0,
        .int_ops = 2.0,
        .float_ops = 0.0,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .shape_rules = "K at most 262144 (the AVX-512 variant's int32 sums stay exact)",
        .error = "lossless for ternary weights over per-row int8 activations: the int32 sum of t*q is "
            "exact, y = isum / s_a * s_w in float (bb_i8_dequant): bit for bit what i2_s, tl1_1 and "
            "tl2_1 compute (tests/test_lossless.c)",
    },
};
