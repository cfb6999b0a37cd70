/* q4_0_4_4 and q4_0_4_8, AVX-512 VNNI (layouts and semantics: q4_0_4_4.h, q4_0_4_8.h).  A
 * record's 64 nibble bytes are one 512-bit vector.  q4_0_4_8's 8-byte chunks are first put in
 * q4_0_4_4's order by one vpermd per record (shared by all activation rows), so 128-bit lane l
 * holds bytes 4l..4l+3 of rows 0..3; one vpternlogd per plane then undoes the XOR 0x88 and masks,
 * giving the unsigned low nibbles (weights 4l.. of each row) and high nibbles (16+4l..).  One
 * vpermd of the activation block's 32 int8 per plane broadcasts the matching 4-byte slice across
 * each lane (the Arm kernels' SDOT by element, seed 003 §4.1.1), so two vpdpbusd per record and
 * activation row do all 128 products with int32 dword i of every lane collecting row i.  Four
 * records are reduced together: two rounds of vshufi32x4 + vpaddd fold the four lanes of each
 * into 16 exact int32 (block j, row i in dword 4j+i); the activation's -8 * sum (qx_0.h aux o)
 * removes the nibble bias, ((float)isum * d_w) * d_a is formed for the four blocks at once and
 * added to the 4 row lanes block after block: the reference's exact order, so the result is
 * bit-equal to it.  Up to 8 activation rows share each decoded record; all activation tiles run
 * while a group's records are in L1; the weight stream is prefetched 4 KiB ahead. */
#include <immintrin.h>
#include <string.h>

#include "q4_0_4_4.h"
#include "q4_0_4_8.h"

#define ROWS 4
#define NB_MAX 8
#define STEP 4 /* records reduced together */

/* ternlog imm for (x & m) ^ c: x = 0xf0, m = 0xcc, c = 0xaa -> (0xf0 & 0xcc) ^ 0xaa */
#define AND_XOR 0x6a

/* Both planes of one record, in q4_0_4_4's order: dword 4l+i = bytes 4l..4l+3 of row i. */
BB_QX_INLINE void decode(const uint8_t *rec, int chunk, __m512i *lo, __m512i *hi)
{
    const __m512i m4 = _mm512_set1_epi8(15), eight = _mm512_set1_epi8(8);
    __m512i x = _mm512_loadu_si512((const void *)(rec + 2 * ROWS));
    /* 8-byte chunks: dword 8h+2i+s holds bytes 8h+4s.. of row i; it goes to 4(2h+s)+i */
    if (chunk == 8) x = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15), x);
    *lo = _mm512_ternarylogic_epi32(x, m4, eight, AND_XOR);
    *hi = _mm512_ternarylogic_epi32(_mm512_srli_epi16(x, 4), m4, eight, AND_XOR);
}

/* One record times one activation block: 16 int32, row i's partial dots in dwords i, 4+i, 8+i, 12+i. */
BB_QX_INLINE __m512i record_dot(__m512i lo, __m512i hi, const int8_t *q)
{
    const __m512i ilo = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i ihi = _mm512_setr_epi32(4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7);
    __m512i a = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)q));
    __m512i s = _mm512_dpbusd_epi32(_mm512_setzero_si512(), lo, _mm512_permutexvar_epi32(ilo, a));
    return _mm512_dpbusd_epi32(s, hi, _mm512_permutexvar_epi32(ihi, a));
}

/* The four lanes of s0..s3 folded: dword 4j+i = row i's dot of record j. */
BB_QX_INLINE __m512i fold4(__m512i s0, __m512i s1, __m512i s2, __m512i s3)
{
    __m512i u = _mm512_add_epi32(_mm512_shuffle_i32x4(s0, s1, 0x44), _mm512_shuffle_i32x4(s0, s1, 0xee));
    __m512i v = _mm512_add_epi32(_mm512_shuffle_i32x4(s2, s3, 0x44), _mm512_shuffle_i32x4(s2, s3, 0xee));
    return _mm512_add_epi32(_mm512_shuffle_i32x4(u, v, 0x88), _mm512_shuffle_i32x4(u, v, 0xdd));
}

