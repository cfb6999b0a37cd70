/* q4_0_4_4, Arm dot product (FEAT_DotProd: SDOT by element, vdotq_laneq_s32; Armv8.2-A+,
 * Neoverse N1 / Cortex-A76 and later, the Graviton2 of the paper's Table 2).  Layout and exact
 * semantics: q4_0_4_4.h.
 *
 * Per 72-byte record (block b of 4 rows, 128 weights): four 16-byte loads v = 0..3, each 4 bytes
 * of every row (bytes 4v..4v+3).  The stored nibbles carry the XOR 0x88 of §4.1.2, so
 * SHL #4 (low nibbles, weights 4v..4v+3) and AND 0xF0 (high nibbles, weights 16+4v..) give
 * 16 × the signed weights as int8, no subtraction.  SDOT by element v multiplies each row's 4
 * bytes by activation bytes 4v..4v+3 (low) or 16+4v.. (high), so int32 lane i collects row i:
 * 8 SDOT per record and activation row, no reduction across lanes (§4.1.1).  The lanes hold
 * 16 × isum exactly (|16 isum| <= 32 * 128 * 127); SCVTF with 4 fraction bits turns them into
 * isum exactly, FCVTL widens the 4 fp16 scales, and ((float)isum * d_w) * d_a is added per row
 * lane with separate FMUL / FADD in block order: the scalar reference's bits.  Up to 4
 * activation rows share each decoded record; all activation tiles run while a group's records
 * are in L1. */
#include <arm_neon.h>

#include "q4_0_4_4.h"

#define ROWS 4
#define NB_MAX 4

BB_QX_INLINE void group_tile(const void *w, const void *act, float *y, int m, int k, int n, int g, int c0, int nb)
{
    const int8x16_t high = vdupq_n_s8((int8_t)0xF0);
    const bb_block_q8_0 *a[NB_MAX];
    bb_qx_aux aux[NB_MAX];
    float32x4_t acc[NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
        acc[c] = vdupq_n_f32(0.0f);
    }
    for (int b = 0; b < k / BB_QK; b++) {
        const uint8_t *rec = bb_nibble_record(w, k, ROWS, g, b);
        bb_prefetch_stream(rec);
        bb_prefetch_stream(rec + 64);
        float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)rec)));
        int8x16_t lo[4], hi[4];
        for (int v = 0; v < 4; v++) {
            int8x16_t x = vld1q_s8((const int8_t *)rec + 2 * ROWS + 16 * v);
            lo[v] = vshlq_n_s8(x, 4);
            hi[v] = vandq_s8(x, high);
        }
        for (int c = 0; c < nb; c++) {
            int8x16_t q0 = vld1q_s8(a[c][b].qs), q1 = vld1q_s8(a[c][b].qs + 16);
            int32x4_t s = vdotq_laneq_s32(vdupq_n_s32(0), lo[0], q0, 0);
            s = vdotq_laneq_s32(s, lo[1], q0, 1);
            s = vdotq_laneq_s32(s, lo[2], q0, 2);
            s = vdotq_laneq_s32(s, lo[3], q0, 3);
            s = vdotq_laneq_s32(s, hi[0], q1, 0);
            s = vdotq_laneq_s32(s, hi[1], q1, 1);
            s = vdotq_laneq_s32(s, hi[2], q1, 2);
            s = vdotq_laneq_s32(s, hi[3], q1, 3);
            float32x4_t p = vmulq_n_f32(vmulq_f32(vcvtq_n_f32_s32(s, 4), dw), aux[c].d[b]);
            acc[c] = vaddq_f32(acc[c], p);
        }
    }
    for (int c = 0; c < nb; c++) vst1q_f32(y + (size_t)(c0 + c) * m + (size_t)g * ROWS, acc[c]);
}

void bb_q4_0_4_4_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    for (int g = m0 / ROWS; g < m1 / ROWS; g++)
        for (int c0 = 0; c0 < n; c0 += NB_MAX) {
            switch (n - c0 < NB_MAX ? n - c0 : NB_MAX) {
            case 1: group_tile(w, act, y, m, k, n, g, c0, 1); break;
            case 2: group_tile(w, act, y, m, k, n, g, c0, 2); break;
            case 3: group_tile(w, act, y, m, k, n, g, c0, 3); break;
            default: group_tile(w, act, y, m, k, n, g, c0, 4); break;
            }
        }
}
