/* The AVX-512 VNNI loop over llama.cpp's 4-row records block_q4_0x4, for q4_0_4_4 and q4_0_4_8
 * (layouts and semantics: q4_0_4_4.h, q4_0_4_8.h).  A
 * record's 64 nibble bytes are one 512-bit vector.  q4_0_4_8's 8-byte chunks are first put in
 * q4_0_4_4's order by one vpermd per record (shared by all activation rows), so 128-bit lane l
 * holds bytes 4l..4l+3 of rows 0..3; one vpternlogd per plane then undoes the XOR 0x88 and masks,
 * giving the unsigned low nibbles (weights 4l.. of each row) and high nibbles (16+4l..).  One
 * vpermd of the activation block's 32 int8 per plane broadcasts the matching 4-byte slice across
 * each lane (the Arm kernels' SDOT by element, Arm paper §4.1.1), so two vpdpbusd per record and
 * activation row do all 128 products with int32 dword i of every lane collecting row i.  Four
 * records are reduced together: two rounds of vshufi32x4 + vpaddd fold the four lanes of each
 * into 16 exact int32 (block j, row i in dword 4j+i); the activation's -8 * sum (qx_0.h aux o)
 * removes the nibble bias, ((float)isum * d_w) * d_a is formed for the four blocks at once and
 * added to the 4 row lanes block after block: the reference's exact order, so the result is
 * bit-equal to it.  Each activation block's permuted planes serve two row groups and up to 4
 * activation rows share each decoded record; all activation tiles run while the two groups'
 * records are in L1; the weight stream is prefetched ahead (common/prefetch.h). */
#include <immintrin.h>
#include <string.h>

#include "q4_0_4_4.h"
#include "q4_0_4_8.h"

#define ROWS 4
#define NB_MAX 4
#define GROUPS 2 /* row groups sharing each activation block's permuted planes */
#define STEP 4   /* records reduced together */

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

/* The activation block's 32 int8 for both planes: lane l of the low (high) plane holds bytes
 * 4l..4l+3 (16+4l..) in all four dwords, to meet bytes 4l.. of rows 0..3. */
BB_QX_INLINE void act_planes(const int8_t *q, __m512i *alo, __m512i *ahi)
{
    const __m512i ilo = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i ihi = _mm512_setr_epi32(4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7);
    __m512i a = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)q));
    *alo = _mm512_permutexvar_epi32(ilo, a);
    *ahi = _mm512_permutexvar_epi32(ihi, a);
}

/* One record times one activation block: 16 int32, row i's partial dots in dwords i, 4+i, 8+i, 12+i. */
BB_QX_INLINE __m512i record_dot(__m512i lo, __m512i hi, __m512i alo, __m512i ahi)
{
    return _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), lo, alo), hi, ahi);
}

/* The four lanes of s0..s3 folded: dword 4j+i = row i's dot of record j. */
BB_QX_INLINE __m512i fold4(__m512i s0, __m512i s1, __m512i s2, __m512i s3)
{
    __m512i u = _mm512_add_epi32(_mm512_shuffle_i32x4(s0, s1, 0x44), _mm512_shuffle_i32x4(s0, s1, 0xee));
    __m512i v = _mm512_add_epi32(_mm512_shuffle_i32x4(s2, s3, 0x44), _mm512_shuffle_i32x4(s2, s3, 0xee));
    return _mm512_add_epi32(_mm512_shuffle_i32x4(u, v, 0x88), _mm512_shuffle_i32x4(u, v, 0xdd));
}

/* One row group's four records b..b+3 (lo, hi, their scales dw) times one activation row's blocks
 * (alo, ahi; o16 and da16 its corrections and scales spread to 4 lanes each), added to the group's
 * 4 row lanes in block order. */
BB_QX_INLINE __m128 step4(const __m512i *lo, const __m512i *hi, __m512 dw, const __m512i *alo, const __m512i *ahi,
                          __m512i o16, __m512 da16, __m128 acc)
{
    __m512i isum = fold4(record_dot(lo[0], hi[0], alo[0], ahi[0]), record_dot(lo[1], hi[1], alo[1], ahi[1]),
                         record_dot(lo[2], hi[2], alo[2], ahi[2]), record_dot(lo[3], hi[3], alo[3], ahi[3]));
    __m512 p = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(isum, o16)), dw), da16);
    acc = _mm_add_ps(acc, _mm512_castps512_ps128(p));
    acc = _mm_add_ps(acc, _mm512_extractf32x4_ps(p, 1));
    acc = _mm_add_ps(acc, _mm512_extractf32x4_ps(p, 2));
    return _mm_add_ps(acc, _mm512_extractf32x4_ps(p, 3));
}

/* One block alone (the last K/32 mod 4). */
BB_QX_INLINE __m128 step1(__m512i lo, __m512i hi, __m128 dw, const bb_block_q8_0 *a, const bb_qx_aux *aux, int b,
                          __m128 acc)
{
    __m512i alo, ahi;
    act_planes(a[b].qs, &alo, &ahi);
    __m512i s = record_dot(lo, hi, alo, ahi);
    __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64(s, 1));
    __m128i isum = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    isum = _mm_add_epi32(isum, _mm_set1_epi32(aux->o[2 * b]));
    return _mm_add_ps(acc, _mm_mul_ps(_mm_mul_ps(_mm_cvtepi32_ps(isum), dw), _mm_set1_ps(aux->d[b])));
}

