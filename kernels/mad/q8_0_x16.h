/* q8_0_x16 — q8_0 (llama.cpp's Q8_0, q8_0.h) with the blocks of 16 consecutive output rows
 * interleaved (the Arm paper's SIMD-aware packing, Arm paper §4.1.1), so that one 64-byte load
 * holds 4 weights of each of 16 rows, one 32-bit lane per row, and a pass produces 16 outputs with
 * no horizontal sum and one float step per block for all 16.  `q8_0` keeps the GGUF byte layout
 * beside it; a GGUF Q8_0 tensor is rearranged into this one at load (kernel.h gguf_repack_type).
 *
 * Layout (row_interleave.h, R = 16): M/16 row groups, group g K/32 records of 16 * 34 = 544
 * bytes; record b holds block b (ggml block_q8_0) of rows 16g .. 16g+15, row i at lane i:
 *     d            32: fp16 d of row i at 2i
 *     int8 q      512: byte 32 + 64c + 4i + t = row i's q[4c + t]      (run c < 8, t < 4)
 * The same bytes as q8_0's blocks, rearranged: 8.5 bits per weight, M a multiple of 16.  Run c
 * meets activations 4c .. 4c+3 of the block in every lane.
 *
 * Numbers: q8_0's reference (qx_0.h), y = 0; for b in order: y = y + ((float)isum_b * d_w) * d_a,
 * with the same q8_0 activations.  Every variant gives these bits (float_accumulation = false,
 * where q8_0's own SIMD variants sum 8 lanes in their own order): the 16 rows live in 16 float
 * lanes, each adding its row's blocks in block order with separate multiplies.
 *   avx512 (q8_0_x16_avx512.c): the weights XOR 0x80 are w + 128 as unsigned bytes, so one
 *           vpdpbusd per run against 4 broadcast activations gives sum (w + 128) a, and the
 *           activation block's -8 sum(a) (qx_0.h aux o) times 16 removes the bias exactly: two
 *           vector instructions per 64 weights, against q8_0@avx512's four per 32;
 *   avx2 (q8_0_x16_avx2.c): 8 rows per register, llama.cpp's sign trick |w| . sign(a, w) in
 *           vpmaddubsw (|pair| <= 2 * 128 * 127 < 2^15), widened by vpmaddwd;
 *   dotprod (Arm, q8_0_x16_dotprod.c): SDOT of the signed weights, 4 rows per register;
 *   amx (q8_0_x16_amx.c): each row's 32 bytes back out of the records by a 16 x 16 dword
 *           transpose of two blocks' runs, TDPBSSD as q8_0@amx, for N >= 16 (below, avx512).
 * All sums are exact int32 (a block: |isum| <= 32 * 128 * 128). */
#ifndef BB_Q8_0_X16_H
#define BB_Q8_0_X16_H

#include "../common/row_interleave.h"
#include "q8_0.h"

#define BB_Q8_0_X16_ROWS 16
#define BB_Q8_0_X16_RECORD (BB_Q8_0_X16_ROWS * 34)
#define BB_Q8_0_X16_RUNS 8
#define BB_Q8_0_X16_Q 32 /* the code runs follow the 16 scales */

/* The interleaving, bb_block_q8_0's bytes in order: d, q[32] in fours.  A constant of the format,
 * kept here so that the descriptor and the variant that finds records by it (amx) each hold a
 * copy and neither calls back into the other (tests/test_callbacks.sh). */
static const bb_il_layout bb_q8_0_x16_layout = {
    .rows = BB_Q8_0_X16_ROWS, .block_values = BB_QK, .block_bytes = sizeof(bb_block_q8_0), .nsections = 2,
    .sections = {{2, 1}, {4, BB_Q8_0_X16_RUNS}},
};

void bb_q8_0_x16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q8_0_x16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q8_0_x16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q8_0_x16_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
