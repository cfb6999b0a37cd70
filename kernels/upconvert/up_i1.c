/* up_i1: pack (sign bits in VNNI4 bit order, per-row mean-|w| scale), unpack, scalar reference
 * reading the packed layout, descriptor.  See up_i1.h. */
#include "up_i1.h"

#include "../common/i8_rows_simd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int8_t LEVELS_SIGN[2] = {1, -1}; /* bit 0 -> +1, bit 1 -> -1 (§III-D) */

static size_t up_i1_packed_size(int m, int k) { return bb_up_packed_size(m, k, 1); }

/* Byte and bit of (row r, column kk) in the packed blocks (up_i1.h). */
static inline size_t bit_byte(int k, int r, int kk, int *bit)
{
    int b = r / BB_UP_MB, rr = r % BB_UP_MB;
    int i = 4 * (rr % 8) + kk % 4; /* bit within dword rr / 8 */
    *bit = i % 8;
    return (size_t)b * BB_UP_MB * (size_t)k / 8 + (size_t)(kk / 4) * BB_UP_I1_GROUP + 4 * (rr / 8) + i / 8;
}

static int up_i1_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    int m = w->m, k = w->k;
    float *scales = malloc(sizeof(float) * (size_t)m);
    if (!scales) {
        snprintf(err, errlen, "out of memory packing %dx%d", m, k);
        return -1;
    }
    uint8_t *blocks = (uint8_t *)dst + BB_UP_HEAD + bb_up_scales_bytes(m);
    memset(blocks, 0, (size_t)m * k / 8);
    for (int r = 0; r < m; r++) {
        const float *wr = w->f32 + (size_t)r * k;
        /* mean |w| in double: K * a is exact there, so a {-a, +a} row gets a back exactly */
        double sum = 0;
        for (int i = 0; i < k; i++) sum += fabs((double)wr[i]);
        scales[r] = (float)(sum / k);
        for (int i = 0; i < k; i++) {
            int bit;
            size_t byte = bit_byte(k, r, i, &bit);
            if (wr[i] < 0.0f) blocks[byte] |= (uint8_t)(1u << bit);
        }
    }
    bb_up_write_head(dst, m, LEVELS_SIGN, 2, scales);
    free(scales);
    return 0;
}

static inline int sign_at(const void *src, int m, int k, int r, int kk)
{
    int bit;
    size_t byte = bit_byte(k, r, kk, &bit);
    return (bb_up_block(src, m, k, 1, 0)[byte] >> bit) & 1 ? -1 : 1;
}

static void up_i1_unpack(const void *src, int m, int k, float *dst)
{
    const float *scale = bb_up_scales(src);
    for (int r = 0; r < m; r++)
        for (int i = 0; i < k; i++) dst[(size_t)r * k + i] = (float)sign_at(src, m, k, r, i) * scale[r];
}

/* The reference: +-1 times int8 activations, walking the packed tiles. */
static void up_i1_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    const float *scale = bb_up_scales(w);
    for (int b = m0 / BB_UP_MB; b < (m1 + BB_UP_MB - 1) / BB_UP_MB; b++) {
        const uint8_t *blk = bb_up_block(w, m, k, 1, b);
        for (int c = 0; c < n; c++) {
            const int8_t *q = bb_i8_row_q(act, k, c);
            int32_t isum[BB_UP_MB] = {0};
            for (int g = 0; g < k / 4; g++)
                for (int j = 0; j < 4; j++)
                    for (int i = 0; i < 32; i++) {
                        int bit = (blk[(size_t)g * BB_UP_I1_GROUP + 4 * j + i / 8] >> (i % 8)) & 1;
                        isum[8 * j + i / 4] += (bit ? -1 : 1) * q[4 * g + i % 4];
                    }
            float as = bb_i8_row(act, k, c)->scale;
            for (int i = 0; i < BB_UP_MB; i++)
                y[(size_t)c * m + b * BB_UP_MB + i] = bb_i8_dequant(isum[i], as, scale[b * BB_UP_MB + i]);
        }
    }
}

const bb_kernel bb_kernel_up_i1 = {
    .name = "up_i1",
    .family = "upconvert",
    .description = "1-bit +-1 weights in VNNI4 bit order, per-row scale, shuffle/and/cmp/blend + int8 dot",
    .paper = "Intel up-convert paper §III-D, Fig. 2",
    .bits_per_weight = 1.0,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_ROW,
    .plain_rows = false,
    .k_multiple = 4,
    .m_multiple = BB_UP_MB,
    .shape_error = bb_up_shape_error,
    .packed_size = up_i1_packed_size,
    .pack = up_i1_pack,
    .unpack = up_i1_unpack,
    .act_size = bb_i8_rows_size,
    .prepare = bb_quant_i8_rows,
    .variants = {
        {"scalar", 0, up_i1_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_up_i1_matmul_avx2, bb_quant_i8_rows_avx2},
        {"avxvnni", BB_ISA_AVX2 | BB_CPU_AVXVNNI, bb_up_i1_matmul_avxvnni, bb_quant_i8_rows_avx2},
        {"avx512", BB_ISA_AVX512, bb_up_i1_matmul_avx512, bb_quant_i8_rows_avx512},
#elif defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_up_i1_matmul_dotprod, bb_quant_i8_rows_neon},
#endif
    },
    .about = {
        .layout_text = "VNNI4 bit order [M/32][K/4][m4][m8][k4] (Intel up-convert paper §III-D, Fig. 2): a "
            "16-byte group = 32 rows x 4 columns,\n"
            "dword m4 one 8x4 tile whose bit 4*m8 + k4 is the weight of row 8*m4 + m8, column k4; bit "
            "0 = +1, bit 1 = -1",
        .block_weights = 128,
        .block_bytes = 16,
        .outside_blocks = "a 64-byte head (the int8 level of each code and the SIMD offset), then one float scale "
            "per row, padded to 64 bytes (32 bits per row)",
        .activation = "per-row int8 absmax: s = 127 / max|x|, q = round(x s) (common/act_quant.h, the same q as "
            "i2_s)",
        .act_bytes = 1.0,
        .int_ops = 2.0,
        .float_ops = 0.0,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .shape_rules = "K at most 1048576 (the int32 dot products stay exact)",
        .error = "weights rounded to sign(w) times the row's mean |w| (rows exactly {-a, +a} stored "
            "exactly); the int32 sums exact, y = isum / s_a * scale[m]",
    },
};
