/* AVX-512 vector primitives: 16 floats a register, tails by masked loads and stores (so head
 * dimensions below 16, as stories260K's 8, take the same path), f16 KV rows converted with
 * vcvtph2ps, exp by the Cephes expf polynomial with vscalefps for the 2^n factor. */
#include <immintrin.h>
#include <stdbool.h>
#include <math.h>
#include <string.h>

#include "kernels/cpu.h"
#include "vec.h"

static inline __mmask16 tail_mask(int n) { return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1); }

/* e^x: x = n ln2 + r, |r| <= ln2/2, e^r by Cephes expf's degree-5 polynomial, 2^n by scalef
 * (which gives 0 or inf past the float range, so only NaN-producing inputs are clamped). */
static inline __m512 exp512(__m512 x)
{
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-104.0f)), _mm512_set1_ps(89.0f));
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    __m512 y = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_scalef_ps(y, n);
}

static inline __m512 load_f16(const uint16_t *p, __mmask16 m)
{
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
}

static inline __m512 load_bf16(const uint16_t *p, __mmask16 m)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
}

/* The element types of a KV row the scores and wsum templates read (q8_0: scores only; its
 * offsets and strides count bytes). */
enum { KV_F32, KV_F16, KV_BF16, KV_Q8_0 };

/* Element i of a KV row (kind is a constant in every caller, so each use compiles to one load:
 * the attention paths share their code, not a branch). */
static inline __m512 load_kv(const void *row, size_t i, __mmask16 m, int kind)
{
    return kind == KV_F16    ? load_f16((const uint16_t *)row + i, m)
           : kind == KV_BF16 ? load_bf16((const uint16_t *)row + i, m)
                             : _mm512_maskz_loadu_ps(m, (const float *)row + i);
}

/* Sixteen int8 of a q8_0 block as floats. */
static inline __m512 load_i8(const uint8_t *p)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)p)));
}

static inline float q8_0_scale(const uint8_t *blk)
{
    uint16_t d;
    memcpy(&d, blk, 2);
    return _cvtsh_ss(d);
}

static float sum_squares(const float *x, int n)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
        a0 = _mm512_fmadd_ps(v0, v0, a0);
        a1 = _mm512_fmadd_ps(v1, v1, a1);
    }
    for (; i < n; i += 16) {
        __m512 v = _mm512_maskz_loadu_ps(tail_mask(n - i), x + i);
        a0 = _mm512_fmadd_ps(v, v, a0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
}

static void scale_mul(float *o, const float *x, const float *w, float s, int n)
{
    __m512 vs = _mm512_set1_ps(s);
    for (int i = 0; i < n; i += 16) {
        __mmask16 m = tail_mask(n - i);
        __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, w + i), _mm512_mul_ps(vs, _mm512_maskz_loadu_ps(m, x + i)));
        _mm512_mask_storeu_ps(o + i, m, v);
    }
}

static void add(float *y, const float *x, int n)
{
    for (int i = 0; i < n; i += 16) {
        __mmask16 m = tail_mask(n - i);
        _mm512_mask_storeu_ps(y + i, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, y + i), _mm512_maskz_loadu_ps(m, x + i)));
    }
}

/* (v0, v1) -> (v0 c - v1 s, v1 c + v0 s): fmaddsub(v, [c c], [v1 v0] * [s s]).  hd is even and
 * masks cover whole 16-float chunks from even offsets, so pairs never straddle a mask edge. */
static void rope(float *v, int n_heads, int hd, const float *cs)
{
    for (int h = 0; h < n_heads; h++) {
        float *p = v + (size_t)h * hd;
        for (int i = 0; i < hd; i += 16) {
            __mmask16 m = tail_mask(hd - i);
            __m512 x = _mm512_maskz_loadu_ps(m, p + i), c = _mm512_maskz_loadu_ps(m, cs + i);
            __m512 swapped = _mm512_permute_ps(x, 0xb1);
            __m512 r = _mm512_fmaddsub_ps(x, _mm512_moveldup_ps(c), _mm512_mul_ps(swapped, _mm512_movehdup_ps(c)));
            _mm512_mask_storeu_ps(p + i, m, r);
        }
    }
}

static void silu_mul(float *h, const float *g, int n)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    for (int i = 0; i < n; i += 16) {
        __mmask16 m = tail_mask(n - i);
        __m512 x = _mm512_maskz_loadu_ps(m, h + i);
        __m512 sig = _mm512_div_ps(one, _mm512_add_ps(one, exp512(_mm512_sub_ps(_mm512_setzero_ps(), x))));
        _mm512_mask_storeu_ps(h + i, m, _mm512_mul_ps(_mm512_mul_ps(x, sig), _mm512_maskz_loadu_ps(m, g + i)));
    }
}

