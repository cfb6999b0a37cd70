/* Microbenchmarks of the instructions the kernels live on, for `bitbench roofline`: each runs
 * 12 independent dependency chains of one instruction (enough to cover its latency times its
 * throughput on current cores: latency 5 x 2 per cycle = 10 in flight at most), so the loop runs
 * at the instruction's issue throughput.  The files are compiled without ISA flags (harness/),
 * so each function carries its own target attribute and is only called when the CPU has it
 * (roofline.c checks).  Each returns the number of instructions of the measured kind executed and
 * stores the accumulators to a sink so nothing is removed.  x86-64 measures AVX-512 instructions
 * (512-bit), aarch64 the 128-bit NEON ones its kernels use: FMLA (f32 and, with FEAT_FP16, f16),
 * SDOT (FEAT_DotProd), SMMLA (FEAT_I8MM), TBL (every core) and BFDOT (FEAT_BF16). */
#include <stdint.h>

#include "bench/roofline.h"

volatile int bb_roof_sink;

#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

#if defined(__x86_64__)
#include <immintrin.h>

/* An empty asm that "may change" each accumulator: the chains start equal, and without it the
 * compiler proves them identical and folds the whole loop away. */
#define OPAQUE(n) __asm__ volatile("" : "+v"(a##n));

#define DEF_ZMM_INT(fname, tgt, expr)                                                                     \
    __attribute__((target(tgt))) long fname(long iters)                                                   \
    {                                                                                                        \
        __m512i b = _mm512_set1_epi8((char)(bb_roof_sink + 3)), c = _mm512_set1_epi8((char)(bb_roof_sink + 1)); \
        __m512i a0 = b, a1 = c, a2 = b, a3 = c, a4 = b, a5 = c, a6 = b, a7 = c, a8 = b, a9 = c, a10 = b, a11 = c; \
        for (long i = 0; i < iters; i++) {                                                                   \
            CHAINS(expr) CHAINS(OPAQUE)                                                                      \
        }                                                                                                    \
        __m512i s = _mm512_xor_si512(_mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3)),  \
                                     _mm512_xor_si512(_mm512_xor_si512(a4, a5), _mm512_xor_si512(a6, a7)));  \
        s = _mm512_xor_si512(s, _mm512_xor_si512(_mm512_xor_si512(a8, a9), _mm512_xor_si512(a10, a11)));     \
        bb_roof_sink = _mm512_reduce_add_epi32(s);                                                           \
        return iters * 12;                                                                                   \
    }

#define VPDPBUSD(n) a##n = _mm512_dpbusd_epi32(a##n, b, c);
#define VPMADDUBSW(n) a##n = _mm512_maddubs_epi16(a##n, b);
#define VPSHUFB(n) a##n = _mm512_shuffle_epi8(b, a##n);
#define VPERMB(n) a##n = _mm512_permutexvar_epi8(a##n, b);

DEF_ZMM_INT(bb_roof_vpdpbusd, "avx512f,avx512bw,avx512vnni", VPDPBUSD)
DEF_ZMM_INT(bb_roof_vpmaddubsw, "avx512f,avx512bw", VPMADDUBSW)
DEF_ZMM_INT(bb_roof_vpshufb, "avx512f,avx512bw", VPSHUFB)
DEF_ZMM_INT(bb_roof_vpermb, "avx512f,avx512bw,avx512vbmi", VPERMB)

__attribute__((target("avx512f"))) long bb_roof_fma(long iters)
{
    __m512 b = _mm512_set1_ps(0.999f + (float)bb_roof_sink), c = _mm512_set1_ps(1e-7f);
    __m512 a0 = b, a1 = c, a2 = b, a3 = c, a4 = b, a5 = c, a6 = b, a7 = c, a8 = b, a9 = c, a10 = b, a11 = c;
#define FMA(n) a##n = _mm512_fmadd_ps(a##n, b, c);
    for (long i = 0; i < iters; i++) {
        CHAINS(FMA) CHAINS(OPAQUE)
    }
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
    bb_roof_sink = (int)_mm512_reduce_add_ps(s);
    return iters * 12;
}

