/* tq1_0_x16 on AMX tiles (common/amx.h; layout and semantics: tq1_0_x16.h).  Run c of a record
 * holds code bytes 4c .. 4c + 3 of each of its 16 rows in 32-bit lane i, so a 16 x 16 dword
 * transpose of the 13 runs (and three zero vectors) gives each row's 52 code bytes in order,
 * once per strip; tq1_0@amx's decoder (tq1_0_amx.c) makes them int8 and the driver folds as
 * tq1_0's reference does: tq1_0_x16's (= tq1_0's) bits. */
#include <stddef.h>

#include "../common/amx.h"
#include "tq1_0_x16.h"

static void weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    _Alignas(64) uint8_t codes[BB_TQ1_0_X16_ROWS][64];
    for (int g = 0; g < rows; g += BB_TQ1_0_X16_ROWS)
        for (int b = 0; b < k / BB_QK_K; b++) {
            const uint8_t *rec = bb_il_record(&bb_tq1_0_x16_layout, w, k, r + g, b);
            __m512i v[16];
            for (int c = 0; c < 16; c++)
                v[c] = c < BB_TQ1_0_X16_RUNS ? _mm512_loadu_si512(rec + 64 * c) : _mm512_setzero_si512();
            bb_amx_transpose16(v);
            for (int i = 0; i < BB_TQ1_0_X16_ROWS; i++) {
                _mm512_store_si512(codes[i], v[i]);
                bb_tq1_0_codes_i8(codes[i], dst + (g + i) * stride + BB_QK_K * b);
            }
        }
}

static const bb_amx_ops tq1_0_x16_amx = {
    .seg = BB_QK_K,
    .fold = BB_AMX_BLOCK_K,
    .weights_i8 = weights_i8,
    .il = &bb_tq1_0_x16_layout,
    .d_at = BB_TQ1_0_X16_D,
    .act_i8 = bb_gk_amx_act_i8,
    .act_scales = bb_gk_amx_act_scales,
    .small_n = bb_tq1_0_x16_matmul_avx512,
};

void bb_tq1_0_x16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&tq1_0_x16_amx, w, act, y, m, k, n, m0, m1);
}
