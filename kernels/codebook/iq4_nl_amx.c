/* iq4_nl and iq4_nl_x8 on AMX tiles (common/amx.h; layout and semantics: iq4_nl.h,
 * iq4_nl_x8.h).  The driver's segment is one 32-weight block: a block's 16 index bytes become its
 * 32 int8 codebook values by vpshufb from the register-resident table (§6.3's lookup;
 * bb_amx_nibble_rows_i8, shared with q4_0), the TDPBSSD block dots are exact, and each is folded
 * as isum * (d_a * d_w), the reference's product, block by block: the reference's bits.
 * iq4_nl_x8's records are decoded by q4_0x8's record decode with the table lookup
 * (mad/x8_tile_avx512.h) and give the same bits.  The q8_0 activations are q4_0's (mad/qx_0.h). */
#include <stddef.h>

#include "../common/amx.h"
#include "../common/x8_tile_avx512.h"
#include "iq4_nl.h"
#include "iq4_nl_x8.h"

static void iq4_nl_weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    bb_amx_nibble_rows_i8(w, k, r, rows, sizeof(bb_iq4_nl_block), offsetof(bb_iq4_nl_block, qs), bb_iq4_nl_kvalues,
                          dst, stride);
}

static const bb_amx_ops iq4_nl_amx = {
    .seg = BB_QK4_NL,
    .fold = BB_AMX_BLOCK_K,
    .weights_i8 = iq4_nl_weights_i8,
    .block_bytes = sizeof(bb_iq4_nl_block), /* d at byte 0 */
    .act_i8 = bb_qx_amx_act_i8,
    .act_scales = bb_qx_amx_act_scales,
    .small_n = bb_iq4_nl_matmul_avx512,
};

void bb_iq4_nl_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&iq4_nl_amx, w, act, y, m, k, n, m0, m1);
}

/* ---- iq4_nl_x8: q4_0x8's records holding iq4_nl blocks ---- */
static void iq4_nl_x8_weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    for (int g = 0; g < rows / BB_NIBBLE_X8_ROWS; g++)
        for (int b = 0; b < k / BB_QK4_NL; b++)
            bb_x8_record_i8(BB_X8_IQ4_NL, bb_nibble_x8_record(w, k, (r / BB_NIBBLE_X8_ROWS) + g, b),
                            dst + (size_t)BB_NIBBLE_X8_ROWS * g * stride + BB_QK4_NL * b, stride);
}

static const bb_amx_ops iq4_nl_x8_amx = {
    .seg = BB_QK4_NL,
    .fold = BB_AMX_BLOCK_K,
    .weights_i8 = iq4_nl_x8_weights_i8,
    .row_start = bb_nibble_x8_amx_row_start,
    .weight_scales = bb_nibble_x8_amx_weight_scales,
    .act_i8 = bb_qx_amx_act_i8,
    .act_scales = bb_qx_amx_act_scales,
    .small_n = bb_iq4_nl_x8_matmul_avx512,
};

void bb_iq4_nl_x8_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&iq4_nl_x8_amx, w, act, y, m, k, n, m0, m1);
}
