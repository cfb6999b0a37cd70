/* tq1_0, Arm dot product (FEAT_DotProd: SDOT; Cortex-A76 / Neoverse N1 and later, Apple M1+).
 * Layout and exact semantics are tq1_0.h's: ggml's block_tq1_0, five trits per byte in base-3
 * fixed point, q8_K activations.
 *
 * What the loop does, per 256-weight block: 16 vectors of 16 bytes b * 3^n mod 256 (MUL by 3 of
 * the previous one), each lined up with 16 consecutive activations: qs[0..15] and qs[16..31]
 * times 1, 3, 9, 27, 81 (values 32n + 0..15 and 32n + 16..31), qs[32..47] times the same (values
 * 160 + 16n + 0..15), and qh's 4 bytes copied to every 32-bit lane times [1 | 3 | 9 | 27] (values
 * 240 + 4n + j).  The trit of such a byte is [b >= 86] + [b >= 171], equal to (b * 3) >> 8 on all
 * 256 bytes (tq1_0.h); two CMHS give the masks 0 / -1 and their sum is -c, which SDOT multiplies
 * by the activations (16 SDOTs per activation row, three accumulators), and one NEG per block gives
 * sum c * q.  The driver (ggml_k_neon.h, ggml_k.h) reduces four blocks' lanes together,
 * subtracts each block's sum of q and folds (float)isum_b * (a_b.d * w_b.d) in block order, the
 * reference's float operations, so the result is the scalar reference's, bit for bit.  Up to 4
 * activation rows share each decoded block.
 *
 * bitnet.cpp §2 and App. B.3: TQ1_0 is the 1.69-bit MAD baseline TL2 is compared with;
 * SDOT does the multiply and the 4-way sum in one instruction, as the Arm paper's kernels do
 * (Arm paper §3-4). */
#include <arm_neon.h>
#include <stddef.h>
#include <string.h>

#include "ggml_k_neon.h"
#include "tq1_0.h"

/* Minus the trit codes (0, -1, -2) of 16 bytes whose trit was brought to the top. */
static inline int8x16_t neg_trit(uint8x16_t b)
{
    return vreinterpretq_s8_u8(vaddq_u8(vcgeq_u8(b, vdupq_n_u8(86)), vcgeq_u8(b, vdupq_n_u8(171))));
}

/* acc[r] += -c . q[r][off..off+15] for the nb activation rows */
static inline __attribute__((always_inline)) void dot16(int32x4_t *acc, int8x16_t negc, const int8_t *const *q,
                                                        int off, const int nb)
{
    for (int r = 0; r < nb; r++) acc[r] = vdotq_s32(acc[r], negc, vld1q_s8(q[r] + off));
}

static inline __attribute__((always_inline)) void block_dot(const uint8_t *b, const int8_t *const *q, const int nb,
                                                            int32x4_t *s)
{
    const bb_block_tq1_0 *blk = (const bb_block_tq1_0 *)b;
    const uint8x16_t three = vdupq_n_u8(3);
    int32x4_t s0[BB_GK_NB], s1[BB_GK_NB], s2[BB_GK_NB]; /* one accumulator per source vector */
    for (int r = 0; r < nb; r++) s0[r] = s1[r] = s2[r] = vdupq_n_s32(0);
    uint8x16_t v0 = vld1q_u8(blk->qs), v1 = vld1q_u8(blk->qs + 16), v2 = vld1q_u8(blk->qs + 32);
#pragma GCC unroll 5
    for (int n = 0; n < 5; n++) {
        dot16(s0, neg_trit(v0), q, 32 * n, nb);
        dot16(s1, neg_trit(v1), q, 32 * n + 16, nb);
        dot16(s2, neg_trit(v2), q, 160 + 16 * n, nb);
        v0 = vmulq_u8(v0, three);
        v1 = vmulq_u8(v1, three);
        v2 = vmulq_u8(v2, three);
    }
    static const uint8_t pow3[16] = {1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27};
    uint32_t qh;
    memcpy(&qh, blk->qh, 4);
    uint8x16_t h = vmulq_u8(vreinterpretq_u8_u32(vdupq_n_u32(qh)), vld1q_u8(pow3));
    dot16(s2, neg_trit(h), q, 240, nb);
    for (int r = 0; r < nb; r++) s[r] = vnegq_s32(vaddq_s32(vaddq_s32(s0[r], s1[r]), s2[r]));
}

static inline __attribute__((always_inline)) void tq1_0_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                               int nblk, float *out)
{
    bb_gk_tq_row_neon(wrow, sizeof(bb_block_tq1_0), offsetof(bb_block_tq1_0, d), block_dot, a, nb, nblk, out);
}

BB_GK_ROW_BY_NB(tq1_0_row, tq1_0_row_nb)

void bb_tq1_0_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_tq1_0_row_bytes(k), act, y, m, k, n, m0, m1, tq1_0_row);
}
