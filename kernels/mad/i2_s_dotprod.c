/* i2_s, Arm dot product (FEAT_DotProd: SDOT, Armv8.2-A+; Cortex-A76 / Neoverse N1 and later,
 * Apple M1+).  Layout and exact semantics are i2_s.h's: 2-bit codes c = t + 1, four planes per
 * 32-byte block, per-row int8 activations.
 *
 * What the loop does, per 128-weight block: two 16-byte loads of codes; each plane s is one shift
 * right by 6 - 2s (USHR) and, for s > 0, one AND with 3 (planes_neon.h), giving the codes 0..2
 * of 32 weights as int8; SDOT multiplies them by the 32 activations of the plane (4 products
 * summed into each int32 lane), 8 SDOTs per block into one int32x4 accumulator per activation
 * row.  The sum of c * q minus the row's qsum (sum of q, prepared with the activations) is
 * sum (c - 1) * q = sum t * q exactly, as the AVX2 variant does with vpmaddubsw; every partial
 * sum stays far inside int32 (|c q| <= 254, K <= 2^18), so the result is the scalar
 * reference's, bit for bit.  Up to 4 activation rows share each decoded block (prefill); N = 1 is
 * the GEMV of decoding.  Activations: bb_quant_i8_rows_neon (the scalar quantizer's bytes).
 *
 * bitnet.cpp §2 runs i2_s on Arm with NEON multiply-accumulate (Table 4: vmlal_s8,
 * vmull_s16 + vaddq_s32); SDOT does the multiply and the 4-way sum in one instruction, as the Arm
 * paper's kernels do (Arm paper §3-4, vdotq_laneq_s32). */
#include <arm_neon.h>

#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "i2_s.h"
#include "planes_neon.h"

static void row_dot(const uint8_t *row, const int8_t *const *q, int nb, int k, int32_t *out)
{
    int32x4_t acc[BB_I2S_NB];
    for (int c = 0; c < nb; c++) acc[c] = vdupq_n_s32(0);
    int nblk = k / BB_I2S_BLOCK;
    for (int b = 0; b < nblk; b++) {
        if ((b & 1) == 0) bb_prefetch_stream(row + 32 * b);
        int8x16_t lo[4], hi[4]; /* plane s of bytes 0..15 / 16..31 is lo[3 - s] / hi[3 - s] */
        bb_planes_neon(vld1q_u8(row + 32 * b), lo);
        bb_planes_neon(vld1q_u8(row + 32 * b + 16), hi);
        for (int c = 0; c < nb; c++) {
            const int8_t *qb = q[c] + b * BB_I2S_BLOCK;
            for (int s = 0; s < 4; s++) {
                acc[c] = vdotq_s32(acc[c], lo[3 - s], vld1q_s8(qb + 32 * s));
                acc[c] = vdotq_s32(acc[c], hi[3 - s], vld1q_s8(qb + 32 * s + 16));
            }
        }
    }
    for (int c = 0; c < nb; c++) out[c] = vaddvq_s32(acc[c]);
}

void bb_i2_s_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_i2_s_matmul_rows(row_dot, w, act, y, m, k, n, m0, m1);
}
