/* i2_s — bitnet.cpp's lossless ternary multiply-add kernel (bitnet.cpp, §2 and Table 2).
 *
 * Layout: row-major; each row is K/128 blocks of 32 bytes.  Byte j of block b holds the 2-bit
 * codes c = t + 1 (t in {-1,0,+1}) of the four weights k = 128b + 32s + j, s = 0..3, code of
 * plane s in bits 7-2s..6-2s.  After the M*K/4 code bytes: one float, the per-tensor weight
 * scale (absmean, see common/ternary.h), padded to 64 bytes.  2 bits per weight.
 *
 * Activations: per-row int8 absmax (common/act_quant.h, BB_ACT_I8_ROW).
 *
 * Exact semantics: y[n][m] = bb_i8_dequant(sum_k t[m][k] * q[n][k], s_a[n], s_w)
 * with the integer sum exact in int32.  The SIMD variants compute sum_k c*q (unsigned code ×
 * signed activation: vpmaddubsw / vpdpbusd; on Arm SDOT) and subtract the row's sum of q, which
 * is exact.
 */
#ifndef BB_I2_S_H
#define BB_I2_S_H

#include "../common/act_quant.h"
#include "../kernel.h"

#define BB_I2S_BLOCK 128

void bb_i2_s_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_i2_s_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_i2_s_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_i2_s_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_i2_s_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

static inline float bb_i2_s_scale(const void *w, int m, int k)
{
    const float *s = (const float *)((const uint8_t *)w + (size_t)m * k / 4);
    return *s;
}

/* Activation rows that share each decoded weight block in the AVX2 and Arm variants (prefill). */
#define BB_I2S_NB 4

/* One weight row (K/4 code bytes) against nb <= BB_I2S_NB activation rows q[0..nb):
 * out[c] = sum_k c_k * q[c][k], the codes c = t + 1 as stored. */
typedef void (*bb_i2_s_row_fn)(const uint8_t *row, const int8_t *const *q, int nb, int k, int32_t *out);

/* The matmul around a row_dot: activation rows in groups of BB_I2S_NB, each weight row's code
 * sums for the group, minus each activation row's qsum (sum (t + 1) q - sum q = sum t q, exact),
 * dequantized as the reference does. */
static inline void bb_i2_s_matmul_rows(bb_i2_s_row_fn row_dot, const void *w, const void *act, float *y, int m,
                                       int k, int n, int m0, int m1)
{
    float ws = bb_i2_s_scale(w, m, k);
    for (int c0 = 0; c0 < n; c0 += BB_I2S_NB) {
        int nb = n - c0 < BB_I2S_NB ? n - c0 : BB_I2S_NB;
        const int8_t *q[BB_I2S_NB];
        for (int c = 0; c < nb; c++) q[c] = bb_i8_row_q(act, k, c0 + c);
        for (int r = m0; r < m1; r++) {
            int32_t sum[BB_I2S_NB];
            row_dot((const uint8_t *)w + (size_t)r * k / 4, q, nb, k, sum);
            for (int c = 0; c < nb; c++) {
                const bb_i8_row_head *h = bb_i8_row(act, k, c0 + c);
                y[(size_t)(c0 + c) * m + r] = bb_i8_dequant(sum[c] - h->qsum, h->scale, ws);
            }
        }
    }
}

#endif
