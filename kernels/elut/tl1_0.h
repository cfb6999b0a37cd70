/* tl1_0 — bitnet.cpp's TL1 with int8 tables (bitnet.cpp §3.1.1, Table 1 "TL1_0", Table 5,
 * Algorithm 3).  Lossy.
 *
 * Weights: ternary, one per-tensor scale.  Every pair (t[2j], t[2j+1]) = (a, b) is the 4-bit
 * index 3(a+1) + (b+1) of Table 5, in the tiled nibble layout of elut.h (16-row tiles, 64-byte
 * index blocks of 16 rows x 8 pairs).  2 bits per weight, plus one float per tensor.
 * K multiple of 16, any M.
 *
 * Activations: per-row int8 absmax q, s_a (common/act_quant.h, the same q and s_a as i2_s), then
 * per activation row one 9-entry table per pair of columns, T_j[i] = (i/3-1) q[2j] + (i%3-1) q[2j+1],
 * quantized to int8: t_j[i] = round_half_even(T_j[i] / d) with the row's table step
 * d = A / 127, A = max_j (|q[2j]| + |q[2j+1]|) (float arithmetic as written in elut.c).
 *
 * Exact semantics: y[n][m] = (float)(sum_j t_j[idx_mj]) * d / s_a * s_w   (0 when s_a = 0),
 * the integer sum exact in int32; every variant gives these bits.
 * Error (BB_ACT_CUSTOM): the per-row int8 bound plus, for each pair with a nonzero weight,
 * d/2 * s_w / s_a of table rounding (elut_error_bound).
 */
#ifndef BB_TL1_0_H
#define BB_TL1_0_H

#include "../kernel.h"

extern const bb_kernel bb_kernel_tl1_0;

#endif
