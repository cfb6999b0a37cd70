/* tl2_1 — bitnet.cpp's TL2 with exact int16 tables split into two byte tables (bitnet.cpp §3.1 and
 * §3.2.1, Table 1 "TL2_1", Table 6, Algorithm 4, eq. (5)).  Lossless.
 *
 * Weights: ternary, one per-tensor scale.  Block-fitting weight splitting: the first
 * ThreeK = floor(K/48)*48 columns are taken three at a time, (a, b, c) -> v = 9a + 3b + c, stored
 * as a 4-bit index |v| and a 1-bit sign (v < 0) (element-wise mirror consolidation, Table 6) in
 * separate but aligned index and sign planes (signed-unsigned weight splitting); the remaining
 * TwoK = K - ThreeK (0, 16 or 32) columns are TL1 pairs (Table 5).  Layout in elut.h (the same
 * packed bytes as tl2_0).
 * Stored bits per weight, exactly: (ThreeK * 5/3 + TwoK * 2) / K, + the sign plane's padding to
 * a multiple of 64 bytes per 16-row tile (none when ThreeK is a multiple of 96), + one float per
 * tensor: 5/3 = 1.6667 for K = 1536 and 6912, 1.6750 for K = 2560, 1.6719 for K = 4096
 * (bits_per_weight = 5/3).
 * K multiple of 16, any M.
 *
 * Activations: per-row int8 absmax q, s_a (common/act_quant.h, BB_ACT_I8_ROW: the same q and s_a
 * as i2_s), then per activation row one 14-entry table of exact sums per triple,
 * T_j[i] = a q[3j] + b q[3j+1] + c q[3j+2] with 9a + 3b + c = i (|T| <= 381), and one 9-entry
 * table per TL1 pair, as int16 split into a plane of low bytes and a plane of high bytes.  A
 * triple's lookup is 256 * high + low, negated when its sign is set by eq. (5): x' = s ^ (s + x).
 *
 * Exact semantics: y[n][m] = bb_i8_dequant(sum_k t[m][k] * q[n][k], s_a[n], s_w) — the integer
 * sum exact in int32 — bit for bit what i2_s and tl1_1 compute (tests/test_lossless.c,
 * tests/test_elut.c).
 */
#ifndef BB_TL2_1_H
#define BB_TL2_1_H

#include "../kernel.h"

extern const bb_kernel bb_kernel_tl2_1;

#endif
