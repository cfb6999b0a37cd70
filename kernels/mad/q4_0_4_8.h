/* q4_0_4_8 — Q4_0 with the Arm paper's 4-row, 8-byte interleaving (Arm paper §4.1.1, §4.2 and
 * Table 2, llama.cpp's former Q4_0_4_8 type / block_q4_0x4 with blck_size_interleave 8), the
 * layout made for the int8 matrix multiply SMMLA (vmmlaq_s32, FEAT_I8MM): each 16-byte load is a
 * 2×8 matrix, 8 bytes of each of two rows, which SMMLA multiplies by 8 bytes of two activation
 * rows into the 2×2 int32 products of both.
 *
 * Layout (q4_0_interleaved.h, R = 4, C = 8): M/4 row groups; group g is K/32 records of 72
 * bytes, record b = block b of rows 4g..4g+3:
 *     d[i]          i = 0..3 : fp16 d of row 4g+i's block b                           (8 bytes)
 *     qs[32c+8i+t]  c = 0..1, t = 0..7 : byte 8c+t of row 4g+i's block_q4_0 qs, XOR 0x88
 *                                                                                       (64 bytes)
 * 4.5 bits per weight; M a multiple of 4.  q4_0x8 is the same with 8 rows (Q4_0_8_8).
 *
 * Numbers: exactly q4_0's — same blocks (bb_quant_q4_0_block), same q8_0 activations
 * (BB_ACT_I8_BLOCK32 + aux, qx_0.h), same reference y = 0; for b in order:
 * y = y + ((float)isum_b * d_w) * d_a (no FMA).  Every variant gives that reference's bits
 * (float_accumulation = false), so q4_0_4_8 == q4_0's scalar reference, bit for bit.
 *   dotprod: 16 × signed weights as (int8)(byte << 4), (int8)(byte & 0xF0) (§4.1.2); SDOT with
 *            the 8 activation bytes in both halves, ADDP joins each row's two lanes.
 *   i8mm:    the same weights, SMMLA against two activation rows at once (N > 1; an odd last
 *            row goes through the SDOT loop); ZIP1/ZIP2 of 64-bit lanes give each activation
 *            row's 4 output rows.  Both: SCVTF with 4 fraction bits gives isum exactly.
 *   avx2, avx512 (q4_0x4_records_avx2.c, q4_0x4_records_avx512.c): unsigned nibbles × int8 (vpmaddubsw +
 *            vpmaddwd / vpdpbusd), the +8 bias removed with qx_0.h's -8·sum(a) (aux o).
 */
#ifndef BB_Q4_0_4_8_H
#define BB_Q4_0_4_8_H

#include "q4_0_interleaved.h"

#define BB_Q4_0_4_8_ROWS 4
#define BB_Q4_0_4_8_CHUNK 8

void bb_q4_0_4_8_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0_4_8_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0_4_8_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0_4_8_matmul_i8mm(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
