/* Records of R rows of the 18-byte 4-bit block {fp16 d; 16 nibble bytes}, the Arm paper's
 * SIMD-aware packing (Arm paper §4.1.1, llama.cpp's make_block_q4_0x4/x8), shared by two
 * families: mad's interleaved Q4_0 (q4_0x8, q4_0_4_8, q4_0_4_4; mad/q4_0_interleaved.h, whose
 * nibbles are weights XOR 0x88) and codebook's iq4_nl_x8 (codebook/iq4_nl_x8.h, whose nibbles are
 * IQ4_NL table indices, stored as they are).  Both blocks have ggml's block_q4_0 shape: the fp16
 * scale, then byte j holding the nibble of weight j (low) and j+16 (high).
 * R consecutive output rows form a group; group g is K/32 records one after another, record b
 * holding block b of the R rows:
 *     d[i]                 i = 0..R-1: fp16 d of row R*g+i's block b                 (2R bytes)
 *     qs[C*(R*c + i) + t]  c = 0..16/C-1, i = 0..R-1, t = 0..C-1: byte C*c + t of row R*g+i's qs
 *                                                                                     (16R bytes)
 * i.e. row_interleave.h's records of the 18-byte block in two sections, the 2-byte d (one run) and
 * the 16 qs bytes (16/C runs of C bytes).  The 8-row, 8-byte-chunk records (llama.cpp's Q4_0_8_8,
 * 144 bytes) are the ones both families run (bb_nibble_x8_*). */
#ifndef BB_NIBBLE_RECORDS_H
#define BB_NIBBLE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "q8_0_act.h" /* BB_QK */
#include "row_interleave.h"

#define BB_NIBBLE_BLOCK_BYTES 18 /* fp16 d + 16 bytes of two nibbles: 4.5 bits per weight */

/* Bytes of one record of R rows: R fp16 scales and R * 16 bytes of nibbles. */
static inline size_t bb_nibble_record_bytes(int rows) { return (size_t)rows * BB_NIBBLE_BLOCK_BYTES; }

/* The record of group g (rows R*g ..), block b: bb_il_record of row R*g, for the SIMD loops, where
 * R is a compile-time constant. */
static inline const uint8_t *bb_nibble_record(const void *w, int k, int rows, int g, int b)
{
    return (const uint8_t *)w + ((size_t)g * (k / BB_QK) + b) * bb_nibble_record_bytes(rows);
}

/* ---- the 8-row records with 8-byte chunks (q4_0x8, iq4_nl_x8) ----
 * the first 64 nibble bytes hold bytes 0..7 (weights 0..7 and 16..23) of rows 0..7, 8 bytes per
 * row, the next 64 bytes bytes 8..15 (weights 8..15 and 24..31).  M a multiple of 8. */
#define BB_NIBBLE_X8_ROWS 8
#define BB_NIBBLE_X8_CHUNK 8   /* bytes of a row's qs per chunk */
#define BB_NIBBLE_X8_BYTES 144 /* one record: 8 fp16 scales + 128 bytes of nibbles */

static inline const uint8_t *bb_nibble_x8_record(const void *w, int k, int g, int b)
{
    return (const uint8_t *)w + ((size_t)g * (k / BB_QK) + b) * BB_NIBBLE_X8_BYTES;
}

/* Their layout (row_interleave.h; nibble_records.c): the d section, then the qs in 8-byte runs. */
extern const bb_il_layout bb_nibble_x8_layout;

/* The AMX driver's row_start / weight_scales (bb_amx_ops, amx.h) for these records
 * (nibble_records_amx.c): row r (a multiple of 8) starts group r/8; a record's 8 fp16 scales are
 * converted exactly (F16C) into dw[b * BB_AMX_STRIP + row]. */
const void *bb_nibble_x8_amx_row_start(const void *w, int m, int k, int r);
void bb_nibble_x8_amx_weight_scales(const void *w, int m, int k, int r, int rows, float *dw);

#endif
