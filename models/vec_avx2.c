/* AVX2 + FMA + F16C vector primitives: 8 floats a register; a tail of fewer than 8 elements goes
 * through a zero-padded 8-float copy, so the arithmetic of a tail lane is the same as of any
 * other lane.  exp is the Cephes expf polynomial with 2^n built in the exponent bits. */
#include <immintrin.h>
#include <stdbool.h>
#include <math.h>
#include <string.h>

#include "kernels/cpu.h"
#include "vec.h"

static inline float hsum(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static inline __m256 load_tail(const float *p, int n)
{
    float b[8] = {0};
    memcpy(b, p, sizeof(float) * (size_t)n);
    return _mm256_loadu_ps(b);
}

static inline void store_tail(float *p, __m256 v, int n)
{
    float b[8];
    _mm256_storeu_ps(b, v);
    memcpy(p, b, sizeof(float) * (size_t)n);
}

static inline __m256 load_f16(const uint16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }

static inline __m256 load_f16_tail(const uint16_t *p, int n)
{
    uint16_t b[8] = {0};
    memcpy(b, p, sizeof(uint16_t) * (size_t)n);
    return load_f16(b);
}

static inline __m256 load_bf16(const uint16_t *p)
{
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

static inline __m256 load_bf16_tail(const uint16_t *p, int n)
{
    uint16_t b[8] = {0};
    memcpy(b, p, sizeof(uint16_t) * (size_t)n);
    return load_bf16(b);
}

/* The element types of a KV row the scores and wsum templates read. */
enum { KV_F32, KV_F16, KV_BF16 };

/* Eight elements (or the n < 8 of a tail) of a KV row from element i (kind is a constant in every
 * caller: the attention paths share their code, not a branch). */
static inline __m256 load_kv(const void *row, size_t i, int kind)
{
    return kind == KV_F16    ? load_f16((const uint16_t *)row + i)
           : kind == KV_BF16 ? load_bf16((const uint16_t *)row + i)
                             : _mm256_loadu_ps((const float *)row + i);
}

static inline __m256 load_kv_tail(const void *row, size_t i, int n, int kind)
{
    return kind == KV_F16    ? load_f16_tail((const uint16_t *)row + i, n)
           : kind == KV_BF16 ? load_bf16_tail((const uint16_t *)row + i, n)
                             : load_tail((const float *)row + i, n);
}

/* Eight int8 of a q8_0 block as floats. */
static inline __m256 load_i8(const uint8_t *p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

static inline float q8_0_scale(const uint8_t *blk)
{
    uint16_t d;
    memcpy(&d, blk, 2);
    return _cvtsh_ss(d);
}

/* e^x by Cephes expf's reduction and polynomial on x clamped to [-87, 88] (where 2^n stays a
 * normal float); below about -87.3 the result is 0 and above 88.7 inf, as expf rounds them. */
static inline __m256 exp256(__m256 x0)
{
    __m256 x = _mm256_min_ps(_mm256_max_ps(x0, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    __m256 y = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    y = _mm256_mul_ps(y, _mm256_castsi256_ps(e));
    y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x0, _mm256_set1_ps(-87.33654f), _CMP_LT_OQ));
    return _mm256_blendv_ps(y, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(x0, _mm256_set1_ps(88.72283f), _CMP_GT_OQ));
}

static float sum_squares(const float *x, int n)
{
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
        a0 = _mm256_fmadd_ps(v0, v0, a0);
        a1 = _mm256_fmadd_ps(v1, v1, a1);
    }
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        a0 = _mm256_fmadd_ps(v, v, a0);
    }
    if (i < n) {
        __m256 v = load_tail(x + i, n - i);
        a1 = _mm256_fmadd_ps(v, v, a1);
    }
    return hsum(_mm256_add_ps(a0, a1));
}

static inline __m256 scale_mul8(__m256 x, __m256 w, __m256 s) { return _mm256_mul_ps(w, _mm256_mul_ps(s, x)); }

static void scale_mul(float *o, const float *x, const float *w, float s, int n)
{
    __m256 vs = _mm256_set1_ps(s);
    int i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, scale_mul8(_mm256_loadu_ps(x + i), _mm256_loadu_ps(w + i), vs));
    if (i < n) store_tail(o + i, scale_mul8(load_tail(x + i, n - i), load_tail(w + i, n - i), vs), n - i);
}

