/* tmac_w4, tmac_w4_fa, tmac_w4_exact — T-MAC with 4-bit weights (T-MAC; format, semantics and
 * options in tmac.h).
 *
 * Grid: w = h * c, c = 2q - z2 with q in {0..15} and z2 in {0..30} (GPTQ-style asymmetric 4-bit
 * with a half-integer zero point); h fp32 and o = 15 - z2 per row and group of 128.
 * 4.3125 bits per weight as stored (4 + 40/128).
 * Four bit planes: isum_g = sum_j sum_i 2^i T_j[pi_j] + o * SQ_g.
 * Layout: four 64-byte vectors per (32-row block, 16-activation chunk); vector u dword = planes
 * 0..3 of K-group u (one table per vector, vpdpbusd weights 1,2,4,8).
 * Variants: scalar (reference), avx2 (one vpshufb per vector, vpmaddubsw), avx512 (vpermb,
 * vpdpbusd), neon (LD4, one TBL per 16 lookups, SMLAL by 1, 2, 4, 8). */
#ifndef BB_TMAC_W4_H
#define BB_TMAC_W4_H

#include "tmac.h"

extern const bb_kernel bb_kernel_tmac_w4, bb_kernel_tmac_w4_fa, bb_kernel_tmac_w4_exact;

#endif
