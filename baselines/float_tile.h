/* The register tile of the float baselines' SIMD variants (float_common.h), written once over the
 * vector of the ISA its includer is compiled for: every *_avx2.c / *_avx512*.c / *_neon.c file is
 * its own translation unit with its own ISA flags, so the vector type is chosen here by those
 * flags - __m512 (16 floats) with AVX-512 F/BW/VL, __m256 (8 floats) with AVX2 + FMA + F16C, or
 * on aarch64 float32x4_t (4 floats, NEON: every aarch64 core).  Include only from those files.
 *
 * bb_fl_tile_sum(t, NR, NC, MODE) accumulates NR weight rows x NC activation rows over
 * [t->i0, t->i1); NR, NC and MODE are constants at every call site (forced inlining), so the
 * loops unroll and the NR*NC accumulators live in registers.  Each accumulator receives exactly:
 * its parked or zero start, one multiply-add per step (per part) in increasing k, the zero-padded
 * tail, one reduction in a fixed order - the same sequence whatever NR, NC or the tile's
 * position, which is what makes row slices exact. */
#ifndef BB_FLOAT_TILE_H
#define BB_FLOAT_TILE_H

#include "float_common.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)

typedef __m512 bb_flv;
enum { BB_FLV_LANES = 16 };

static inline __attribute__((always_inline)) bb_flv bb_flv_zero(void) { return _mm512_setzero_ps(); }

/* Elements of bfloat16 pairs: `part` 0/1 = even/odd elements, each widened to float in its
 * 32-bit lane; BB_FL_BF16DP keeps the pairs for vdpbf16ps. */
static inline __attribute__((always_inline)) bb_flv bb_flv_from_pairs(__m512i v, int part, int type)
{
    if (type == BB_FL_BF16DP) return _mm512_castsi512_ps(v);
    return _mm512_castsi512_ps(part ? _mm512_and_si512(v, _mm512_set1_epi32((int)0xffff0000u)) : _mm512_slli_epi32(v, 16));
}

/* Elements i.. of a row as floats (type: BB_FL_*). */
static inline __attribute__((always_inline)) bb_flv bb_flv_load(const uint8_t *p, int i, int part, int type)
{
    switch (type) {
    case BB_FL_F32: return _mm512_loadu_ps((const float *)p + i);
    case BB_FL_F16: return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const uint16_t *)p + i)));
    default: return bb_flv_from_pairs(_mm512_loadu_si512((const uint16_t *)p + i), part, type);
    }
}

/* The same for the last cnt (< one step) elements of a row; the missing lanes read as zero. */
static inline __attribute__((always_inline)) bb_flv bb_flv_load_tail(const uint8_t *p, int i, int cnt, int part, int type)
{
    switch (type) {
    case BB_FL_F32: return _mm512_maskz_loadu_ps((__mmask16)((1u << cnt) - 1), (const float *)p + i);
    case BB_FL_F16:
        return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16((__mmask16)((1u << cnt) - 1), (const uint16_t *)p + i));
    default:
        return bb_flv_from_pairs(_mm512_maskz_loadu_epi16((__mmask32)((1ull << cnt) - 1), (const uint16_t *)p + i),
                                 part, type);
    }
}

/* acc + w * x: one FMA, or vdpbf16ps for BB_FL_BF16DP. */
static inline __attribute__((always_inline)) bb_flv bb_flv_madd(bb_flv w, bb_flv x, bb_flv acc, int mode)
{
#if defined(__AVX512BF16__)
    /* vdpbf16ps: acc += w[2j+1]*x[2j+1] then += w[2j]*x[2j] per lane, denormals as zero. */
    if (mode == BB_FL_BF16DP)
        return _mm512_dpbf16_ps(acc, (__m512bh)_mm512_castps_si512(w), (__m512bh)_mm512_castps_si512(x));
#endif
    (void)mode;
    return _mm512_fmadd_ps(w, x, acc);
}

static inline __attribute__((always_inline)) float bb_flv_reduce(bb_flv v) { return _mm512_reduce_add_ps(v); }
static inline __attribute__((always_inline)) bb_flv bb_flv_park_load(const float *p) { return _mm512_load_ps(p); }
static inline __attribute__((always_inline)) void bb_flv_park_store(float *p, bb_flv v) { _mm512_store_ps(p, v); }

#elif defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)

typedef __m256 bb_flv;
enum { BB_FLV_LANES = 8 };

static inline __attribute__((always_inline)) bb_flv bb_flv_zero(void) { return _mm256_setzero_ps(); }

