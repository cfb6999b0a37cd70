#include "q6_k.h"

#include "fp16.h"

void bb_q6_k_dequant(const bb_block_q6_K *blk, size_t nblk, float *dst)
{
    for (size_t b = 0; b < nblk; b++) {
        float d = bb_fp16_to_fp32(blk[b].d);
        for (int h = 0; h < 2; h++) {
            const uint8_t *ql = blk[b].ql + 64 * h, *qh = blk[b].qh + 32 * h;
            const int8_t *sc = blk[b].scales + 8 * h;
            float *y = dst + b * 256 + 128 * h;
            for (int l = 0; l < 32; l++) {
                int q[4] = {(ql[l] & 15) | ((qh[l] >> 0) & 3) << 4, (ql[l + 32] & 15) | ((qh[l] >> 2) & 3) << 4,
                            (ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4, (ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4};
                for (int i = 0; i < 4; i++) y[l + 32 * i] = d * (float)sc[l / 16 + 2 * i] * (float)(q[i] - 32);
            }
        }
    }
}
