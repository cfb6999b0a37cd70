/* i2_s on AMX tiles (common/amx.h).  A block of 128 weights is 32 code bytes with plane s
 * (weights 32s..32s+31) at bits 7-2s..6-2s (i2_s.h): one broadcast load, a shift by 6 | 4 (then
 * 2 | 0) per 16-bit lane and an AND give weights 0..63 (64..127) as int8 t = c - 1 in order.
 * One segment, all of K, ends in bb_i8_dequant with the per-tensor scale: the reference's bits. */
#include "../common/amx.h"
#include "i2_s.h"

static void i2_s_weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    const __m512i planes01 = bb_amx_shift_pair(6, 4), planes23 = bb_amx_shift_pair(2, 0);
    for (int i = 0; i < rows; i++) {
        const uint8_t *row = (const uint8_t *)w + (size_t)(r + i) * k / 4;
        int8_t *out = dst + i * stride;
        for (int b = 0; b < k / BB_I2S_BLOCK; b++) {
            bb_amx_ternary64(row + 32 * b, planes01, out + BB_I2S_BLOCK * b);
            bb_amx_ternary64(row + 32 * b, planes23, out + BB_I2S_BLOCK * b + 64);
        }
    }
}

static const void *i2_s_row_start(const void *w, int m, int k, int r)
{
    (void)m;
    return (const uint8_t *)w + (size_t)r * k / 4;
}

static void i2_s_weight_scales(const void *w, int m, int k, int r, int rows, float *dw)
{
    (void)r;
    float s = bb_i2_s_scale(w, m, k);
    for (int i = 0; i < rows; i++) dw[i] = s;
}

static const bb_amx_ops i2_s_amx = {
    .seg = 0,
    .fold = BB_AMX_DEQUANT_ROW,
    .weights_i8 = i2_s_weights_i8,
    .row_start = i2_s_row_start,
    .weight_scales = i2_s_weight_scales,
    .act_i8 = bb_amx_i8_row_act,
    .act_scales = bb_amx_i8_row_scales,
    .small_n = bb_i2_s_matmul_avx512,
};

void bb_i2_s_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&i2_s_amx, w, act, y, m, k, n, m0, m1);
}
