/* q2_k_x16 — q2_k (llama.cpp's Q2_K, q2_k.h) with the Arm paper's SIMD-aware packing (Arm paper
 * §4.1.1), as llama.cpp's CPU_REPACK buffers repack Q2_K: the blocks of 16 consecutive output
 * rows are interleaved so that one 64-byte load holds 4 code bytes of each of the 16 rows, one
 * 32-bit lane per row, and a pass produces 16 outputs with no horizontal sum.  `q2_k` keeps the
 * GGUF byte layout, so the two can be set side by side.
 *
 * Layout (row_interleave.h, R = 16): M/16 row groups, group g K/256 records of 16 * 84 = 1344
 * bytes; record b holds block b (bb_block_q2_K) of rows 16g .. 16g+15, row i of the group at lane i:
 *     scales   256 bytes: byte 32p + 2i + s = row i's scales[2p + s]               (p < 8, s < 2)
 *     qs      1024 bytes: byte 256 + 64*(8h + q) + 4i + t = row i's qs[32h + 4q + t] (h < 2, q < 8, t < 4)
 *     d, dmin   64 bytes: fp16 d of row i at 1280 + 2i, dmin at 1312 + 2i
 * The same bytes as q2_k's blocks, rearranged: 2.625 bits per weight, M a multiple of 16.
 *
 * Numbers: exactly q2_k's - the same quantizer per block (bb_q2_k_quantize_block), the same q8_K
 * activations and the same reference, y = sum in block order of q2_k's block term
 * (bb_q2_k_block_term: exact integer isum and summs, then (a.d*d)*isum - (a.d*dmin)*summs).
 * Every variant gives its bits (float_accumulation = false): avx512 (q2_k_x16_avx512.c) computes
 * the same integers for 16 rows at once and runs the float steps lane-wise, one lane per row;
 * avx2 (q2_k_x16_avx2.c) the same for 8 rows at a time, dotprod (Arm, q2_k_x16_dotprod.c) for 4;
 * amx (q2_k_x16_amx.c) takes each row's blocks back out of the records and decodes them as
 * q2_k@amx does, for N >= 16 (below, the avx512 variant). */
#ifndef BB_Q2_K_X16_H
#define BB_Q2_K_X16_H

#include "q2_k.h"
#include "../common/row_interleave.h"

#define BB_Q2_K_X16_ROWS 16
#define BB_Q2_K_X16_RECORD (BB_Q2_K_X16_ROWS * 84)
#define BB_Q2_K_X16_SCALES 0
#define BB_Q2_K_X16_QS 256
#define BB_Q2_K_X16_D 1280
#define BB_Q2_K_X16_DMIN 1312

/* The interleaving, bb_block_q2_K's bytes in order: scales[16] in pairs, qs[64] in fours, d,
 * dmin.  A constant of the format, kept here so that the descriptor and the variant that finds
 * records by it (amx) each hold a copy and neither calls back into the other
 * (tests/test_callbacks.sh). */
static const bb_il_layout bb_q2_k_x16_layout = {
    .rows = BB_Q2_K_X16_ROWS, .block_values = BB_QK_K, .block_bytes = sizeof(bb_block_q2_K), .nsections = 3,
    .sections = {{2, 8}, {4, 16}, {2, 2}},
};

void bb_q2_k_x16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q2_k_x16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q2_k_x16_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q2_k_x16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
