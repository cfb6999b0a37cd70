/* NEON vector primitives (every aarch64 core, Armv8.0-A Advanced SIMD): 4 floats a register; a
 * tail of fewer than 4 elements (8 for RoPE's deinterleaved pairs) goes through a zero-padded copy,
 * so the arithmetic of a tail lane is the same as of any other lane.  Reductions use FMLA
 * partial sums and FADDP/FMAXP in a fixed order; exp is the Cephes expf polynomial of the AVX2
 * table (vec_avx2.c) with 2^n built in the exponent bits; binary16 converts with FCVTL/FCVTN,
 * which need no FEAT_FP16.  The element-wise products (scale_mul, relu2_mul, add) round exactly
 * as the scalar loops do: one multiply or add per operation, nothing fused. */
#include <arm_neon.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "kernels/cpu.h"
#include "vec.h"

static inline float32x4_t load_tail(const float *p, int n)
{
    float b[4] = {0};
    memcpy(b, p, sizeof(float) * (size_t)n);
    return vld1q_f32(b);
}

static inline void store_tail(float *p, float32x4_t v, int n)
{
    float b[4];
    vst1q_f32(b, v);
    memcpy(p, b, sizeof(float) * (size_t)n);
}

static inline float32x4_t load_f16(const uint16_t *p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }

static inline float32x4_t load_f16_tail(const uint16_t *p, int n)
{
    uint16_t b[4] = {0};
    memcpy(b, p, sizeof(uint16_t) * (size_t)n);
    return load_f16(b);
}

static inline float32x4_t load_bf16(const uint16_t *p) { return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16)); }

static inline float32x4_t load_bf16_tail(const uint16_t *p, int n)
{
    uint16_t b[4] = {0};
    memcpy(b, p, sizeof(uint16_t) * (size_t)n);
    return load_bf16(b);
}

/* The element types of a KV row the scores and wsum templates read. */
enum { KV_F32, KV_F16, KV_BF16 };

/* Four elements (or the n < 4 of a tail) of a KV row from element i (kind is a constant in every
 * caller). */
static inline float32x4_t load_kv(const void *row, size_t i, int kind)
{
    return kind == KV_F16    ? load_f16((const uint16_t *)row + i)
           : kind == KV_BF16 ? load_bf16((const uint16_t *)row + i)
                             : vld1q_f32((const float *)row + i);
}

static inline float32x4_t load_kv_tail(const void *row, size_t i, int n, int kind)
{
    return kind == KV_F16    ? load_f16_tail((const uint16_t *)row + i, n)
           : kind == KV_BF16 ? load_bf16_tail((const uint16_t *)row + i, n)
                             : load_tail((const float *)row + i, n);
}

/* Sixteen int8 of a q8_0 block as four float vectors. */
static inline void load_i8x16(const uint8_t *p, float32x4_t f[4])
{
    int8x16_t b = vld1q_s8((const int8_t *)p);
    int16x8_t lo = vmovl_s8(vget_low_s8(b)), hi = vmovl_s8(vget_high_s8(b));
    f[0] = vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo)));
    f[1] = vcvtq_f32_s32(vmovl_s16(vget_high_s16(lo)));
    f[2] = vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi)));
    f[3] = vcvtq_f32_s32(vmovl_s16(vget_high_s16(hi)));
}

static inline float q8_0_scale(const uint8_t *blk)
{
    uint16_t d;
    memcpy(&d, blk, 2);
    return vgetq_lane_f32(load_f16((const uint16_t[4]){d, 0, 0, 0}), 0);
}

/* e^x by Cephes expf's reduction and polynomial on x clamped to [-87, 88] (where 2^n stays a
 * normal float); below about -87.3 the result is 0 and above 88.7 inf, as expf rounds them. */
static inline float32x4_t exp4(float32x4_t x0)
{
    float32x4_t x = vminq_f32(vmaxq_f32(x0, vdupq_n_f32(-87.0f)), vdupq_n_f32(88.0f));
    float32x4_t n = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(1.44269504088896341f)));
    float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(0.693359375f));
    r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
    float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
    p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, r);
    p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, r);
    p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, r);
    p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, r);
    float32x4_t y = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0f)), vmulq_f32(p, r), r);
    int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    y = vmulq_f32(y, vreinterpretq_f32_s32(e));
    y = vbslq_f32(vcltq_f32(x0, vdupq_n_f32(-87.33654f)), vdupq_n_f32(0.0f), y);
    return vbslq_f32(vcgtq_f32(x0, vdupq_n_f32(88.72283f)), vdupq_n_f32(INFINITY), y);
}

