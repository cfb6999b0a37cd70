/* tl2_0 — bitnet.cpp's TL2 with int8 tables (bitnet.cpp §3.1, Table 1 "TL2_0", Table 6,
 * Algorithm 4, eq. (5)).  Lossy.
 *
 * Weights: ternary, one per-tensor scale.  Block-fitting weight splitting: the first
 * ThreeK = floor(K/48)*48 columns are taken three at a time, (a, b, c) -> v = 9a + 3b + c, stored
 * as a 4-bit index |v| and a 1-bit sign (v < 0) (element-wise mirror consolidation, Table 6) in
 * separate but aligned index and sign planes (signed-unsigned weight splitting); the remaining
 * TwoK = K - ThreeK (0, 16 or 32) columns are TL1 pairs (Table 5).  Layout in elut.h.
 * Stored bits per weight, exactly: (ThreeK * 5/3 + TwoK * 2) / K, + the sign plane's padding to
 * a multiple of 64 bytes per 16-row tile (none when ThreeK is a multiple of 96), + one float per
 * tensor: 5/3 = 1.6667 for K = 1536 and 6912, 1.6750 for K = 2560, 1.6719 for K = 4096
 * (bits_per_weight = 5/3).
 * K multiple of 16, any M.
 *
 * Activations: per-row int8 absmax q, s_a (common/act_quant.h, the same q and s_a as i2_s), then
 * per activation row one 14-entry table per triple, T_j[i] = a q[3j] + b q[3j+1] + c q[3j+2] with
 * 9a + 3b + c = i, and one 9-entry table per TL1 pair, all quantized to int8 with the row's table
 * step: t_j[i] = round_half_even(T_j[i] / d), d = A / 127, A = max over groups of sum |q|.
 * A triple's lookup is sign ? -t_j[idx] : t_j[idx], applied with eq. (5): x' = s ^ (s + x).
 *
 * Exact semantics: y[n][m] = (float)(sum_j x'_j) * d / s_a * s_w   (0 when s_a = 0), the integer
 * sum exact in int32; every variant gives these bits.
 * Error (BB_ACT_CUSTOM): the per-row int8 bound plus, for each group with a nonzero weight,
 * d/2 * s_w / s_a of table rounding (elut_error_bound).
 */
#ifndef BB_TL2_0_H
#define BB_TL2_0_H

#include "../kernel.h"

extern const bb_kernel bb_kernel_tl2_0;

#endif
