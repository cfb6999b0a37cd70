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
#include "x8_tile_avx512.h"
#include "q8_0.h"

const int8_t *bb_qx_amx_act_i8(const void *act, int n, int k, int c, int8_t *scratch)
{
    (void)n;
    const bb_block_q8_0 *a = bb_qx_act_row(act, k, c);
    for (int b = 0; b < k / BB_QK; b++) memcpy(scratch + BB_QK * b, a[b].qs, BB_QK);
    return scratch;
}

void bb_qx_amx_act_scales(const void *act, int n, int k, int npad, float *da)
{
    for (int c = 0; c < n; c++) {
        const float *d = bb_qx_aux_row(act, n, k, c).d;
        for (int b = 0; b < k / BB_QK; b++) da[(size_t)b * npad + c] = d[b];
    }
}

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
    for (int g = 0; g < rows / BB_Q4_0X8_ROWS; g++)
        for (int b = 0; b < k / BB_QK; b++)
            bb_x8_record_i8(BB_X8_Q4_0, bb_q4_0x8_record(w, k, (r / BB_Q4_0X8_ROWS) + g, b),
                            dst + (size_t)BB_Q4_0X8_ROWS * g * stride + BB_QK * b, stride);
}

/* Groups of 8 rows, K/32 records each: row r (a multiple of 8) starts group r/8. */
const void *bb_q4_0x8_amx_row_start(const void *w, int m, int k, int r)
{
    (void)m;
    return bb_q4_0x8_record(w, k, r / BB_Q4_0X8_ROWS, 0);
}

void bb_q4_0x8_amx_weight_scales(const void *w, int m, int k, int r, int rows, float *dw)
{
    (void)m;
    /* a record starts with its 8 rows' fp16 scales: one exact F16C conversion per record */
    for (int g = 0; g < rows / BB_Q4_0X8_ROWS; g++)
        for (int b = 0; b < k / BB_QK; b++) {
            const uint8_t *rec = bb_q4_0x8_record(w, k, r / BB_Q4_0X8_ROWS + g, b);
            _mm256_storeu_ps(dw + b * BB_AMX_STRIP + BB_Q4_0X8_ROWS * g, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)rec)));
        }
}

static const bb_amx_ops q4_0x8_amx = {
    .seg = BB_QK,
    .fold = BB_AMX_BLOCK_QX,
    .weights_i8 = q4_0x8_weights_i8,
    .row_start = bb_q4_0x8_amx_row_start,
    .weight_scales = bb_q4_0x8_amx_weight_scales,
    .act_i8 = bb_qx_amx_act_i8,
    .act_scales = bb_qx_amx_act_scales,
    .small_n = bb_q4_0x8_matmul_avx512,
};

void bb_q4_0x8_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&q4_0x8_amx, w, act, y, m, k, n, m0, m1);
}
