/* tq2_0_x16 — tq2_0 (llama.cpp's TQ2_0, tq2_0.h) with the blocks of 16 consecutive output rows
 * interleaved (the Arm paper's SIMD-aware packing, Arm paper §4.1.1), so that one 64-byte load
 * holds 4 code bytes of each of 16 rows, one 32-bit lane per row, and a pass produces 16 outputs
 * with no horizontal sum and one float step per block for all 16.  `tq2_0` keeps the GGUF byte
 * layout beside it; a GGUF TQ2_0 tensor is rearranged into this one at load (kernel.h
 * gguf_repack_type).
 *
 * Layout (row_interleave.h, R = 16): M/16 row groups, group g K/256 records of 16 * 66 = 1056
 * bytes; record b holds block b (bb_block_tq2_0) of rows 16g .. 16g+15, row i at lane i:
 *     code bytes  1024: byte 64c + 4i + t = row i's qs[4c + t]          (run c < 16, t < 4)
 *     d             32: fp16 d of row i at 1024 + 2i
 * The same bytes as tq2_0's blocks, rearranged: 2.0625 bits per weight, M a multiple of 16.
 * Bits 2l..2l+1 of the bytes of run c hold plane l (tq2_0.h), the weights
 *     128 (c / 8) + 32 l + 4 (c % 8) + t                                (l < 4)
 * so each plane of a run meets 4 consecutive activations.
 *
 * Numbers: exactly tq2_0's reference - the same packing per block (bb_tq2_0_pack_block), the
 * same q8_K activations, y = sum in block order of (float)isum_b * (a_b.d * fp16(d))
 * (bb_tq2_0_block_term), a stray code 3 read as +2.  Every variant gives those bits
 * (float_accumulation = false), where tq2_0@avx512 folds in float lanes of its own order:
 * avx512 (tq2_0_x16_avx512.c) masks each plane in place (v & 3 << 2l: the codes times 4^l),
 * takes one vpdpbusd per plane and run against 4 broadcast activations, and folds the four
 * plane sums exactly by shifts once per record - 8 vector instructions per 256 weights of a row
 * besides the loads, against tq2_0@avx512's 12 and i2_s@avx512's 8; avx2 (tq2_0_x16_avx2.c)
 * takes the planes by shift and mask into vpmaddubsw, 8 rows per register, and dotprod (Arm,
 * tq2_0_x16_dotprod.c) masks in place into SDOT, 4 rows per register, each broadcast of
 * activations serving all 16 rows; amx (tq2_0_x16_amx.c) takes each row's code bytes back out
 * of the records and decodes them as tq2_0@amx does, for N >= 16 (below, the avx512 variant). */
#ifndef BB_TQ2_0_X16_H
#define BB_TQ2_0_X16_H

#include "../common/row_interleave.h"
#include "tq2_0.h"

#define BB_TQ2_0_X16_ROWS 16
#define BB_TQ2_0_X16_RECORD (BB_TQ2_0_X16_ROWS * 66)
#define BB_TQ2_0_X16_RUNS 16
#define BB_TQ2_0_X16_D 1024

/* The interleaving, bb_block_tq2_0's bytes in order: qs[64] in fours, d.  A constant of the
 * format, kept here so that the descriptor and the variant that finds records by it (amx) each
 * hold a copy and neither calls back into the other (tests/test_callbacks.sh). */
static const bb_il_layout bb_tq2_0_x16_layout = {
    .rows = BB_TQ2_0_X16_ROWS, .block_values = BB_QK_K, .block_bytes = sizeof(bb_block_tq2_0), .nsections = 2,
    .sections = {{4, BB_TQ2_0_X16_RUNS}, {2, 1}},
};

/* First weight of plane l of run c (above). */
static inline int bb_tq2_0_x16_value(int c, int l) { return 128 * (c / 8) + 32 * l + 4 * (c % 8); }

void bb_tq2_0_x16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq2_0_x16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq2_0_x16_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq2_0_x16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
