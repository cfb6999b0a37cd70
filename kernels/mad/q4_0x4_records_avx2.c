/* The AVX2 loop over llama.cpp's 4-row records block_q4_0x4, for q4_0_4_4 and q4_0_4_8
 * (layouts and semantics: q4_0_4_4.h, q4_0_4_8.h).  A record's 64
 * nibble bytes are two 256-bit vectors; q4_0_4_8's are first put in q4_0_4_4's order by one vpermd
 * each (shared by all activation rows), so dword 4s+i of vector v holds bytes 8v+4s.. of row i.
 * XOR 0x88 restores the unsigned nibbles, AND / shift split them into the low plane (weights
 * 0..15 of each row) and the high plane (16..31).  Each int32 lane needs one 4-byte slice of the
 * activation block: one vpermd of the block's 32 int8 per vector and plane puts it there (the
 * Arm kernels' SDOT by element, Arm paper §4.1.1).  vpmaddubsw products of the four (vector, plane)
 * pairs are summed in int16 (|sum| <= 4*2*15*127 < 2^15) and widened by vpmaddwd; the two 128-bit
 * halves are added into one int32 per row.  Adding the activation's -8 * sum (qx_0.h aux o)
 * removes the nibble bias exactly; then ((float)isum * d_w) * d_a is added per row lane, the
 * reference's exact order.  Up to 4 activation rows share each decoded record; all activation
 * tiles run while a group's records are in L1; the weight stream is prefetched ahead (common/prefetch.h). */
#include <immintrin.h>

#include "q4_0_4_4.h"
#include "q4_0_4_8.h"

#define ROWS 4
#define NB_MAX 4

/* Nibble vector v (qs bytes 32v..32v+31) in q4_0_4_4's order, XOR 0x88 undone: 8-byte chunks
 * hold bytes 8v+4s.. of row i in dword 2i+s, which goes to 4s+i. */
BB_QX_INLINE __m256i nibble_bytes(const uint8_t *rec, int v, int chunk)
{
    __m256i x = _mm256_loadu_si256((const __m256i *)(rec + 2 * ROWS + 32 * v));
    if (chunk == 8) x = _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
    return _mm256_xor_si256(x, _mm256_set1_epi8((char)0x88));
}

/* Activation dwords for nibble vector v, plane 0 (low nibbles) or 1 (high): lane 4s+i reads
 * bytes 4(2v+s).. (+16 for the high plane). */
BB_QX_INLINE __m256i act_index(int v, int plane)
{
    int d = 2 * v + 4 * plane;
    return _mm256_setr_epi32(d, d, d, d, d + 1, d + 1, d + 1, d + 1);
}

BB_QX_INLINE void group_tile(const void *w, const void *act, float *y, int m, int k, int n, int g, int c0, int nb,
                             int chunk)
{
    const __m256i m4 = _mm256_set1_epi8(15), ones = _mm256_set1_epi16(1);
    const __m256i ilo0 = act_index(0, 0), ihi0 = act_index(0, 1), ilo1 = act_index(1, 0), ihi1 = act_index(1, 1);
    const bb_block_q8_0 *a[NB_MAX];
    bb_qx_aux aux[NB_MAX];
    __m128 acc[NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
        acc[c] = _mm_setzero_ps();
    }
    for (int b = 0; b < k / BB_QK; b++) {
        const uint8_t *rec = bb_nibble_record(w, k, ROWS, g, b);
        bb_prefetch_stream(rec);
        bb_prefetch_stream(rec + 64);
        __m128 dw = _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)rec));
        __m256i x0 = nibble_bytes(rec, 0, chunk), x1 = nibble_bytes(rec, 1, chunk);
        __m256i lo0 = _mm256_and_si256(x0, m4), hi0 = _mm256_and_si256(_mm256_srli_epi16(x0, 4), m4);
        __m256i lo1 = _mm256_and_si256(x1, m4), hi1 = _mm256_and_si256(_mm256_srli_epi16(x1, 4), m4);
        for (int c = 0; c < nb; c++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)a[c][b].qs);
            __m256i s = _mm256_add_epi16(
                _mm256_add_epi16(_mm256_maddubs_epi16(lo0, _mm256_permutevar8x32_epi32(q, ilo0)),
                                 _mm256_maddubs_epi16(hi0, _mm256_permutevar8x32_epi32(q, ihi0))),
                _mm256_add_epi16(_mm256_maddubs_epi16(lo1, _mm256_permutevar8x32_epi32(q, ilo1)),
                                 _mm256_maddubs_epi16(hi1, _mm256_permutevar8x32_epi32(q, ihi1))));
            __m256i s32 = _mm256_madd_epi16(s, ones);
            __m128i isum = _mm_add_epi32(_mm256_castsi256_si128(s32), _mm256_extracti128_si256(s32, 1));
            isum = _mm_add_epi32(isum, _mm_set1_epi32(aux[c].o[2 * b]));
            __m128 p = _mm_mul_ps(_mm_mul_ps(_mm_cvtepi32_ps(isum), dw), _mm_set1_ps(aux[c].d[b]));
            acc[c] = _mm_add_ps(acc[c], p);
        }
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
            default: group_tile(w, act, y, m, k, n, g, c0, 4, chunk); break;
            }
        }
}

void bb_q4_0_4_4_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    groups(w, act, y, m, k, n, m0, m1, BB_Q4_0_4_4_CHUNK);
}

void bb_q4_0_4_8_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    groups(w, act, y, m, k, n, m0, m1, BB_Q4_0_4_8_CHUNK);
}
