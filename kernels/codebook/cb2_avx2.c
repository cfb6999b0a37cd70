/* cb2, AVX2.  Per 32 weights (two sub-groups, one per 128-bit lane): the 2-bit indices come out
 * of one shift and mask; one vpshufb spreads each lane's meta byte over the lane; vpermd picks
 * each lane's codebook (4 bytes, u = c + 64) from the 8-codebook register (its dword index is the
 * meta byte's low 3 bits) and vpshufb looks the elements up in it — §5.3's register-resident
 * codebooks; vpmaddubsw multiplies u by the q8_K activations (pair sums <= 32512, no
 * saturation); vpmaddwd applies the 5-bit local scales (meta >> 3, one 16-bit shift).  The offset
 * is removed in the same accumulator (vpmaddwd of the 16 bsums with -64 * ls).  The int32
 * accumulators of four super-blocks are reduced together, then the float steps follow the
 * reference's order: the reference's bits.  9 instructions per 32 weights (3 of them shuffles). */
#include <immintrin.h>

#include "../common/act_quant.h"
#include "cb2.h"
#include "cb_simd.h"

#define CHUNK 4 /* super-blocks reduced together */

static inline __attribute__((always_inline)) void row_nc(const bb_cb2_block *row, const bb_block_q8_K *const *a,
                                                         const int nc, int nb, __m256i books, const __m256i *ctrl,
                                                         float *out)
{
    const __m256i m3 = _mm256_set1_epi8(3);
    float sum[BB_CB_NB_MAX] = {0};
    for (int b0 = 0; b0 < nb; b0 += CHUNK) {
        const int cnt = nb - b0 < CHUNK ? nb - b0 : CHUNK;
        __m256i v[BB_CB_NB_MAX][CHUNK];
        for (int j = 0; j < CHUNK; j++) {
            if (j >= cnt) {
                for (int c = 0; c < nc; c++) v[c][j] = _mm256_setzero_si256();
                continue;
            }
            const bb_cb2_block *blk = &row[b0 + j];
            bb_prefetch_stream(blk);
            bb_prefetch_stream((const char *)blk + 64);
            __m128i meta = _mm_loadu_si128((const __m128i *)blk->meta);
            __m256i metab = _mm256_broadcastsi128_si256(meta);
            __m256i off = _mm256_sub_epi16(
                _mm256_setzero_si256(),
                _mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(meta, 3), _mm_set1_epi8(31))), 6));
            __m256i acc[BB_CB_NB_MAX];
            for (int c = 0; c < nc; c++)
                acc[c] = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)a[c][b0 + j].bsums), off);
            for (int h = 0; h < 2; h++) {
                __m256i raw = _mm256_loadu_si256((const __m256i *)(blk->qs + 32 * h));
                for (int s = 0; s < 4; s++) {
                    /* elements 64s + 32h .. +31 = sub-groups 4s + 2h, 4s + 2h + 1 */
                    __m256i e = _mm256_and_si256(_mm256_srli_epi16(raw, 2 * s), m3);
                    __m256i mb = _mm256_shuffle_epi8(metab, ctrl[2 * s + h]);
                    __m256i u = _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(books, mb), e);
                    __m256i ls = _mm256_srli_epi16(mb, 11);
                    for (int c = 0; c < nc; c++) {
                        __m256i q = _mm256_loadu_si256((const __m256i *)(a[c][b0 + j].qs + 64 * s + 32 * h));
                        acc[c] = _mm256_add_epi32(acc[c], _mm256_madd_epi16(_mm256_maddubs_epi16(u, q), ls));
                    }
                }
            }
            for (int c = 0; c < nc; c++) v[c][j] = acc[c];
        }
        for (int c = 0; c < nc; c++) {
            int32_t isum[CHUNK];
            _mm_storeu_si128((__m128i *)isum, bb_cb_reduce4_epi32(v[c][0], v[c][1], v[c][2], v[c][3]));
            for (int j = 0; j < cnt; j++)
                sum[c] += (bb_cb_f16(row[b0 + j].d) * a[c][b0 + j].d) * (float)isum[j];
        }
    }
    for (int c = 0; c < nc; c++) out[c] = sum[c];
}

void bb_cb2_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    const int nb = k / BB_CB2_QK;
    /* codebook k = dword k: the u bytes of its 4 centroids */
    const __m256i books = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)bb_cb2_books(w, m, k)),
                                          _mm256_set1_epi8(BB_CB2_OFFSET));
    /* ctrl[p]: lane 0 all bytes 2p, lane 1 all bytes 2p + 1: the meta bytes of sub-groups 2p, 2p+1 */
    __m256i ctrl[8];
    for (int p = 0; p < 8; p++)
        ctrl[p] = _mm256_setr_m128i(_mm_set1_epi8((char)(2 * p)), _mm_set1_epi8((char)(2 * p + 1)));
    for (int c0 = 0; c0 < n; c0 += BB_CB_NB_MAX) {
        const int ncol = n - c0 < BB_CB_NB_MAX ? n - c0 : BB_CB_NB_MAX;
        const bb_block_q8_K *a[BB_CB_NB_MAX];
        for (int c = 0; c < ncol; c++) a[c] = (const bb_block_q8_K *)act + (size_t)(c0 + c) * nb;
        for (int r = m0; r < m1; r++) {
            const bb_cb2_block *row = bb_cb2_row(w, k, r);
            float out[BB_CB_NB_MAX];
            switch (ncol) {
            case 1: row_nc(row, a, 1, nb, books, ctrl, out); break;
            case 2: row_nc(row, a, 2, nb, books, ctrl, out); break;
            case 3: row_nc(row, a, 3, nb, books, ctrl, out); break;
            default: row_nc(row, a, 4, nb, books, ctrl, out); break;
            }
            for (int c = 0; c < ncol; c++) y[(size_t)(c0 + c) * m + r] = out[c];
        }
    }
}
