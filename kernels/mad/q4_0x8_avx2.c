/* q4_0x8, AVX2 (layout and semantics: q4_0x8.h).  A record's 128 nibble bytes are four 256-bit
 * vectors, each holding 8 bytes of 4 rows: rows 0-3 / 4-7 × bytes 0-7 / 8-15.  XOR 0x88 restores
 * the unsigned nibbles; low and high nibbles then meet activation slices a[0..7], a[16..23]
 * (bytes 0-7) and a[8..15], a[24..31] (bytes 8-15), each broadcast to every row's 8 bytes, so
 * no activation shuffles are needed (Arm paper §4.1.1).  vpmaddubsw products of the four slices
 * are summed in int16 (|sum| <= 4*2*15*127 < 2^15), vpmaddwd widens, one vphaddd joins rows 0-3
 * and 4-7 into one int32 per row in lane order 0,1,4,5,2,3,6,7 — the scales are loaded in that
 * order and the accumulator is put back in row order once at the end.  Adding the activation's
 * -8 * sum (qx_0.h aux o) removes the nibble bias; then ((float)isum * d_w) * d_a is added per
 * lane: the reference's exact order. */
#include <immintrin.h>
#include <string.h>

#include "q4_0x8.h"

#define NB_MAX 4

BB_QX_INLINE __m256i bcast8(const int8_t *p)
{
    int64_t v;
    memcpy(&v, p, 8);
    return _mm256_set1_epi64x(v);
}

BB_QX_INLINE void group_tile(const void *w, const void *act, float *y, int m, int k, int n, int g, int c0, int nb)
{
    const __m256i m4 = _mm256_set1_epi8(15), flip = _mm256_set1_epi8((char)0x88), ones = _mm256_set1_epi16(1);
    const bb_block_q8_0 *a[NB_MAX];
    bb_qx_aux aux[NB_MAX];
    __m256 acc[NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
        acc[c] = _mm256_setzero_ps();
    }
    for (int b = 0; b < k / BB_QK; b++) {
        const uint8_t *rec = bb_nibble_x8_record(w, k, g, b);
        for (int l = 0; l < BB_NIBBLE_X8_BYTES; l += 64) bb_prefetch_stream(rec + l);
        /* 8 fp16 scales in lane order 0,1,4,5,2,3,6,7 (32-bit pairs 0,2,1,3) */
        __m256 dw = _mm256_cvtph_ps(_mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)rec), 0xd8));
        __m256i lo[4], hi[4];
        for (int v = 0; v < 4; v++) {
            __m256i x = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(rec + 16 + 32 * v)), flip);
            lo[v] = _mm256_and_si256(x, m4);
            hi[v] = _mm256_and_si256(_mm256_srli_epi16(x, 4), m4);
        }
        for (int c = 0; c < nb; c++) {
            const int8_t *q = a[c][b].qs;
            __m256i a0 = bcast8(q), a1 = bcast8(q + 8), a2 = bcast8(q + 16), a3 = bcast8(q + 24);
            /* vector v: rows 4*(v&1).. , bytes 8*(v>>1).. */
            __m256i s03 = _mm256_add_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(lo[0], a0), _mm256_maddubs_epi16(hi[0], a2)),
                                           _mm256_add_epi16(_mm256_maddubs_epi16(lo[2], a1), _mm256_maddubs_epi16(hi[2], a3)));
            __m256i s47 = _mm256_add_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(lo[1], a0), _mm256_maddubs_epi16(hi[1], a2)),
                                           _mm256_add_epi16(_mm256_maddubs_epi16(lo[3], a1), _mm256_maddubs_epi16(hi[3], a3)));
            __m256i isum = _mm256_hadd_epi32(_mm256_madd_epi16(s03, ones), _mm256_madd_epi16(s47, ones));
            isum = _mm256_add_epi32(isum, _mm256_set1_epi32(aux[c].o[2 * b]));
            __m256 p = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(isum), dw), _mm256_set1_ps(aux[c].d[b]));
            acc[c] = _mm256_add_ps(acc[c], p);
        }
    }
    for (int c = 0; c < nb; c++) {
        __m256 r = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(acc[c]), 0xd8));
        _mm256_storeu_ps(y + (size_t)(c0 + c) * m + (size_t)g * BB_NIBBLE_X8_ROWS, r);
    }
}

void bb_q4_0x8_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    /* all activation tiles per row group: the group's records (K/32 * 144 bytes) stay in cache */
    for (int g = m0 / BB_NIBBLE_X8_ROWS; g < m1 / BB_NIBBLE_X8_ROWS; g++)
        for (int c0 = 0; c0 < n; c0 += NB_MAX) {
            switch (n - c0 < NB_MAX ? n - c0 : NB_MAX) {
            case 1: group_tile(w, act, y, m, k, n, g, c0, 1); break;
            case 2: group_tile(w, act, y, m, k, n, g, c0, 2); break;
            case 3: group_tile(w, act, y, m, k, n, g, c0, 3); break;
            default: group_tile(w, act, y, m, k, n, g, c0, 4); break;
            }
        }
}
