/* Row-interleaved records of GGUF blocks.  See row_interleave.h. */
#include "row_interleave.h"

#include <string.h>

/* Every run of row i's block, in block order, between the block and the record. */
static void copy_runs(const bb_il_layout *L, uint8_t *rec, int i, uint8_t *blk, int into_record)
{
    size_t src = 0, base = 0;
    for (int s = 0; s < L->nsections; s++) {
        size_t w = (size_t)L->sections[s].width;
        for (int c = 0; c < L->sections[s].chunks; c++, src += w) {
            uint8_t *at = rec + base + w * ((size_t)L->rows * c + i);
            if (into_record) memcpy(at, blk + src, w);
            else memcpy(blk + src, at, w);
        }
        base += w * (size_t)L->sections[s].chunks * L->rows;
    }
}

void bb_il_put(const bb_il_layout *L, uint8_t *rec, int i, const uint8_t *blk)
{
    copy_runs(L, rec, i, (uint8_t *)blk, 1); /* only read */
}

void bb_il_get(const bb_il_layout *L, const uint8_t *rec, int i, uint8_t *blk)
{
    copy_runs(L, (uint8_t *)rec, i, blk, 0); /* only read */
}

void bb_il_block(const bb_il_layout *L, const void *w, int k, int r, int b, void *out)
{
    bb_il_get(L, bb_il_record(L, w, k, r, b), r % L->rows, out);
}

void bb_il_unpack(const bb_il_layout *L, const void *src, int m, int k, float *dst,
                  void (*unpack_block)(const void *blk, float *dst))
{
    uint8_t blk[BB_IL_MAX_BLOCK];
    for (int r = 0; r < m; r++)
        for (int b = 0; b < k / L->block_values; b++) {
            bb_il_block(L, src, k, r, b, blk);
            unpack_block(blk, dst + (size_t)r * k + (size_t)b * L->block_values);
        }
}

void bb_il_matmul_ref(const bb_il_layout *L, const void *w, const void *act, size_t act_row_bytes,
                      size_t act_block_bytes, float (*term)(const void *blk, const void *act_block), float *y, int m,
                      int k, int n, int m0, int m1)
{
    uint8_t blk[BB_IL_MAX_BLOCK];
    for (int c = 0; c < n; c++) {
        const uint8_t *a = (const uint8_t *)act + (size_t)c * act_row_bytes;
        for (int r = m0; r < m1; r++) {
            float sumf = 0.0f;
            for (int b = 0; b < k / L->block_values; b++) {
                bb_il_block(L, w, k, r, b, blk);
                sumf += term(blk, a + (size_t)b * act_block_bytes);
            }
            y[(size_t)c * m + r] = sumf;
        }
    }
}

void bb_il_repack(const bb_il_layout *L, const void *src, int m, int k, void *dst)
{
    int nblk = k / L->block_values;
    for (int r = 0; r < m; r++)
        for (int b = 0; b < nblk; b++)
            bb_il_put(L, (uint8_t *)bb_il_record(L, dst, k, r, b), r % L->rows,
                      (const uint8_t *)src + ((size_t)r * nblk + b) * L->block_bytes);
}

void bb_il_pack(const bb_il_layout *L, const bb_weights *w, void *dst,
                void (*quant)(const bb_weights *w, int r, int b, void *blk))
{
    uint8_t blk[BB_IL_MAX_BLOCK];
    for (int r = 0; r < w->m; r++)
        for (int b = 0; b < w->k / L->block_values; b++) {
            quant(w, r, b, blk);
            bb_il_put(L, (uint8_t *)bb_il_record(L, dst, w->k, r, b), r % L->rows, blk);
        }
}
