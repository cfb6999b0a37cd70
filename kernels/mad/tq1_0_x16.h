/* tq1_0_x16 — tq1_0 (llama.cpp's TQ1_0, tq1_0.h) with the blocks of 16 consecutive output rows
 * interleaved (the Arm paper's SIMD-aware packing, Arm paper §4.1.1), so that one 64-byte load
 * holds 4 code bytes of each of 16 rows, one 32-bit lane per row, and a pass produces 16
 * outputs with no horizontal sum.  `tq1_0` keeps the GGUF byte layout beside it.
 *
 * Layout (row_interleave.h, R = 16): M/16 row groups, group g K/256 records of 16 * 54 = 864
 * bytes; record b holds block b (bb_block_tq1_0) of rows 16g .. 16g+15, row i at lane i:
 *     code bytes  832: byte 64c + 4i + t = row i's byte 4c + t of qs[48] qh[4]   (c < 13, t < 4)
 *     d            32: fp16 d of row i at 832 + 2i
 * The same bytes as tq1_0's blocks, rearranged: 1.6875 bits per weight, M a multiple of 16.
 * Run c of the code bytes holds, in trit n, the weights (tq1_0.h's value order)
 *     c < 8:       32n + 4c + t            (n < 5)
 *     8 <= c < 12: 160 + 16n + 4(c-8) + t  (n < 5)
 *     c = 12:      240 + 4n + t            (n < 4)
 * so each trit of a run meets 4 consecutive activations.
 *
 * Numbers: exactly tq1_0's - the same packing per block (bb_tq1_0_pack_block), the same q8_K
 * activations, the same reference: y = sum in block order of (float)isum_b * (a_b.d * fp16(d))
 * (bb_tq1_0_block_term).  Every variant gives its bits (float_accumulation = false): avx512
 * (tq1_0_x16_avx512.c) never forms a trit - 256 c_n = 3 q_n - q_(n+1) with q_n = b * 3^n mod 256,
 * so two vpdpbusd of the bytes q_n and q_(n+1) against the same activations give c_n's sum
 * exactly - computes isum_b for 16 rows at once and runs the float steps lane-wise; avx2
 * (tq1_0_x16_avx2.c) does the same for 8 rows at a time, the trits by byte adds and compares, and
 * dotprod (Arm, tq1_0_x16_dotprod.c) for 4 with SDOT; amx (tq1_0_x16_amx.c) takes each row's code bytes back out of the records and
 * decodes them as tq1_0@amx does, for N >= 16 (below, the avx512 variant). */
#ifndef BB_TQ1_0_X16_H
#define BB_TQ1_0_X16_H

#include "../common/row_interleave.h"
#include "tq1_0.h"

#define BB_TQ1_0_X16_ROWS 16
#define BB_TQ1_0_X16_RECORD (BB_TQ1_0_X16_ROWS * 54)
#define BB_TQ1_0_X16_RUNS 13
#define BB_TQ1_0_X16_D 832

/* The interleaving, bb_block_tq1_0's bytes in order: qs[48] and qh[4] in fours, d.  A constant of
 * the format, kept here so that the descriptor and the variant that finds records by it (amx)
 * each hold a copy and neither calls back into the other (tests/test_callbacks.sh). */
static const bb_il_layout bb_tq1_0_x16_layout = {
    .rows = BB_TQ1_0_X16_ROWS, .block_values = BB_QK_K, .block_bytes = sizeof(bb_block_tq1_0), .nsections = 2,
    .sections = {{4, BB_TQ1_0_X16_RUNS}, {2, 1}},
};

void bb_tq1_0_x16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq1_0_x16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq1_0_x16_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq1_0_x16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