static void relu2_mul(float *h, const float *g, int n)
{
    for (int i = 0; i < n; i += 16) {
        __mmask16 m = tail_mask(n - i);
        __m512 x = _mm512_max_ps(_mm512_maskz_loadu_ps(m, h + i), _mm512_setzero_ps());
        _mm512_mask_storeu_ps(h + i, m, _mm512_mul_ps(_mm512_mul_ps(x, x), _mm512_maskz_loadu_ps(m, g + i)));
    }
}

static void to_f16(uint16_t *dst, const float *src, int n)
{
    for (int i = 0; i < n; i += 16) {
        __mmask16 m = tail_mask(n - i);
        __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm256_mask_storeu_epi16(dst + i, m, h);
    }
}

/* One q8_0 key row's partial sums: per block of 32, q·qs in two halves, times the block's scale
 * into the row's lanes. */
static inline __attribute__((always_inline)) __m512 score_lanes_q8_0(const float *q, const uint8_t *ks, int hd)
{
    __m512 acc = _mm512_setzero_ps();
    for (int b = 0; b < hd / 32; b++, ks += 34) {
        __m512 a0 = _mm512_mul_ps(_mm512_loadu_ps(q + 32 * b), load_i8(ks + 2));
        __m512 a1 = _mm512_mul_ps(_mm512_loadu_ps(q + 32 * b + 16), load_i8(ks + 18));
        acc = _mm512_fmadd_ps(_mm512_add_ps(a0, a1), _mm512_set1_ps(q8_0_scale(ks)), acc);
    }
    return acc;
}

/* One position's q·k as a vector of 16 partial sums (two chains of FMAs over hd; q8_0 above). */
static inline __attribute__((always_inline)) __m512 score_lanes(const float *q, const void *k, int f16, size_t ks,
                                                                int hd)
{
    if (f16 == KV_Q8_0) return score_lanes_q8_0(q, (const uint8_t *)k + ks, hd);
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int e = 0;
    for (; e + 32 <= hd; e += 32) {
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + e), load_kv(k, ks + e, 0xffff, f16), a0);
        a1 = _mm512_fmadd_ps(_mm512_loadu_ps(q + e + 16), load_kv(k, ks + e + 16, 0xffff, f16), a1);
    }
    if (e < hd) {
        __mmask16 m = tail_mask(hd - e);
        a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, q + e), load_kv(k, ks + e, m, f16), a0);
        e += 16;
        if (e < hd) {
            m = tail_mask(hd - e);
            a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, q + e), load_kv(k, ks + e, m, f16), a1);
        }
    }
    return _mm512_add_ps(a0, a1);
}

/* [a0 + a2, a1 + a3, b0 + b2, b1 + b3] in 128-bit lanes: each vector's halves added. */
static inline __m512 add_halves(__m512 a, __m512 b)
{
    return _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x44), _mm512_shuffle_f32x4(a, b, 0xee));
}

/* [a0 + a1, a2 + a3, b0 + b1, b2 + b3] in 128-bit lanes: each half's two quarters added. */
static inline __m512 add_quarters(__m512 a, __m512 b)
{
    return _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x88), _mm512_shuffle_f32x4(a, b, 0xdd));
}

/* The horizontal sums of 16 vectors, x[r] into lane r.  Each sum adds the same pairs in the same
 * tree as GCC's _mm512_reduce_add_ps (lane i + lane i+8, then + 4, then + 2, then + 1), so a row's
 * score is the bits one reduction of its own gives, in 46 instructions for 16 rows where 16
 * reductions take about 150. */
static inline __attribute__((always_inline)) __m512 reduce16(const __m512 x[16])
{
    __m512 p[8], q4[4], r[2];
    for (int i = 0; i < 8; i++) p[i] = add_halves(x[2 * i], x[2 * i + 1]);     /* i + 8: two rows */
    for (int i = 0; i < 4; i++) q4[i] = add_quarters(p[2 * i], p[2 * i + 1]); /* i + 4: lane j, row 4i + j */
    for (int i = 0; i < 2; i++) /* i + 2: per 128-bit lane j, rows 8i + j and 8i + 4 + j, two sums each */
        r[i] = _mm512_add_ps(_mm512_shuffle_ps(q4[2 * i], q4[2 * i + 1], 0x44),
                             _mm512_shuffle_ps(q4[2 * i], q4[2 * i + 1], 0xee));
    /* i + 1: lane 4j + t holds row 4t + j */
    __m512 z = _mm512_add_ps(_mm512_shuffle_ps(r[0], r[1], 0x88), _mm512_shuffle_ps(r[0], r[1], 0xdd));
    return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), z);
}

