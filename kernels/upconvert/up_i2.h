/* up_i2 — Intel's 2-bit "up-convert and compute" kernel (§III-B, §III-C, Figure 1).
 *
 * Layout: the paper's VNNI4-interleaved blocked layout [M/32][K/bk][bk/4][M8][k4][m4] of 2-bit
 * codes, inside the family container (upconvert.h: 64-byte head, float scale[M], blocks).
 *   M/32  block of b_m = 32 output rows (r = 32*B + 8*m4 + M8)
 *   K/bk, bk/4   the contraction dimension in steps of 4 (k = 4*g + k4).  With M/32 outermost the
 *         bytes are the same for every b_k (the K/bk split only orders the BRGEMM loop), so the
 *         stored order is [M/32][K/4][M8][k4][m4]: one 32-byte "group" per block and 4 k's.
 *   M8    row within an 8-row slice (r mod 8), k4 = k mod 4: byte j = 4*M8 + k4 of the group
 *   m4    which 8-row slice (rows 8*m4 + M8, "entries iso-modulo 8" folded into one byte):
 *         bits 2*m4+1..2*m4 of byte j are the code of row 32B + 8*m4 + M8, column 4g + k4.
 * So one 32-byte load = 128 codes = a 32x4 tile, and
 *     lo = v & 0x0f,  hi = (v >> 4) & 0x0f          (1 vpsrld + 2 vpand)
 *     w0 = pshufb(lut01, lo)  rows  0..7            (4 vpshufb; lut01[i] = u(i & 3),
 *     w1 = pshufb(lut23, lo)  rows  8..15                       lut23[i] = u(i >> 2))
 *     w2 = pshufb(lut01, hi)  rows 16..23
 *     w3 = pshufb(lut23, hi)  rows 24..31
 * gives four 256-bit vectors of int8 in VNNI4 order (dword d = row d of the slice, bytes = its 4
 * k's), each multiplied with the broadcast dword of activations q[4g..4g+3] into an int32
 * accumulator whose dword d IS output row d: no horizontal reduction (Figure 1, right).
 *
 * What 2 bits mean: each code c is an int8 level levels[c] held in the packed head (so the
 * shuffle tables are per tensor); pack chooses one of two level sets:
 *   ternary  {-2,-1,0,+1}, used when every row of W is exactly {-a_m, 0, +a_m} (BitNet b1.58
 *            weights, or the harness's ternary view): code = t + 2, scale[m] = a_m, so ternary
 *            weights are stored and multiplied exactly (w = scale * t bit for bit);
 *   SEQ      {-3,-1,+1,+3} (ParetoQ's 2-bit "stretched elastic" grid {-1.5,-0.5,0.5,1.5}*step,
 *            the paper's 2-bit models [2]) for real weights: scale[m] = step/2, fitted per row
 *            by Lloyd iterations on the squared error.
 * Scales: per ROW (float).  2 bits per weight (+32 bits per row).
 *
 * Activations: per-row int8 (BB_ACT_I8_ROW).  Exact semantics (upconvert.h):
 *     y[n][m] = bb_i8_dequant(sum_k levels[code[m][k]] * q[n][k], s_a[n], scale[m]).
 * Sign handling on vpdpbusd / vpmaddubsw (unsigned x signed): the tables hold u = level + o with
 * o = 2 (ternary set) or 3 (SEQ), and o * qsum is subtracted once per output.
 *
 * Instructions per 256-bit output vector (the paper's gamma, counted from the inner loops; the
 * paper's own sequence is (1 shift + 2 AND + 4 shuffle + 4 FMA) / 4; loads not counted):
 *   avx2     (1 vpsrld + 2 vpand + 4 vpshufb + 4 vpmaddubsw + 4 vpaddw) / 4 = 3.75, plus
 *            8 vpmaddwd/vpaddd every 16 groups (+0.125): 3.875 ops
 *   avxvnni  (1 vpsrld + 2 vpand + 4 vpshufb + 4 vpdpbusd) / 4 = 2.75 ops: the paper's kernel
 *            with vpdpbusd for vpdpbssd
 *   avx512   one 64-byte load = two groups = 8 output vectors: 1 vpsrld + 2 vpandq + 4 vpshufb +
 *            4 vpdpbusd per load, plus 1 vpermd joining the two groups' activation dwords, shared
 *            by the two blocks a GEMV streams at once: (11 + 0.5) / 8 = 1.44 zmm ops (each 512-bit
 *            op does the work of two 256-bit ones, but 512-bit ops have fewer issue ports)
 *   dotprod  (Arm, up_i2_dotprod.c) per 128-bit output (4 rows x 4 k): (2 AND + 2 USHR + 8 TBL +
 *            8 SDOT) / 8 = 2.5 NEON ops, plus one activation DUP per 8 outputs
 * Bytes read per 256-bit output: B = 8 (as in the paper's model, eq. 3).
 */
#ifndef BB_UP_I2_H
#define BB_UP_I2_H

#include "../kernel.h"
#include "upconvert.h"

#define BB_UP_I2_GROUP 32 /* bytes per 32x4 tile */

void bb_up_i2_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_up_i2_matmul_avxvnni(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_up_i2_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_up_i2_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_up_i2_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