__attribute__((target("avx512f,avx512bw,avx512bf16"))) long bb_roof_bf16dot(long iters)
{
    __m512bh b = (__m512bh)_mm512_set1_epi16((short)(0x3f80 + (bb_roof_sink & 1)));
    __m512bh c = (__m512bh)_mm512_set1_epi16((short)0x3380);
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0,
           a9 = a0, a10 = a0, a11 = a0;
#define BF16(n) a##n = _mm512_dpbf16_ps(a##n, b, c);
    for (long i = 0; i < iters; i++) {
        CHAINS(BF16) CHAINS(OPAQUE)
    }
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
    bb_roof_sink = (int)_mm512_reduce_add_ps(s);
    return iters * 12;
}

#endif /* __x86_64__ */

#if defined(__aarch64__)
#include <arm_neon.h>

/* As on x86: the chains start from two values, and an empty asm that "may change" each keeps
 * the compiler from folding them ("w": a SIMD register). */
#define OPAQUE_W(n) __asm__ volatile("" : "+w"(a##n));

/* The twelve int32x4 accumulators folded into the sink. */
static void sink_s32(int32x4_t a0, int32x4_t a1, int32x4_t a2, int32x4_t a3, int32x4_t a4, int32x4_t a5,
                     int32x4_t a6, int32x4_t a7, int32x4_t a8, int32x4_t a9, int32x4_t a10, int32x4_t a11)
{
    int32x4_t s = veorq_s32(veorq_s32(veorq_s32(a0, a1), veorq_s32(a2, a3)), veorq_s32(veorq_s32(a4, a5), a6));
    s = veorq_s32(s, veorq_s32(veorq_s32(veorq_s32(a7, a8), veorq_s32(a9, a10)), a11));
    bb_roof_sink = vaddvq_s32(s);
}

static void sink_f32(float32x4_t a0, float32x4_t a1, float32x4_t a2, float32x4_t a3, float32x4_t a4,
                     float32x4_t a5, float32x4_t a6, float32x4_t a7, float32x4_t a8, float32x4_t a9,
                     float32x4_t a10, float32x4_t a11)
{
    float32x4_t s = vaddq_f32(vaddq_f32(vaddq_f32(a0, a1), vaddq_f32(a2, a3)), vaddq_f32(vaddq_f32(a4, a5), a6));
    s = vaddq_f32(s, vaddq_f32(vaddq_f32(vaddq_f32(a7, a8), vaddq_f32(a9, a10)), a11));
    bb_roof_sink = (int)vaddvq_f32(s);
}