/* out[s] = scale * q·k_s: 16 positions' partial-sum vectors reduced together, then one at a time. */
static inline __attribute__((always_inline)) void scores_kv(const float *q, const void *k, int f16, size_t stride, int hd,
                                                            int n, float scale, float *out)
{
    int s = 0;
    for (; s + 16 <= n; s += 16) {
        __m512 x[16];
#pragma GCC unroll 16
        for (int r = 0; r < 16; r++) x[r] = score_lanes(q, k, f16, (size_t)(s + r) * stride, hd);
        _mm512_storeu_ps(out + s, _mm512_mul_ps(reduce16(x), _mm512_set1_ps(scale)));
    }
    for (; s < n; s++) out[s] = _mm512_reduce_add_ps(score_lanes(q, k, f16, (size_t)s * stride, hd)) * scale;
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
    __m512 vmax = _mm512_set1_ps(-INFINITY);
    for (int i = 0; i < n; i += 16) {
        __mmask16 m = tail_mask(n - i);
        vmax = _mm512_mask_max_ps(vmax, m, vmax, _mm512_maskz_loadu_ps(m, x + i));
    }
    const __m512 max = _mm512_set1_ps(_mm512_reduce_max_ps(vmax));
    __m512 sum = _mm512_setzero_ps();
    for (int i = 0; i < n; i += 16) {
        __mmask16 m = tail_mask(n - i);
        __m512 e = exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), max));
        sum = _mm512_add_ps(sum, _mm512_maskz_mov_ps(m, e));
        _mm512_mask_storeu_ps(x + i, m, e);
    }
    *maxp = _mm512_cvtss_f32(max);
    return _mm512_reduce_add_ps(sum);
}

static void softmax(float *x, int n)
{
    float max;
    const __m512 total = _mm512_set1_ps(exp_max(x, n, &max));
    for (int i = 0; i < n; i += 16) {
        __mmask16 m = tail_mask(n - i);
        _mm512_mask_storeu_ps(x + i, m, _mm512_div_ps(_mm512_maskz_loadu_ps(m, x + i), total));
    }
}

/* out += sum_s a[s] v_s for hd <= 16 nv: nv registers over the whole row, one pass over the
 * positions (the last register's lanes up to `last`). */
static inline __attribute__((always_inline)) void wsum_once(float *out, const float *a, const void *v, int kind,
                                                            size_t stride, int n, const int nv, __mmask16 last)
{
    __m512 o[8];
#pragma GCC unroll 8
    for (int j = 0; j < nv; j++) o[j] = _mm512_maskz_loadu_ps(j == nv - 1 ? last : 0xffff, out + 16 * j);
    for (int s = 0; s < n; s++) {
        size_t vs = (size_t)s * stride;
        __m512 w = _mm512_set1_ps(a[s]);
#pragma GCC unroll 8
        for (int j = 0; j < nv; j++)
            o[j] = _mm512_fmadd_ps(w, load_kv(v, vs + 16 * (size_t)j, j == nv - 1 ? last : 0xffff, kind), o[j]);
    }
#pragma GCC unroll 8
    for (int j = 0; j < nv; j++) _mm512_mask_storeu_ps(out + 16 * j, j == nv - 1 ? last : 0xffff, o[j]);
}

/* out += sum_s a[s] v_s.  Up to hd = 128 (every model here) the whole row in up to eight
 * registers, one pass: a pass per 64 outputs ran the 700M's hd = 96 as 64 + 32 with two
 * registers of masked-off work per row.  Wider heads: 64 output floats at a time in four
 * registers while the positions stream past.  Each output is the same FMA chain either way. */
