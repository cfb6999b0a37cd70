#include "q4_0_interleaved.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bb_q4_0il_pack(const bb_weights *w, void *dst, int rows, int chunk, const char *name, char *err, size_t errlen)
{
    int nb = w->k / BB_QK;
    bb_block_q4_0 *blocks = malloc(sizeof(bb_block_q4_0) * (size_t)nb * rows);
    if (!blocks) {
        snprintf(err, errlen, "out of memory packing %s (K=%d)", name, w->k);
        return -1;
    }
    for (int g = 0; g < w->m / rows; g++) {
        for (int i = 0; i < rows; i++)
            for (int b = 0; b < nb; b++)
                bb_quant_q4_0_block(w->f32 + (size_t)(rows * g + i) * w->k + b * BB_QK, &blocks[i * nb + b]);
        for (int b = 0; b < nb; b++) {
            uint8_t *rec = (uint8_t *)bb_q4_0il_record(dst, w->k, rows, g, b);
            for (int i = 0; i < rows; i++) {
                memcpy(rec + 2 * i, &blocks[i * nb + b].d, 2);
                for (int j = 0; j < BB_QK / 2; j++)
                    rec[bb_q4_0il_qs_offset(rows, chunk, i, j)] = blocks[i * nb + b].qs[j] ^ 0x88;
            }
        }
    }
    free(blocks);
    return 0;
}

uint16_t bb_q4_0il_get(const void *w, int k, int rows, int chunk, int r, int b, int8_t vals[BB_QK])
{
    const uint8_t *rec = bb_q4_0il_record(w, k, rows, r / rows, b);
    int i = r % rows;
    for (int j = 0; j < BB_QK / 2; j++) {
        uint8_t q = rec[bb_q4_0il_qs_offset(rows, chunk, i, j)] ^ 0x88;
        vals[j] = (int8_t)((q & 15) - 8);
        vals[j + BB_QK / 2] = (int8_t)((q >> 4) - 8);
    }
    uint16_t d;
    memcpy(&d, rec + 2 * i, 2);
    return d;
}
