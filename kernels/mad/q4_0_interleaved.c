#include "q4_0_interleaved.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bb_q4_0il_pack_with(const bb_weights *w, void *dst, int rows, int chunk, void (*quant)(const float *, void *),
                        uint8_t flip, const char *name, char *err, size_t errlen)
{
    int nb = w->k / BB_QK;
    bb_block_q4_0 *blocks = malloc(sizeof(bb_block_q4_0) * (size_t)nb * rows);
    if (!blocks) {
        snprintf(err, errlen, "out of memory packing %s (K=%d)", name, w->k);
        return -1;
    }
    for (int g = 0; g < w->m / rows; g++) {
        for (int i = 0; i < rows; i++)
            for (int b = 0; b < nb; b++) quant(w->f32 + (size_t)(rows * g + i) * w->k + b * BB_QK, &blocks[i * nb + b]);
        for (int b = 0; b < nb; b++) {
            uint8_t *rec = (uint8_t *)bb_q4_0il_record(dst, w->k, rows, g, b);
            for (int i = 0; i < rows; i++) {
                memcpy(rec + 2 * i, &blocks[i * nb + b].d, 2);
                for (int j = 0; j < BB_QK / 2; j++)
                    rec[bb_q4_0il_qs_offset(rows, chunk, i, j)] = blocks[i * nb + b].qs[j] ^ flip;
            }
        }
    }
    free(blocks);
    return 0;
}

static void quant_q4_0(const float *x, void *dst) { bb_quant_q4_0_block(x, dst); }

int bb_q4_0il_pack(const bb_weights *w, void *dst, int rows, int chunk, const char *name, char *err, size_t errlen)
{
    return bb_q4_0il_pack_with(w, dst, rows, chunk, quant_q4_0, 0x88, name, err, errlen);
}

void bb_q4_0il_block(const void *w, int k, int rows, int chunk, uint8_t flip, int r, int b, bb_block_q4_0 *out)
{
    const uint8_t *rec = bb_q4_0il_record(w, k, rows, r / rows, b);
    int i = r % rows;
    memcpy(&out->d, rec + 2 * i, 2);
    for (int j = 0; j < BB_QK / 2; j++) out->qs[j] = rec[bb_q4_0il_qs_offset(rows, chunk, i, j)] ^ flip;
}

uint16_t bb_q4_0il_get(const void *w, int k, int rows, int chunk, int r, int b, int8_t vals[BB_QK])
{
    bb_block_q4_0 blk;
    bb_q4_0il_block(w, k, rows, chunk, 0x88, r, b, &blk);
    for (int j = 0; j < BB_QK / 2; j++) {
        vals[j] = (int8_t)((blk.qs[j] & 15) - 8);
        vals[j + BB_QK / 2] = (int8_t)((blk.qs[j] >> 4) - 8);
    }
    return blk.d;
}