/* Four consecutive blocks b..b+3 of one activation row added to its 4 row lanes, in block order. */
BB_QX_INLINE __m128 step4(const __m512i *lo, const __m512i *hi, __m512 dw, const bb_block_q8_0 *a,
                          const bb_qx_aux *aux, int b, __m128 acc)
{
    const __m512i spread = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i spread_o = _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6);
    __m512i isum = fold4(record_dot(lo[0], hi[0], a[b].qs), record_dot(lo[1], hi[1], a[b + 1].qs),
                         record_dot(lo[2], hi[2], a[b + 2].qs), record_dot(lo[3], hi[3], a[b + 3].qs));
    __m512i o = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(aux->o + 2 * b)));
    isum = _mm512_add_epi32(isum, _mm512_permutexvar_epi32(spread_o, o));
    __m512 da = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_loadu_ps(aux->d + b)));
    __m512 p = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(isum), dw), da);
    acc = _mm_add_ps(acc, _mm512_castps512_ps128(p));
    acc = _mm_add_ps(acc, _mm512_extractf32x4_ps(p, 1));
    acc = _mm_add_ps(acc, _mm512_extractf32x4_ps(p, 2));
    return _mm_add_ps(acc, _mm512_extractf32x4_ps(p, 3));
}

/* One block alone (the last K/32 mod 4). */
BB_QX_INLINE __m128 step1(__m512i lo, __m512i hi, __m128 dw, const bb_block_q8_0 *a, const bb_qx_aux *aux, int b,
                          __m128 acc)
{
    __m512i s = record_dot(lo, hi, a[b].qs);
    __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64(s, 1));
    __m128i isum = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    isum = _mm_add_epi32(isum, _mm_set1_epi32(aux->o[2 * b]));
    return _mm_add_ps(acc, _mm_mul_ps(_mm_mul_ps(_mm_cvtepi32_ps(isum), dw), _mm_set1_ps(aux->d[b])));
}

BB_QX_INLINE void group_tile(const void *w, const void *act, float *y, int m, int k, int n, int g, int c0, int nb,
                             int chunk)
{
    const bb_block_q8_0 *a[NB_MAX];
    bb_qx_aux aux[NB_MAX];
    __m128 acc[NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
        acc[c] = _mm_setzero_ps();
    }
    int nblk = k / BB_QK, b = 0;
    for (; b + STEP <= nblk; b += STEP) {
        const uint8_t *rec = bb_q4_0il_record(w, k, ROWS, g, b);
        size_t rbytes = bb_q4_0il_record_bytes(ROWS);
        for (size_t l = 0; l < STEP * rbytes; l += 64) bb_qx_prefetch(rec + l);
        int64_t d[STEP];
        __m512i lo[STEP], hi[STEP];
        for (int j = 0; j < STEP; j++) {
            memcpy(&d[j], rec + j * rbytes, 8);
            decode(rec + j * rbytes, chunk, &lo[j], &hi[j]);
        }
        __m512 dw = _mm512_cvtph_ps(_mm256_setr_epi64x(d[0], d[1], d[2], d[3]));
        for (int c = 0; c < nb; c++) acc[c] = step4(lo, hi, dw, a[c], &aux[c], b, acc[c]);
    }
    for (; b < nblk; b++) {
        const uint8_t *rec = bb_q4_0il_record(w, k, ROWS, g, b);
        __m128 dw = _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)rec));
        __m512i lo, hi;
        decode(rec, chunk, &lo, &hi);
        for (int c = 0; c < nb; c++) acc[c] = step1(lo, hi, dw, a[c], &aux[c], b, acc[c]);
    }
    for (int c = 0; c < nb; c++) _mm_storeu_ps(y + (size_t)(c0 + c) * m + (size_t)g * ROWS, acc[c]);
}

BB_QX_INLINE void groups(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1, int chunk)
{
    /* all activation tiles per row group: the group's records (K/32 * 72 bytes) stay in cache */
    for (int g = m0 / ROWS; g < m1 / ROWS; g++)
        for (int c0 = 0; c0 < n; c0 += NB_MAX) {
            switch (n - c0 < NB_MAX ? n - c0 : NB_MAX) {
            case 1: group_tile(w, act, y, m, k, n, g, c0, 1, chunk); break;
            case 2: group_tile(w, act, y, m, k, n, g, c0, 2, chunk); break;
            case 3: group_tile(w, act, y, m, k, n, g, c0, 3, chunk); break;
            case 4: group_tile(w, act, y, m, k, n, g, c0, 4, chunk); break;
            case 5: group_tile(w, act, y, m, k, n, g, c0, 5, chunk); break;
            case 6: group_tile(w, act, y, m, k, n, g, c0, 6, chunk); break;
            case 7: group_tile(w, act, y, m, k, n, g, c0, 7, chunk); break;
            default: group_tile(w, act, y, m, k, n, g, c0, 8, chunk); break;
            }
        }
}

void bb_q4_0_4_4_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    groups(w, act, y, m, k, n, m0, m1, BB_Q4_0_4_4_CHUNK);
}

void bb_q4_0_4_8_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    groups(w, act, y, m, k, n, m0, m1, BB_Q4_0_4_8_CHUNK);
}
