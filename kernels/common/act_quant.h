/* Activation quantization shared by the kernels (one copy, so kernels that claim to compute the
 * same numbers really start from the same int8 values).
 *
 * Per-row int8 (BitNet b1.58, "absmax" per token; for N = 1 this is per tensor):
 *     s = 127 / max_k |x_k|          (s = 0 and all q = 0 when the row is all zeros)
 *     q_k = clamp(nearbyint(x_k * s), -127, 127)     (round half to even)
 *     y = isum / s * w_scale         (bb_i8_dequant, float arithmetic in exactly this order)
 * The prepared buffer of BB_ACT_I8_ROW kernels is N rows of bb_i8_row_stride(K) bytes:
 *     struct bb_i8_row_head { float scale; int32_t qsum; ... } then K int8 at offset 64.
 *
 * llama.cpp's q8_0 (blocks of 32, fp16 d, d = amax/127, q = round(x/d) half away from zero) and
 * q8_K (blocks of 256, float d, signed max mapped to -127 as ggml's quantize_row_q8_K_ref does,
 * int16 sums of each 16) are byte
 * compatible with ggml's block_q8_0 / block_q8_K.
 */
#ifndef BB_ACT_QUANT_H
#define BB_ACT_QUANT_H

#include <stddef.h>
#include <stdint.h>

#define BB_I8_ROW_HEAD 64

typedef struct {
    float scale;  /* s: q = x * s */
    int32_t qsum; /* sum of the row's q, for kernels that store weights with an offset */
} bb_i8_row_head;

static inline size_t bb_i8_row_stride(int k) { return BB_I8_ROW_HEAD + (((size_t)k + 63) & ~(size_t)63); }
size_t bb_i8_rows_size(int n, int k);
void bb_quant_i8_rows(const float *x, int n, int k, void *dst);
static inline const bb_i8_row_head *bb_i8_row(const void *act, int k, int row)
{
    return (const bb_i8_row_head *)((const char *)act + (size_t)row * bb_i8_row_stride(k));
}
static inline const int8_t *bb_i8_row_q(const void *act, int k, int row)
{
    return (const int8_t *)((const char *)act + (size_t)row * bb_i8_row_stride(k) + BB_I8_ROW_HEAD);
}
/* The dequantization every per-row-int8 kernel uses, so lossless kernels agree bit for bit. */
static inline float bb_i8_dequant(int32_t isum, float act_scale, float w_scale)
{
    return act_scale == 0.0f ? 0.0f : (float)isum / act_scale * w_scale;
}

/* ---- llama.cpp q8_0: 34 bytes per 32 values ---- */
#define BB_QK8_0 32
typedef struct {
    uint16_t d; /* fp16 */
    int8_t qs[BB_QK8_0];
} bb_block_q8_0;
void bb_quant_q8_0(const float *x, int k, bb_block_q8_0 *dst);
size_t bb_q8_0_rows_size(int n, int k);
void bb_quant_q8_0_rows(const float *x, int n, int k, void *dst);

/* ---- llama.cpp q8_K: 292 bytes per 256 values ---- */
#define BB_QK_K 256
typedef struct {
    float d;
    int8_t qs[BB_QK_K];
    int16_t bsums[BB_QK_K / 16];
} bb_block_q8_K;
void bb_quant_q8_K(const float *x, int k, bb_block_q8_K *dst);
size_t bb_q8_K_rows_size(int n, int k);
void bb_quant_q8_K_rows(const float *x, int n, int k, void *dst);

#endif
