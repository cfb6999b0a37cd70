/* Scalar vector primitives (the loops of llama2.c's run.c, which the golden test compares with)
 * and the run-time choice of table. */
#include "vec.h"

#include <math.h>
#include <string.h>

#include "kernels/common/fp16.h"
#include "kernels/cpu.h"

static float sum_squares(const float *x, int n)
{
    float ss = 0.0f;
    for (int j = 0; j < n; j++) ss += x[j] * x[j];
    return ss;
}

static void scale_mul(float *o, const float *x, const float *w, float s, int n)
{
    for (int j = 0; j < n; j++) o[j] = w[j] * (s * x[j]);
}

static void add(float *y, const float *x, int n)
{
    for (int j = 0; j < n; j++) y[j] += x[j];
}

static void rope(float *v, int n_heads, int hd, const float *cs)
{
    for (int h = 0; h < n_heads; h++)
        for (int i = 0; i < hd; i += 2) {
            float fcr = cs[i], fci = cs[i + 1];
            float *p = v + (size_t)h * hd + i;
            float v0 = p[0], v1 = p[1];
            p[0] = v0 * fcr - v1 * fci;
            p[1] = v0 * fci + v1 * fcr;
        }
}

static void silu_mul(float *h, const float *g, int n)
{
    for (int i = 0; i < n; i++) {
        float x = h[i];
        h[i] = x * (1.0f / (1.0f + expf(-x))) * g[i];
    }
}

static void relu2_mul(float *h, const float *g, int n)
{
    for (int i = 0; i < n; i++) {
        float x = h[i];
        h[i] = (x > 0.0f ? x * x : 0.0f) * g[i];
    }
}

static void to_f16(uint16_t *dst, const float *src, int n)
{
    for (int i = 0; i < n; i++) dst[i] = bb_fp32_to_fp16(src[i]);
}

static void scores_f32(const float *q, const float *k, size_t stride, int hd, int n, float scale, float *out)
{
    for (int s = 0; s < n; s++) {
        const float *ks = k + (size_t)s * stride;
        float score = 0.0f;
        for (int e = 0; e < hd; e++) score += q[e] * ks[e];
        out[s] = score * scale;
    }
}

static void scores_f16(const float *q, const uint16_t *k, size_t stride, int hd, int n, float scale, float *out)
{
    for (int s = 0; s < n; s++) {
        const uint16_t *ks = k + (size_t)s * stride;
        float score = 0.0f;
        for (int e = 0; e < hd; e++) score += q[e] * bb_fp16_to_fp32(ks[e]);
        out[s] = score * scale;
    }
}

static float exp_max(float *x, int n, float *maxp)
{
    float max = -INFINITY, sum = 0.0f;
    for (int s = 0; s < n; s++)
        if (x[s] > max) max = x[s];
    for (int s = 0; s < n; s++) {
        x[s] = expf(x[s] - max);
        sum += x[s];
    }
    *maxp = max;
    return sum;
}

static void softmax(float *x, int n)
{
    float max, sum = exp_max(x, n, &max);
    for (int s = 0; s < n; s++) x[s] /= sum;
}

static void scores_bf16(const float *q, const uint16_t *k, size_t stride, int hd, int n, float scale, float *out)
{
    for (int s = 0; s < n; s++) {
        const uint16_t *ks = k + (size_t)s * stride;
        float score = 0.0f;
        for (int e = 0; e < hd; e++) score += q[e] * bb_bf16_to_fp32(ks[e]);
        out[s] = score * scale;
    }
}

static float q8_0_scale(const uint8_t *blk)
{
    uint16_t d;
    memcpy(&d, blk, 2);
    return bb_fp16_to_fp32(d);
}

/* Per block of 32: the q·qs sum, times the block's scale. */
static void scores_q8_0(const float *q, const void *k, size_t stride, int hd, int n, float scale, float *out)
{
    for (int s = 0; s < n; s++) {
        const uint8_t *ks = (const uint8_t *)k + (size_t)s * stride;
        float score = 0.0f;
        for (int b = 0; b < hd / 32; b++, ks += 34) {
            float blk = 0.0f;
            for (int e = 0; e < 32; e++) blk += q[32 * b + e] * (float)(int8_t)ks[2 + e];
            score += blk * q8_0_scale(ks);
        }
        out[s] = score * scale;
    }
}

static void wsum_bf16(float *out, const float *a, const uint16_t *v, size_t stride, int hd, int n)
{
    for (int s = 0; s < n; s++) {
        const uint16_t *vs = v + (size_t)s * stride;
        for (int e = 0; e < hd; e++) out[e] += a[s] * bb_bf16_to_fp32(vs[e]);
    }
}

/* out[e] += (a[s] * d) * q[e], d the scale of e's block in row s. */
static void wsum_q8_0(float *out, const float *a, const void *v, size_t stride, int hd, int n)
{
    for (int s = 0; s < n; s++) {
        const uint8_t *vs = (const uint8_t *)v + (size_t)s * stride;
        for (int b = 0; b < hd / 32; b++, vs += 34) {
            float w = a[s] * q8_0_scale(vs);
            for (int e = 0; e < 32; e++) out[32 * b + e] += w * (float)(int8_t)vs[2 + e];
        }
    }
}

static void wsum_f32(float *out, const float *a, const float *v, size_t stride, int hd, int n)
{
    for (int s = 0; s < n; s++) {
        const float *vs = v + (size_t)s * stride;
        for (int e = 0; e < hd; e++) out[e] += a[s] * vs[e];
    }
}

static void wsum_f16(float *out, const float *a, const uint16_t *v, size_t stride, int hd, int n)
{
    for (int s = 0; s < n; s++) {
        const uint16_t *vs = v + (size_t)s * stride;
        for (int e = 0; e < hd; e++) out[e] += a[s] * bb_fp16_to_fp32(vs[e]);
    }
}

const bb_vec_ops bb_vec_scalar = {"scalar", 0, sum_squares, scale_mul, add, rope, silu_mul, relu2_mul, to_f16,
                                  scores_f32, scores_f16, softmax, wsum_f32, wsum_f16,
                                  scores_bf16, scores_q8_0, wsum_bf16, wsum_q8_0, exp_max};

int bb_vec_available(const bb_vec_ops **out, int max)
{
    const bb_vec_ops *all[] = {
        &bb_vec_scalar,
#if defined(__x86_64__)
        &bb_vec_avx2, &bb_vec_avx512,
#endif
#if defined(__aarch64__)
        &bb_vec_neon,
#endif
    };
    uint64_t f = bb_cpu_features();
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
        if ((f & all[i]->requires) == all[i]->requires) out[n++] = all[i];
    return n;
}

const bb_vec_ops *bb_vec_best(void)
{
    const bb_vec_ops *av[3];
    int n = bb_vec_available(av, 3);
    return av[n - 1];
}
