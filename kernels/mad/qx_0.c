#include "qx_0.h"

#include <math.h>
#include <string.h>

#include "../common/fp16.h"

void bb_quant_q4_0_block(const float *x, bb_block_q4_0 *dst)
{
    /* The signed value of largest magnitude maps to -8, so the full [-8, 7] range is used on
     * the side where it matters (quantize_row_q4_0_ref). */
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < BB_QK; j++)
        if (amax < fabsf(x[j])) {
            amax = fabsf(x[j]);
            max = x[j];
        }
    const float d = max / -8.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    dst->d = bb_fp32_to_fp16(d);
    for (int j = 0; j < BB_QK / 2; j++) {
        /* x*id lies in [-8, 8]: +8.5 and truncation round to nearest (ties up), 16 clamps to 15 */
        int lo = (int8_t)(x[j] * id + 8.5f), hi = (int8_t)(x[j + BB_QK / 2] * id + 8.5f);
        lo = lo < 15 ? lo : 15;
        hi = hi < 15 ? hi : 15;
        dst->qs[j] = (uint8_t)(lo | hi << 4);
    }
}

void bb_qx_matmul_ref(bb_qx_get_block get, const void *w, const void *act, float *y, int m, int k, int n,
                      int m0, int m1)
{
    int nb = k / BB_QK;
    int8_t vals[BB_QK];
    for (int c = 0; c < n; c++) {
        const bb_block_q8_0 *a = bb_qx_act_row(act, k, c);
        for (int r = m0; r < m1; r++) {
            float sum = 0.0f;
            for (int b = 0; b < nb; b++) {
                float dw = bb_fp16_to_fp32(get(w, m, k, r, b, vals));
                int32_t isum = 0;
                for (int j = 0; j < BB_QK; j++) isum += vals[j] * a[b].qs[j];
                sum = sum + ((float)isum * dw) * bb_fp16_to_fp32(a[b].d);
            }
            y[(size_t)c * m + r] = sum;
        }
    }
}

void bb_qx_unpack(bb_qx_get_block get, const void *src, int m, int k, float *dst)
{
    int8_t vals[BB_QK];
    for (int r = 0; r < m; r++)
        for (int b = 0; b < k / BB_QK; b++) {
            float d = bb_fp16_to_fp32(get(src, m, k, r, b, vals));
            for (int j = 0; j < BB_QK; j++) dst[(size_t)r * k + b * BB_QK + j] = (float)vals[j] * d;
        }
}
