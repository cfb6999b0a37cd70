/* tq2_0, AVX2: per 32-byte half of a block, the four planes by shift and mask (codes 0..3),
 * vpmaddubsw (code x q, int16) summed over the 8 planes of the block in int16 (|.| <= 6144),
 * widened with vpmaddwd; four blocks' partial sums reduced together (ggml_k_avx2.h), the block
 * sums of q subtracted, then the per-block products and the fold in block order of the reference
 * (ggml_k.h).  Decoded codes serve up to BB_GK_NB activation rows. */
#include <immintrin.h>

#include "ggml_k_avx2.h"
#include "tq2_0.h"

static inline __attribute__((always_inline)) void tq2_0_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                               int nblk, float *out)
{
    const bb_block_tq2_0 *x = (const bb_block_tq2_0 *)wrow;
    const __m256i mask = _mm256_set1_epi8(3), ones = _mm256_set1_epi16(1);
    float sumf[BB_GK_NB] = {0};
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        float wd[BB_GK_CHUNK] = {0};
        int32_t csum[BB_GK_NB][BB_GK_CHUNK] = {{0}};
        for (int g = 0; g < nc; g += 4) {
            __m256i s[BB_GK_NB][4];
            for (int j = 0; j < 4; j++) {
                if (g + j >= nc) {
                    for (int r = 0; r < nb; r++) s[r][j] = _mm256_setzero_si256();
                    continue;
                }
                const bb_block_tq2_0 *blk = &x[b0 + g + j];
                wd[g + j] = _cvtsh_ss(blk->d);
                __m256i c[8];
                for (int h = 0; h < 2; h++) {
                    __m256i v = _mm256_loadu_si256((const __m256i *)(blk->qs + 32 * h));
                    c[4 * h + 0] = _mm256_and_si256(v, mask);
                    c[4 * h + 1] = _mm256_and_si256(_mm256_srli_epi16(v, 2), mask);
                    c[4 * h + 2] = _mm256_and_si256(_mm256_srli_epi16(v, 4), mask);
                    c[4 * h + 3] = _mm256_and_si256(_mm256_srli_epi16(v, 6), mask);
                }
                for (int r = 0; r < nb; r++)
                    s[r][j] = _mm256_madd_epi16(bb_gk_dot8_i16(c, a[r].q[b0 + g + j].qs), ones);
            }
            for (int r = 0; r < nb; r++)
                _mm_storeu_si128((__m128i *)&csum[r][g], bb_gk_reduce4_avx2(s[r][0], s[r][1], s[r][2], s[r][3]));
        }
        for (int r = 0; r < nb; r++) sumf[r] = bb_gk_fold_tq_avx2(sumf[r], csum[r], &a[r], b0, wd, nc);
    }
    for (int r = 0; r < nb; r++) out[r] = sumf[r];
}

static void tq2_0_row(const uint8_t *wrow, const bb_gk_arow *a, int nb, int nblk, float *out)
{
    switch (nb) {
    case 1: tq2_0_row_nb(wrow, a, 1, nblk, out); break;
    case 2: tq2_0_row_nb(wrow, a, 2, nblk, out); break;
    case 3: tq2_0_row_nb(wrow, a, 3, nblk, out); break;
    default: tq2_0_row_nb(wrow, a, 4, nblk, out); break;
    }
}

void bb_tq2_0_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_tq2_0_row_bytes(k), act, y, m, k, n, m0, m1, tq2_0_row);
}
