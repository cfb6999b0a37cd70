/* q8_0, q4_0 and q4_0x8 on AMX tiles (common/amx.h).  One segment per 32-weight block (one TDPBSSD of
 * K = 32 per tile pair), folded as qx_0.h's reference does: y = y + ((float)isum * d_w) * d_a,
 * blocks in order, so all three give the reference's bits (the AVX-512 variants of q8_0 and q4_0,
 * used below 16 activation rows, round in their own order: q8_0.h, q4_0.h).  The q8_0 activation blocks are copied out
 * of their 34-byte blocks into one contiguous row per activation row. */
#include <stddef.h>
#include <string.h>

#include "../common/amx.h"
#include "q4_0.h"
#include "q4_0x8.h"
#include "../common/x8_tile_avx512.h"
#include "q8_0.h"

/* ---- q8_0: rows of 34-byte blocks, fp16 d then 32 int8 ---- */
static const bb_block_q8_0 *q8_0_row(const void *w, int k, int r)
{
    return (const bb_block_q8_0 *)w + (size_t)r * (k / BB_QK);
}

static void q8_0_weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    for (int i = 0; i < rows; i++) {
        const bb_block_q8_0 *blk = q8_0_row(w, k, r + i);
        for (int b = 0; b < k / BB_QK; b++) memcpy(dst + i * stride + BB_QK * b, blk[b].qs, BB_QK);
    }
}

static const bb_amx_ops q8_0_amx = {
    .seg = BB_QK,
    .fold = BB_AMX_BLOCK_QX,
    .weights_i8 = q8_0_weights_i8,
    .block_bytes = sizeof(bb_block_q8_0), /* d at byte 0 */
    .act_i8 = bb_qx_amx_act_i8,
    .act_scales = bb_qx_amx_act_scales,
    .small_n = bb_q8_0_matmul_avx512,
};

void bb_q8_0_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&q8_0_amx, w, act, y, m, k, n, m0, m1);
}

/* ---- q4_0: rows of 18-byte GGUF blocks (qx_0.h), weight j the low nibble of qs[j], weight
 * j + 16 its high nibble, value nibble - 8: a lookup in the table -8..7 ---- */
static void q4_0_weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    static const int8_t minus8[16] = {-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7};
    bb_amx_nibble_rows_i8(w, k, r, rows, sizeof(bb_block_q4_0), offsetof(bb_block_q4_0, qs), minus8, dst, stride);
}

static const bb_amx_ops q4_0_amx = {
    .seg = BB_QK,
    .fold = BB_AMX_BLOCK_QX,
    .weights_i8 = q4_0_weights_i8,
    .block_bytes = sizeof(bb_block_q4_0), /* d at byte 0 */
    .act_i8 = bb_qx_amx_act_i8,
    .act_scales = bb_qx_amx_act_scales,
    .small_n = bb_q4_0_matmul_avx512,
};

void bb_q4_0_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&q4_0_amx, w, act, y, m, k, n, m0, m1);
}

/* ---- q4_0x8: records of 8 rows (q4_0x8.h), decoded by the shared record decode ---- */
static void q4_0x8_weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    for (int g = 0; g < rows / BB_NIBBLE_X8_ROWS; g++)
        for (int b = 0; b < k / BB_QK; b++)
            bb_x8_record_i8(BB_X8_Q4_0, bb_nibble_x8_record(w, k, (r / BB_NIBBLE_X8_ROWS) + g, b),
                            dst + (size_t)BB_NIBBLE_X8_ROWS * g * stride + BB_QK * b, stride);
}

static const bb_amx_ops q4_0x8_amx = {
    .seg = BB_QK,
    .fold = BB_AMX_BLOCK_QX,
    .weights_i8 = q4_0x8_weights_i8,
    .row_start = bb_nibble_x8_amx_row_start,
    .weight_scales = bb_nibble_x8_amx_weight_scales,
    .act_i8 = bb_qx_amx_act_i8,
    .act_scales = bb_qx_amx_act_scales,
    .small_n = bb_q4_0x8_matmul_avx512,
};

void bb_q4_0x8_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&q4_0x8_amx, w, act, y, m, k, n, m0, m1);
}
