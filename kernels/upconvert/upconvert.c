/* Shared pieces of the up-convert family (see upconvert.h). */
#include "upconvert.h"

#include <string.h>

const char *bb_up_shape_error(int m, int k)
{
    (void)m;
    return k > BB_UP_MAX_K ? "K must be at most 1048576 (int32 dot products stay exact)" : NULL;
}

void bb_up_write_head(void *dst, int m, const int8_t *levels, int nlevels, const float *scales)
{
    bb_up_head h;
    memset(&h, 0, sizeof h);
    int lo = levels[0];
    for (int i = 0; i < nlevels; i++) {
        h.levels[i] = levels[i];
        if (levels[i] < lo) lo = levels[i];
    }
    h.offset = -lo;
    uint8_t *p = dst;
    memset(p, 0, BB_UP_HEAD + bb_up_scales_bytes(m));
    memcpy(p, &h, sizeof h);
    memcpy(p + BB_UP_HEAD, scales, (size_t)m * sizeof(float));
}

void bb_up_matmul_blocks(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                         int bits, int nb_max, bb_up_block_fn fn)
{
    int b1 = m1 / BB_UP_MB;
    for (int b = m0 / BB_UP_MB; b < b1;) {
        const uint8_t *blk = bb_up_block(w, m, k, bits, b);
        int nblk = n == 1 && b + 1 < b1 ? 2 : 1;
        for (int c0 = 0; c0 < n; c0 += nb_max) {
            int nb = n - c0 < nb_max ? n - c0 : nb_max;
            const int8_t *q[BB_UP_NB_MAX];
            int32_t usum[BB_UP_NB_MAX][2 * BB_UP_MB];
            for (int c = 0; c < nb; c++) q[c] = bb_i8_row_q(act, k, c0 + c);
            fn(w, blk, nblk, k, q, nb, usum);
            for (int c = 0; c < nb; c++)
                for (int j = 0; j < nblk; j++)
                    bb_up_store(y, m, k, w, act, c0 + c, (b + j) * BB_UP_MB, usum[c] + BB_UP_MB * j);
        }
        b += nblk;
    }
}
