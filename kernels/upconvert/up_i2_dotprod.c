/* up_i2, Arm dot product (FEAT_DotProd, Armv8.2-A+): the paper's Figure 1 microkernel (Intel up-convert paper
 * §III-B/C: M = 32, N = 1, K = 4 per step) with TBL for vpshufb and SDOT for vpdpbssd.
 *
 * Per 32x4 tile (one 32-byte group, 128 weights) and stream: two 16-byte loads (bytes 0..15 hold
 * rows 8 m4 + 0..3, bytes 16..31 rows 8 m4 + 4..7, of the four 8-row slices m4); per half, AND
 * 0x0f gives the nibbles of slices 0 and 1, USHR #4 those of slices 2 and 3, and four TBL
 * (vqtbl1q_u8) from the head's two 16-entry tables (lut01[i] = u(i & 3), lut23[i] = u(i >> 2))
 * turn them into int8 u = level + offset in VNNI4 order: dword d of each vector is one row, its
 * 4 bytes that row's 4 k's.  The 4 activations q[4g..4g+3] are broadcast as one dword (LD1R) and
 * 8 SDOT add u . q into 8 int32x4 accumulators whose lane d IS output row 4i + d: no horizontal
 * reduction, as in the paper.  Per 128 weights: 2 LDR + 2 AND + 2 USHR + 8 TBL + 8 SDOT (+ the
 * activation broadcast, shared by the two weight streams of a GEMV).
 *
 * Exact: SDOT is signed x signed and u = level + offset lies in [0, 6], so u may be either
 * operand; every lane sums K products |u q| <= 6 * 128 in int32 (K <= 2^20), and the shared
 * driver (bb_up_matmul_blocks) subtracts offset * qsum and dequantizes as the reference does.
 * Two streams per pass, as the x86 variants: two blocks against one activation row (GEMV) or one
 * block against two activation rows (GEMM). */
#include <arm_neon.h>
#include <string.h>

#include "up_i2.h"

static inline int8x16_t bcast_act(const int8_t *q, int g)
{
    int32_t d;
    memcpy(&d, q + 4 * g, 4);
    return vreinterpretq_s8_s32(vdupq_n_s32(d));
}

/* 128 codes -> eight int8x16 of u; vector 2 m4 + half holds rows 8 m4 + 4 half + 0..3. */
static inline __attribute__((always_inline)) void upconvert(const uint8_t *p, uint8x16_t lut01, uint8x16_t lut23,
                                                            int8x16_t wv[8])
{
    const uint8x16_t m0f = vdupq_n_u8(0x0f);
    for (int half = 0; half < 2; half++) {
        uint8x16_t v = vld1q_u8(p + 16 * half);
        uint8x16_t lo = vandq_u8(v, m0f), hi = vshrq_n_u8(v, 4);
        wv[half] = vreinterpretq_s8_u8(vqtbl1q_u8(lut01, lo));
        wv[2 + half] = vreinterpretq_s8_u8(vqtbl1q_u8(lut23, lo));
        wv[4 + half] = vreinterpretq_s8_u8(vqtbl1q_u8(lut01, hi));
        wv[6 + half] = vreinterpretq_s8_u8(vqtbl1q_u8(lut23, hi));
    }
}

/* Streams s = c * nblk + j; nb * nblk <= 2. */
static inline __attribute__((always_inline)) void block_dotprod(const void *w, const uint8_t *blk, const int nblk,
                                                                int k, const int8_t *const *q, const int nb,
                                                                int32_t (*usum)[2 * BB_UP_MB])
{
    const uint8x16_t lut01 = vld1q_u8(bb_up_head_of(w)->lut[0]), lut23 = vld1q_u8(bb_up_head_of(w)->lut[1]);
    const size_t bstride = (size_t)k / 4 * BB_UP_I2_GROUP;
    int32x4_t acc[2][8];
    for (int s = 0; s < nb * nblk; s++)
        for (int i = 0; i < 8; i++) acc[s][i] = vdupq_n_s32(0);
    for (int g = 0; g < k / 4; g++)
        for (int j = 0; j < nblk; j++) {
            const uint8_t *p = blk + j * bstride + (size_t)g * BB_UP_I2_GROUP;
            if ((g & 1) == 0) bb_up_prefetch(p);
            int8x16_t wv[8];
            upconvert(p, lut01, lut23, wv);
            for (int c = 0; c < nb; c++) {
                int8x16_t x = bcast_act(q[c], g);
                for (int i = 0; i < 8; i++) acc[c * nblk + j][i] = vdotq_s32(acc[c * nblk + j][i], wv[i], x);
            }
        }
    for (int c = 0; c < nb; c++)
        for (int j = 0; j < nblk; j++)
            for (int i = 0; i < 8; i++) vst1q_s32(usum[c] + BB_UP_MB * j + 4 * i, acc[c * nblk + j][i]);
}

static void blocks_dotprod(const void *w, const uint8_t *blk, int nblk, int k, const int8_t *const *q, int nb,
                           int32_t (*usum)[2 * BB_UP_MB])
{
    if (nblk == 2) block_dotprod(w, blk, 2, k, q, 1, usum);
    else if (nb == 2) block_dotprod(w, blk, 1, k, q, 2, usum);
    else block_dotprod(w, blk, 1, k, q, 1, usum);
}

void bb_up_i2_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_up_matmul_blocks(w, act, y, m, k, n, m0, m1, 2, 2, blocks_dotprod);
}