/* Elements i.. of a row as floats (type: BB_FL_*; part 0/1 = even/odd elements of bfloat16 pairs). */
static inline __attribute__((always_inline)) bb_flv bb_flv_load(const uint8_t *p, int i, int part, int type)
{
    switch (type) {
    case BB_FL_F32: return _mm256_loadu_ps((const float *)p + i);
    case BB_FL_F16: return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)p + i)));
    default: {
        __m256i v = _mm256_loadu_si256((const __m256i *)((const uint16_t *)p + i));
        return _mm256_castsi256_ps(part ? _mm256_and_si256(v, _mm256_set1_epi32((int)0xffff0000u))
                                        : _mm256_slli_epi32(v, 16));
    }
    }
}

/* The same for the last cnt (< one step) elements of a row; the missing lanes read as zero. */
static inline __attribute__((always_inline)) bb_flv bb_flv_load_tail(const uint8_t *p, int i, int cnt, int part, int type)
{
    if (type == BB_FL_F32) {
        __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        return _mm256_maskload_ps((const float *)p + i, _mm256_cmpgt_epi32(_mm256_set1_epi32(cnt), idx));
    }
    _Alignas(32) uint16_t buf[16] = {0};
    memcpy(buf, (const uint16_t *)p + i, (size_t)cnt * 2);
    return bb_flv_load((const uint8_t *)buf, 0, part, type);
}

static inline __attribute__((always_inline)) bb_flv bb_flv_madd(bb_flv w, bb_flv x, bb_flv acc, int mode)
{
    (void)mode;
    return _mm256_fmadd_ps(w, x, acc);
}

static inline __attribute__((always_inline)) float bb_flv_reduce(bb_flv v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static inline __attribute__((always_inline)) bb_flv bb_flv_park_load(const float *p) { return _mm256_load_ps(p); }
static inline __attribute__((always_inline)) void bb_flv_park_store(float *p, bb_flv v) { _mm256_store_ps(p, v); }

#elif defined(__aarch64__)

typedef float32x4_t bb_flv;
enum { BB_FLV_LANES = 4 };

static inline __attribute__((always_inline)) bb_flv bb_flv_zero(void) { return vdupq_n_f32(0.0f); }

/* Elements i.. of a row as floats (type: BB_FL_*; part 0/1 = even/odd elements of bfloat16 pairs).
 * binary16 widens with FCVTL, part of every aarch64 core (arithmetic on halves needs FEAT_FP16,
 * conversion does not). */
static inline __attribute__((always_inline)) bb_flv bb_flv_load(const uint8_t *p, int i, int part, int type)
{
    switch (type) {
    case BB_FL_F32: return vld1q_f32((const float *)p + i);
    case BB_FL_F16: return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)p + i)));
    case BB_FL_BF16DP: return vreinterpretq_f32_u16(vld1q_u16((const uint16_t *)p + i)); /* pairs kept for BFDOT */
    default: {
        uint32x4_t v = vreinterpretq_u32_u16(vld1q_u16((const uint16_t *)p + i));
        return vreinterpretq_f32_u32(part ? vandq_u32(v, vdupq_n_u32(0xffff0000u)) : vshlq_n_u32(v, 16));
    }
    }
}

/* The same for the last cnt (< one step) elements of a row; the missing lanes read as zero. */
static inline __attribute__((always_inline)) bb_flv bb_flv_load_tail(const uint8_t *p, int i, int cnt, int part, int type)
{
    _Alignas(16) uint8_t buf[16] = {0};
    memcpy(buf, p + (size_t)i * (type == BB_FL_F32 ? 4 : 2), (size_t)cnt * (type == BB_FL_F32 ? 4 : 2));
    return bb_flv_load(buf, 0, part, type);
}

/* One fused multiply-add (FMLA), as the x86 variants' FMA; or, for BB_FL_BF16DP in a file built
 * with +bf16, one BFDOT: each float lane gets w[2j]*x[2j] + w[2j+1]*x[2j+1] added (FEAT_BF16's
 * BFDotAdd: the pair's sum, then the accumulation, each rounded to odd with denormals flushed;
 * an error of at most one float ulp per pair, within the float_accumulation bound). */
static inline __attribute__((always_inline)) bb_flv bb_flv_madd(bb_flv w, bb_flv x, bb_flv acc, int mode)
{
#if defined(__ARM_FEATURE_BF16_VECTOR_ARITHMETIC)
    if (mode == BB_FL_BF16DP) return vbfdotq_f32(acc, vreinterpretq_bf16_f32(w), vreinterpretq_bf16_f32(x));
#endif
    (void)mode;
    return vfmaq_f32(acc, w, x);
}

