/* The plain read loops of memory.h.  Compiled without ISA flags (like harness/bench/roofline_simd.c):
 * on x86-64 each function carries its own target attribute and runs only where the CPU has it
 * (bb_read512_usable); on aarch64 NEON is always there and bb_read256 reads with it. */
#include <stdint.h>

#include "memory.h"

/* The loops store their xor here so that the loads are not removed. */
static volatile int read_sink;

#if defined(__x86_64__)
#include <immintrin.h>

bool bb_read512_usable(void) { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"); }

/* Four independent xor accumulators: the loads do not wait on each other, so the loop runs at
 * the load bandwidth of wherever p lives.  No software prefetch: 4 KiB-ahead prefetching
 * measured no faster here (6 GB/s from DRAM, one thread). */
__attribute__((target("avx512f"))) void bb_read512(const void *p, size_t bytes)
{
    const __m512i *v = p;
    __m512i x0 = _mm512_setzero_si512(), x1 = x0, x2 = x0, x3 = x0;
    for (size_t i = 0; i < bytes / 64; i += 4) {
        x0 = _mm512_xor_si512(x0, _mm512_load_si512(v + i));
        x1 = _mm512_xor_si512(x1, _mm512_load_si512(v + i + 1));
        x2 = _mm512_xor_si512(x2, _mm512_load_si512(v + i + 2));
        x3 = _mm512_xor_si512(x3, _mm512_load_si512(v + i + 3));
    }
    /* two lanes of the xor, not a sum: the bytes are arbitrary (packed weights) and a signed
     * 32-bit sum of them may overflow */
    __m512i x = _mm512_xor_si512(_mm512_xor_si512(x0, x1), _mm512_xor_si512(x2, x3));
    read_sink = _mm_cvtsi128_si32(_mm512_castsi512_si128(x)) ^ _mm_cvtsi128_si32(_mm512_extracti32x4_epi32(x, 3));
}

__attribute__((target("avx2"))) void bb_read256(const void *p, size_t bytes)
{
    const __m256i *v = p;
    __m256i x0 = _mm256_setzero_si256(), x1 = x0, x2 = x0, x3 = x0;
    for (size_t i = 0; i < bytes / 32; i += 4) {
        x0 = _mm256_xor_si256(x0, _mm256_load_si256(v + i));
        x1 = _mm256_xor_si256(x1, _mm256_load_si256(v + i + 1));
        x2 = _mm256_xor_si256(x2, _mm256_load_si256(v + i + 2));
        x3 = _mm256_xor_si256(x3, _mm256_load_si256(v + i + 3));
    }
    __m256i s = _mm256_xor_si256(_mm256_xor_si256(x0, x1), _mm256_xor_si256(x2, x3));
    read_sink = _mm256_extract_epi32(s, 0) ^ _mm256_extract_epi32(s, 7);
}

#elif defined(__aarch64__)
#include <arm_neon.h>

/* No 512-bit registers: callers take bb_read256. */
bool bb_read512_usable(void) { return false; }

void bb_read512(const void *p, size_t bytes) { bb_read256(p, bytes); }

/* 128-bit loads into eight independent xor accumulators, 128 bytes per step: the same bytes in
 * flight per iteration as the AVX2 loop's four 256-bit loads. */
void bb_read256(const void *p, size_t bytes)
{
    const uint8_t *v = p;
    uint8x16_t x[8];
    for (int a = 0; a < 8; a++) x[a] = vdupq_n_u8(0);
    for (size_t i = 0; i < bytes; i += 128)
        for (int a = 0; a < 8; a++) x[a] = veorq_u8(x[a], vld1q_u8(v + i + 16 * a));
    for (int a = 1; a < 8; a++) x[0] = veorq_u8(x[0], x[a]);
    uint32x4_t w = vreinterpretq_u32_u8(x[0]);
    read_sink = (int)(vgetq_lane_u32(w, 0) ^ vgetq_lane_u32(w, 3));
}

#else
#error "read_simd.c: read loops for x86-64 and aarch64 only"
#endif
