/* Records of row-interleaved GGUF blocks (the Arm paper's SIMD-aware packing, Arm paper §4.1.1,
 * for the k-quant and ternary blocks: q2_k_x16, tq1_0_x16, tq2_0_x16).  R consecutive output rows
 * form a group; group g is K/QK records one after another, record b holding block b of the R rows.
 * A block's bytes are cut, in their own order, into sections of `chunks` runs of `width` bytes;
 * in the record each section is its runs one after another with the R rows taking turns:
 *     section base + width * (R * c + i) + t  =  byte (section start) + width * c + t of row i's block
 * So one load of R * width bytes holds run c of every row, one lane per row.  The same bytes as the
 * row-major blocks, rearranged. */
#ifndef BB_ROW_INTERLEAVE_H
#define BB_ROW_INTERLEAVE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../kernel.h"

#define BB_IL_MAX_SECTIONS 4
#define BB_IL_MAX_BLOCK 512 /* bytes of one row's block, at most */

typedef struct {
    int width, chunks;
} bb_il_section;

typedef struct {
    int rows;          /* R */
    int block_values;  /* weights per block */
    size_t block_bytes; /* <= BB_IL_MAX_BLOCK */
    int nsections;
    bb_il_section sections[BB_IL_MAX_SECTIONS]; /* widths * chunks add up to block_bytes */
} bb_il_layout;

static inline size_t bb_il_record_bytes(const bb_il_layout *L) { return (size_t)L->rows * L->block_bytes; }

/* The record holding block b of row r. */
static inline const uint8_t *bb_il_record(const bb_il_layout *L, const void *w, int k, int r, int b)
{
    return (const uint8_t *)w + ((size_t)(r / L->rows) * (k / L->block_values) + b) * bb_il_record_bytes(L);
}

/* The 16-bit value a record keeps for each of its rows in 2-byte lanes from byte `at` (a block's
 * fp16 scale): row r's, in the record of block b. */
static inline uint16_t bb_il_lane_u16(const bb_il_layout *L, const void *w, int k, int r, int b, size_t at)
{
    uint16_t h;
    memcpy(&h, bb_il_record(L, w, k, r, b) + at + 2 * (size_t)(r % L->rows), sizeof h);
    return h;
}

/* Row i's block (block_bytes) into its record, and back. */
void bb_il_put(const bb_il_layout *L, uint8_t *rec, int i, const uint8_t *blk);
void bb_il_get(const bb_il_layout *L, const uint8_t *rec, int i, uint8_t *blk);

/* Block b of row r of packed weights w, put back together. */
void bb_il_block(const bb_il_layout *L, const void *w, int k, int r, int b, void *out);

/* unpack: every block put back together and dequantized by `unpack_block` (block_values floats). */
void bb_il_unpack(const bb_il_layout *L, const void *src, int m, int k, float *dst,
                  void (*unpack_block)(const void *blk, float *dst));

/* The scalar reference of an interleaved kernel: y = the sum over blocks, in order, of
 * `term`(block b of the row, activation block b), with the activation blocks of row c at
 * act + c * act_row_bytes, act_block_bytes apart - the plain kernel's reference, block for block. */
void bb_il_matmul_ref(const bb_il_layout *L, const void *w, const void *act, size_t act_row_bytes,
                      size_t act_block_bytes, float (*term)(const void *blk, const void *act_block), float *y, int m,
                      int k, int n, int m0, int m1);

/* The records of an M x K tensor stored as row-major blocks (its GGUF bytes): every block put
 * where it belongs, nothing else changed. */
void bb_il_repack(const bb_il_layout *L, const void *src, int m, int k, void *dst);

/* pack: `quant` makes block b of row r (row-major, as the plain kernel would store it), which is
 * put into its record; M a multiple of R (the kernel's m_multiple). */
void bb_il_pack(const bb_il_layout *L, const bb_weights *w, void *dst,
                void (*quant)(const bb_weights *w, int r, int b, void *blk));

#endif
