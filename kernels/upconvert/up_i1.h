/* up_i1 — Intel's 1-bit "up-convert and compute" kernel (§III-D, Figure 2).
 *
 * Weights: +-1 (ParetoQ's binary encoding, the paper's [2]): bit 0 -> +1, bit 1 -> -1, with a
 * per-ROW float scale = mean |w| of the row (the least-squares scale of sign(w)), so a row that
 * is exactly {-a, +a} is stored exactly.  1 bit per weight (+32 bits per row).
 *
 * Layout: plain VNNI4 bit order, inside the family container (upconvert.h: head, scale[M],
 * blocks) as [M/32][K/4][m4][m8][k4] bits:
 *   M/32  block of 32 rows; K/4 = group g of four columns k = 4g + k4 (16 bytes per group)
 *   m4    which 8-row slice of the block: dword j of the group (little-endian 32-bit value)
 *   m8, k4  bit i = 4*m8 + k4 of dword j is the weight of row 32B + 8j + m8, column 4g + k4
 * i.e. each dword is one [m8][k4] 1-bit tile whose bit order is the byte order of an int8 VNNI4
 * vector: expanding bit i to byte i yields the up-converted weights already in VNNI4 order.
 *
 * Up-convert (Figure 2, per 8x4 tile = one 256-bit output vector):
 *     vpbroadcastd  the dword to every dword of a ymm
 *     vpshufb       byte i <- the byte holding bit i  (lane 0: bytes 0,1; lane 1: bytes 2,3)
 *     vpand         isolate bit i % 8 in byte i
 *     vpcmpeqb      0xff where the bit is set
 *     blend         select the weight byte: u = 0 (bit 1, w = -1) or u = 2 (bit 0, w = +1);
 *                   with one side 0 the paper's vpblendvb is a vpandn (1 uop instead of 2-3)
 * then one int8 dot product with the broadcast activations q[4g..4g+3].
 *
 * Activations: per-row int8 (BB_ACT_I8_ROW).  Exact semantics (upconvert.h):
 *     y[n][m] = bb_i8_dequant(sum_k (1 - 2*bit[m][k]) * q[n][k], s_a[n], scale[m]).
 * Sign handling on vpdpbusd / vpmaddubsw (unsigned x signed): the blend selects u = w + 1 in
 * {0, 2} instead of the paper's {-1, +1} (a select against zero), and 1 * qsum is
 * subtracted once per output.
 *
 * Instructions per 256-bit output vector (the paper's gamma: 1 shuffle + 1 AND + 1 compare +
 * 1 blend + 1 FMA; the vpbroadcastd loads not counted):
 *   avx2     vpshufb + vpand + vpcmpeqb + vpandn + vpmaddubsw + vpaddw = 6, plus
 *            8 vpmaddwd/vpaddd every 32 groups of 4 outputs (+0.06)
 *   avxvnni  vpshufb + vpand + vpcmpeqb + vpandn + vpdpbusd = 5: the paper's sequence
 *   avx512   AVX-512BW does shuffle + AND + compare in the mask unit: kmovq loads 64 bits of two
 *            tiles straight into a mask register (bit i -> byte i), vpblendmb selects 0 / 2,
 *            vpdpbusd: 2 zmm ops (+1 mask load) per 512-bit output = 1 op per 256-bit output
 *   dotprod  (Arm, up_i1_dotprod.c) per 128-bit output (4 rows x 4 k): TBL + CMTST (AND and
 *            compare in one) + SDOT of the mask, no blend = 3, plus one MVN and one activation DUP
 *            per 8 outputs
 * Bytes read per 256-bit output: B = 4 (as in the paper's model).
 */
#ifndef BB_UP_I1_H
#define BB_UP_I1_H

#include "../kernel.h"
#include "upconvert.h"

#define BB_UP_I1_GROUP 16 /* bytes per 32x4 tile */

void bb_up_i1_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_up_i1_matmul_avxvnni(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_up_i1_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_up_i1_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
