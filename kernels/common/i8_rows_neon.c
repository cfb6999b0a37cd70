/* bb_quant_i8_rows with NEON (Armv8.0-A, see i8_rows_simd.h): 16 elements per step, then the last
 * k % 16 with the scalar formula of act_quant.c.
 *
 * Why the bytes are the scalar ones: the absmax is FMAXNM of |x|, which like fmaxf ignores a NaN
 * operand, and max is exact in any order; s = 127/amax is the same scalar division; x*s is one
 * FMUL per element; FCVTNS converts rounding to nearest with ties to even, as nearbyintf does in
 * the default rounding mode, and saturates out-of-range values to int32, which the clamp then
 * takes to +-127 as the scalar clamp does; the narrowing SQXTN steps saturate at +127 and the
 * final SMAX with -127 is the lower clamp; the int8 sums are exact.  Used as the prepare of the
 * BB_ACT_I8_ROW kernels' Arm variants. */
#include <arm_neon.h>
#include <math.h>

#include "act_quant.h"
#include "i8_rows_simd.h"

/* 16 int8 codes of x[0..15] * s, clamped to [-127, 127]. */
static inline int8x16_t quant16(const float *x, float32x4_t vs)
{
    int32x4_t i0 = vcvtnq_s32_f32(vmulq_f32(vld1q_f32(x), vs));
    int32x4_t i1 = vcvtnq_s32_f32(vmulq_f32(vld1q_f32(x + 4), vs));
    int32x4_t i2 = vcvtnq_s32_f32(vmulq_f32(vld1q_f32(x + 8), vs));
    int32x4_t i3 = vcvtnq_s32_f32(vmulq_f32(vld1q_f32(x + 12), vs));
    int16x8_t h0 = vqmovn_high_s32(vqmovn_s32(i0), i1), h1 = vqmovn_high_s32(vqmovn_s32(i2), i3);
    return vmaxq_s8(vqmovn_high_s16(vqmovn_s16(h0), h1), vdupq_n_s8(-127));
}

static float row_absmax(const float *x, int k)
{
    int k4 = k & ~3;
    float32x4_t m = vdupq_n_f32(0.0f);
    for (int i = 0; i < k4; i += 4) m = vmaxnmq_f32(m, vabsq_f32(vld1q_f32(x + i)));
    float amax = vmaxnmvq_f32(m);
    for (int i = k4; i < k; i++) amax = fmaxf(amax, fabsf(x[i]));
    return amax;
}

void bb_quant_i8_rows_neon(const float *x, int n, int k, void *dst)
{
    int k16 = k & ~15;
    for (int r = 0; r < n; r++) {
        const float *xr = x + (size_t)r * k;
        char *row = (char *)dst + (size_t)r * bb_i8_row_stride(k);
        int8_t *q = (int8_t *)(row + BB_I8_ROW_HEAD);
        float amax = row_absmax(xr, k);
        float s = amax > 0.0f ? 127.0f / amax : 0.0f;
        const float32x4_t vs = vdupq_n_f32(s);
        int32x4_t sum = vdupq_n_s32(0);
        int i = 0;
        for (; i < k16; i += 16) {
            int8x16_t qi = quant16(xr + i, vs);
            vst1q_s8(q + i, qi);
            sum = vpadalq_s16(sum, vpaddlq_s8(qi));
        }
        bb_i8_row_finish(xr, i, k, s, vaddvq_s32(sum), row);
    }
}
