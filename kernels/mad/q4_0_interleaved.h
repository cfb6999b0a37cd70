/* The Arm paper's interleaved Q4_0 records (§4.1.1-4.1.2), shared by q4_0x8 (8 rows,
 * 8-byte chunks: llama.cpp's Q4_0_8_8), q4_0_4_8 (4 rows, 8-byte chunks) and q4_0_4_4 (4 rows,
 * 4-byte chunks).  R consecutive output rows form a group; group g is K/32 records one after
 * another, record b holding block b of the R rows (llama.cpp's make_block_q4_0x4/x8):
 *     d[i]                 i = 0..R-1: fp16 d of row R*g+i's block b                 (2R bytes)
 *     qs[C*(R*c + i) + t]  c = 0..16/C-1, i = 0..R-1, t = 0..C-1:
 *                          byte C*c + t of row R*g+i's block_q4_0 qs, XOR 0x88         (16R bytes)
 * i.e. chunk after chunk of C bytes, the rows taking turns.  Byte j of a row's qs holds weights
 * j (low nibble) and j+16 (high nibble).  The XOR 0x88 flips the top bit of both nibbles
 * (§4.1.2): a stored nibble read as a signed 4-bit number is the weight's nibble - 8, so
 * (int8)(byte << 4) and (int8)(byte & 0xF0) are 16 times the two signed weights.  Same bytes as
 * q4_0 (4.5 bits per weight), rearranged.
 *
 * These are row_interleave.h's records of the 18-byte block_q4_0 in two sections, the 2-byte d
 * (one run) and the 16 qs bytes (16/C runs of C bytes).  A kernel names its records as a static
 * const bb_il_layout, {.rows = R, .block_values = BB_QK, .block_bytes = sizeof(bb_block_q4_0),
 * .nsections = 2, .sections = {{2, 1}, {C, BB_QK / 2 / C}}}, and passes it to the functions below
 * and to row_interleave.h's; only the XOR 0x88 is Q4_0's own.
 *
 * Numbers: exactly q4_0's (qx_0.h's reference, bb_quant_q4_0_block per block, q8_0 activations). */
#ifndef BB_Q4_0_INTERLEAVED_H
#define BB_Q4_0_INTERLEAVED_H

#include "../common/nibble_records.h" /* the records, shared with codebook's iq4_nl_x8 */
#include "../common/row_interleave.h"
#include "qx_0.h"

_Static_assert(sizeof(bb_block_q4_0) == BB_NIBBLE_BLOCK_BYTES, "nibble records hold block_q4_0");

/* ---- the three kernels' parameters and functions (q4_0_interleaved.c) ----
 * A kernel's parameters are its records' layout (row_interleave.h): the d section (one 2-byte
 * run), then the qs in runs of the kernel's chunk; q4_0x8's is common/nibble_records.h's
 * bb_nibble_x8_layout, also iq4_nl_x8's, whose IQ4_NL blocks have block_q4_0's shape.  q4_0_interleaved.c instantiates the shared code for each
 * layout as one-line functions named for the kernel (kernel.h's function types); q4_0_4_4.c,
 * q4_0_4_8.c and q4_0x8.c are descriptors pointing at them (docs/kernels.md, "Binding a family's
 * parameters").
 * pack: q4_0-quantize each row (bb_quant_q4_0_block), flip the qs (XOR 0x88) and interleave, M a
 * multiple of the layout's rows; unpack and the reference read block b of row r back through
 * bb_il_block (its fp16 scale and 32 signed weights, bb_qx_get_block) and are q4_0's (qx_0.h). */
extern const bb_il_layout bb_q4_0_4_4_layout, bb_q4_0_4_8_layout;
bb_packed_size_fn bb_q4_0il_packed_size; /* the blocks, only rearranged: q4_0's size */
bb_pack_fn bb_q4_0_4_4_pack, bb_q4_0_4_8_pack, bb_q4_0x8_pack;
bb_unpack_fn bb_q4_0_4_4_unpack, bb_q4_0_4_8_unpack, bb_q4_0x8_unpack;
bb_matmul_fn bb_q4_0_4_4_matmul_ref, bb_q4_0_4_8_matmul_ref, bb_q4_0x8_matmul_ref;
/* q4_0x8's repack_stored (kernel.h gguf_repack_type "Q4_0"): a GGUF Q4_0 tensor's blocks, flipped
 * and moved into the records, every bit otherwise kept; M a multiple of 8. */
void bb_q4_0x8_repack(const void *src, int m, int k, void *dst);

#endif
