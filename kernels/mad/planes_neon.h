/* The four 2-bit planes of 16 code bytes with NEON, shared by the Arm variants of the 2-bit
 * kernels (include only from *_neon.c / *_dotprod.c): c[l] = bits 2l..2l+1 of each byte as int8
 * 0..3, by USHR and AND (the top plane needs no AND).  tq2_0 and q2_k keep plane l in bits
 * 2l..2l+1 (ggml's order); i2_s keeps its plane s in bits 6-2s..7-2s, which is c[3 - s]. */
#ifndef BB_PLANES_NEON_H
#define BB_PLANES_NEON_H

#include <arm_neon.h>

static inline __attribute__((always_inline)) void bb_planes_neon(uint8x16_t v, int8x16_t c[4])
{
    const uint8x16_t three = vdupq_n_u8(3);
    c[0] = vreinterpretq_s8_u8(vandq_u8(v, three));
    c[1] = vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(v, 2), three));
    c[2] = vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(v, 4), three));
    c[3] = vreinterpretq_s8_u8(vshrq_n_u8(v, 6));
}

#endif