/* Row groups g0 .. g0+ng-1 (ng <= GROUPS) for activation rows c0 .. c0+nb-1: each activation
 * block's permuted planes serve all ng groups. */
BB_QX_INLINE void group_tile(const void *w, const void *act, float *y, int m, int k, int n, int g0, int ng, int c0,
                             int nb, int chunk)
{
    const __m512i spread = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i spread_o = _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6);
    const bb_block_q8_0 *a[NB_MAX];
    bb_qx_aux aux[NB_MAX];
    __m128 acc[NB_MAX][GROUPS];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
        for (int gi = 0; gi < ng; gi++) acc[c][gi] = _mm_setzero_ps();
    }
    size_t rbytes = bb_nibble_record_bytes(ROWS);
    int nblk = k / BB_QK, b = 0;
    for (; b + STEP <= nblk; b += STEP) {
        __m512i lo[GROUPS][STEP], hi[GROUPS][STEP];
        __m512 dw[GROUPS];
        for (int gi = 0; gi < ng; gi++) {
            const uint8_t *rec = bb_nibble_record(w, k, ROWS, g0 + gi, b);
            for (size_t l = 0; l < STEP * rbytes; l += 64) bb_prefetch_stream(rec + l);
            int64_t d[STEP];
            for (int j = 0; j < STEP; j++) {
                memcpy(&d[j], rec + j * rbytes, 8);
                decode(rec + j * rbytes, chunk, &lo[gi][j], &hi[gi][j]);
            }
            dw[gi] = _mm512_cvtph_ps(_mm256_setr_epi64x(d[0], d[1], d[2], d[3]));
        }
        for (int c = 0; c < nb; c++) {
            __m512i alo[STEP], ahi[STEP];
            for (int j = 0; j < STEP; j++) act_planes(a[c][b + j].qs, &alo[j], &ahi[j]);
            __m512i o = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(aux[c].o + 2 * b)));
            __m512i o16 = _mm512_permutexvar_epi32(spread_o, o);
            __m512 da16 = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_loadu_ps(aux[c].d + b)));
            for (int gi = 0; gi < ng; gi++)
                acc[c][gi] = step4(lo[gi], hi[gi], dw[gi], alo, ahi, o16, da16, acc[c][gi]);
        }
    }
    for (; b < nblk; b++)
        for (int gi = 0; gi < ng; gi++) {
            const uint8_t *rec = bb_nibble_record(w, k, ROWS, g0 + gi, b);
            __m128 dw = _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)rec));
            __m512i lo, hi;
            decode(rec, chunk, &lo, &hi);
            for (int c = 0; c < nb; c++) acc[c][gi] = step1(lo, hi, dw, a[c], &aux[c], b, acc[c][gi]);
        }
    for (int c = 0; c < nb; c++)
        for (int gi = 0; gi < ng; gi++) _mm_storeu_ps(y + (size_t)(c0 + c) * m + (size_t)(g0 + gi) * ROWS, acc[c][gi]);
}

/* The tile for ng groups and nb activation rows, each combination its own inlined copy. */
BB_QX_INLINE void tile(const void *w, const void *act, float *y, int m, int k, int n, int g0, int ng, int c0, int nb,
                       int chunk)
{
    if (ng == GROUPS) {
        switch (nb) {
        case 1: group_tile(w, act, y, m, k, n, g0, GROUPS, c0, 1, chunk); break;
        case 2: group_tile(w, act, y, m, k, n, g0, GROUPS, c0, 2, chunk); break;
        case 3: group_tile(w, act, y, m, k, n, g0, GROUPS, c0, 3, chunk); break;
        default: group_tile(w, act, y, m, k, n, g0, GROUPS, c0, 4, chunk); break;
        }
    } else {
        switch (nb) {
        case 1: group_tile(w, act, y, m, k, n, g0, 1, c0, 1, chunk); break;
        case 2: group_tile(w, act, y, m, k, n, g0, 1, c0, 2, chunk); break;
        case 3: group_tile(w, act, y, m, k, n, g0, 1, c0, 3, chunk); break;
        default: group_tile(w, act, y, m, k, n, g0, 1, c0, 4, chunk); break;
        }
    }
}

BB_QX_INLINE void groups(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1, int chunk)
{
    /* all activation tiles per pair of row groups: their records (2 * K/32 * 72 bytes) stay in cache */
    for (int g = m0 / ROWS; g < m1 / ROWS; g += GROUPS) {
        int ng = m1 / ROWS - g < GROUPS ? m1 / ROWS - g : GROUPS;
        for (int c0 = 0; c0 < n; c0 += NB_MAX) tile(w, act, y, m, k, n, g, ng, c0, n - c0 < NB_MAX ? n - c0 : NB_MAX, chunk);
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
