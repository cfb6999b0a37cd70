/* Helpers shared by the codebook family's Arm files (include only from *_neon.c / *_dotprod.c),
 * the counterpart of cb_simd.h: both kernels look their int8 weights up with TBL from codebooks
 * held in registers (Arm paper §5.3, §6.3) and multiply them by int8 activations 16 at a time.
 * Which multiply is used follows the file's -march: SDOT where FEAT_DotProd is enabled
 * (*_dotprod.c), SMULL + SMLAL2 + SADALP on Armv8.0 (*_neon.c). */
#ifndef BB_CB_NEON_H
#define BB_CB_NEON_H

#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

/* Up to this many activation columns share each decoded weight block (GEMM, N > 1). */
#define BB_CB_NB_MAX 4

/* acc + the 16 products w[i] * q[i], as four int32 partial sums (which lane holds which products
 * differs between the two forms; callers only ever add the four lanes up).  Exact: SDOT sums in
 * int32; the Armv8.0 form sums products i and i + 8 in int16 first, which needs
 * |w[i] q[i] + w[i+8] q[i+8]| < 2^15: true for |w| <= 127 (iq4_nl) or <= 64 (cb2) and any int8 q. */
static inline __attribute__((always_inline)) int32x4_t bb_cb_dot16(int32x4_t acc, int8x16_t w, int8x16_t q)
{
#if defined(__ARM_FEATURE_DOTPROD)
    return vdotq_s32(acc, w, q);
#else
    return vpadalq_s16(acc, vmlal_high_s8(vmull_s8(vget_low_s8(w), vget_low_s8(q)), w, q));
#endif
}

/* fp16 bits -> float, exact (FCVT), the value bb_fp16_to_fp32 gives for every finite input. */
static inline float bb_cb_f16(uint16_t h)
{
    __fp16 v;
    memcpy(&v, &h, sizeof v);
    return (float)v;
}

#endif
