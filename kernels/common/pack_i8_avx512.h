/* Four vectors of 16 int32 (each within +-127) to 64 int8 in order, for one 64-byte store
 * (include only from *_avx512.c).  Two saturating packs (a no-op within +-127) work per 128-bit
 * lane, leaving lane i holding elements 4i..4i+3 of each of the four vectors; one vpermd puts
 * each vector's 16 bytes together.  Shared by the int8 activation rows (i8_rows_avx512.c) and
 * elut's _0 tables (elut_avx512.c). */
#ifndef BB_PACK_I8_AVX512_H
#define BB_PACK_I8_AVX512_H

#include <immintrin.h>

static inline __m512i bb_pack_i8x64(__m512i v0, __m512i v1, __m512i v2, __m512i v3)
{
    const __m512i in_order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm512_permutexvar_epi32(in_order, _mm512_packs_epi16(_mm512_packs_epi32(v0, v1), _mm512_packs_epi32(v2, v3)));
}

#endif
