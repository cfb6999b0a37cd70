/* The Arm loops of the 8-byte-chunk interleaved Q4_0 records (q4_0_interleaved.h with C = 8):
 * q4_0x8 (R = 8, Q4_0_8_8) and q4_0_4_8 (R = 4), Arm paper §4.1-4.2.  Included by the *_dotprod.c
 * (SDOT only) and *_i8mm.c (SMMLA for pairs of activation rows) of q4_0x8, q4_0_4_8 and iq4_nl_x8.
 *
 * A record's 16R nibble bytes are R 16-byte vectors: vector u < R/2 holds bytes 0..7 of rows 2u
 * and 2u+1, vector R/2 + u bytes 8..15 of the same rows.  SHL #4 and AND 0xF0 give 16 × the
 * signed weights (the XOR 0x88 of §4.1.2): low plane = weights 0..7 / 8..15 of each row, high
 * plane = 16..23 / 24..31.
 *   SDOT (one activation row): the plane's 8 activation bytes in both halves (LD1R), so lanes
 *     (0, 1) collect row 2u and lanes (2, 3) row 2u+1; 4 SDOT per vector pair and ADDP of two
 *     pairs' sums gives 4 rows in order.
 *   SMMLA (two activation rows): the 8 activation bytes of both rows side by side are the 2×8
 *     left operand, the weight vector the 2×8 right one, so lane 2i+j = activation row i · weight
 *     row 2u+j; ZIP1 / ZIP2 of two pairs' 64-bit halves give each activation row's 4 rows.
 * Every int32 holds 16 × isum exactly (|16 isum| <= 32 * 128 * 127); SCVTF with 4 fraction bits
 * turns it into isum exactly, FCVTL widens 4 fp16 scales, and ((float)isum * d_w) * d_a is added
 * per row lane with separate FMUL / FADD in block order: the scalar reference's bits.  Up to 4
 * activation rows share each decoded record; all activation tiles run while a group's records
 * are in L1.
 * The same records holding IQ4_NL indices (iq4_nl_x8, codebook/iq4_nl_x8.h; a `table` of the 16
 * kvalues given) are decoded by TBL from the register-resident table (Arm paper §6.3) into the
 * signed weights themselves, and folded as iq4_nl's reference does, (d_w * d_a) * (float)isum. */
#ifndef BB_CHUNK8_RECORDS_NEON_H
#define BB_CHUNK8_RECORDS_NEON_H

#include <arm_neon.h>

#include "nibble_records.h"
#include "prefetch.h"

#define C8_ROWS_MAX 8
#define C8_NB_MAX 4

/* The 8 activation bytes at p in both 64-bit halves. */
BB_QX_INLINE int8x16_t c8_dup8(const int8_t *p)
{
    return vreinterpretq_s8_s64(vld1q_dup_s64((const int64_t *)(const void *)p));
}

/* Row sums (R/4 vectors of 4 rows, each 16 × isum) of one activation row q (a block's 32 int8). */
BB_QX_INLINE void c8_dot_row(const int8x16_t *lo, const int8x16_t *hi, int rows, const int8_t *q, int32x4_t *sum)
{
    int8x16_t a0 = c8_dup8(q), a1 = c8_dup8(q + 8), a2 = c8_dup8(q + 16), a3 = c8_dup8(q + 24);
    int half = rows / 2;
    for (int j = 0; j < rows / 4; j++) {
        int32x4_t p[2];
        for (int t = 0; t < 2; t++) {
            int u = 2 * j + t;
            p[t] = vdotq_s32(vdupq_n_s32(0), lo[u], a0);
            p[t] = vdotq_s32(p[t], hi[u], a2);
            p[t] = vdotq_s32(p[t], lo[half + u], a1);
            p[t] = vdotq_s32(p[t], hi[half + u], a3);
        }
        sum[j] = vpaddq_s32(p[0], p[1]);
    }
}

#if defined(__ARM_FEATURE_MATMUL_INT8)
/* Row sums of two activation rows q0, q1 at once (SMMLA). */
BB_QX_INLINE void c8_mmla_pair(const int8x16_t *lo, const int8x16_t *hi, int rows, const int8_t *q0,
                               const int8_t *q1, int32x4_t *sum0, int32x4_t *sum1)
{
    int8x16_t a[4];
    for (int s = 0; s < 4; s++) a[s] = vcombine_s8(vld1_s8(q0 + 8 * s), vld1_s8(q1 + 8 * s));
    int half = rows / 2;
    for (int j = 0; j < rows / 4; j++) {
        int64x2_t p[2];
        for (int t = 0; t < 2; t++) {
            int u = 2 * j + t;
            int32x4_t s = vmmlaq_s32(vdupq_n_s32(0), a[0], lo[u]);
            s = vmmlaq_s32(s, a[2], hi[u]);
            s = vmmlaq_s32(s, a[1], lo[half + u]);
            p[t] = vreinterpretq_s64_s32(vmmlaq_s32(s, a[3], hi[half + u]));
        }
        sum0[j] = vreinterpretq_s32_s64(vzip1q_s64(p[0], p[1]));
        sum1[j] = vreinterpretq_s32_s64(vzip2q_s64(p[0], p[1]));
    }
}
#endif

