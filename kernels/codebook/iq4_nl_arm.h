/* iq4_nl on Arm: the loop of iq4_nl_dotprod.c (SDOT) and iq4_nl_neon.c (Armv8.0), one body
 * compiled once per -march; cb_neon.h's bb_cb_dot16 is the only part that differs.
 *
 * A tile of 4 weight rows, one float lane per row.  Per 32-weight block and row: one 16-byte load
 * of the index bytes; AND 0x0f gives the indices of elements 0..15, USHR #4 those of 16..31, in
 * the activations' order; two TBL (vqtbl1q_s8) look the int8 weights up in the 16-value table
 * held in one register - the vtbl lookup of the Arm paper's IQ4_NL kernel (§6.3).  The
 * rows' 4 fp16 scales are gathered into one vector (LD1 lanes, FCVTL).  Per activation column:
 * two SDOT per row (Armv8.0: SMULL + SMLAL2 + SADALP each) of its weights by the 32 int8
 * activations, two ADDP levels give the 4 rows' block sums in one int32x4, then the reference's
 * float steps in its order, for the 4 rows at once,
 *     y = y + (d_w * d_a) * (float)isum        (FMUL by d_a from the prepared aux, SCVTF, FMUL, FADD)
 * one block after the other.  The block sums are exact in int32 and each lane performs the
 * scalar reference's float operations one by one (ISO C: no FMA contraction), so the result is
 * its bits.  Reducing the 4 rows' sums together is the Arm paper's amortization across output
 * rows (§4): 3 ADDP and one SCVTF/FMUL/FMUL/FADD per 4 rows instead of an ADDV and 3 scalar
 * float operations per row.  A last tile of fewer than 4 rows repeats its last row and stores
 * only its own.  Up to 4 activation columns share each decoded block (prefill); N = 1 is the
 * GEMV of decoding. */
#ifndef BB_IQ4_NL_ARM_H
#define BB_IQ4_NL_ARM_H

#include <arm_neon.h>

#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "../common/q8_0_act.h"
#include "cb_neon.h"
#include "iq4_nl.h"

/* The 4 rows x[0..3] against nc activation columns: out[c] lane i = y of row x[i], column c. */
static inline __attribute__((always_inline)) void bb_iq4_nl_rows4_arm(const bb_iq4_nl_block *const *x,
                                                                     const bb_block_q8_0 *const *a,
                                                                     const float *const *ad, const int nc, int nb,
                                                                     int8x16_t table, float32x4_t *out)
{
    const uint8x16_t low4 = vdupq_n_u8(15);
    for (int c = 0; c < nc; c++) out[c] = vdupq_n_f32(0.0f);
    for (int b = 0; b < nb; b++) {
        int8x16_t lo[4], hi[4];
        for (int i = 0; i < 4; i++) {
            bb_prefetch_stream(&x[i][b]); /* one PRFM per 18-byte block: a hint, cheaper than a branch */
            uint8x16_t v = vld1q_u8(x[i][b].qs);
            lo[i] = vqtbl1q_s8(table, vandq_u8(v, low4));
            hi[i] = vqtbl1q_s8(table, vshrq_n_u8(v, 4));
        }
        uint16x4_t dh = vdup_n_u16(0);
        dh = vld1_lane_u16(&x[0][b].d, dh, 0);
        dh = vld1_lane_u16(&x[1][b].d, dh, 1);
        dh = vld1_lane_u16(&x[2][b].d, dh, 2);
        dh = vld1_lane_u16(&x[3][b].d, dh, 3);
        float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(dh));
        for (int c = 0; c < nc; c++) {
            int8x16_t qlo = vld1q_s8(a[c][b].qs), qhi = vld1q_s8(a[c][b].qs + 16);
            int32x4_t s[4];
            for (int i = 0; i < 4; i++) s[i] = bb_cb_dot16(bb_cb_dot16(vdupq_n_s32(0), lo[i], qlo), hi[i], qhi);
            int32x4_t isum = vpaddq_s32(vpaddq_s32(s[0], s[1]), vpaddq_s32(s[2], s[3]));
            out[c] = vaddq_f32(out[c], vmulq_f32(vmulq_n_f32(dw, ad[c][b]), vcvtq_f32_s32(isum)));
        }
    }
}

static inline __attribute__((always_inline)) void bb_iq4_nl_matmul_arm(const void *w, const void *act, float *y,
                                                                      int m, int k, int n, int m0, int m1)
{
    const int nb = k / BB_QK4_NL;
    const int8x16_t table = vld1q_s8(bb_iq4_nl_kvalues);
    for (int c0 = 0; c0 < n; c0 += BB_CB_NB_MAX) {
        const int ncol = n - c0 < BB_CB_NB_MAX ? n - c0 : BB_CB_NB_MAX;
        const bb_block_q8_0 *a[BB_CB_NB_MAX];
        const float *ad[BB_CB_NB_MAX];
        for (int c = 0; c < ncol; c++) {
            a[c] = bb_qx_act_row(act, k, c0 + c);
            ad[c] = bb_qx_aux_row(act, n, k, c0 + c).d;
        }
        for (int r0 = m0; r0 < m1; r0 += 4) {
            const int nr = m1 - r0 < 4 ? m1 - r0 : 4;
            const bb_iq4_nl_block *x[4];
            for (int i = 0; i < 4; i++) x[i] = (const bb_iq4_nl_block *)w + (size_t)(r0 + (i < nr ? i : nr - 1)) * nb;
            float32x4_t out[BB_CB_NB_MAX];
            switch (ncol) {
            case 1: bb_iq4_nl_rows4_arm(x, a, ad, 1, nb, table, out); break;
            case 2: bb_iq4_nl_rows4_arm(x, a, ad, 2, nb, table, out); break;
            case 3: bb_iq4_nl_rows4_arm(x, a, ad, 3, nb, table, out); break;
            default: bb_iq4_nl_rows4_arm(x, a, ad, 4, nb, table, out); break;
            }
            for (int c = 0; c < ncol; c++) {
                float o[4];
                vst1q_f32(o, out[c]);
                for (int i = 0; i < nr; i++) y[(size_t)(c0 + c) * m + r0 + i] = o[i];
            }
        }
    }
}

#endif
