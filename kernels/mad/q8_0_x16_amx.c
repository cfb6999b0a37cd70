/* q8_0_x16 on AMX tiles (common/amx.h; layout and semantics: q8_0_x16.h).  Run c of a record
 * holds weights 4c .. 4c + 3 of each of its 16 rows in 32-bit lane i, so a 16 x 16 dword
 * transpose of two records' 8 runs gives each row's 64 weights of those two blocks in order;
 * they are the signed int8 TDPBSSD takes, and the driver folds as q8_0@amx does: q8_0's
 * reference bits. */
#include <stddef.h>

#include "../common/amx.h"
#include "q8_0_x16.h"

static void weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    int nblk = k / BB_QK;
    for (int g = 0; g < rows; g += BB_Q8_0_X16_ROWS)
        for (int b = 0; b < nblk; b += 2) {
            const int two = b + 1 < nblk; /* an odd last block: its partner lanes are zeros */
            __m512i v[16];
            for (int j = 0; j < 2; j++) {
                const uint8_t *rec = bb_il_record(&bb_q8_0_x16_layout, w, k, r + g, b + j) + BB_Q8_0_X16_Q;
                for (int c = 0; c < BB_Q8_0_X16_RUNS; c++)
                    v[8 * j + c] = j == 0 || two ? _mm512_loadu_si512(rec + 64 * c) : _mm512_setzero_si512();
            }
            bb_amx_transpose16(v);
            for (int i = 0; i < BB_Q8_0_X16_ROWS; i++) {
                int8_t *out = dst + (g + i) * stride + BB_QK * b;
                if (two) _mm512_storeu_si512(out, v[i]);
                else _mm256_storeu_si256((__m256i *)out, _mm512_castsi512_si256(v[i]));
            }
        }
}

static const bb_amx_ops q8_0_x16_amx = {
    .seg = BB_QK,
    .fold = BB_AMX_BLOCK_QX,
    .weights_i8 = weights_i8,
    .il = &bb_q8_0_x16_layout,
    .d_at = 0,
    .act_i8 = bb_qx_amx_act_i8,
    .act_scales = bb_qx_amx_act_scales,
    .small_n = bb_q8_0_x16_matmul_avx512,
};

void bb_q8_0_x16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&q8_0_x16_amx, w, act, y, m, k, n, m0, m1);
}