static inline __attribute__((always_inline)) void wsum_kv(float *out, const float *a, const void *v, int f16, size_t stride,
                                                          int hd, int n)
{
    if (hd <= 128) {
        int nv = (hd + 15) / 16;
        __mmask16 last = tail_mask(hd - 16 * (nv - 1));
        switch (nv) { /* constant register counts: o[] stays in registers */
        case 1: wsum_once(out, a, v, f16, stride, n, 1, last); return;
        case 2: wsum_once(out, a, v, f16, stride, n, 2, last); return;
        case 3: wsum_once(out, a, v, f16, stride, n, 3, last); return;
        case 4: wsum_once(out, a, v, f16, stride, n, 4, last); return;
        case 5: wsum_once(out, a, v, f16, stride, n, 5, last); return;
        case 6: wsum_once(out, a, v, f16, stride, n, 6, last); return;
        case 7: wsum_once(out, a, v, f16, stride, n, 7, last); return;
        default: wsum_once(out, a, v, f16, stride, n, 8, last); return;
        }
    }
    for (int e0 = 0; e0 < hd; e0 += 64) {
        __mmask16 m0 = tail_mask(hd - e0), m1 = hd - e0 > 16 ? tail_mask(hd - e0 - 16) : 0,
                  m2 = hd - e0 > 32 ? tail_mask(hd - e0 - 32) : 0, m3 = hd - e0 > 48 ? tail_mask(hd - e0 - 48) : 0;
        __m512 o0 = _mm512_maskz_loadu_ps(m0, out + e0), o1 = _mm512_maskz_loadu_ps(m1, out + e0 + 16),
               o2 = _mm512_maskz_loadu_ps(m2, out + e0 + 32), o3 = _mm512_maskz_loadu_ps(m3, out + e0 + 48);
        for (int s = 0; s < n; s++) {
            size_t vs = (size_t)s * stride + e0;
            __m512 w = _mm512_set1_ps(a[s]);
            o0 = _mm512_fmadd_ps(w, load_kv(v, vs, m0, f16), o0);
            o1 = _mm512_fmadd_ps(w, load_kv(v, vs + 16, m1, f16), o1);
            o2 = _mm512_fmadd_ps(w, load_kv(v, vs + 32, m2, f16), o2);
            o3 = _mm512_fmadd_ps(w, load_kv(v, vs + 48, m3, f16), o3);
        }
        _mm512_mask_storeu_ps(out + e0, m0, o0);
        _mm512_mask_storeu_ps(out + e0 + 16, m1, o1);
        _mm512_mask_storeu_ps(out + e0 + 32, m2, o2);
        _mm512_mask_storeu_ps(out + e0 + 48, m3, o3);
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

static void scores_q8_0(const float *q, const void *k, size_t stride, int hd, int n, float scale, float *out)
{
    scores_kv(q, k, KV_Q8_0, stride, hd, n, scale, out);
}

/* out += sum_s a[s] v_s over nb blocks of 32 outputs (2 nb registers), one pass over the
 * positions. */
static inline __attribute__((always_inline)) void wsum_q8_0_blocks(float *out, const float *a, const uint8_t *v,
                                                                   size_t stride, int n, const int nb)
{
    __m512 o[8];
#pragma GCC unroll 8
    for (int j = 0; j < 2 * nb; j++) o[j] = _mm512_loadu_ps(out + 16 * j);
    for (int s = 0; s < n; s++, v += stride) {
#pragma GCC unroll 4
        for (int j = 0; j < nb; j++) {
            __m512 w = _mm512_set1_ps(a[s] * q8_0_scale(v + 34 * j));
            o[2 * j] = _mm512_fmadd_ps(w, load_i8(v + 34 * j + 2), o[2 * j]);
            o[2 * j + 1] = _mm512_fmadd_ps(w, load_i8(v + 34 * j + 18), o[2 * j + 1]);
        }
    }
#pragma GCC unroll 8
    for (int j = 0; j < 2 * nb; j++) _mm512_storeu_ps(out + 16 * j, o[j]);
}

/* Up to four blocks (hd <= 128, every model here) in one pass over the positions; wider heads
 * four blocks at a time.  Each output is the same FMA chain either way. */
static void wsum_q8_0(float *out, const float *a, const void *v, size_t stride, int hd, int n)
{
    const uint8_t *v8 = v;
    for (int b = 0; b < hd / 32; b += 4) {
        switch (hd / 32 - b < 4 ? hd / 32 - b : 4) { /* constant register counts */
        case 1: wsum_q8_0_blocks(out + 32 * b, a, v8 + 34 * (size_t)b, stride, n, 1); break;
        case 2: wsum_q8_0_blocks(out + 32 * b, a, v8 + 34 * (size_t)b, stride, n, 2); break;
        case 3: wsum_q8_0_blocks(out + 32 * b, a, v8 + 34 * (size_t)b, stride, n, 3); break;
        default: wsum_q8_0_blocks(out + 32 * b, a, v8 + 34 * (size_t)b, stride, n, 4); break;
        }
    }
}

const bb_vec_ops bb_vec_avx512 = {"avx512", BB_ISA_AVX512, sum_squares, scale_mul, add, rope, silu_mul, relu2_mul, to_f16,
                                  scores_f32, scores_f16, softmax, wsum_f32, wsum_f16,
                                  scores_bf16, scores_q8_0, wsum_bf16, wsum_q8_0, exp_max};
