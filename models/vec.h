/* Vector primitives for the transformer's non-matmul work: RMSNorm, RoPE, attention (q·k scores,
 * softmax, weighted V sum) over an f32, f16, bf16 or q8_0 KV cache, the gated FFN activations and residual
 * adds.  One table of functions per ISA: a scalar one (models/vec.c, the engine's reference
 * arithmetic, llama2.c's run.c loops), and AVX2 / AVX-512 ones (models/vec_avx2.c,
 * models/vec_avx512.c, compiled for kernels/cpu.h's BB_ISA_AVX2 / BB_ISA_AVX512) on x86-64 or a
 * NEON one (models/vec_neon.c, BB_ISA_NEON) on aarch64, picked once at run time from CPUID / HWCAP
 * like the kernels' variants.  The SIMD tables sum in a different order and
 * use a polynomial exp (Cephes expf, about 1 ulp), so their results differ from the scalar ones by
 * float rounding only; every table is deterministic, and a row's result does not depend on how
 * many rows are processed or on which thread. */
#ifndef BB_VEC_H
#define BB_VEC_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name; /* "scalar", "avx2", "avx512", "neon" */
    uint64_t requires; /* kernels/cpu.h feature mask */
    /* sum of x[i]^2 */
    float (*sum_squares)(const float *x, int n);
    /* o[i] = w[i] * (s * x[i]); o may be x */
    void (*scale_mul)(float *o, const float *x, const float *w, float s, int n);
    /* y[i] += x[i] */
    void (*add)(float *y, const float *x, int n);
    /* Rotate pairs (2i, 2i+1) of each of n_heads heads of hd floats by cs = [cos, sin] pairs. */
    void (*rope)(float *v, int n_heads, int hd, const float *cs);
    /* h[i] = act(h[i]) * g[i], act = SiLU x/(1+e^-x), or squared ReLU */
    void (*silu_mul)(float *h, const float *g, int n);
    void (*relu2_mul)(float *h, const float *g, int n);
    /* dst[i] = fp16(src[i]), round to nearest even (the bits of kernels/common/fp16.h) */
    void (*to_f16)(uint16_t *dst, const float *src, int n);
    /* Attention scores: out[s] = scale * q·k_s for s < n, k_s = k + s*stride (hd elements). */
    void (*scores_f32)(const float *q, const float *k, size_t stride, int hd, int n, float scale, float *out);
    void (*scores_f16)(const float *q, const uint16_t *k, size_t stride, int hd, int n, float scale, float *out);
    /* In-place softmax of x[0..n): exp(x - max) / sum. */
    void (*softmax)(float *x, int n);
    /* Weighted value sum, added to out: out[e] += sum_s a[s] * v_s[e] for e < hd, v_s = v + s*stride,
     * each out[e] one chain of multiply-adds in s order, so that a sum taken in pieces of s is the
     * same bits as one call over them all. */
    void (*wsum_f32)(float *out, const float *a, const float *v, size_t stride, int hd, int n);
    void (*wsum_f16)(float *out, const float *a, const uint16_t *v, size_t stride, int hd, int n);
    /* The same over a bf16 cache (the upper 16 bits of an f32: widened exactly) and a q8_0 one
     * (models/kv_type.h: rows of hd / 32 blocks of an f16 scale d and 32 int8 q, value d * q; the
     * stride in bytes).  q stays f32: each key or value is widened exactly, then the same FMAs. */
    void (*scores_bf16)(const float *q, const uint16_t *k, size_t stride, int hd, int n, float scale, float *out);
    void (*scores_q8_0)(const float *q, const void *k, size_t stride_bytes, int hd, int n, float scale, float *out);
    void (*wsum_bf16)(float *out, const float *a, const uint16_t *v, size_t stride, int hd, int n);
    void (*wsum_q8_0)(float *out, const float *a, const void *v, size_t stride_bytes, int hd, int n);
    /* softmax without the division (the online softmax of models/attention.h): *max = max x[s],
     * x[s] = exp(x[s] - max); returns the sum of the new x[s].  softmax is this, then x[s] / sum. */
    float (*exp_max)(float *x, int n, float *max);
} bb_vec_ops;

extern const bb_vec_ops bb_vec_scalar, bb_vec_avx2, bb_vec_avx512, bb_vec_neon;

/* The widest table this CPU runs (bb_cpu_features(), so BITBENCH_CPU_MASK narrows it). */
const bb_vec_ops *bb_vec_best(void);
/* Every table this CPU can run, scalar first; returns how many (at most 3) were written. */
int bb_vec_available(const bb_vec_ops **out, int max);

#endif
