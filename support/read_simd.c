/* The plain read loops of memory.h.  Compiled without ISA flags (like harness/bench/roofline_simd.c):
 * on x86-64 each function carries its own target attribute and runs only where the CPU has it
 * (bb_read512_usable); on aarch64 NEON is always there and bb_read256 reads with it. */
#include <stdint.h>

#include "memory.h"

/* The loops also store their xor here, so that the loads stay when a caller ignores it. */
static volatile int read_sink;

#if defined(__x86_64__)
#include <immintrin.h>

bool bb_read512_usable(void) { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"); }

/* Four independent xor accumulators: the loads do not wait on each other, so the loop runs at
 * the load bandwidth of wherever p lives.  No software prefetch: 4 KiB-ahead prefetching
 * measured no faster here (6 GB/s from DRAM, one thread).  With streams > 1 the bytes are
 * `streams` equal parts read in lockstep, 256 bytes of each in turn (what a GEMV over several
 * rows at once does), and the units left over after the parts are read at the end. */
__attribute__((target("avx512f"))) uint64_t bb_read512(const void *p, size_t bytes, int streams)
{
    const uint8_t *b = p;
    /* per: units in each part, 0 unless streams > 1 (then the tail loop reads everything) */
    size_t units = bytes / 256, per = streams > 1 ? units / (size_t)streams : 0;
    __m512i x0 = _mm512_setzero_si512(), x1 = x0, x2 = x0, x3 = x0;
    for (size_t u = 0; u < per; u++)
        for (int s = 0; s < streams; s++) {
            const __m512i *v = (const __m512i *)(b + ((size_t)s * per + u) * 256);
            x0 = _mm512_xor_si512(x0, _mm512_load_si512(v));
            x1 = _mm512_xor_si512(x1, _mm512_load_si512(v + 1));
            x2 = _mm512_xor_si512(x2, _mm512_load_si512(v + 2));
            x3 = _mm512_xor_si512(x3, _mm512_load_si512(v + 3));
        }
    const __m512i *v = (const __m512i *)b;
    for (size_t i = per * (size_t)streams * 4; i < units * 4; i += 4) {
        x0 = _mm512_xor_si512(x0, _mm512_load_si512(v + i));
        x1 = _mm512_xor_si512(x1, _mm512_load_si512(v + i + 1));
        x2 = _mm512_xor_si512(x2, _mm512_load_si512(v + i + 2));
        x3 = _mm512_xor_si512(x3, _mm512_load_si512(v + i + 3));
    }
    /* the xor of the 64-bit words, not a sum: the bytes are arbitrary (packed weights) and a
     * sum of them may overflow */
    __m512i x = _mm512_xor_si512(_mm512_xor_si512(x0, x1), _mm512_xor_si512(x2, x3));
    uint64_t w[8], r = 0;
    _mm512_storeu_si512(w, x);
    for (int i = 0; i < 8; i++) r ^= w[i];
    read_sink = (int)r;
    return r;
}

__attribute__((target("avx2"))) uint64_t bb_read256(const void *p, size_t bytes, int streams)
{
    const uint8_t *b = p;
    size_t units = bytes / 256, per = streams > 1 ? units / (size_t)streams : 0;
    __m256i x0 = _mm256_setzero_si256(), x1 = x0, x2 = x0, x3 = x0;
    for (size_t u = 0; u < per; u++)
        for (int s = 0; s < streams; s++) {
            const __m256i *v = (const __m256i *)(b + ((size_t)s * per + u) * 256);
            for (int h = 0; h < 8; h += 4) {
                x0 = _mm256_xor_si256(x0, _mm256_load_si256(v + h));
                x1 = _mm256_xor_si256(x1, _mm256_load_si256(v + h + 1));
                x2 = _mm256_xor_si256(x2, _mm256_load_si256(v + h + 2));
                x3 = _mm256_xor_si256(x3, _mm256_load_si256(v + h + 3));
            }
        }
    const __m256i *v = (const __m256i *)b;
    for (size_t i = per * (size_t)streams * 8; i < units * 8; i += 4) {
        x0 = _mm256_xor_si256(x0, _mm256_load_si256(v + i));
        x1 = _mm256_xor_si256(x1, _mm256_load_si256(v + i + 1));
        x2 = _mm256_xor_si256(x2, _mm256_load_si256(v + i + 2));
        x3 = _mm256_xor_si256(x3, _mm256_load_si256(v + i + 3));
    }
    __m256i x = _mm256_xor_si256(_mm256_xor_si256(x0, x1), _mm256_xor_si256(x2, x3));
    uint64_t w[4], r = 0;
    _mm256_storeu_si256((__m256i *)w, x);
    for (int i = 0; i < 4; i++) r ^= w[i];
    read_sink = (int)r;
    return r;
}

#elif defined(__aarch64__)
#include <arm_neon.h>

/* No 512-bit registers: callers take bb_read256. */
bool bb_read512_usable(void) { return false; }

uint64_t bb_read512(const void *p, size_t bytes, int streams) { return bb_read256(p, bytes, streams); }

/* 128-bit loads into eight independent xor accumulators, 128 bytes per step: the same bytes in
 * flight per iteration as the AVX2 loop's four 256-bit loads.  Streams as on x86-64. */
static inline void read128(const uint8_t *v, uint8x16_t x[8])
{
    for (int a = 0; a < 8; a++) x[a] = veorq_u8(x[a], vld1q_u8(v + 16 * a));
}

uint64_t bb_read256(const void *p, size_t bytes, int streams)
{
    const uint8_t *b = p;
    size_t units = bytes / 256, per = streams > 1 ? units / (size_t)streams : 0;
    uint8x16_t x[8];
    for (int a = 0; a < 8; a++) x[a] = vdupq_n_u8(0);
    for (size_t u = 0; u < per; u++)
        for (int s = 0; s < streams; s++) {
            const uint8_t *v = b + ((size_t)s * per + u) * 256;
            read128(v, x);
            read128(v + 128, x);
        }
    for (size_t i = per * (size_t)streams * 256; i < units * 256; i += 128) read128(b + i, x);
    for (int a = 1; a < 8; a++) x[0] = veorq_u8(x[0], x[a]);
    uint64x2_t w = vreinterpretq_u64_u8(x[0]);
    uint64_t r = vgetq_lane_u64(w, 0) ^ vgetq_lane_u64(w, 1);
    read_sink = (int)r;
    return r;
}

#else
#error "read_simd.c: read loops for x86-64 and aarch64 only"
#endif
