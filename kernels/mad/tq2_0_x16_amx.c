/* tq2_0_x16 on AMX tiles (common/amx.h; layout and semantics: tq2_0_x16.h).  Run c of a record
 * holds code bytes 4c .. 4c + 3 of each of its 16 rows in 32-bit lane i, so a 16 x 16 dword
 * transpose of the 16 runs gives each row's 64 code bytes (qs) in order, once per strip;
 * tq2_0@amx's decoding (bb_amx_ternary64, planes 0 | 2 then 4 | 6 per half) makes them int8 and
 * the driver folds as tq2_0's reference does: tq2_0_x16's (= tq2_0's) bits. */
#include <stddef.h>

#include "../common/amx.h"
#include "tq2_0_x16.h"

static void weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    const __m512i planes01 = bb_amx_shift_pair(0, 2), planes23 = bb_amx_shift_pair(4, 6);
    _Alignas(64) uint8_t qs[BB_TQ2_0_X16_ROWS][64];
    for (int g = 0; g < rows; g += BB_TQ2_0_X16_ROWS)
        for (int b = 0; b < k / BB_QK_K; b++) {
            const uint8_t *rec = bb_il_record(&bb_tq2_0_x16_layout, w, k, r + g, b);
            __m512i v[16];
            for (int c = 0; c < 16; c++) v[c] = _mm512_loadu_si512(rec + 64 * c);
            bb_amx_transpose16(v);
            for (int i = 0; i < BB_TQ2_0_X16_ROWS; i++) {
                _mm512_store_si512(qs[i], v[i]);
                int8_t *out = dst + (g + i) * stride + BB_QK_K * b;
                for (int j = 0; j < 2; j++) {
                    bb_amx_ternary64(qs[i] + 32 * j, planes01, out + 128 * j);
                    bb_amx_ternary64(qs[i] + 32 * j, planes23, out + 128 * j + 64);
                }
            }
        }
}

static const bb_amx_ops tq2_0_x16_amx = {
    .seg = BB_QK_K,
    .fold = BB_AMX_BLOCK_K,
    .weights_i8 = weights_i8,
    .il = &bb_tq2_0_x16_layout,
    .d_at = BB_TQ2_0_X16_D,
    .act_i8 = bb_gk_amx_act_i8,
    .act_scales = bb_gk_amx_act_scales,
    .small_n = bb_tq2_0_x16_matmul_avx512,
};

void bb_tq2_0_x16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&tq2_0_x16_amx, w, act, y, m, k, n, m0, m1);
}
