/* q4_0x8 — Q4_0 with the Arm paper's SIMD-aware weight packing (Arm paper §4.1.1, the layout
 * llama.cpp ships as block_q4_0x8 / "Q4_0_8_8"): the Q4_0 blocks of 8 consecutive output rows
 * are interleaved so one pass over contiguous memory produces 8 rows, with each SIMD lane (or
 * lane pair) accumulating one output row and no horizontal reduction per row.
 *
 * Layout: M/8 row groups one after another; group g (rows 8g..8g+7) is K/32 records of 144 bytes,
 * record b holding block b of the 8 rows:
 *     d[i]     i = 0..7 : fp16 d of row 8g+i's block b                          (16 bytes)
 *     qs[8c+t] c = 0..15, t = 0..7 : byte 8*(c/8)+t of row 8g+(c%8)'s block b qs, XOR 0x88
 *                                                                               (128 bytes)
 * i.e. the first 64 bytes hold bytes 0..7 (weights 0..7 and 16..23) of rows 0..7, 8 bytes per
 * row, the next 64 bytes bytes 8..15 (weights 8..15 and 24..31).  The XOR 0x88 flips the top
 * bit of both nibbles (Arm paper §4.1.2): a stored nibble read as a signed 4-bit number is the
 * weight nibble - 8 itself.  This is byte for byte llama.cpp's repacked block_q4_0x8.  Same
 * bytes per weight as q4_0: 4.5 bits per weight.  M must be a multiple of 8.  A GGUF Q4_0 tensor
 * becomes these records at load by bb_q4_0x8_repack (kernel.h gguf_repack_type): its blocks
 * moved and flipped, every bit of every block kept.
 *
 * Numbers: exactly q4_0's — the same per-block quantization (bb_quant_q4_0_block), the same
 * dequantized weights, the same q8_0 activations (BB_ACT_I8_BLOCK32 + aux, qx_0.h) and the same
 * reference y = 0; for b in order: y = y + ((float)isum_b * d_w) * d_a.
 * All variants are bit-equal to that reference (float_accumulation = false): the 8 rows of a
 * group live in 8 float lanes, each lane adding its row's blocks in block order with separate
 * multiplies (no FMA), so the interleaved kernel equals the scalar q4_0 reference bit for bit.
 * The x86 variants undo the XOR while splitting nibbles (x86 multiplies unsigned × signed bytes,
 * vpmaddubsw / vpdpbusd, so the unsigned nibble 0..15 is what they want) and remove the +8 bias
 * with one integer correction per block, -8 * sum(a) (qx_0.h aux o), shared by the 8 rows.
 *   avx2:   vpmaddubsw on 4 rows × 8 bytes per vector against a broadcast 8-byte activation
 *           slice, vpmaddwd, one vphaddd joins rows 0-3 and 4-7 (lane order 0,1,4,5,2,3,6,7)
 *   avx512: vpdpbusd on 8 rows × 8 bytes per vector, lane pairs started at the correction; two
 *           blocks' lane pairs folded with vpermt2d into 16 exact row dots
 *   dotprod, i8mm (Arm, chunk8_records_neon.h): the XOR makes SHL #4 / AND 0xF0 give 16 × the signed
 *           weights; SDOT with 8 activation bytes in both halves + ADDP, or SMMLA on pairs of
 *           activation rows; SCVTF with 4 fraction bits restores isum exactly
 * Up to 4 (AVX2) / 8 (AVX-512) activation rows share each decoded record, all activation tiles
 * run while a group's records are in L1, and the weight stream is prefetched ahead (common/prefetch.h).
 */
#ifndef BB_Q4_0X8_H
#define BB_Q4_0X8_H

#include "q4_0_interleaved.h"

/* The records are common/nibble_records.h's 8-row ones (BB_NIBBLE_X8_*, bb_nibble_x8_record,
 * bb_nibble_x8_layout), shared with codebook's iq4_nl_x8. */

/* Arm variants (q4_0x8_dotprod.c, q4_0x8_i8mm.c: the 8-byte-chunk records of q4_0x8, q4_0_4_8
 * and iq4_nl_x8 share their loops, chunk8_records_neon.h). */
void bb_q4_0x8_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0x8_matmul_i8mm(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