/* FADDP twice: (l0 + l1) + (l2 + l3), a fixed order. */
static inline __attribute__((always_inline)) float bb_flv_reduce(bb_flv v) { return vaddvq_f32(v); }
static inline __attribute__((always_inline)) bb_flv bb_flv_park_load(const float *p) { return vld1q_f32(p); }
static inline __attribute__((always_inline)) void bb_flv_park_store(float *p, bb_flv v) { vst1q_f32(p, v); }

#else
#error "float_tile.h: compile this file with AVX2 + FMA + F16C, with AVX-512 F/BW/VL, or for aarch64"
#endif

/* On aarch64 every row, column and part loop is unrolled by pragma: GCC 12 (-O3) left one of them
 * rolled there, which indexes acc at run time and keeps every accumulator in memory, a store per
 * accumulator in the main loop.  x86 builds unroll them by themselves (and schedule their loads
 * differently under the pragma), so it is aarch64's only. */
#if defined(__aarch64__)
#define BB_FL_UNROLL _Pragma("GCC unroll 8")
#else
#define BB_FL_UNROLL
#endif
static inline __attribute__((always_inline)) void bb_fl_tile_sum(bb_fl_tile *t, const int NR, const int NC,
                                                                 const int MODE)
{
    /* bfloat16 modes consume pairs: one 32-bit lane holds two elements */
    const int pairs = MODE == BB_FL_BF16 || MODE == BB_FL_BF16DP;
    const int step = BB_FLV_LANES * (pairs ? 2 : 1);
    const int parts = MODE == BB_FL_BF16 ? 2 : 1;
    const int xtype = MODE == BB_FL_F16 ? BB_FL_F32 : MODE; /* f16 activations are prepared as float */
    bb_flv acc[BB_FL_RMAX][BB_FL_CMAX];
    BB_FL_UNROLL
    for (int r = 0; r < NR; r++)
        for (int c = 0; c < NC; c++)
            acc[r][c] = t->first ? bb_flv_zero() : bb_flv_park_load(t->park + (r * NC + c) * BB_FL_LANES);
    int i = t->i0;
    for (; i + step <= t->i1; i += step)
        BB_FL_UNROLL
        for (int p = 0; p < parts; p++) {
            bb_flv xv[BB_FL_CMAX];
            BB_FL_UNROLL
            for (int c = 0; c < NC; c++) xv[c] = bb_flv_load(t->x[c], i, p, xtype);
            BB_FL_UNROLL
            for (int r = 0; r < NR; r++) {
                /* GEMV: weights stream from memory once; each 64-byte line is prefetched twice,
                 * into L2 one tile ahead and into L1 a short way ahead in its row (see "GEMV
                 * weight-row prefetch" in float_common.h) */
                if (NC == 1 && p == 0 && (size_t)i * bb_fl_wsize(MODE) % 64 == 0) {
                    size_t at = (size_t)i * bb_fl_wsize(MODE), near = at + BB_PREFETCH_L1_BYTES / NR;
                    if (near >= t->wrow) near += (size_t)(NR - 1) * t->wrow;
                    __builtin_prefetch((const char *)t->w[r] + near, 0, 3);
                    __builtin_prefetch((const char *)t->w[r] + at + (size_t)NR * t->wrow, 0, 2);
                }
                bb_flv wv = bb_flv_load(t->w[r], i, p, MODE);
                BB_FL_UNROLL
                for (int c = 0; c < NC; c++) acc[r][c] = bb_flv_madd(wv, xv[c], acc[r][c], MODE);
            }
        }
    if (t->i1 < t->k) { /* K-block boundary: park the sums for the next block */
        BB_FL_UNROLL
        for (int r = 0; r < NR; r++)
            for (int c = 0; c < NC; c++) bb_flv_park_store(t->park + (r * NC + c) * BB_FL_LANES, acc[r][c]);
        return;
    }
    if (i < t->k) {
        int cnt = t->k - i;
        BB_FL_UNROLL
        for (int p = 0; p < parts; p++) {
            bb_flv xv[BB_FL_CMAX];
            BB_FL_UNROLL
            for (int c = 0; c < NC; c++) xv[c] = bb_flv_load_tail(t->x[c], i, cnt, p, xtype);
            BB_FL_UNROLL
            for (int r = 0; r < NR; r++) {
                bb_flv wv = bb_flv_load_tail(t->w[r], i, cnt, p, MODE);
                BB_FL_UNROLL
                for (int c = 0; c < NC; c++) acc[r][c] = bb_flv_madd(wv, xv[c], acc[r][c], MODE);
            }
        }
    }
    BB_FL_UNROLL
    for (int r = 0; r < NR; r++)
        for (int c = 0; c < NC; c++) t->out[r * BB_FL_CMAX + c] = bb_flv_reduce(acc[r][c]);
}

#endif
