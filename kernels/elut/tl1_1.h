/* tl1_1 — bitnet.cpp's TL1 with exact int16 tables split into two byte tables (bitnet.cpp §3.2.1
 * "pack-and-unpack", Table 1 "TL1_1", Table 5, Algorithm 3).  Lossless.
 *
 * Weights: ternary, one per-tensor scale.  Every pair (t[2j], t[2j+1]) = (a, b) is the 4-bit
 * index 3(a+1) + (b+1) of Table 5, in the tiled nibble layout of elut.h (16-row tiles, 64-byte
 * index blocks of 16 rows x 8 pairs).  2 bits per weight, plus one float per tensor.
 * K multiple of 16, any M.
 *
 * Activations: per-row int8 absmax q, s_a (common/act_quant.h, BB_ACT_I8_ROW: the same q and s_a
 * as i2_s), then per activation row one table per pair of columns holding the exact sums
 * T_j[i] = (i/3-1) q[2j] + (i%3-1) q[2j+1] (|T| <= 254, int16), stored as a plane of low bytes and
 * a plane of high bytes; the kernels look both up and recombine 256 * high + low.
 *
 * Exact semantics: y[n][m] = bb_i8_dequant(sum_k t[m][k] * q[n][k], s_a[n], s_w) — the integer
 * sum exact in int32 — bit for bit what i2_s and tl2_1 compute (tests/test_lossless.c,
 * tests/test_elut.c).
 */
#ifndef BB_TL1_1_H
#define BB_TL1_1_H

#include "../kernel.h"

extern const bb_kernel bb_kernel_tl1_1;

#endif