static void add(float *y, const float *x, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(y + i), _mm256_loadu_ps(x + i)));
    if (i < n) store_tail(y + i, _mm256_add_ps(load_tail(y + i, n - i), load_tail(x + i, n - i)), n - i);
}

static inline __m256 rope8(__m256 x, __m256 c)
{
    __m256 swapped = _mm256_permute_ps(x, 0xb1);
    return _mm256_fmaddsub_ps(x, _mm256_moveldup_ps(c), _mm256_mul_ps(swapped, _mm256_movehdup_ps(c)));
}

static void rope(float *v, int n_heads, int hd, const float *cs)
{
    for (int h = 0; h < n_heads; h++) {
        float *p = v + (size_t)h * hd;
        int i = 0;
        for (; i + 8 <= hd; i += 8) _mm256_storeu_ps(p + i, rope8(_mm256_loadu_ps(p + i), _mm256_loadu_ps(cs + i)));
        if (i < hd) store_tail(p + i, rope8(load_tail(p + i, hd - i), load_tail(cs + i, hd - i)), hd - i);
    }
}

static inline __m256 silu_mul8(__m256 x, __m256 g)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 sig = _mm256_div_ps(one, _mm256_add_ps(one, exp256(_mm256_sub_ps(_mm256_setzero_ps(), x))));
    return _mm256_mul_ps(_mm256_mul_ps(x, sig), g);
}

static void silu_mul(float *h, const float *g, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(h + i, silu_mul8(_mm256_loadu_ps(h + i), _mm256_loadu_ps(g + i)));
    if (i < n) store_tail(h + i, silu_mul8(load_tail(h + i, n - i), load_tail(g + i, n - i)), n - i);
}

static inline __m256 relu2_mul8(__m256 x, __m256 g)
{
    x = _mm256_max_ps(x, _mm256_setzero_ps());
    return _mm256_mul_ps(_mm256_mul_ps(x, x), g);
}

static void relu2_mul(float *h, const float *g, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(h + i, relu2_mul8(_mm256_loadu_ps(h + i), _mm256_loadu_ps(g + i)));
    if (i < n) store_tail(h + i, relu2_mul8(load_tail(h + i, n - i), load_tail(g + i, n - i)), n - i);
}

static void to_f16(uint16_t *dst, const float *src, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    if (i < n) {
        uint16_t b[8];
        _mm_storeu_si128((__m128i *)b, _mm256_cvtps_ph(load_tail(src + i, n - i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        memcpy(dst + i, b, sizeof(uint16_t) * (size_t)(n - i));
    }
}

static inline __attribute__((always_inline)) void scores_kv(const float *q, const void *k, int f16, size_t stride, int hd,
                                                            int n, float scale, float *out)
{
    for (int s = 0; s < n; s++) {
        size_t ks = (size_t)s * stride;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
        int e = 0;
        for (; e + 16 <= hd; e += 16) {
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + e), load_kv(k, ks + e, f16), a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + e + 8), load_kv(k, ks + e + 8, f16), a1);
        }
        for (; e + 8 <= hd; e += 8) a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + e), load_kv(k, ks + e, f16), a0);
        if (e < hd) a1 = _mm256_fmadd_ps(load_tail(q + e, hd - e), load_kv_tail(k, ks + e, hd - e, f16), a1);
        out[s] = hsum(_mm256_add_ps(a0, a1)) * scale;
    }
}