/* acc += ((float)isum * d_w) * d_a for the R/4 vectors of one activation row (sums of 16 isum);
 * for a codebook (sums of isum) acc += (d_w * d_a) * (float)isum. */
BB_QX_INLINE void c8_accumulate(const int32x4_t *sum, const float32x4_t *dw, float da, int rows, int codebook,
                                float32x4_t *acc)
{
    for (int j = 0; j < rows / 4; j++)
        acc[j] = vaddq_f32(acc[j], codebook ? vmulq_f32(vmulq_n_f32(dw[j], da), vcvtq_f32_s32(sum[j]))
                                            : vmulq_n_f32(vmulq_f32(vcvtq_n_f32_s32(sum[j], 4), dw[j]), da));
}

/* Output rows R*g .. R*g+R-1 for activation rows c0 .. c0+nb-1; pairs of them through SMMLA
 * when mmla is set (the i8mm files), the rest through SDOT; table: NULL for Q4_0, or the 16
 * codebook values the nibbles index. */
BB_QX_INLINE void c8_group_tile(const void *w, const void *act, float *y, int m, int k, int n, int rows, int g,
                                int c0, int nb, int mmla, const int8_t *table)
{
    const int8x16_t high = vdupq_n_s8((int8_t)0xF0), low = vdupq_n_s8(0x0F);
    const int8x16_t book = table ? vld1q_s8(table) : high;
    const bb_block_q8_0 *a[C8_NB_MAX];
    bb_qx_aux aux[C8_NB_MAX];
    float32x4_t acc[C8_NB_MAX][C8_ROWS_MAX / 4];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
        for (int j = 0; j < rows / 4; j++) acc[c][j] = vdupq_n_f32(0.0f);
    }
    size_t rbytes = bb_nibble_record_bytes(rows);
    for (int b = 0; b < k / BB_QK; b++) {
        const uint8_t *rec = bb_nibble_record(w, k, rows, g, b);
        for (size_t l = 0; l < rbytes; l += 64) bb_prefetch_stream(rec + l);
        float32x4_t dw[C8_ROWS_MAX / 4];
        for (int j = 0; j < rows / 4; j++)
            dw[j] = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)(const void *)(rec + 8 * j))));
        int8x16_t lo[C8_ROWS_MAX], hi[C8_ROWS_MAX];
        for (int u = 0; u < rows; u++) {
            int8x16_t x = vld1q_s8((const int8_t *)rec + 2 * rows + 16 * u);
            if (table) {
                lo[u] = vqtbl1q_s8(book, vreinterpretq_u8_s8(vandq_s8(x, low)));
                hi[u] = vqtbl1q_s8(book, vshrq_n_u8(vreinterpretq_u8_s8(x), 4));
            } else {
                lo[u] = vshlq_n_s8(x, 4);
                hi[u] = vandq_s8(x, high);
            }
        }
        int c = 0;
#if defined(__ARM_FEATURE_MATMUL_INT8)
        for (; mmla && c + 2 <= nb; c += 2) {
            int32x4_t s0[C8_ROWS_MAX / 4], s1[C8_ROWS_MAX / 4];
            c8_mmla_pair(lo, hi, rows, a[c][b].qs, a[c + 1][b].qs, s0, s1);
            c8_accumulate(s0, dw, aux[c].d[b], rows, table != NULL, acc[c]);
            c8_accumulate(s1, dw, aux[c + 1].d[b], rows, table != NULL, acc[c + 1]);
        }
#endif
        for (; c < nb; c++) {
            int32x4_t s[C8_ROWS_MAX / 4];
            c8_dot_row(lo, hi, rows, a[c][b].qs, s);
            c8_accumulate(s, dw, aux[c].d[b], rows, table != NULL, acc[c]);
        }
    }
    for (int c = 0; c < nb; c++)
        for (int j = 0; j < rows / 4; j++) vst1q_f32(y + (size_t)(c0 + c) * m + (size_t)g * rows + 4 * j, acc[c][j]);
}

BB_QX_INLINE void c8_matmul(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1, int rows,
                            int mmla, const int8_t *table)
{
    for (int g = m0 / rows; g < m1 / rows; g++)
        for (int c0 = 0; c0 < n; c0 += C8_NB_MAX) {
            switch (n - c0 < C8_NB_MAX ? n - c0 : C8_NB_MAX) {
            case 1: c8_group_tile(w, act, y, m, k, n, rows, g, c0, 1, mmla, table); break;
            case 2: c8_group_tile(w, act, y, m, k, n, rows, g, c0, 2, mmla, table); break;
            case 3: c8_group_tile(w, act, y, m, k, n, rows, g, c0, 3, mmla, table); break;
            default: c8_group_tile(w, act, y, m, k, n, rows, g, c0, 4, mmla, table); break;
            }
        }
}

#endif
