/* q8_0 and q4_0, Arm dot product (FEAT_DotProd: SDOT; Cortex-A76 / Neoverse N1 and later, Apple
 * M1+).  Layouts and the reference are qx_0.h's: ggml's row-major block_q8_0 / block_q4_0 and
 * q8_0 activations with their aux (qx_0.h).
 *
 * Unlike the x86 variants (float lanes with FMA, float_accumulation), these give the scalar
 * reference's bits: four weight rows are computed side by side, one per float lane, so each lane
 * runs the reference's own sequence y = y + ((float)isum_b * d_w) * d_a in block order (FMUL,
 * FMUL, FADD; built without FP contraction, so no FMLA), and only the exact integer dot of a
 * block is vectorized.  Per block b and group of 4 weight rows:
 *   q8_0: two 16-byte loads per row, two SDOTs per row and activation row (32 products);
 *   q4_0: one 16-byte load per row, AND 0x0F / USHR 4 give the unsigned nibbles n in the order of
 *         the activations, two SDOTs per row; the +8 bias leaves exactly with the activation
 *         block's -8 * sum of q (qx_0.h aux o), added to the block's sums: (n - 8)·a = n·a - 8·Σa;
 *   then three ADDP turn the 4 rows' lane partials into [isum_r0 .. isum_r3], SCVTF, and the
 *   rows' 4 fp16 d_w (lane loads, FCVTL: exact, as the reference's conversion) scale them.
 * Up to 4 activation rows share each loaded weight block; the weight stream is prefetched
 * BB_PREFETCH_BYTES ahead; the outer loop (row chunks kept in L1, groups of activation rows) is
 * the x86 variants' (qx_0_driver.h).  A last group of fewer than 4 rows repeats its last row in
 * the spare lanes: a lane's result never depends on the others, so any split of M gives the same
 * bits.
 *
 * Arm paper §2-3: llama.cpp's Q4_0 / Q8_0 dot products on Arm are SDOT of a block
 * against the q8_0 activation block; bitnet.cpp §2 uses both as baselines. */
#include <arm_neon.h>
#include <string.h>

#define ROWS 4 /* weight rows side by side, one per float lane */
#define QX_ISA dotprod
#define QX_ROW_GROUP ROWS
#include "qx_0_driver.h"

/* The 32 weights of one block as two int8 vectors lined up with the activation block: q8_0's
 * values, q4_0's unsigned nibbles (low nibbles are weights 0..15, high nibbles 16..31). */
BB_QX_INLINE void weights(const uint8_t *blk, int fmt, int8x16_t *lo, int8x16_t *hi)
{
    if (fmt == FMT_Q8_0) {
        *lo = vld1q_s8((const int8_t *)blk + 2);
        *hi = vld1q_s8((const int8_t *)blk + 18);
    } else {
        uint8x16_t v = vld1q_u8(blk + 2);
        *lo = vreinterpretq_s8_u8(vandq_u8(v, vdupq_n_u8(15)));
        *hi = vreinterpretq_s8_u8(vshrq_n_u8(v, 4));
    }
}

/* The exact dot of block b of rows w[0..3] with block b of nb activation rows: isum[c] lane i is
 * row i's isum_b against activation row c, before q4_0's bias correction. */
BB_QX_INLINE void block_dots(const uint8_t *const *w, int fmt, size_t off, const int8x16_t *alo,
                             const int8x16_t *ahi, int nb, int32x4_t *isum)
{
    int32x4_t pair[2][NB_MAX]; /* rows 0, 1 and rows 2, 3 after one ADDP */
    for (int i = 0; i < ROWS; i += 2) {
        int32x4_t s[2][NB_MAX];
        for (int h = 0; h < 2; h++) {
            int8x16_t lo, hi;
            weights(w[i + h] + off, fmt, &lo, &hi);
            for (int c = 0; c < nb; c++) s[h][c] = vdotq_s32(vdotq_s32(vdupq_n_s32(0), lo, alo[c]), hi, ahi[c]);
        }
        for (int c = 0; c < nb; c++) pair[i / 2][c] = vpaddq_s32(s[0][c], s[1][c]);
    }
    for (int c = 0; c < nb; c++) isum[c] = vpaddq_s32(pair[0][c], pair[1][c]);
}

/* The fp16 d of block b of the 4 rows, as floats. */
BB_QX_INLINE float32x4_t rows_d(const uint8_t *const *w, size_t off)
{
    uint16x4_t h = vdup_n_u16(0);
    h = vld1_lane_u16((const uint16_t *)(w[0] + off), h, 0);
    h = vld1_lane_u16((const uint16_t *)(w[1] + off), h, 1);
    h = vld1_lane_u16((const uint16_t *)(w[2] + off), h, 2);
    h = vld1_lane_u16((const uint16_t *)(w[3] + off), h, 3);
    return vcvt_f32_f16(vreinterpret_f16_u16(h));
}

/* Rows w[0..3] against nb activation rows: y4[c] lane i = row i's result for activation row c. */
BB_QX_INLINE void rows4(const uint8_t *const *w, int fmt, const bb_block_q8_0 *const *a, const bb_qx_aux *aux,
                        const int nb, int nblk, float32x4_t *y4)
{
    size_t bbytes = block_bytes(fmt);
    for (int c = 0; c < nb; c++) y4[c] = vdupq_n_f32(0.0f);
    for (int b = 0; b < nblk; b++) {
        size_t off = (size_t)b * bbytes;
        if ((off & 63) < bbytes)
            for (int i = 0; i < ROWS; i++) bb_prefetch_stream(w[i] + off);
        int8x16_t alo[NB_MAX], ahi[NB_MAX];
        for (int c = 0; c < nb; c++) {
            alo[c] = vld1q_s8(a[c][b].qs);
            ahi[c] = vld1q_s8(a[c][b].qs + 16);
        }
        int32x4_t isum[NB_MAX];
        block_dots(w, fmt, off, alo, ahi, nb, isum);
        float32x4_t dw = rows_d(w, off);
        for (int c = 0; c < nb; c++) {
            if (fmt == FMT_Q4_0) isum[c] = vaddq_s32(isum[c], vld1q_dup_s32(aux[c].o + 2 * b));
            float32x4_t p = vmulq_f32(vmulq_f32(vcvtq_f32_s32(isum[c]), dw), vld1q_dup_f32(aux[c].d + b));
            y4[c] = vaddq_f32(y4[c], p);
        }
    }
}

BB_QX_INLINE void rows_tile(const uint8_t *w, int fmt, const void *act, float *y, int m, int k, int n, int m0,
                            int m1, int c0, const int nb)
{
    int nblk = k / BB_QK;
    size_t row_bytes = (size_t)nblk * block_bytes(fmt);
    const bb_block_q8_0 *a[NB_MAX];
    bb_qx_aux aux[NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
    }
    for (int r = m0; r < m1; r += ROWS) {
        int rows = m1 - r < ROWS ? m1 - r : ROWS;
        const uint8_t *wr[ROWS];
        for (int i = 0; i < ROWS; i++) wr[i] = w + (size_t)(r + (i < rows ? i : rows - 1)) * row_bytes;
        float32x4_t y4[NB_MAX];
        rows4(wr, fmt, a, aux, nb, nblk, y4);
        for (int c = 0; c < nb; c++) {
            float out[ROWS];
            vst1q_f32(out, y4[c]);
            memcpy(y + (size_t)(c0 + c) * m + r, out, sizeof(float) * (size_t)rows);
        }
    }
}
