/* i2_s, Armv8.0-A NEON (no dot product: Cortex-A53/A55/A72/A73, the Raspberry Pi 3 and 4).
 * Layout and exact semantics are i2_s.h's: 2-bit codes c = t + 1, four planes per 32-byte block,
 * per-row int8 activations.
 *
 * What the loop does, per 128-weight block: two 16-byte loads of codes, the four planes of each
 * by USHR and AND (planes_neon.h), codes 0..3 as int8.  Per activation row, SMLAL / SMLAL2
 * (vmlal_s8 / vmlal_high_s8) multiply the low / high 8 codes of each plane vector by their
 * activations and add the products to two int16x8 accumulators: 16 per block.  Each lane gains 8
 * products of at most 3 * 128 per block, so after 8 blocks it holds at most 24576 < 2^15 and is
 * folded into an int32x4 with SADALP (vpadalq_s16), pairwise and exact.  The sum of c * q minus
 * the row's qsum is sum t * q exactly (as in the AVX2 and SDOT variants), so the result is the
 * scalar reference's, bit for bit.  Up to 4 activation rows share each decoded block.
 *
 * bitnet.cpp §2 and Table 4 name vmlal_s8 as NEON's MAD instruction for ternary
 * mpGEMM; this is that scheme on i2_s's planes, for the cores without SDOT (the 1-bit AI infra
 * article's Raspberry Pi 5, 1-bit AI Infra, is a Cortex-A76 and takes the dotprod variant).
 * Activations: bb_quant_i8_rows_neon (the scalar quantizer's bytes). */
#include <arm_neon.h>

#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "i2_s.h"
#include "planes_neon.h"

/* int16 lanes may take this many blocks of 8 products (<= 3 * 128 each) before they are widened */
#define BLOCKS_PER_FLUSH 8

static void row_dot(const uint8_t *row, const int8_t *const *q, int nb, int k, int32_t *out)
{
    int32x4_t acc[BB_I2S_NB];
    int16x8_t lo16[BB_I2S_NB], hi16[BB_I2S_NB];
    for (int c = 0; c < nb; c++) {
        acc[c] = vdupq_n_s32(0);
        lo16[c] = hi16[c] = vdupq_n_s16(0);
    }
    int nblk = k / BB_I2S_BLOCK;
    for (int b = 0; b < nblk; b++) {
        if ((b & 1) == 0) bb_prefetch_stream(row + 32 * b);
        int8x16_t lo[4], hi[4]; /* plane s of bytes 0..15 / 16..31 is lo[3 - s] / hi[3 - s] */
        bb_planes_neon(vld1q_u8(row + 32 * b), lo);
        bb_planes_neon(vld1q_u8(row + 32 * b + 16), hi);
        for (int c = 0; c < nb; c++) {
            const int8_t *qb = q[c] + b * BB_I2S_BLOCK;
            for (int s = 0; s < 4; s++) {
                int8x16_t q0 = vld1q_s8(qb + 32 * s), q1 = vld1q_s8(qb + 32 * s + 16);
                lo16[c] = vmlal_s8(lo16[c], vget_low_s8(lo[3 - s]), vget_low_s8(q0));
                hi16[c] = vmlal_high_s8(hi16[c], lo[3 - s], q0);
                lo16[c] = vmlal_s8(lo16[c], vget_low_s8(hi[3 - s]), vget_low_s8(q1));
                hi16[c] = vmlal_high_s8(hi16[c], hi[3 - s], q1);
            }
        }
        if (b % BLOCKS_PER_FLUSH == BLOCKS_PER_FLUSH - 1 || b == nblk - 1)
            for (int c = 0; c < nb; c++) {
                acc[c] = vpadalq_s16(vpadalq_s16(acc[c], lo16[c]), hi16[c]);
                lo16[c] = hi16[c] = vdupq_n_s16(0);
            }
    }
    for (int c = 0; c < nb; c++) out[c] = vaddvq_s32(acc[c]);
}

void bb_i2_s_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_i2_s_matmul_rows(row_dot, w, act, y, m, k, n, m0, m1);
}
