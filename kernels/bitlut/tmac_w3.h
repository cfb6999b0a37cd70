/* tmac_w3, tmac_w3_fa, tmac_w3_exact — T-MAC with 3-bit weights (T-MAC; format, semantics and
 * options in tmac.h).
 *
 * Grid: w = h * c, c = 2q - z2 with q in {0..7} and z2 in {0..14}; h fp32 and o = 7 - z2 per row
 * and group of 128.  3.3125 bits per weight as stored (3 + 40/128).
 * Three bit planes: isum_g = sum_j (T_j[p0_j] + 2 T_j[p1_j] + 4 T_j[p2_j]) + o * SQ_g.
 * Layout: three 64-byte vectors per (32-row block, 16-activation chunk): vectors 0, 1 as tmac_w2
 * (planes 0, 1 of groups 0-1 and 2-3), vector 2 = plane 2 of groups 0..3 (weights 4,4,4,4) — the
 * odd plane costs one more shuffle merge, as the paper notes for 3 bits (§5.2).
 * Variants: scalar (reference), avx2, avx512, neon (see tmac_avx2.c, tmac_avx512.c,
 * tmac_neon.c). */
#ifndef BB_TMAC_W3_H
#define BB_TMAC_W3_H

#include "tmac.h"

extern const bb_kernel bb_kernel_tmac_w3, bb_kernel_tmac_w3_fa, bb_kernel_tmac_w3_exact;

#endif
