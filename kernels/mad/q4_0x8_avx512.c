/* q4_0x8, AVX-512 VNNI (layout and semantics: q4_0x8.h).  A record's 128 nibble bytes are two
 * 512-bit vectors of 8 rows × 8 bytes (bytes 0-7, then 8-15 of each row).  One vpternlogd per
 * nibble plane undoes the XOR 0x88 and masks; vpdpbusd multiplies the unsigned nibbles by an
 * 8-byte activation slice broadcast to every row (a[0..7], a[16..23] for bytes 0-7, a[8..15],
 * a[24..31] for bytes 8-15), so each int32 lane pair (2i, 2i+1) accumulates row i: four
 * vpdpbusd per block and activation row, no activation shuffles (seed 003 §4.1.1).  The lane
 * pairs start at the activation's {-8 * sum, 0} (qx_0.h aux o, one 64-bit broadcast load), which
 * removes the nibble bias.  Two blocks are done together: two vpermt2d + one add fold their lane
 * pairs into 16 lanes (block b rows 0-7, block b+1 rows 0-7) of exact int32 dots; ((float)isum *
 * d_w) * d_a is formed for both blocks and added to the 8 row lanes block b first, then block
 * b+1: the reference's exact order, so the result is bit-equal to it. */
#include <immintrin.h>
#include <string.h>

#include "q4_0x8.h"

#define NB_MAX 8

/* ternlog imm for (x & m) ^ c: x = 0xf0, m = 0xcc, c = 0xaa -> (0xf0 & 0xcc) ^ 0xaa */
#define AND_XOR 0x6a

BB_QX_INLINE __m512i bcast8(const int8_t *p)
{
    int64_t v;
    memcpy(&v, p, 8);
    return _mm512_set1_epi64(v);
}

/* Block b's int32 lane pairs for one activation row, started at the bias correction
 * o = {-8 * sum(a), 0} in every pair: lane 2i + lane 2i+1 = row i's exact dot. */
BB_QX_INLINE __m512i block_dot(const __m512i *lo, const __m512i *hi, const int8_t *q, const int32_t *o)
{
    __m512i s = _mm512_dpbusd_epi32(bcast8((const int8_t *)o), lo[0], bcast8(q));
    s = _mm512_dpbusd_epi32(s, hi[0], bcast8(q + 16));
    s = _mm512_dpbusd_epi32(s, lo[1], bcast8(q + 8));
    return _mm512_dpbusd_epi32(s, hi[1], bcast8(q + 24));
}

BB_QX_INLINE void decode(const uint8_t *rec, __m512i *lo, __m512i *hi)
{
    const __m512i m4 = _mm512_set1_epi8(15), eight = _mm512_set1_epi8(8);
    for (int v = 0; v < 2; v++) {
        __m512i x = _mm512_loadu_si512((const void *)(rec + 16 + 64 * v));
        lo[v] = _mm512_ternarylogic_epi32(x, m4, eight, AND_XOR);
        hi[v] = _mm512_ternarylogic_epi32(_mm512_srli_epi16(x, 4), m4, eight, AND_XOR);
    }
}

BB_QX_INLINE void group_tile(const void *w, const void *act, float *y, int m, int k, int n, int g, int c0, int nb)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const bb_block_q8_0 *a[NB_MAX];
    bb_qx_aux aux[NB_MAX];
    __m256 acc[NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
        acc[c] = _mm256_setzero_ps();
    }
    int nblk = k / BB_QK, b = 0;
    for (; b + 2 <= nblk; b += 2) {
        const uint8_t *rec = bb_q4_0x8_record(w, k, g, b);
        for (int l = 0; l < 2 * BB_Q4_0X8_BYTES; l += 64) bb_qx_prefetch(rec + l);
        __m256i d16 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)rec)),
                                              _mm_loadu_si128((const __m128i *)(rec + BB_Q4_0X8_BYTES)), 1);
        __m512 dw = _mm512_cvtph_ps(d16);
        __m512i lo0[2], hi0[2], lo1[2], hi1[2];
        decode(rec, lo0, hi0);
        decode(rec + BB_Q4_0X8_BYTES, lo1, hi1);
        for (int c = 0; c < nb; c++) {
            __m512i p0 = block_dot(lo0, hi0, a[c][b].qs, aux[c].o + 2 * b);
            __m512i p1 = block_dot(lo1, hi1, a[c][b + 1].qs, aux[c].o + 2 * b + 2);
            __m512i isum = _mm512_add_epi32(_mm512_permutex2var_epi32(p0, even, p1),
                                            _mm512_permutex2var_epi32(p0, odd, p1));
            __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(isum), dw);
            __m256 f0 = _mm256_mul_ps(_mm512_castps512_ps256(f), _mm256_set1_ps(aux[c].d[b]));
            __m256 f1 = _mm256_mul_ps(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1)),
                                      _mm256_set1_ps(aux[c].d[b + 1]));
            acc[c] = _mm256_add_ps(_mm256_add_ps(acc[c], f0), f1);
        }
    }
    if (b < nblk) { /* odd block count: the last block alone, in lanes 0-7 */
        const uint8_t *rec = bb_q4_0x8_record(w, k, g, b);
        __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)rec));
        __m512i lo0[2], hi0[2];
        decode(rec, lo0, hi0);
        for (int c = 0; c < nb; c++) {
            __m512i p0 = block_dot(lo0, hi0, a[c][b].qs, aux[c].o + 2 * b);
            __m512i isum = _mm512_add_epi32(_mm512_permutexvar_epi32(even, p0), _mm512_permutexvar_epi32(odd, p0));
            __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm512_castsi512_si256(isum)), dw);
            __m256 p = _mm256_mul_ps(f, _mm256_set1_ps(aux[c].d[b]));
            acc[c] = _mm256_add_ps(acc[c], p);
        }
    }
    for (int c = 0; c < nb; c++) _mm256_storeu_ps(y + (size_t)(c0 + c) * m + (size_t)g * BB_Q4_0X8_ROWS, acc[c]);
}

void bb_q4_0x8_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    /* all activation tiles per row group: the group's records (K/32 * 144 bytes) stay in cache */
    for (int g = m0 / BB_Q4_0X8_ROWS; g < m1 / BB_Q4_0X8_ROWS; g++)
        for (int c0 = 0; c0 < n; c0 += NB_MAX) {
            switch (n - c0 < NB_MAX ? n - c0 : NB_MAX) {
            case 1: group_tile(w, act, y, m, k, n, g, c0, 1); break;
            case 2: group_tile(w, act, y, m, k, n, g, c0, 2); break;
            case 3: group_tile(w, act, y, m, k, n, g, c0, 3); break;
            case 4: group_tile(w, act, y, m, k, n, g, c0, 4); break;
            case 5: group_tile(w, act, y, m, k, n, g, c0, 5); break;
            case 6: group_tile(w, act, y, m, k, n, g, c0, 6); break;
            case 7: group_tile(w, act, y, m, k, n, g, c0, 7); break;
            default: group_tile(w, act, y, m, k, n, g, c0, 8); break;
            }
        }
}
