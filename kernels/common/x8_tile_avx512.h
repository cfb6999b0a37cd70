/* The AVX-512 VNNI tile of the 8-row interleaved 4-bit records (q4_0x8.h's layout: per record 8
 * fp16 scales, then two 512-bit vectors of 8 rows x 8 bytes), shared by q4_0x8 and iq4_nl_x8.  A
 * record's nibbles become unsigned bytes u, vpdpbusd multiplies them by an 8-byte activation
 * slice broadcast to every row (a[0..7], a[16..23] for bytes 0-7, a[8..15], a[24..31] for bytes
 * 8-15), so each int32 lane pair (2i, 2i+1) accumulates row i, started at a bias correction
 * {o, 0}: four vpdpbusd per block and activation row, no activation shuffles (Arm paper §4.1.1).
 * Two blocks are done together: two vpermt2d + one add fold their lane pairs into 16 lanes
 * (block b rows 0-7, block b+1 rows 0-7) of exact int32 dots, and the float steps of the kernel's
 * reference add them to the 8 row lanes, block b first: the reference's bits.
 *   BB_X8_Q4_0:   u = stored nibble ^ 8 = the q4_0 nibble n (weight n - 8), o = -8 * sum(a);
 *                 y = y + ((float)isum * d_w) * d_a            (qx_0.h)
 *   BB_X8_IQ4_NL: u = kvalues[nibble] + 128 by one vpshufb, o = -128 * sum(a) (16 x qx_0.h's o);
 *                 y = y + (d_w * d_a) * (float)isum            (iq4_nl.h)
 * Included by the *_avx512.c files only. */
#ifndef BB_X8_TILE_AVX512_H
#define BB_X8_TILE_AVX512_H

#include <immintrin.h>
#include <string.h>

#include "lockstep.h"
#include "nibble_records.h"
#include "prefetch.h"

#define BB_X8_NB_MAX 8 /* activation rows per tile */

typedef enum { BB_X8_Q4_0, BB_X8_IQ4_NL } bb_x8_kind;

BB_QX_INLINE __m512i bb_x8_bcast8(const int8_t *p)
{
    int64_t v;
    memcpy(&v, p, 8);
    return _mm512_set1_epi64(v);
}

/* Block b's int32 lane pairs for one activation row, started at {o, 0} in every pair: lane 2i +
 * lane 2i+1 = row i's exact dot. */
BB_QX_INLINE __m512i bb_x8_block_dot(const __m512i *lo, const __m512i *hi, const int8_t *q, __m512i o)
{
    __m512i s = _mm512_dpbusd_epi32(o, lo[0], bb_x8_bcast8(q));
    s = _mm512_dpbusd_epi32(s, hi[0], bb_x8_bcast8(q + 16));
    s = _mm512_dpbusd_epi32(s, lo[1], bb_x8_bcast8(q + 8));
    return _mm512_dpbusd_epi32(s, hi[1], bb_x8_bcast8(q + 24));
}

/* ternlog imm for (x & m) ^ c: x = 0xf0, m = 0xcc, c = 0xaa -> (0xf0 & 0xcc) ^ 0xaa */
#define BB_X8_AND_XOR 0x6a

BB_QX_INLINE void bb_x8_decode(bb_x8_kind kind, const uint8_t *rec, __m512i table, __m512i *lo, __m512i *hi)
{
    const __m512i m4 = _mm512_set1_epi8(15), eight = _mm512_set1_epi8(8);
    for (int v = 0; v < 2; v++) {
        __m512i x = _mm512_loadu_si512((const void *)(rec + 16 + 64 * v)), x4 = _mm512_srli_epi16(x, 4);
        if (kind == BB_X8_Q4_0) {
            lo[v] = _mm512_ternarylogic_epi32(x, m4, eight, BB_X8_AND_XOR);
            hi[v] = _mm512_ternarylogic_epi32(x4, m4, eight, BB_X8_AND_XOR);
        } else {
            lo[v] = _mm512_shuffle_epi8(table, _mm512_and_si512(x, m4));
            hi[v] = _mm512_shuffle_epi8(table, _mm512_and_si512(x4, m4));
        }
    }
}

/* The correction {o, 0} of block b: qx_0.h's {-8 * sum(a), 0}, times 16 for the codebook. */
BB_QX_INLINE __m512i bb_x8_correction(bb_x8_kind kind, const int32_t *o)
{
    __m512i c = bb_x8_bcast8((const int8_t *)o);
    return kind == BB_X8_Q4_0 ? c : _mm512_slli_epi32(c, 4);
}

/* iq4_nl's kvalues + 128 (iq4_nl.h), unsigned bytes 1..241, in every 128-bit lane */
BB_QX_INLINE __m512i bb_x8_table(void)
{
    return _mm512_add_epi8(_mm512_broadcast_i32x4(_mm_setr_epi8(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38,
                                                                53, 69, 89, 113)),
                           _mm512_set1_epi8((char)0x80));
}

/* acc[c] += the float terms of blocks b and b + 1 (the records at rec) against activation rows
 * a[c], c < nb, block b first.  Each line is prefetched with bb_prefetch_interleaved(line,
 * ahead, BB_PREFETCH_L1_BYTES). */