/* Four positions at a time for a head dimension that is a multiple of 8: each q vector is loaded
 * once for the four keys, one accumulator per key, and the four sums are reduced together (two
 * rounds of hadd and one 128-bit add instead of four separate horizontal sums).  A key's score is
 * the sum of its 8 lane partial sums in a fixed order, whichever call it is in: prefill and decode
 * take a position's score through the same grouping (models/attention.c cuts both at the same
 * positions). */
static inline __attribute__((always_inline)) void scores4_kv(const float *q, const void *k, int kind, size_t stride,
                                                             int hd, int n, float scale, float *out)
{
    int s = 0;
    for (; s + 4 <= n; s += 4) {
        size_t k0 = (size_t)s * stride;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
        for (int e = 0; e < hd; e += 8) {
            __m256 qv = _mm256_loadu_ps(q + e);
            a0 = _mm256_fmadd_ps(qv, load_kv(k, k0 + e, kind), a0);
            a1 = _mm256_fmadd_ps(qv, load_kv(k, k0 + stride + e, kind), a1);
            a2 = _mm256_fmadd_ps(qv, load_kv(k, k0 + 2 * stride + e, kind), a2);
            a3 = _mm256_fmadd_ps(qv, load_kv(k, k0 + 3 * stride + e, kind), a3);
        }
        __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
        __m128 r = _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
        _mm_storeu_ps(out + s, _mm_mul_ps(r, _mm_set1_ps(scale)));
    }
    if (s < n) scores_kv(q, (const char *)k + (size_t)s * stride * (kind == KV_F32 ? 4 : 2), kind, stride, hd, n - s,
                         scale, out + s);
}

static void scores_f32(const float *q, const float *k, size_t stride, int hd, int n, float scale, float *out)
{
    if (hd % 8 == 0) scores4_kv(q, k, KV_F32, stride, hd, n, scale, out);
    else scores_kv(q, k, KV_F32, stride, hd, n, scale, out);
}

static void scores_f16(const float *q, const uint16_t *k, size_t stride, int hd, int n, float scale, float *out)
{
    if (hd % 8 == 0) scores4_kv(q, k, KV_F16, stride, hd, n, scale, out);
    else scores_kv(q, k, KV_F16, stride, hd, n, scale, out);
}

