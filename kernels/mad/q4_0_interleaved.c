/* Q4_0's interleaved records through row_interleave.c.  See q4_0_interleaved.h. */
#include "q4_0_interleaved.h"

#include "q4_0_4_4.h"
#include "q4_0_4_8.h"
#include "q4_0x8.h"

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

static int pack(const bb_il_layout *L, const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err, (void)errlen; /* cannot fail */
    bb_il_pack(L, w, dst, quant_flipped);
    return 0;
}

static uint16_t get(const bb_il_layout *L, const void *w, int k, int r, int b, int8_t vals[BB_QK])
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

/* ---- the three kernels' layouts and scalar functions (q4_0_interleaved.h) ---- */
const bb_il_layout bb_q4_0_4_4_layout = {
    .rows = BB_Q4_0_4_4_ROWS,
    .block_values = BB_QK,
    .block_bytes = sizeof(bb_block_q4_0),
    .nsections = 2,
    .sections = {{2, 1}, {BB_Q4_0_4_4_CHUNK, BB_QK / 2 / BB_Q4_0_4_4_CHUNK}}, /* d, then the qs in chunks */
};
const bb_il_layout bb_q4_0_4_8_layout = {
    .rows = BB_Q4_0_4_8_ROWS,
    .block_values = BB_QK,
    .block_bytes = sizeof(bb_block_q4_0),
    .nsections = 2,
    .sections = {{2, 1}, {BB_Q4_0_4_8_CHUNK, BB_QK / 2 / BB_Q4_0_4_8_CHUNK}}, /* d, then the qs in chunks */
};

size_t bb_q4_0il_packed_size(int m, int k) { return (size_t)m * (k / BB_QK) * sizeof(bb_block_q4_0); }

int bb_q4_0_4_4_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    return pack(&bb_q4_0_4_4_layout, w, dst, err, errlen);
}
int bb_q4_0_4_8_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    return pack(&bb_q4_0_4_8_layout, w, dst, err, errlen);
}
int bb_q4_0x8_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    return pack(&bb_nibble_x8_layout, w, dst, err, errlen);
}

/* A GGUF Q4_0 tensor's row-major blocks into q4_0x8's records: each block flipped (XOR 0x88) and
 * put where it belongs, its bits otherwise unchanged, as llama.cpp's CPU_REPACK buffers make
 * block_q4_0x8 from Q4_0 at load. */
void bb_q4_0x8_repack(const void *src, int m, int k, void *dst)
{
    int nblk = k / BB_QK;
    for (int r = 0; r < m; r++)
        for (int b = 0; b < nblk; b++) {
            bb_block_q4_0 blk;
            memcpy(&blk, (const uint8_t *)src + ((size_t)r * nblk + b) * sizeof blk, sizeof blk);
            flip_qs(&blk);
            bb_il_put(&bb_nibble_x8_layout, (uint8_t *)bb_il_record(&bb_nibble_x8_layout, dst, k, r, b), r % 8,
                      (const uint8_t *)&blk);
        }
}
static uint16_t q4_0_4_4_get(const void *w, int m, int k, int r, int b, int8_t vals[BB_QK])
{
    (void)m;
    return get(&bb_q4_0_4_4_layout, w, k, r, b, vals);
}
static uint16_t q4_0_4_8_get(const void *w, int m, int k, int r, int b, int8_t vals[BB_QK])
{
    (void)m;
    return get(&bb_q4_0_4_8_layout, w, k, r, b, vals);
}
static uint16_t q4_0x8_get(const void *w, int m, int k, int r, int b, int8_t vals[BB_QK])
{
    (void)m;
    return get(&bb_nibble_x8_layout, w, k, r, b, vals);
}
void bb_q4_0_4_4_unpack(const void *src, int m, int k, float *dst) { bb_qx_unpack(q4_0_4_4_get, src, m, k, dst); }
void bb_q4_0_4_8_unpack(const void *src, int m, int k, float *dst) { bb_qx_unpack(q4_0_4_8_get, src, m, k, dst); }
void bb_q4_0x8_unpack(const void *src, int m, int k, float *dst) { bb_qx_unpack(q4_0x8_get, src, m, k, dst); }
void bb_q4_0_4_4_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_qx_matmul_ref(q4_0_4_4_get, w, act, y, m, k, n, m0, m1);
}
void bb_q4_0_4_8_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_qx_matmul_ref(q4_0_4_8_get, w, act, y, m, k, n, m0, m1);
}
void bb_q4_0x8_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_qx_matmul_ref(q4_0x8_get, w, act, y, m, k, n, m0, m1);
}