BB_QX_INLINE void bb_x8_pair(bb_x8_kind kind, const uint8_t *rec, __m512i table, const bb_block_q8_0 *const *a,
                             const bb_qx_aux *aux, int b, int nb, __m256 *acc, size_t ahead)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    for (int l = 0; l < 2 * BB_NIBBLE_X8_BYTES; l += 64) bb_prefetch_interleaved(rec + l, ahead, BB_PREFETCH_L1_BYTES);
    __m256i d16 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)rec)),
                                          _mm_loadu_si128((const __m128i *)(rec + BB_NIBBLE_X8_BYTES)), 1);
    __m512 dw = _mm512_cvtph_ps(d16);
    __m512i lo0[2], hi0[2], lo1[2], hi1[2];
    bb_x8_decode(kind, rec, table, lo0, hi0);
    bb_x8_decode(kind, rec + BB_NIBBLE_X8_BYTES, table, lo1, hi1);
    for (int c = 0; c < nb; c++) {
        __m512i p0 = bb_x8_block_dot(lo0, hi0, a[c][b].qs, bb_x8_correction(kind, aux[c].o + 2 * b));
        __m512i p1 = bb_x8_block_dot(lo1, hi1, a[c][b + 1].qs, bb_x8_correction(kind, aux[c].o + 2 * b + 2));
        __m512 s = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_permutex2var_epi32(p0, even, p1),
                                                       _mm512_permutex2var_epi32(p0, odd, p1)));
        __m512 da = _mm512_insertf32x8(_mm512_set1_ps(aux[c].d[b]), _mm256_set1_ps(aux[c].d[b + 1]), 1);
        __m512 f = kind == BB_X8_Q4_0 ? _mm512_mul_ps(_mm512_mul_ps(s, dw), da) : _mm512_mul_ps(_mm512_mul_ps(dw, da), s);
        __m256 f1 = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1));
        acc[c] = _mm256_add_ps(_mm256_add_ps(acc[c], _mm512_castps512_ps256(f)), f1);
    }
}

/* acc[c] += the float terms of block b alone (an odd block count's last), in lanes 0-7. */
BB_QX_INLINE void bb_x8_last(bb_x8_kind kind, const uint8_t *rec, __m512i table, const bb_block_q8_0 *const *a,
                             const bb_qx_aux *aux, int b, int nb, __m256 *acc)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)rec));
    __m512i lo0[2], hi0[2];
    bb_x8_decode(kind, rec, table, lo0, hi0);
    for (int c = 0; c < nb; c++) {
        __m512i p0 = bb_x8_block_dot(lo0, hi0, a[c][b].qs, bb_x8_correction(kind, aux[c].o + 2 * b));
        __m512i isum = _mm512_add_epi32(_mm512_permutexvar_epi32(even, p0), _mm512_permutexvar_epi32(odd, p0));
        __m256 s = _mm256_cvtepi32_ps(_mm512_castsi512_si256(isum)), da = _mm256_set1_ps(aux[c].d[b]);
        __m256 f = kind == BB_X8_Q4_0 ? _mm256_mul_ps(_mm256_mul_ps(s, dw), da) : _mm256_mul_ps(_mm256_mul_ps(dw, da), s);
        acc[c] = _mm256_add_ps(acc[c], f);
    }
}

/* The 8 rows of group g against activation rows c0 .. c0 + nb - 1 (nb <= BB_X8_NB_MAX). */
BB_QX_INLINE void bb_x8_group_tile(bb_x8_kind kind, const void *w, const void *act, float *y, int m, int k, int n,
                                   int g, int c0, int nb)
{
    const __m512i table = bb_x8_table();
    const bb_block_q8_0 *a[BB_X8_NB_MAX];
    bb_qx_aux aux[BB_X8_NB_MAX];
    __m256 acc[BB_X8_NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
        acc[c] = _mm256_setzero_ps();
    }
    int nblk = k / BB_QK, b = 0;
    for (; b + 2 <= nblk; b += 2)
        bb_x8_pair(kind, bb_nibble_x8_record(w, k, g, b), table, a, aux, b, nb, acc, BB_PREFETCH_BYTES);
    if (b < nblk) bb_x8_last(kind, bb_nibble_x8_record(w, k, g, b), table, a, aux, b, nb, acc);
    for (int c = 0; c < nb; c++) _mm256_storeu_ps(y + (size_t)(c0 + c) * m + (size_t)g * BB_NIBBLE_X8_ROWS, acc[c]);
}

/* Decode (N = 1): the call's groups as up to four streams in lockstep, a record pair of each in
 * turn (lockstep.h). */