static float exp_max(float *x, int n, float *maxp)
{
    float max = -INFINITY;
    int i = 0;
    if (n >= 8) {
        __m256 vmax = _mm256_loadu_ps(x);
        for (i = 8; i + 8 <= n; i += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(x + i));
        __m128 m = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
        m = _mm_max_ps(m, _mm_movehl_ps(m, m));
        m = _mm_max_ss(m, _mm_movehdup_ps(m));
        max = _mm_cvtss_f32(m);
    }
    for (; i < n; i++)
        if (x[i] > max) max = x[i];
    const __m256 vm = _mm256_set1_ps(max);
    __m256 sum = _mm256_setzero_ps();
    for (i = 0; i + 8 <= n; i += 8) {
        __m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
        sum = _mm256_add_ps(sum, e);
        _mm256_storeu_ps(x + i, e);
    }
    float total = hsum(sum);
    if (i < n) {
        float b[8];
        _mm256_storeu_ps(b, exp256(_mm256_sub_ps(load_tail(x + i, n - i), vm)));
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
    const __m256 vt = _mm256_set1_ps(total);
    for (i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_div_ps(_mm256_loadu_ps(x + i), vt));
    for (; i < n; i++) x[i] /= total;
}

/* out = sum_s a[s] v_s for a row of exactly 8 * NREG floats in one pass: NREG accumulators stay
 * in registers while the rows stream past, so each V row is read once (the 32-column passes below
 * read a 96-wide row three times).  Each output is the same FMA chain over s as in those passes:
 * the same bits. */
static inline __attribute__((always_inline)) void wsum_rows_once(float *out, const float *a, const void *v, int kind,
                                                                 size_t stride, int n, const int nreg)
{
    __m256 o[12];
#pragma GCC unroll 12
    for (int j = 0; j < nreg; j++) o[j] = _mm256_loadu_ps(out + 8 * j);
    for (int s = 0; s < n; s++) {
        size_t vs = (size_t)s * stride;
        __m256 w = _mm256_set1_ps(a[s]);
#pragma GCC unroll 12
        for (int j = 0; j < nreg; j++) o[j] = _mm256_fmadd_ps(w, load_kv(v, vs + 8 * (size_t)j, kind), o[j]);
    }
#pragma GCC unroll 12
    for (int j = 0; j < nreg; j++) _mm256_storeu_ps(out + 8 * j, o[j]);
}

/* out += sum_s a[s] v_s, 32 output floats in four registers per pass over the positions (head
 * dimensions 64 and 96, the 700M's, in one pass). */
static inline __attribute__((always_inline)) void wsum_kv(float *out, const float *a, const void *v, int f16, size_t stride,
                                                          int hd, int n)
{
    if (hd == 96) {
        wsum_rows_once(out, a, v, f16, stride, n, 12);
        return;
    }
    if (hd == 64) {
        wsum_rows_once(out, a, v, f16, stride, n, 8);
        return;
    }
    int e0 = 0;
    for (; e0 + 32 <= hd; e0 += 32) {
        __m256 o0 = _mm256_loadu_ps(out + e0), o1 = _mm256_loadu_ps(out + e0 + 8), o2 = _mm256_loadu_ps(out + e0 + 16),
               o3 = _mm256_loadu_ps(out + e0 + 24);
        for (int s = 0; s < n; s++) {
            size_t vs = (size_t)s * stride + e0;
            __m256 w = _mm256_set1_ps(a[s]);
            o0 = _mm256_fmadd_ps(w, load_kv(v, vs, f16), o0);
            o1 = _mm256_fmadd_ps(w, load_kv(v, vs + 8, f16), o1);
            o2 = _mm256_fmadd_ps(w, load_kv(v, vs + 16, f16), o2);
            o3 = _mm256_fmadd_ps(w, load_kv(v, vs + 24, f16), o3);
        }
        _mm256_storeu_ps(out + e0, o0);
        _mm256_storeu_ps(out + e0 + 8, o1);
        _mm256_storeu_ps(out + e0 + 16, o2);
        _mm256_storeu_ps(out + e0 + 24, o3);
    }
    for (; e0 < hd; e0 += 8) {
        int w8 = hd - e0 < 8 ? hd - e0 : 8;
        __m256 o = load_tail(out + e0, w8);
        for (int s = 0; s < n; s++) {
            size_t vs = (size_t)s * stride + e0;
            o = _mm256_fmadd_ps(_mm256_set1_ps(a[s]), w8 == 8 ? load_kv(v, vs, f16) : load_kv_tail(v, vs, w8, f16), o);
        }
        store_tail(out + e0, o, w8);
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
    if (hd % 8 == 0) scores4_kv(q, k, KV_BF16, stride, hd, n, scale, out);
    else scores_kv(q, k, KV_BF16, stride, hd, n, scale, out);
}

static void wsum_bf16(float *out, const float *a, const uint16_t *v, size_t stride, int hd, int n)
{
    wsum_kv(out, a, v, KV_BF16, stride, hd, n);
}

/* One key's q8_0 row against q: per block of 32, q·qs in two accumulators, times the block's scale
 * into the row's lanes (the key's 8 lane sums, reduced by the caller). */
static inline __m256 dot_q8_0_lanes(const float *q, const uint8_t *ks, int hd)
{
    __m256 acc = _mm256_setzero_ps();
    for (int b = 0; b < hd / 32; b++, ks += 34) {
        const float *qb = q + 32 * b;
        __m256 a0 = _mm256_mul_ps(_mm256_loadu_ps(qb), load_i8(ks + 2));
        __m256 a1 = _mm256_mul_ps(_mm256_loadu_ps(qb + 8), load_i8(ks + 10));
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(qb + 16), load_i8(ks + 18), a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(qb + 24), load_i8(ks + 26), a1);
        acc = _mm256_fmadd_ps(_mm256_add_ps(a0, a1), _mm256_set1_ps(q8_0_scale(ks)), acc);
    }
    return acc;
}

/* Four keys at a time, their lane sums reduced together as scores4_kv does (two rounds of hadd
 * and one 128-bit add instead of four horizontal sums); the last n % 4 keys one by one.  As for
 * the other types, a position's score depends only on where it falls in its call, and the
 * attention cuts prefill and decode at the same positions. */
static void scores_q8_0(const float *q, const void *k, size_t stride, int hd, int n, float scale, float *out)
{
    const uint8_t *ks = k;
    int s = 0;
    for (; s + 4 <= n; s += 4, ks += 4 * stride) {
        __m256 a0 = dot_q8_0_lanes(q, ks, hd), a1 = dot_q8_0_lanes(q, ks + stride, hd);
        __m256 a2 = dot_q8_0_lanes(q, ks + 2 * stride, hd), a3 = dot_q8_0_lanes(q, ks + 3 * stride, hd);
        __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
        __m128 r = _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
        _mm_storeu_ps(out + s, _mm_mul_ps(r, _mm_set1_ps(scale)));
    }
    for (; s < n; s++, ks += stride) out[s] = hsum(dot_q8_0_lanes(q, ks, hd)) * scale;
}

/* o[0..3] += a * (one q8_0 block of a value row, widened exactly). */
static inline __attribute__((always_inline)) void wsum_q8_0_block(__m256 *o, float a, const uint8_t *blk)
{
    __m256 w = _mm256_set1_ps(a * q8_0_scale(blk));
    o[0] = _mm256_fmadd_ps(w, load_i8(blk + 2), o[0]);
    o[1] = _mm256_fmadd_ps(w, load_i8(blk + 10), o[1]);
    o[2] = _mm256_fmadd_ps(w, load_i8(blk + 18), o[2]);
    o[3] = _mm256_fmadd_ps(w, load_i8(blk + 26), o[3]);
}

/* Up to three blocks (96 outputs, the 700M's head) in twelve registers per pass over the
 * positions, so a row is read once per pass, not once per block; each output is the same FMA
 * chain over s whatever the passes. */
static void wsum_q8_0(float *out, const float *a, const void *v, size_t stride, int hd, int n)
{
    const int nb = hd / 32;
    for (int b0 = 0; b0 < nb; b0 += 3) {
        const int m = nb - b0 < 3 ? nb - b0 : 3;
        __m256 o[12];
        for (int j = 0; j < 4 * m; j++) o[j] = _mm256_loadu_ps(out + 32 * b0 + 8 * j);
        const uint8_t *vs = (const uint8_t *)v + (size_t)b0 * 34;
        if (m == 3) /* the constant count lets the compiler keep o[] in registers */
            for (int s = 0; s < n; s++, vs += stride) {
#pragma GCC unroll 3
                for (int b = 0; b < 3; b++) wsum_q8_0_block(o + 4 * b, a[s], vs + 34 * b);
            }
        else
            for (int s = 0; s < n; s++, vs += stride)
                for (int b = 0; b < m; b++) wsum_q8_0_block(o + 4 * b, a[s], vs + 34 * b);
        for (int j = 0; j < 4 * m; j++) _mm256_storeu_ps(out + 32 * b0 + 8 * j, o[j]);
    }
}

const bb_vec_ops bb_vec_avx2 = {"avx2", BB_ISA_AVX2, sum_squares, scale_mul, add, rope, silu_mul, relu2_mul, to_f16,
                                scores_f32, scores_f16, softmax, wsum_f32, wsum_f16,
                                scores_bf16, scores_q8_0, wsum_bf16, wsum_q8_0, exp_max};