static float sum_squares(const float *x, int n)
{
    float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0;
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        float32x4_t v0 = vld1q_f32(x + i), v1 = vld1q_f32(x + i + 4);
        a0 = vfmaq_f32(a0, v0, v0);
        a1 = vfmaq_f32(a1, v1, v1);
    }
    for (; i + 4 <= n; i += 4) {
        float32x4_t v = vld1q_f32(x + i);
        a0 = vfmaq_f32(a0, v, v);
    }
    if (i < n) {
        float32x4_t v = load_tail(x + i, n - i);
        a1 = vfmaq_f32(a1, v, v);
    }
    return vaddvq_f32(vaddq_f32(a0, a1));
}

static inline float32x4_t scale_mul4(float32x4_t x, float32x4_t w, float32x4_t s) { return vmulq_f32(w, vmulq_f32(s, x)); }

static void scale_mul(float *o, const float *x, const float *w, float s, int n)
{
    float32x4_t vs = vdupq_n_f32(s);
    int i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(o + i, scale_mul4(vld1q_f32(x + i), vld1q_f32(w + i), vs));
    if (i < n) store_tail(o + i, scale_mul4(load_tail(x + i, n - i), load_tail(w + i, n - i), vs), n - i);
}

static void add(float *y, const float *x, int n)
{
    int i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vaddq_f32(vld1q_f32(y + i), vld1q_f32(x + i)));
    if (i < n) store_tail(y + i, vaddq_f32(load_tail(y + i, n - i), load_tail(x + i, n - i)), n - i);
}

/* Four (v0, v1) pairs deinterleaved by LD2 with their (cos, sin): (v0 c - v1 s, v0 s + v1 c). */
static inline float32x4x2_t rope4(float32x4x2_t v, float32x4x2_t cs)
{
    float32x4x2_t o;
    o.val[0] = vfmsq_f32(vmulq_f32(v.val[0], cs.val[0]), v.val[1], cs.val[1]);
    o.val[1] = vfmaq_f32(vmulq_f32(v.val[0], cs.val[1]), v.val[1], cs.val[0]);
    return o;
}

static void rope(float *v, int n_heads, int hd, const float *cs)
{
    for (int h = 0; h < n_heads; h++) {
        float *p = v + (size_t)h * hd;
        int i = 0;
        for (; i + 8 <= hd; i += 8) vst2q_f32(p + i, rope4(vld2q_f32(p + i), vld2q_f32(cs + i)));
        if (i < hd) {
            float pb[8] = {0}, cb[8] = {0};
            memcpy(pb, p + i, sizeof(float) * (size_t)(hd - i));
            memcpy(cb, cs + i, sizeof(float) * (size_t)(hd - i));
            vst2q_f32(pb, rope4(vld2q_f32(pb), vld2q_f32(cb)));
            memcpy(p + i, pb, sizeof(float) * (size_t)(hd - i));
        }
    }
}

static inline float32x4_t silu_mul4(float32x4_t x, float32x4_t g)
{
    const float32x4_t one = vdupq_n_f32(1.0f);
    float32x4_t sig = vdivq_f32(one, vaddq_f32(one, exp4(vnegq_f32(x))));
    return vmulq_f32(vmulq_f32(x, sig), g);
}

static void silu_mul(float *h, const float *g, int n)
{
    int i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(h + i, silu_mul4(vld1q_f32(h + i), vld1q_f32(g + i)));
    if (i < n) store_tail(h + i, silu_mul4(load_tail(h + i, n - i), load_tail(g + i, n - i)), n - i);
}

static inline float32x4_t relu2_mul4(float32x4_t x, float32x4_t g)
{
    x = vmaxq_f32(x, vdupq_n_f32(0.0f));
    return vmulq_f32(vmulq_f32(x, x), g);
}

static void relu2_mul(float *h, const float *g, int n)
{
    int i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(h + i, relu2_mul4(vld1q_f32(h + i), vld1q_f32(g + i)));
    if (i < n) store_tail(h + i, relu2_mul4(load_tail(h + i, n - i), load_tail(g + i, n - i)), n - i);
}

