/* iq4_nl_x8, AVX2 (layout and semantics: iq4_nl_x8.h).  q4_0x8's AVX2 record walk (Arm paper
 * §4.1.1; mad/q4_0x8_avx2.c): a record's 128 nibble bytes are four 256-bit vectors, rows 0-3 /
 * 4-7 x bytes 0-7 / 8-15, whose low and high nibbles meet activation slices a[0..7], a[16..23]
 * (bytes 0-7) and a[8..15], a[24..31] (bytes 8-15) broadcast to every row's 8 bytes, so no
 * activation shuffles are needed.  Each nibble plane is looked up by one vpshufb in the
 * register-resident 16-entry table (§6.3's codebook, as iq4_nl_avx2.c does).
 *
 * The multiply differs from q4_0x8's: codebook values reach -127, so neither q4_0x8's unsigned
 * nibbles nor avx512's kvalue + 128 (vpdpbusd has no int16 step) fit vpmaddubsw - 2 * 241 * 127
 * saturates int16.  It multiplies |w| (unsigned, <= 127) by sign(q, w) instead:
 * 2 * 127 * 127 < 2^15, exact, no bias correction; vpmaddwd widens every product pair at once
 * (two pairs could reach 4 * 127^2 > 2^15, so none are summed in int16), the int32 planes of
 * rows 0-3 and 4-7 are added, and one vphaddd joins them into one exact int32 dot per row, in
 * lane order 0,1,4,5,2,3,6,7 - the scales are loaded in that order and the accumulator is put
 * back in row order once at the end.  Then the reference's float step per block, block b before
 * b+1: y = y + (d_w * d_a) * (float)isum_b - its bits (bb_iq4_nl_matmul_ref_with). */
#include <immintrin.h>
#include <string.h>

#include "../common/prefetch.h"
#include "iq4_nl_x8.h"

#define NB_MAX 4 /* activation rows sharing one decoded record */

BB_QX_INLINE __m256i bcast8(const int8_t *p)
{
    int64_t v;
    memcpy(&v, p, 8);
    return _mm256_set1_epi64x(v);
}

/* The int32 product pairs of one nibble plane w (int8 codebook values) and activation slice a. */
BB_QX_INLINE __m256i plane_dot(__m256i w_abs, __m256i w, __m256i a)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(w_abs, _mm256_sign_epi8(a, w)), _mm256_set1_epi16(1));
}

BB_QX_INLINE void group_tile(const void *w, const void *act, float *y, int m, int k, int n, int g, int c0, int nb)
{
    const __m256i m4 = _mm256_set1_epi8(15);
    const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)bb_iq4_nl_kvalues));
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
        bb_prefetch_stream_range(rec, BB_NIBBLE_X8_BYTES);
        /* 8 fp16 scales in lane order 0,1,4,5,2,3,6,7 (32-bit pairs 0,2,1,3) */
        __m256 dw = _mm256_cvtph_ps(_mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)rec), 0xd8));
        /* vector v: rows 4*(v&1).., bytes 8*(v>>1)..; lo = weights of those bytes, hi = + 16 */
        __m256i lo[4], hi[4], lo_abs[4], hi_abs[4];
        for (int v = 0; v < 4; v++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(rec + 16 + 32 * v));
            lo[v] = _mm256_shuffle_epi8(table, _mm256_and_si256(x, m4));
            hi[v] = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(x, 4), m4));
            lo_abs[v] = _mm256_abs_epi8(lo[v]);
            hi_abs[v] = _mm256_abs_epi8(hi[v]);
        }
        for (int c = 0; c < nb; c++) {
            const int8_t *q = a[c][b].qs;
            __m256i a0 = bcast8(q), a1 = bcast8(q + 8), a2 = bcast8(q + 16), a3 = bcast8(q + 24);
            __m256i s03 = _mm256_add_epi32(_mm256_add_epi32(plane_dot(lo_abs[0], lo[0], a0), plane_dot(hi_abs[0], hi[0], a2)),
                                           _mm256_add_epi32(plane_dot(lo_abs[2], lo[2], a1), plane_dot(hi_abs[2], hi[2], a3)));
            __m256i s47 = _mm256_add_epi32(_mm256_add_epi32(plane_dot(lo_abs[1], lo[1], a0), plane_dot(hi_abs[1], hi[1], a2)),
                                           _mm256_add_epi32(plane_dot(lo_abs[3], lo[3], a1), plane_dot(hi_abs[3], hi[3], a3)));
            __m256i isum = _mm256_hadd_epi32(s03, s47);
            __m256 f = _mm256_mul_ps(_mm256_mul_ps(dw, _mm256_set1_ps(aux[c].d[b])), _mm256_cvtepi32_ps(isum));
            acc[c] = _mm256_add_ps(acc[c], f);
        }
    }
    for (int c = 0; c < nb; c++) {
        __m256 r = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(acc[c]), 0xd8));
        _mm256_storeu_ps(y + (size_t)(c0 + c) * m + (size_t)g * BB_NIBBLE_X8_ROWS, r);
    }
}

void bb_iq4_nl_x8_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
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
