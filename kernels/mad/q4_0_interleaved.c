/* Q4_0's interleaved records through row_interleave.c.  See q4_0_interleaved.h. */
#include "q4_0_interleaved.h"

#include <string.h>

/* The XOR 0x88 of every qs byte (Arm paper §4.1.2); its own inverse. */
static void flip_qs(bb_block_q4_0 *blk)
{
    for (int j = 0; j < BB_QK / 2; j++) blk->qs[j] ^= 0x88;
}

static void quant_flipped(const bb_weights *w, int r, int b, void *dst)
{
    bb_block_q4_0 blk;
    bb_quant_q4_0_block(w->f32 + (size_t)r * w->k + (size_t)b * BB_QK, &blk);
    flip_qs(&blk);
    memcpy(dst, &blk, sizeof blk); /* dst: row_interleave's byte buffer */
}

void bb_q4_0il_pack(const bb_il_layout *L, const bb_weights *w, void *dst) { bb_il_pack(L, w, dst, quant_flipped); }

void bb_q4_0il_repack(const bb_il_layout *L, const void *src, int m, int k, void *dst)
{
    int nblk = k / BB_QK;
    for (int r = 0; r < m; r++)
        for (int b = 0; b < nblk; b++) {
            bb_block_q4_0 blk;
            memcpy(&blk, (const uint8_t *)src + ((size_t)r * nblk + b) * sizeof blk, sizeof blk);
            flip_qs(&blk);
            bb_il_put(L, (uint8_t *)bb_il_record(L, dst, k, r, b), r % L->rows, (const uint8_t *)&blk);
        }
}

uint16_t bb_q4_0il_get(const bb_il_layout *L, const void *w, int k, int r, int b, int8_t vals[BB_QK])
{
    bb_block_q4_0 blk;
    bb_il_block(L, w, k, r, b, &blk);
    flip_qs(&blk);
    for (int j = 0; j < BB_QK / 2; j++) {
        vals[j] = (int8_t)((blk.qs[j] & 15) - 8);
        vals[j + BB_QK / 2] = (int8_t)((blk.qs[j] >> 4) - 8);
    }
    return blk.d;
}