BB_QX_INLINE void bb_x8_decode_streams(bb_x8_kind kind, const void *w, const void *act, float *y, int k, int m0,
                                       int m1)
{
    const __m512i table = bb_x8_table();
    const int g0 = m0 / BB_NIBBLE_X8_ROWS, groups = m1 / BB_NIBBLE_X8_ROWS - g0, nblk = k / BB_QK;
    const size_t ahead = (size_t)groups * nblk * BB_NIBBLE_X8_BYTES;
    const bb_block_q8_0 *a[1] = {bb_qx_act_row(act, k, 0)};
    const bb_qx_aux aux[1] = {bb_qx_aux_row(act, 1, k, 0)};
    for (int j = 0; j < bb_lockstep_passes(groups); j++) {
        int g[BB_LOCKSTEP_STREAMS];
        int live = bb_lockstep_units(groups, j, g), b = 0;
        __m256 acc[BB_LOCKSTEP_STREAMS];
        for (int i = 0; i < live; i++) acc[i] = _mm256_setzero_ps();
        for (; b + 2 <= nblk; b += 2)
            for (int i = 0; i < live; i++)
                bb_x8_pair(kind, bb_nibble_x8_record(w, k, g0 + g[i], b), table, a, aux, b, 1, &acc[i], ahead);
        if (b < nblk)
            for (int i = 0; i < live; i++)
                bb_x8_last(kind, bb_nibble_x8_record(w, k, g0 + g[i], b), table, a, aux, b, 1, &acc[i]);
        for (int i = 0; i < live; i++) _mm256_storeu_ps(y + (size_t)(g0 + g[i]) * BB_NIBBLE_X8_ROWS, acc[i]);
    }
}

/* One record's 8 rows as the signed int8 weights the reference multiplies (the @amx variants'
 * decode): row i's 32 values at dst + i * stride.  P (bytes 0..7 of each row, one qword per row)
 * and Q (bytes 8..15): row i's weights are the low nibbles of P_i, Q_i, then their high nibbles,
 * so one two-source qword permute puts P_i Q_i P_i Q_i (and the same for row i+1) in a zmm, a
 * shift by 0 or 4 per qword and an AND select the nibbles; then q4_0's (n ^ 8) - 8 undoes the
 * stored XOR 0x88 and the +8 bias, or iq4_nl's vpshufb looks the index up in its table. */
BB_QX_INLINE void bb_x8_record_i8(bb_x8_kind kind, const uint8_t *rec, int8_t *dst, size_t stride)
{
    const __m512i shifts = _mm512_set_epi64(4, 4, 0, 0, 4, 4, 0, 0), low = _mm512_set1_epi8(0x0f);
    const __m512i eight = _mm512_set1_epi8(8);
    const __m512i table = _mm512_broadcast_i32x4(_mm_setr_epi8(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38,
                                                               53, 69, 89, 113));
    __m512i p = _mm512_loadu_si512(rec + 16), q = _mm512_loadu_si512(rec + 80);
    for (int i = 0; i < BB_NIBBLE_X8_ROWS; i += 2) {
        __m512i idx = _mm512_set_epi64(9 + i, 1 + i, 9 + i, 1 + i, 8 + i, i, 8 + i, i);
        __m512i v = _mm512_and_si512(_mm512_srlv_epi64(_mm512_permutex2var_epi64(p, idx, q), shifts), low);
        v = kind == BB_X8_Q4_0 ? _mm512_sub_epi8(_mm512_xor_si512(v, eight), eight) : _mm512_shuffle_epi8(table, v);
        _mm256_storeu_si256((__m256i *)(dst + i * stride), _mm512_castsi512_si256(v));
        _mm256_storeu_si256((__m256i *)(dst + (i + 1) * stride), _mm512_extracti64x4_epi64(v, 1));
    }
}

/* Rows [m0, m1) (multiples of 8): every activation tile per row group, so the group's records
 * (K/32 * 144 bytes) stay in cache across them. */
BB_QX_INLINE void bb_x8_matmul(bb_x8_kind kind, const void *w, const void *act, float *y, int m, int k, int n, int m0,
                               int m1)
{
    if (n == 1) {
        bb_x8_decode_streams(kind, w, act, y, k, m0, m1);
        return;
    }
    for (int g = m0 / BB_NIBBLE_X8_ROWS; g < m1 / BB_NIBBLE_X8_ROWS; g++)
        for (int c0 = 0; c0 < n; c0 += BB_X8_NB_MAX) {
            switch (n - c0 < BB_X8_NB_MAX ? n - c0 : BB_X8_NB_MAX) {
            case 1: bb_x8_group_tile(kind, w, act, y, m, k, n, g, c0, 1); break;
            case 2: bb_x8_group_tile(kind, w, act, y, m, k, n, g, c0, 2); break;
            case 3: bb_x8_group_tile(kind, w, act, y, m, k, n, g, c0, 3); break;
            case 4: bb_x8_group_tile(kind, w, act, y, m, k, n, g, c0, 4); break;
            case 5: bb_x8_group_tile(kind, w, act, y, m, k, n, g, c0, 5); break;
            case 6: bb_x8_group_tile(kind, w, act, y, m, k, n, g, c0, 6); break;
            case 7: bb_x8_group_tile(kind, w, act, y, m, k, n, g, c0, 7); break;
            default: bb_x8_group_tile(kind, w, act, y, m, k, n, g, c0, 8); break;
            }
        }
}

#endif
