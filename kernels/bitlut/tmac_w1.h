/* tmac_w1, tmac_w1_fa, tmac_w1_exact — T-MAC with 1-bit weights (T-MAC; format, semantics and
 * options in tmac.h).
 *
 * Grid: w = h * c, c = 2q - z2 with q in {0, 1} and z2 in {0, 1, 2}: {-h, +h} (z2 = 1, the
 * sign-times-scale of 1-bit models such as OneBit), {0, 2h} or {-2h, 0}; h fp32 and the offset
 * o = 1 - z2 per row and group of 128.  1.3125 bits per weight as stored (1 + 40/128).
 * One bit plane: isum_g = sum_j T_j[p_j] + o * SQ_g.
 * Layout: one 64-byte vector per (32-row block, 16-activation chunk); dword byte t is K-group t
 * of the chunk (4 tables per dword, weights 1,1,1,1).
 * Variants: scalar (reference), avx2 (vpshufb of 4 tables merged by vpblendvb/vpblendw),
 * avx512 (vpermb over the chunk's 4 tables, vpdpbusd), neon (LD4 puts each K-group's slot in
 * its own register: one TBL per 16 lookups, SMLAL); options per variant: tmac_avx2.c,
 * tmac_avx512.c, tmac_neon.c.  Activations: tmac_w1/_fa float → int8 tables (BB_ACT_CUSTOM, bound in tmac.c);
 * tmac_w1_exact per-row int8 (BB_ACT_I8_ROW), int16 tables. */
#ifndef BB_TMAC_W1_H
#define BB_TMAC_W1_H

#include "tmac.h"

extern const bb_kernel bb_kernel_tmac_w1, bb_kernel_tmac_w1_fa, bb_kernel_tmac_w1_exact;

#endif