long bb_roof_fmla_f32(long iters)
{
    float32x4_t b = vdupq_n_f32(0.999f + (float)bb_roof_sink), c = vdupq_n_f32(1e-7f);
    float32x4_t a0 = b, a1 = c, a2 = b, a3 = c, a4 = b, a5 = c, a6 = b, a7 = c, a8 = b, a9 = c, a10 = b, a11 = c;
#define FMLA(n) a##n = vfmaq_f32(c, a##n, b);
    for (long i = 0; i < iters; i++) {
        CHAINS(FMLA) CHAINS(OPAQUE_W)
    }
    sink_f32(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
    return iters * 12;
}

__attribute__((target("arch=armv8.2-a+fp16"))) long bb_roof_fmla_f16(long iters)
{
    float16x8_t b = vdupq_n_f16((float16_t)(0.999f + (float)bb_roof_sink)), c = vdupq_n_f16((float16_t)1e-3f);
    float16x8_t a0 = b, a1 = c, a2 = b, a3 = c, a4 = b, a5 = c, a6 = b, a7 = c, a8 = b, a9 = c, a10 = b, a11 = c;
#define FMLA16(n) a##n = vfmaq_f16(c, a##n, b);
    for (long i = 0; i < iters; i++) {
        CHAINS(FMLA16) CHAINS(OPAQUE_W)
    }
    sink_f32(vcvt_f32_f16(vget_low_f16(a0)), vcvt_f32_f16(vget_low_f16(a1)), vcvt_f32_f16(vget_low_f16(a2)),
             vcvt_f32_f16(vget_low_f16(a3)), vcvt_f32_f16(vget_low_f16(a4)), vcvt_f32_f16(vget_low_f16(a5)),
             vcvt_f32_f16(vget_low_f16(a6)), vcvt_f32_f16(vget_low_f16(a7)), vcvt_f32_f16(vget_low_f16(a8)),
             vcvt_f32_f16(vget_low_f16(a9)), vcvt_f32_f16(vget_low_f16(a10)), vcvt_f32_f16(vget_low_f16(a11)));
    return iters * 12;
}

/* Integer chains: a = OP(a, b, c) on int32x4 accumulators with int8x16 operands. */
#define DEF_Q_INT(fname, tgt, expr)                                                                         \
    __attribute__((target(tgt))) long fname(long iters)                                                    \
    {                                                                                                        \
        int8x16_t b = vdupq_n_s8((int8_t)(bb_roof_sink + 3)), c = vdupq_n_s8((int8_t)(bb_roof_sink + 1));    \
        int32x4_t a0 = vreinterpretq_s32_s8(b), a1 = vreinterpretq_s32_s8(c), a2 = a0, a3 = a1, a4 = a0,     \
                  a5 = a1, a6 = a0, a7 = a1, a8 = a0, a9 = a1, a10 = a0, a11 = a1;                          \
        for (long i = 0; i < iters; i++) {                                                                   \
            CHAINS(expr) CHAINS(OPAQUE_W)                                                                    \
        }                                                                                                    \
        sink_s32(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);                                          \
        return iters * 12;                                                                                   \
    }

#define SDOT(n) a##n = vdotq_s32(a##n, b, c);
#define SMMLA(n) a##n = vmmlaq_s32(a##n, b, c);
/* TBL: the accumulator is the index vector, b the 16-byte table (what the LUT kernels look up) */
#define TBL(n) a##n = vreinterpretq_s32_u8(vqtbl1q_u8(vreinterpretq_u8_s8(b), vreinterpretq_u8_s32(a##n)));

DEF_Q_INT(bb_roof_sdot, "arch=armv8.2-a+dotprod", SDOT)
DEF_Q_INT(bb_roof_smmla, "arch=armv8.2-a+dotprod+i8mm", SMMLA)
DEF_Q_INT(bb_roof_tbl, "arch=armv8-a", TBL)

__attribute__((target("arch=armv8.2-a+bf16"))) long bb_roof_bfdot(long iters)
{
    bfloat16x8_t b = vreinterpretq_bf16_u16(vdupq_n_u16((uint16_t)(0x3f80 + (bb_roof_sink & 1))));
    bfloat16x8_t c = vreinterpretq_bf16_u16(vdupq_n_u16(0x3380));
    float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0,
                a9 = a0, a10 = a0, a11 = a0;
#define BFDOT(n) a##n = vbfdotq_f32(a##n, b, c);
    for (long i = 0; i < iters; i++) {
        CHAINS(BFDOT) CHAINS(OPAQUE_W)
    }
    sink_f32(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
    return iters * 12;
}

#endif /* __aarch64__ */

/* A chain of dependent 64-bit register-register adds: one per cycle at the core's clock,
 * whatever the TSC says.  Register operands, not immediates: recent Intel cores (Golden Cove and
 * later) fold chains of add-immediate at rename, which measured 11 GHz here. */
long bb_roof_add_chain(long iters)
{
    long x = bb_roof_sink, one = 1 + (bb_roof_sink & 0);
    __asm__ volatile("" : "+r"(one));
    for (long i = 0; i < iters; i++)
#if defined(__x86_64__)
        __asm__ volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
                         "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
                         : "+r"(x)
                         : "r"(one));
#elif defined(__aarch64__)
        __asm__ volatile("add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
                         "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1"
                         : "+r"(x)
                         : "r"(one));
#else
#error "roofline_simd.c: the add chain is written for x86-64 and aarch64"
#endif
    bb_roof_sink = (int)x;
    return iters * 8;
}
