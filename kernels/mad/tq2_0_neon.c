/* tq2_0, Armv8.0-A NEON (no dot product: Cortex-A53/A55/A72/A73, the Raspberry Pi 3 and 4).
 * Layout and exact semantics are tq2_0.h's: ggml's block_tq2_0, codes c = t + 1 in four planes
 * of 2 bits, q8_K activations.
 *
 * What the loop does, per 256-weight block: four 16-byte loads of codes; the four planes of each
 * by USHR and AND (planes_neon.h) give 16 vectors of 16 codes 0..3; per activation row SMLAL /
 * SMLAL2 (vmlal_s8 / vmlal_high_s8) multiply the low / high 8 codes of each by their activations
 * and add the products to two int16x8 accumulators, 32 per block.  A lane takes 16 products of at
 * most 3 * 128 (6144 < 2^15), so the int16 sums are exact; SADDLP + SADALP widen them pairwise to
 * an int32x4 at the end of the block.  The driver (ggml_k_neon.h, ggml_k.h) then does what it
 * does for the SDOT variant: four blocks' lanes reduced together, each block's sum of q
 * subtracted, (float)isum_b * (a_b.d * w_b.d) folded in block order, the reference's operations,
 * so the result is the scalar reference's, bit for bit.  Up to 4 activation rows share each
 * decoded block.
 *
 * bitnet.cpp §2 and Table 4: vmlal_s8 is NEON's MAD instruction for ternary mpGEMM,
 * TQ2_0 its element-wise MAD baseline. */
#include <arm_neon.h>
#include <stddef.h>

#include "ggml_k_neon.h"
#include "planes_neon.h"
#include "tq2_0.h"

static inline __attribute__((always_inline)) void block_dot(const uint8_t *b, const int8_t *const *q, const int nb,
                                                            int32x4_t *s)
{
    const bb_block_tq2_0 *blk = (const bb_block_tq2_0 *)b;
    int16x8_t lo[BB_GK_NB], hi[BB_GK_NB];
    for (int r = 0; r < nb; r++) lo[r] = hi[r] = vdupq_n_s16(0);
    /* bytes 16v..16v+15 hold, in plane l, the values 128 (v / 2) + 32 l + 16 (v % 2) + 0..15 */
    for (int v = 0; v < 4; v++) {
        int8x16_t c[4];
        bb_planes_neon(vld1q_u8(blk->qs + 16 * v), c);
        int off = 128 * (v / 2) + 16 * (v % 2);
        for (int r = 0; r < nb; r++)
            for (int l = 0; l < 4; l++) {
                int8x16_t qv = vld1q_s8(q[r] + off + 32 * l);
                lo[r] = vmlal_s8(lo[r], vget_low_s8(c[l]), vget_low_s8(qv));
                hi[r] = vmlal_high_s8(hi[r], c[l], qv);
            }
    }
    for (int r = 0; r < nb; r++) s[r] = vpadalq_s16(vpaddlq_s16(lo[r]), hi[r]);
}

static inline __attribute__((always_inline)) void tq2_0_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                               int nblk, float *out)
{
    bb_gk_tq_row_neon(wrow, sizeof(bb_block_tq2_0), offsetof(bb_block_tq2_0, d), block_dot, a, nb, nblk, out);
}

BB_GK_ROW_BY_NB(tq2_0_row, tq2_0_row_nb)

void bb_tq2_0_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_tq2_0_row_bytes(k), act, y, m, k, n, m0, m1, tq2_0_row);
}
