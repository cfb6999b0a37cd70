/* tq2_0, Arm dot product (FEAT_DotProd: SDOT; Cortex-A76 / Neoverse N1 and later, Apple M1+).
 * Layout and exact semantics are tq2_0.h's: ggml's block_tq2_0, codes c = t + 1 in four planes
 * of 2 bits, q8_K activations.
 *
 * What the loop does, per 256-weight block: four 16-byte loads of codes; the four planes of each
 * by USHR and AND (planes_neon.h) give 16 vectors of 16 codes 0..3, lined up with 16 consecutive
 * activations each; per activation row 16 SDOTs (vdotq_s32, 4 products summed into each int32
 * lane) into two int32x4 accumulators (even and odd planes, two dependency chains), added at the
 * end of the block.  The driver (ggml_k_neon.h, ggml_k.h) reduces the lanes of four blocks
 * together, subtracts each block's sum of q (sum (c - 1) q = sum c q - sum q, exact: a stray
 * code 3 reads as +2 as in ggml) and folds (float)isum_b * (a_b.d * w_b.d) in block order, the
 * reference's float operations, so the result is the scalar reference's, bit for bit.  Up to 4
 * activation rows share each decoded block.
 *
 * bitnet.cpp §2: TQ2_0 is its element-wise MAD baseline; SDOT does the multiply and
 * the 4-way sum in one instruction, as the Arm paper's kernels do (§3-4). */
#include <arm_neon.h>
#include <stddef.h>

#include "ggml_k_neon.h"
#include "planes_neon.h"
#include "tq2_0.h"

static inline __attribute__((always_inline)) void block_dot(const uint8_t *b, const int8_t *const *q, const int nb,
                                                            int32x4_t *s)
{
    const bb_block_tq2_0 *blk = (const bb_block_tq2_0 *)b;
    int32x4_t even[BB_GK_NB], odd[BB_GK_NB];
    for (int r = 0; r < nb; r++) even[r] = odd[r] = vdupq_n_s32(0);
    /* bytes 16v..16v+15 hold, in plane l, the values 128 (v / 2) + 32 l + 16 (v % 2) + 0..15 */
    for (int v = 0; v < 4; v++) {
        int8x16_t c[4];
        bb_planes_neon(vld1q_u8(blk->qs + 16 * v), c);
        int off = 128 * (v / 2) + 16 * (v % 2);
        for (int r = 0; r < nb; r++) {
            even[r] = vdotq_s32(even[r], c[0], vld1q_s8(q[r] + off));
            odd[r] = vdotq_s32(odd[r], c[1], vld1q_s8(q[r] + off + 32));
            even[r] = vdotq_s32(even[r], c[2], vld1q_s8(q[r] + off + 64));
            odd[r] = vdotq_s32(odd[r], c[3], vld1q_s8(q[r] + off + 96));
        }
    }
    for (int r = 0; r < nb; r++) s[r] = vaddq_s32(even[r], odd[r]);
}

static inline __attribute__((always_inline)) void tq2_0_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                               int nblk, float *out)
{
    bb_gk_tq_row_neon(wrow, sizeof(bb_block_tq2_0), offsetof(bb_block_tq2_0, d), block_dot, a, nb, nblk, out);
}

BB_GK_ROW_BY_NB(tq2_0_row, tq2_0_row_nb)

void bb_tq2_0_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_tq2_0_row_bytes(k), act, y, m, k, n, m0, m1, tq2_0_row);
}
