/* tq2_0 on AMX tiles (common/amx.h).  qs[32j + i] holds plane l (weight 128j + 32l + i) at bits
 * 2l..2l+1 (tq2_0.h): per half j one broadcast load shifted by 0 | 2 (then 4 | 6) per 16-bit lane
 * gives weights 128j..128j+63 (+64..127) as int8 t = c - 1 in order.  One segment per 256-weight
 * block, folded as the scalar reference does: sumf += (float)isum * (a.d * fp16(w.d)), blocks in
 * order, so this variant gives the reference's bits (the AVX-512 one, used below 16 activation
 * rows, rounds in its own order: tq2_0.h). */
#include <stddef.h>
#include <string.h>

#include "../common/amx.h"
#include "tq2_0.h"

static const bb_block_tq2_0 *tq2_0_row(const void *w, int k, int r)
{
    return (const bb_block_tq2_0 *)w + (size_t)r * (k / BB_QK_K);
}

static void tq2_0_weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    const __m512i planes01 = bb_amx_shift_pair(0, 2), planes23 = bb_amx_shift_pair(4, 6);
    for (int i = 0; i < rows; i++) {
        const bb_block_tq2_0 *blk = tq2_0_row(w, k, r + i);
        int8_t *out = dst + i * stride;
        for (int b = 0; b < k / BB_QK_K; b++)
            for (int j = 0; j < 2; j++) {
                bb_amx_ternary64(blk[b].qs + 32 * j, planes01, out + BB_QK_K * b + 128 * j);
                bb_amx_ternary64(blk[b].qs + 32 * j, planes23, out + BB_QK_K * b + 128 * j + 64);
            }
    }
}

const int8_t *bb_gk_amx_act_i8(const void *act, int n, int k, int c, int8_t *scratch)
{
    (void)n;
    const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * (k / BB_QK_K);
    for (int b = 0; b < k / BB_QK_K; b++) memcpy(scratch + BB_QK_K * b, a[b].qs, BB_QK_K);
    return scratch;
}

void bb_gk_amx_act_scales(const void *act, int n, int k, int npad, float *da)
{
    for (int c = 0; c < n; c++) {
        const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * (k / BB_QK_K);
        for (int b = 0; b < k / BB_QK_K; b++) da[(size_t)b * npad + c] = a[b].d;
    }
}

static const bb_amx_ops tq2_0_amx = {
    .seg = BB_QK_K,
    .fold = BB_AMX_BLOCK_K,
    .weights_i8 = tq2_0_weights_i8,
    .block_bytes = sizeof(bb_block_tq2_0),
    .d_at = offsetof(bb_block_tq2_0, d),
    .act_i8 = bb_gk_amx_act_i8,
    .act_scales = bb_gk_amx_act_scales,
    .small_n = bb_tq2_0_matmul_avx512,
};

void bb_tq2_0_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&tq2_0_amx, w, act, y, m, k, n, m0, m1);
}
