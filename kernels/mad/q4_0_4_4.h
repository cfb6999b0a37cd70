/* q4_0_4_4 — Q4_0 with the Arm paper's 4-row, 4-byte interleaving (Arm paper §4.1.1 and Table 2,
 * llama.cpp's former Q4_0_4_4 type / block_q4_0x4 with blck_size_interleave 4), the layout made
 * for SDOT by element (vdotq_laneq_s32): each 16-byte load holds 4 bytes of each of 4 rows, so
 * int32 lane i of one SDOT accumulates row i, with no horizontal reduction.
 *
 * Layout (q4_0_interleaved.h, R = 4, C = 4): M/4 row groups; group g is K/32 records of 72
 * bytes, record b = block b of rows 4g..4g+3:
 *     d[i]          i = 0..3 : fp16 d of row 4g+i's block b                           (8 bytes)
 *     qs[16c+4i+t]  c, t = 0..3 : byte 4c+t of row 4g+i's block_q4_0 qs, XOR 0x88      (64 bytes)
 * 4.5 bits per weight; M a multiple of 4.
 *
 * Numbers: exactly q4_0's — same blocks (bb_quant_q4_0_block), same q8_0 activations
 * (BB_ACT_I8_BLOCK32 + aux, qx_0.h), same reference y = 0; for b in order:
 * y = y + ((float)isum_b * d_w) * d_a (no FMA).  Every variant gives that reference's bits
 * (float_accumulation = false), so q4_0_4_4 == q4_0's scalar reference, bit for bit: a row's
 * 4 lanes each add their row's blocks in block order with separate multiplies.
 *   dotprod: (int8)(byte << 4) and (int8)(byte & 0xF0) are 16 × the signed weights (§4.1.2);
 *            8 SDOT by element per block and activation row, int32 lane i = 16 × row i's dot
 *            (|16 isum| <= 32*128*127: exact); SCVTF with 4 fraction bits gives isum exactly.
 *   avx2, avx512 (q4_0x4_records_avx2.c, q4_0x4_records_avx512.c): unsigned nibbles × int8 (vpmaddubsw +
 *            vpmaddwd / vpdpbusd), the +8 bias removed with qx_0.h's -8·sum(a) (aux o).
 */
#ifndef BB_Q4_0_4_4_H
#define BB_Q4_0_4_4_H

#include "q4_0_interleaved.h"

#define BB_Q4_0_4_4_ROWS 4
#define BB_Q4_0_4_4_CHUNK 4

void bb_q4_0_4_4_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0_4_4_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0_4_4_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
