/* The q8_0 activation buffer.  See q8_0_act.h. */
#include "q8_0_act.h"

#include <string.h>

#include "fp16.h"

size_t bb_qx_act_size(int n, int k)
{
    size_t q8 = (size_t)n * (k / BB_QK) * sizeof(bb_block_q8_0);
    return ((q8 + 63) & ~(size_t)63) + (size_t)n * bb_qx_aux_stride(k);
}

void bb_qx_prepare(const float *x, int n, int k, void *act)
{
    bb_quant_q8_0_rows(x, n, k, act);
    int nb = k / BB_QK;
    size_t q8 = (size_t)n * nb * sizeof(bb_block_q8_0);
    memset((char *)act + q8, 0, bb_qx_act_size(n, k) - q8); /* padding included */
    for (int r = 0; r < n; r++) {
        const bb_block_q8_0 *blk = bb_qx_act_row(act, k, r);
        bb_qx_aux aux = bb_qx_aux_row(act, n, k, r);
        float *d = (float *)aux.d;
        int32_t *o = (int32_t *)aux.o, *c = (int32_t *)aux.c;
        for (int b = 0; b < nb; b++) {
            int32_t sum = 0;
            for (int i = 0; i < 8; i++) {
                int32_t lane = 0;
                for (int j = 0; j < 4; j++) lane += blk[b].qs[4 * i + j];
                c[8 * b + i] = -8 * lane;
                sum += lane;
            }
            d[b] = bb_fp16_to_fp32(blk[b].d);
            o[2 * b] = -8 * sum;
            o[2 * b + 1] = 0;
        }
    }
}