/* FCVTN: round to nearest even under the default FPCR, the bits of bb_fp32_to_fp16 for every
 * non-NaN input (as the AVX2 table's vcvtps2ph). */
static void to_f16(uint16_t *dst, const float *src, int n)
{
    int i = 0;
    for (; i + 4 <= n; i += 4) vst1_u16(dst + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(src + i))));
    if (i < n) {
        uint16_t b[4];
        vst1_u16(b, vreinterpret_u16_f16(vcvt_f16_f32(load_tail(src + i, n - i))));
        memcpy(dst + i, b, sizeof(uint16_t) * (size_t)(n - i));
    }
}

static inline __attribute__((always_inline)) void scores_kv(const float *q, const void *k, int f16, size_t stride,
                                                            int hd, int n, float scale, float *out)
{
    for (int s = 0; s < n; s++) {
        size_t ks = (size_t)s * stride;
        float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0;
        int e = 0;
        for (; e + 8 <= hd; e += 8) {
            a0 = vfmaq_f32(a0, vld1q_f32(q + e), load_kv(k, ks + e, f16));
            a1 = vfmaq_f32(a1, vld1q_f32(q + e + 4), load_kv(k, ks + e + 4, f16));
        }
        for (; e + 4 <= hd; e += 4) a0 = vfmaq_f32(a0, vld1q_f32(q + e), load_kv(k, ks + e, f16));
        if (e < hd) a1 = vfmaq_f32(a1, load_tail(q + e, hd - e), load_kv_tail(k, ks + e, hd - e, f16));
        out[s] = vaddvq_f32(vaddq_f32(a0, a1)) * scale;
    }
}

static void scores_f32(const float *q, const float *k, size_t stride, int hd, int n, float scale, float *out)
{
    scores_kv(q, k, KV_F32, stride, hd, n, scale, out);
}

static void scores_f16(const float *q, const uint16_t *k, size_t stride, int hd, int n, float scale, float *out)
{
    scores_kv(q, k, KV_F16, stride, hd, n, scale, out);
}

static float exp_max(float *x, int n, float *maxp)
{
    float max = -INFINITY;
    int i = 0;
    if (n >= 4) {
        float32x4_t vmax = vld1q_f32(x);
        for (i = 4; i + 4 <= n; i += 4) vmax = vmaxq_f32(vmax, vld1q_f32(x + i));
        max = vmaxvq_f32(vmax);
    }
    for (; i < n; i++)
        if (x[i] > max) max = x[i];
    const float32x4_t vm = vdupq_n_f32(max);
    float32x4_t sum = vdupq_n_f32(0.0f);
    for (i = 0; i + 4 <= n; i += 4) {
        float32x4_t e = exp4(vsubq_f32(vld1q_f32(x + i), vm));
        sum = vaddq_f32(sum, e);
        vst1q_f32(x + i, e);
    }
    float total = vaddvq_f32(sum);
    if (i < n) {
        float b[4];
        vst1q_f32(b, exp4(vsubq_f32(load_tail(x + i, n - i), vm)));
        for (int j = 0; j < n - i; j++) total += b[j];
        memcpy(x + i, b, sizeof(float) * (size_t)(n - i));
    }
    *maxp = max;
    return total;
}

static void softmax(float *x, int n)
{
    float max, total = exp_max(x, n, &max);
    int i = 0;
    const float32x4_t vt = vdupq_n_f32(total);
    for (i = 0; i + 4 <= n; i += 4) vst1q_f32(x + i, vdivq_f32(vld1q_f32(x + i), vt));
    for (; i < n; i++) x[i] /= total;
}

