/* up_i1, Arm dot product (FEAT_DotProd, Armv8.2-A+): the paper's Figure 2 microkernel (Intel up-convert paper
 * §III-D: M = 32, N = 1, K = 4 per step) with TBL for the byte shuffle, CMTST for AND + compare,
 * and SDOT for vpdpbssd.
 *
 * Per 32x4 tile (one 16-byte group, 128 weights) and stream: one 16-byte load, inverted once
 * (MVN); per 4 rows t (bits 16 (t mod 2) .. +15 of dword t / 2): one TBL spreads byte 2t over
 * bytes 0..7 and byte 2t + 1 over bytes 8..15, one CMTST against {1, 2, 4, .., 128} sets byte i
 * to -1 where bit i of the inverted tile is set, i.e. where the weight is +1 (bit 0), and to 0
 * where it is -1; one SDOT adds that mask times the broadcast activations q[4g..4g+3] (LD1R /
 * DUP) into the int32x4 accumulator whose lane d is row 4t + d: no blend and no horizontal
 * reduction.  Per 128 weights: LDR + MVN + 8 TBL + 8 CMTST + 8 SDOT (+ the activation broadcast).
 *
 * Exact: SDOT is signed x signed, so the mask m = -[w = +1] is multiplied as it is, and each
 * lane sums -sum_{w=+1} q in int32 (|.| <= K * 128).  The family's unsigned form is u = w + 1 =
 * 2 [w = +1] (upconvert.h), so the u-sum the shared driver (bb_up_matmul_blocks) expects is
 * -2 times the lane: it subtracts 1 * qsum and dequantizes as the reference does.  Two streams
 * per pass, as the x86 variants: two blocks against one activation row (GEMV) or one block
 * against two activation rows (GEMM). */
#include <arm_neon.h>
#include <string.h>

#include "up_i1.h"

static inline int8x16_t bcast_act(const int8_t *q, int g)
{
    int32_t d;
    memcpy(&d, q + 4 * g, 4);
    return vreinterpretq_s8_s32(vdupq_n_s32(d));
}

/* TBL indices of the 4 rows t: byte i takes group byte 2t + i / 8, the byte holding its bit. */
static const uint8_t SPREAD[8][16] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1},         {2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3},
    {4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5},         {6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7},
    {8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9},         {10, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 11, 11, 11},
    {12, 12, 12, 12, 12, 12, 12, 12, 13, 13, 13, 13, 13, 13, 13, 13}, {14, 14, 14, 14, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15},
};

/* Streams s = c * nblk + j; nb * nblk <= 2. */
static inline __attribute__((always_inline)) void block_dotprod(const uint8_t *blk, const int nblk, int k,
                                                                const int8_t *const *q, const int nb,
                                                                int32_t (*usum)[2 * BB_UP_MB])
{
    const uint8x16_t bitsel = vreinterpretq_u8_u64(vdupq_n_u64(0x8040201008040201ull)); /* byte i: 1 << (i % 8) */
    uint8x16_t spread[8];
    for (int t = 0; t < 8; t++) spread[t] = vld1q_u8(SPREAD[t]);
    const size_t bstride = (size_t)k / 4 * BB_UP_I1_GROUP;
    int32x4_t acc[2][8];
    for (int s = 0; s < nb * nblk; s++)
        for (int t = 0; t < 8; t++) acc[s][t] = vdupq_n_s32(0);
    for (int g = 0; g < k / 4; g++)
        for (int j = 0; j < nblk; j++) {
            const uint8_t *p = blk + j * bstride + (size_t)g * BB_UP_I1_GROUP;
            if ((g & 3) == 0) bb_up_prefetch(p);
            uint8x16_t v = vmvnq_u8(vld1q_u8(p));
            for (int t = 0; t < 8; t++) {
                int8x16_t plus = vreinterpretq_s8_u8(vtstq_u8(vqtbl1q_u8(v, spread[t]), bitsel));
                for (int c = 0; c < nb; c++)
                    acc[c * nblk + j][t] = vdotq_s32(acc[c * nblk + j][t], plus, bcast_act(q[c], g));
            }
        }
    for (int c = 0; c < nb; c++)
        for (int j = 0; j < nblk; j++)
            for (int t = 0; t < 8; t++)
                vst1q_s32(usum[c] + BB_UP_MB * j + 4 * t, vmulq_n_s32(acc[c * nblk + j][t], -2));
}

static void blocks_dotprod(const void *w, const uint8_t *blk, int nblk, int k, const int8_t *const *q, int nb,
                           int32_t (*usum)[2 * BB_UP_MB])
{
    (void)w;
    if (nblk == 2) block_dotprod(blk, 2, k, q, 1, usum);
    else if (nb == 2) block_dotprod(blk, 1, k, q, 2, usum);
    else block_dotprod(blk, 1, k, q, 1, usum);
}

void bb_up_i1_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_up_matmul_blocks(w, act, y, m, k, n, m0, m1, 1, 2, blocks_dotprod);
}
