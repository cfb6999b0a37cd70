/* iq4_nl on Arm: the loop of iq4_nl_dotprod.c (SDOT) and iq4_nl_neon.c (Armv8.0), one body
 * compiled once per -march; cb_neon.h's bb_cb_dot16 is the only part that differs.
 *
 * Per 32-weight block and weight row: one 16-byte load of the index bytes; AND 0x0f gives the
 * indices of elements 0..15, USHR #4 those of 16..31, in the activations' order; two TBL
 * (vqtbl1q_s8) look the int8 weights up in the 16-value table held in one register - the vtbl
 * lookup of the Arm paper's IQ4_NL kernel (seed 003 §6.3).  Per activation column: two SDOT
 * (Armv8.0: SMULL + SMLAL2 + SADALP each) of the weights by the 32 int8 activations, ADDV to the
 * block's int32 sum, then the reference's float steps in its order,
 *     y = y + (d_w * d_a) * (float)isum        (FCVT of the fp16 d_w; d_a from the prepared aux)
 * one block after the other.  The block sum is exact in int32 and the float operations are the
 * scalar reference's, one by one, so the result is its bits (ISO C: no FMA contraction).  Up to 4
 * activation columns share each decoded block (prefill); N = 1 is the GEMV of decoding. */
#ifndef BB_IQ4_NL_ARM_H
#define BB_IQ4_NL_ARM_H

#include <arm_neon.h>

#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "../mad/qx_0.h"
#include "cb_neon.h"
#include "iq4_nl.h"

static inline __attribute__((always_inline)) void bb_iq4_nl_row_arm(const bb_iq4_nl_block *x,
                                                                   const bb_block_q8_0 *const *a,
                                                                   const float *const *ad, const int nc, int nb,
                                                                   int8x16_t table, float *out)
{
    const uint8x16_t low4 = vdupq_n_u8(15);
    float sum[BB_CB_NB_MAX] = {0};
    for (int b = 0; b < nb; b++) {
        bb_prefetch_stream(&x[b]); /* one PRFM per 18-byte block: a hint, cheaper than a branch */
        uint8x16_t v = vld1q_u8(x[b].qs);
        int8x16_t lo = vqtbl1q_s8(table, vandq_u8(v, low4)), hi = vqtbl1q_s8(table, vshrq_n_u8(v, 4));
        float dw = bb_cb_f16(x[b].d);
        for (int c = 0; c < nc; c++) {
            int32x4_t acc = bb_cb_dot16(vdupq_n_s32(0), lo, vld1q_s8(a[c][b].qs));
            acc = bb_cb_dot16(acc, hi, vld1q_s8(a[c][b].qs + 16));
            sum[c] += (dw * ad[c][b]) * (float)vaddvq_s32(acc);
        }
    }
    for (int c = 0; c < nc; c++) out[c] = sum[c];
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
        for (int r = m0; r < m1; r++) {
            const bb_iq4_nl_block *x = (const bb_iq4_nl_block *)w + (size_t)r * nb;
            float out[BB_CB_NB_MAX];
            switch (ncol) {
            case 1: bb_iq4_nl_row_arm(x, a, ad, 1, nb, table, out); break;
            case 2: bb_iq4_nl_row_arm(x, a, ad, 2, nb, table, out); break;
            case 3: bb_iq4_nl_row_arm(x, a, ad, 3, nb, table, out); break;
            default: bb_iq4_nl_row_arm(x, a, ad, 4, nb, table, out); break;
            }
            for (int c = 0; c < ncol; c++) y[(size_t)(c0 + c) * m + r] = out[c];
        }
    }
}

#endif
