/* vpdpbusd with its activations as an embedded-broadcast memory operand (include only from
 * *_avx512.c).  The interleaved layouts (q2_k_x16, tq1_0_x16, tq2_0_x16: one 32-bit lane per
 * output row) multiply every lane's 4 code bytes by the same 4 activations.  GCC 12 compiles
 * _mm512_dpbusd_epi32 of _mm512_set1_epi32(load) as a vpbroadcastd beside the vpdpbusd; the
 * form `vpdpbusd (mem){1to16}` is one instruction, and from DRAM fewer instructions per line
 * stream better (docs/measurements/2026-11-29-tq2_0_x16.md; i2_s_avx512.c writes its full-width
 * memory operand the same way). */
#ifndef BB_DPBUSD_BCAST_H
#define BB_DPBUSD_BCAST_H

#include <immintrin.h>
#include <stdint.h>

/* acc + codes (u8) . the 4 activations at act (s8), the same 4 in every 32-bit lane. */
static inline __m512i bb_dpbusd_bcast4(__m512i acc, __m512i codes, const int8_t *act)
{
    __asm__("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(codes), "m"(*(const int32_t *)(const void *)act));
    return acc;
}

#endif
