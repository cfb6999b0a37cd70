/* tmac_w2, tmac_w2_fa, tmac_w2_exact — T-MAC with 2-bit weights (T-MAC; format, semantics and
 * options in tmac.h).  Ternary runs as 2-bit (§5.1): BitNet b1.58 weights t * scale are packed
 * exactly (z2 = 2, h = scale/2, c = 2t in {-2, 0, 2}).
 *
 * Grid: w = h * c, c = 2q - z2 with q in {0..3} and z2 in {0..6} (e.g. z2 = 3: the symmetric
 * {-3,-1,1,3} h; z2 = 2: {-2,0,2,4} h, which holds the ternary values); h fp32 and o = 3 - z2 per
 * row and group of 128.  2.3125 bits per weight as stored (2 + 40/128).
 * Two bit planes: isum_g = sum_j (T_j[p0_j] + 2 T_j[p1_j]) + o * SQ_g.
 * Layout: two 64-byte vectors per (32-row block, 16-activation chunk); vector 0 dword =
 * (group 0 plane 0, group 0 plane 1, group 1 plane 0, group 1 plane 1), vector 1 the same for
 * groups 2, 3 (vpdpbusd weights 1,2,1,2).
 * Variants: scalar (reference), avx2 (2 vpshufb merged by vpblendw, vpmaddubsw), avx512
 * (vpermb, vpdpbusd; 128-row tiles), neon (LD4, TBL, SMLAL by 2^plane).  tmac_w2 is the configuration compared with i2_s. */
#ifndef BB_TMAC_W2_H
#define BB_TMAC_W2_H

#include "tmac.h"

extern const bb_kernel bb_kernel_tmac_w2, bb_kernel_tmac_w2_fa, bb_kernel_tmac_w2_exact;

#endif
