/* q2_k, AVX2.  Per 32-byte half of a super-block the four planes by shift and mask; vpmaddubsw
 * (code x q) gives 16 int16 lanes whose low 8 cover one 16-value sub-block and high 8 the next,
 * so one vpmaddwd with [sc_a x8 | sc_b x8] (vpshufb of the 16 nibble scales) applies the
 * sub-block scales and widens to int32 (ggml's AVX2 Q2_K scheme).  The min term is one vpmaddwd
 * of the 16 bsums with the 16 mins.  Four super-blocks' partial sums are reduced together, then
 * the per-block products and the fold in block order of the reference (ggml_k.h).  Decoded codes
 * and scales serve up to BB_GK_NB activation rows. */
#include <immintrin.h>

#include "ggml_k_avx2.h"
#include "q2_k.h"

/* vpshufb controls: plane p (0..7) takes scale 2p into the low 128 bits and 2p+1 into the high
 * 128 bits, each as 8 int16 (index byte, then 0x80 = zero). */
static const int8_t scale_shuffle[8][32] = {
#define SH(a) a, -128, a, -128, a, -128, a, -128, a, -128, a, -128, a, -128, a, -128
    {SH(0), SH(1)}, {SH(2), SH(3)}, {SH(4), SH(5)}, {SH(6), SH(7)},
    {SH(8), SH(9)}, {SH(10), SH(11)}, {SH(12), SH(13)}, {SH(14), SH(15)},
#undef SH
};

static inline float fold(float sumf, const int32_t *isum, const int32_t *summs, const bb_gk_arow *a, int b0,
                         const float *wd, const float *wdmin, int nc)
{
    float r[BB_GK_CHUNK];
    for (int i = 0; i < BB_GK_CHUNK; i += 8) {
        __m256 ad = _mm256_loadu_ps(a->d + b0 + i);
        __m256 dall = _mm256_mul_ps(ad, _mm256_loadu_ps(wd + i)), dmin = _mm256_mul_ps(ad, _mm256_loadu_ps(wdmin + i));
        __m256 p = _mm256_mul_ps(dall, _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(isum + i))));
        __m256 q = _mm256_mul_ps(dmin, _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(summs + i))));
        _mm256_storeu_ps(r + i, _mm256_sub_ps(p, q));
    }
    return bb_gk_fold(sumf, r, nc);
}

static inline __attribute__((always_inline)) void q2_k_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                              int nblk, float *out)
{
    const bb_block_q2_K *x = (const bb_block_q2_K *)wrow;
    const __m256i mask = _mm256_set1_epi8(3);
    const __m128i nib = _mm_set1_epi8(0x0f);
    float sumf[BB_GK_NB] = {0};
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        float wd[BB_GK_CHUNK] = {0}, wdmin[BB_GK_CHUNK] = {0};
        int32_t isum[BB_GK_NB][BB_GK_CHUNK] = {{0}}, summs[BB_GK_NB][BB_GK_CHUNK] = {{0}};
        for (int g = 0; g < nc; g += 4) {
            __m256i si[BB_GK_NB][4], sm[BB_GK_NB][4];
            for (int j = 0; j < 4; j++) {
                if (g + j >= nc) {
                    for (int r = 0; r < nb; r++) si[r][j] = sm[r][j] = _mm256_setzero_si256();
                    continue;
                }
                const bb_block_q2_K *blk = &x[b0 + g + j];
                bb_prefetch_stream(blk);
                bb_prefetch_stream((const uint8_t *)blk + sizeof *blk - 1); /* 84 bytes: both ends */
                wd[g + j] = _cvtsh_ss(blk->d);
                wdmin[g + j] = _cvtsh_ss(blk->dmin);
                __m128i sc = _mm_loadu_si128((const __m128i *)blk->scales);
                __m256i scales = _mm256_broadcastsi128_si256(_mm_and_si128(sc, nib));
                __m256i mins = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sc, 4), nib));
                __m256i c[8], s[8];
                for (int h = 0; h < 2; h++) {
                    __m256i v = _mm256_loadu_si256((const __m256i *)(blk->qs + 32 * h));
                    c[4 * h + 0] = _mm256_and_si256(v, mask);
                    c[4 * h + 1] = _mm256_and_si256(_mm256_srli_epi16(v, 2), mask);
                    c[4 * h + 2] = _mm256_and_si256(_mm256_srli_epi16(v, 4), mask);
                    c[4 * h + 3] = _mm256_and_si256(_mm256_srli_epi16(v, 6), mask);
                }
                for (int p = 0; p < 8; p++)
                    s[p] = _mm256_shuffle_epi8(scales, _mm256_loadu_si256((const __m256i *)scale_shuffle[p]));
                for (int r = 0; r < nb; r++) {
                    const bb_block_q8_K *ab = &a[r].q[b0 + g + j];
                    __m256i acc = _mm256_setzero_si256();
                    for (int p = 0; p < 8; p++) {
                        __m256i prod = _mm256_maddubs_epi16(c[p], _mm256_loadu_si256((const __m256i *)(ab->qs + 32 * p)));
                        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(prod, s[p]));
                    }
                    si[r][j] = acc;
                    sm[r][j] = _mm256_madd_epi16(mins, _mm256_loadu_si256((const __m256i *)ab->bsums));
                }
            }
            for (int r = 0; r < nb; r++) {
                _mm_storeu_si128((__m128i *)&isum[r][g], bb_gk_reduce4_avx2(si[r][0], si[r][1], si[r][2], si[r][3]));
                _mm_storeu_si128((__m128i *)&summs[r][g], bb_gk_reduce4_avx2(sm[r][0], sm[r][1], sm[r][2], sm[r][3]));
            }
        }
        for (int r = 0; r < nb; r++) sumf[r] = fold(sumf[r], isum[r], summs[r], &a[r], b0, wd, wdmin, nc);
    }
    for (int r = 0; r < nb; r++) out[r] = sumf[r];
}

BB_GK_ROW_BY_NB(q2_k_row, q2_k_row_nb)

void bb_q2_k_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_q2_k_row_bytes(k), act, y, m, k, n, m0, m1, q2_k_row);
}
