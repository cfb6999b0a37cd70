/* IEEE binary16 and bfloat16 conversions, scalar and exact (round to nearest even), so that
 * every kernel and the GGUF block formats agree on the same bits whatever the ISA. */
#ifndef BB_FP16_H
#define BB_FP16_H

#include <stdint.h>
#include <string.h>

static inline uint32_t bb_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float bb_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float bb_fp16_to_fp32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) /* inf / nan */
        return bb_bits_f32(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        if (man == 0) return bb_bits_f32(sign);
        /* subnormal: man * 2^-24 is exact in float */
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return bb_bits_f32(sign | ((exp + 112) << 23) | (man << 13));
}

static inline uint16_t bb_fp32_to_fp16(float f)
{
    uint32_t x = bb_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf or nan */
        return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
    if (ax >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return (uint16_t)(sign | 0x7c00);
    if (ax < 0x38800000u) { /* below 2^-14: subnormal half (or zero) */
        /* ax as float times 2^24, rounded to nearest even, gives the subnormal mantissa */
        float v = bb_bits_f32(ax) * 16777216.0f; /* exact scaling */
        uint32_t m = (uint32_t)v;
        float rem = v - (float)m;
        if (rem > 0.5f || (rem == 0.5f && (m & 1))) m++;
        return (uint16_t)(sign | m);
    }
    uint32_t exp = (ax >> 23) - 112, man = ax & 0x7fffff;
    uint32_t h = (exp << 10) | (man >> 13);
    uint32_t rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

static inline float bb_bf16_to_fp32(uint16_t h) { return bb_bits_f32((uint32_t)h << 16); }

static inline uint16_t bb_fp32_to_bf16(float f)
{
    uint32_t x = bb_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40); /* quiet nan */
    x += 0x7fffu + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

#endif
