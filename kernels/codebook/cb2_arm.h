/* cb2 on Arm: the loop of cb2_dotprod.c (SDOT) and cb2_neon.c (Armv8.0), one body compiled once
 * per -march; cb_neon.h's bb_cb_dot16 is the only part that differs.
 *
 * The 8 codebooks C[8][4] sit as signed int8 in two registers (32 bytes, entry e of book k at
 * 4k + e) for the whole matrix - the register-resident codebooks of the Arm paper (§5.3:
 * "the codebook index for a group and the centroid indices ... can be combined using bitwise
 * vector operations before using specialized vector table lookup operations vtbl").  SDOT is
 * signed x signed, so the centroids need no offset (the x86 variants' u = c + 64 and bsums term).
 *
 * Per 256-weight super-block and weight row: 4 loads of 16 index bytes (bytes 16h..16h+15 hold
 * sub-group 4s + h in bits 2s..2s+1), one of the 16 meta bytes; (meta & 7) << 2, the table offset
 * of each sub-group's codebook, is stored once to the stack and broadcast per sub-group (LD1R);
 * meta >> 3, the local scales, widened to four int32x4 (sub-groups 4s..4s+3).  Per sub-group of
 * 16 weights: its 2-bit indices and book offset combined in one or two instructions (BSL with
 * mask 3, after USHR by 2s for s = 1, 2; USRA by 6 for s = 3), one TBL of two registers
 * (vqtbl2q_s8) gives the 16 int8 centroids.  Per activation column: one SDOT (Armv8.0: SMULL +
 * SMLAL2 + SADALP) per sub-group from zero; for each 4 sub-groups of equal s, two ADDP levels put
 * their four sums in one vector and one MLA multiplies them by the four local scales into the
 * super-block's accumulator; ADDV gives isum_b.  Then the reference's float steps in its order,
 *     y = y + (fp16(d_b) * qd_b) * (float)isum_b,
 * super-block after super-block.  isum_b is exact in int32 (|ls C q| <= 31 * 64 * 128 per
 * element), and the float operations are the scalar reference's one by one (ISO C: no FMA
 * contraction), so the result is its bits.  With SDOT up to 4 activation columns share each
 * decoded sub-group; the Armv8.0 form decodes per column, as its widening multiplies leave too
 * few registers for more than one column's temporaries without spills. */
#ifndef BB_CB2_ARM_H
#define BB_CB2_ARM_H

#include <arm_neon.h>

#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "cb2.h"
#include "cb_neon.h"

/* The TBL indices of sub-group 4s + h: its 2-bit indices (bits 2s..2s+1 of raw) ORed into its
 * codebook's offset cbv (bits 2..4; bits 0..1 zero). */
static inline __attribute__((always_inline)) uint8x16_t bb_cb2_arm_index(uint8x16_t raw, uint8x16_t cbv, int s)
{
    const uint8x16_t m3 = vdupq_n_u8(3);
    switch (s) {
    case 0: return vbslq_u8(m3, raw, cbv);
    case 1: return vbslq_u8(m3, vshrq_n_u8(raw, 2), cbv);
    case 2: return vbslq_u8(m3, vshrq_n_u8(raw, 4), cbv);
    default: return vsraq_n_u8(cbv, raw, 6);
    }
}

static inline __attribute__((always_inline)) void bb_cb2_row_arm(const bb_cb2_block *row, const bb_block_q8_K *const *a,
                                                                 const int nc, int nb, int8x16x2_t books, float *out)
{
    float sum[BB_CB_NB_MAX];
    for (int c = 0; c < nc; c++) sum[c] = 0.0f;
    for (int b = 0; b < nb; b++) {
        const bb_cb2_block *blk = &row[b];
        bb_prefetch_stream(blk);
        bb_prefetch_stream((const char *)blk + 64);
        uint8x16_t meta = vld1q_u8(blk->meta);
        uint8_t cb[16];
        vst1q_u8(cb, vshlq_n_u8(vandq_u8(meta, vdupq_n_u8(7)), 2));
        uint8x16_t ls8 = vshrq_n_u8(meta, 3);
        uint16x8_t ls16[2] = {vmovl_u8(vget_low_u8(ls8)), vmovl_high_u8(ls8)};
        int32x4_t ls[4];
        for (int i = 0; i < 2; i++) {
            ls[2 * i] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(ls16[i])));
            ls[2 * i + 1] = vreinterpretq_s32_u32(vmovl_high_u16(ls16[i]));
        }
        uint8x16_t raw[4];
        for (int h = 0; h < 4; h++) raw[h] = vld1q_u8(blk->qs + 16 * h);
        int32x4_t acc[BB_CB_NB_MAX];
        for (int c = 0; c < nc; c++) acc[c] = vdupq_n_s32(0);
#pragma GCC unroll 4 /* s selects the shifts of bb_cb2_arm_index and the scales ls[s]: constants */
        for (int s = 0; s < 4; s++) {
            int8x16_t cw[4];
            for (int h = 0; h < 4; h++)
                cw[h] = vqtbl2q_s8(books, bb_cb2_arm_index(raw[h], vld1q_dup_u8(&cb[4 * s + h]), s));
            for (int c = 0; c < nc; c++) {
                const int8_t *q = a[c][b].qs + 64 * s;
                int32x4_t d[4];
                for (int h = 0; h < 4; h++) d[h] = bb_cb_dot16(vdupq_n_s32(0), cw[h], vld1q_s8(q + 16 * h));
                int32x4_t sums = vpaddq_s32(vpaddq_s32(d[0], d[1]), vpaddq_s32(d[2], d[3]));
                acc[c] = vmlaq_s32(acc[c], sums, ls[s]);
            }
        }
        float dw = bb_cb_f16(blk->d);
        for (int c = 0; c < nc; c++) sum[c] += (dw * a[c][b].d) * (float)vaddvq_s32(acc[c]);
    }
    for (int c = 0; c < nc; c++) out[c] = sum[c];
}

/* nb_max (<= BB_CB_NB_MAX) activation columns share each decoded sub-group. */
static inline __attribute__((always_inline)) void bb_cb2_matmul_arm(const void *w, const void *act, float *y, int m,
                                                                   int k, int n, int m0, int m1, const int nb_max)
{
    const int nb = k / BB_CB2_QK;
    const int8_t *bk = bb_cb2_books(w, m, k);
    const int8x16x2_t books = {{vld1q_s8(bk), vld1q_s8(bk + 16)}};
    for (int c0 = 0; c0 < n; c0 += nb_max) {
        const int ncol = n - c0 < nb_max ? n - c0 : nb_max;
        const bb_block_q8_K *a[BB_CB_NB_MAX];
        for (int c = 0; c < ncol; c++) a[c] = (const bb_block_q8_K *)act + (size_t)(c0 + c) * nb;
        for (int r = m0; r < m1; r++) {
            const bb_cb2_block *row = bb_cb2_row(w, k, r);
            float out[BB_CB_NB_MAX];
            switch (ncol) {
            case 1: bb_cb2_row_arm(row, a, 1, nb, books, out); break;
            case 2: bb_cb2_row_arm(row, a, 2, nb, books, out); break;
            case 3: bb_cb2_row_arm(row, a, 3, nb, books, out); break;
            default: bb_cb2_row_arm(row, a, 4, nb, books, out); break;
            }
            for (int c = 0; c < ncol; c++) y[(size_t)(c0 + c) * m + r] = out[c];
        }
    }
}

#endif