/* out += sum_s a[s] v_s, 32 output floats in eight registers per pass over the positions. */
static inline __attribute__((always_inline)) void wsum_kv(float *out, const float *a, const void *v, int f16,
                                                          size_t stride, int hd, int n)
{
    int e0 = 0;
    for (; e0 + 32 <= hd; e0 += 32) {
        float32x4_t o[8];
        for (int j = 0; j < 8; j++) o[j] = vld1q_f32(out + e0 + 4 * j);
        for (int s = 0; s < n; s++) {
            size_t vs = (size_t)s * stride + e0;
            float32x4_t w = vdupq_n_f32(a[s]);
            for (int j = 0; j < 8; j++) o[j] = vfmaq_f32(o[j], w, load_kv(v, vs + 4 * (size_t)j, f16));
        }
        for (int j = 0; j < 8; j++) vst1q_f32(out + e0 + 4 * j, o[j]);
    }
    for (; e0 < hd; e0 += 4) {
        int w4 = hd - e0 < 4 ? hd - e0 : 4;
        float32x4_t o = load_tail(out + e0, w4);
        for (int s = 0; s < n; s++) {
            size_t vs = (size_t)s * stride + e0;
            o = vfmaq_f32(o, vdupq_n_f32(a[s]), w4 == 4 ? load_kv(v, vs, f16) : load_kv_tail(v, vs, w4, f16));
        }
        store_tail(out + e0, o, w4);
    }
}

static void wsum_f32(float *out, const float *a, const float *v, size_t stride, int hd, int n)
{
    wsum_kv(out, a, v, KV_F32, stride, hd, n);
}

static void wsum_f16(float *out, const float *a, const uint16_t *v, size_t stride, int hd, int n)
{
    wsum_kv(out, a, v, KV_F16, stride, hd, n);
}

static void scores_bf16(const float *q, const uint16_t *k, size_t stride, int hd, int n, float scale, float *out)
{
    scores_kv(q, k, KV_BF16, stride, hd, n, scale, out);
}

static void wsum_bf16(float *out, const float *a, const uint16_t *v, size_t stride, int hd, int n)
{
    wsum_kv(out, a, v, KV_BF16, stride, hd, n);
}

/* Per block of 32: q·qs in two accumulators, times the block's scale into the row's sum. */
static void scores_q8_0(const float *q, const void *k, size_t stride, int hd, int n, float scale, float *out)
{
    for (int s = 0; s < n; s++) {
        const uint8_t *ks = (const uint8_t *)k + (size_t)s * stride;
        float32x4_t acc = vdupq_n_f32(0.0f);
        for (int b = 0; b < hd / 32; b++, ks += 34) {
            const float *qb = q + 32 * b;
            float32x4_t f[4], a0 = vdupq_n_f32(0.0f), a1 = a0;
            for (int h = 0; h < 2; h++) {
                load_i8x16(ks + 2 + 16 * h, f);
                a0 = vfmaq_f32(a0, vld1q_f32(qb + 16 * h), f[0]);
                a1 = vfmaq_f32(a1, vld1q_f32(qb + 16 * h + 4), f[1]);
                a0 = vfmaq_f32(a0, vld1q_f32(qb + 16 * h + 8), f[2]);
                a1 = vfmaq_f32(a1, vld1q_f32(qb + 16 * h + 12), f[3]);
            }
            acc = vfmaq_n_f32(acc, vaddq_f32(a0, a1), q8_0_scale(ks));
        }
        out[s] = vaddvq_f32(acc) * scale;
    }
}

/* One block of 32 outputs in eight registers per pass over the positions. */
static void wsum_q8_0(float *out, const float *a, const void *v, size_t stride, int hd, int n)
{
    for (int b = 0; b < hd / 32; b++) {
        float32x4_t o[8], f[4];
        for (int j = 0; j < 8; j++) o[j] = vld1q_f32(out + 32 * b + 4 * j);
        const uint8_t *vs = (const uint8_t *)v + (size_t)b * 34;
        for (int s = 0; s < n; s++, vs += stride) {
            float32x4_t w = vdupq_n_f32(a[s] * q8_0_scale(vs));
            for (int h = 0; h < 2; h++) {
                load_i8x16(vs + 2 + 16 * h, f);
                for (int j = 0; j < 4; j++) o[4 * h + j] = vfmaq_f32(o[4 * h + j], w, f[j]);
            }
        }
        for (int j = 0; j < 8; j++) vst1q_f32(out + 32 * b + 4 * j, o[j]);
    }
}

const bb_vec_ops bb_vec_neon = {"neon", BB_ISA_NEON, sum_squares, scale_mul, add, rope, silu_mul, relu2_mul, to_f16,
                                scores_f32, scores_f16, softmax, wsum_f32, wsum_f16,
                                scores_bf16, scores_q8_0, wsum_bf16, wsum_q8_0, exp_max};
