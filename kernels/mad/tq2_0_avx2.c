/* tq2_0, AVX2: per 32-byte half of a block, the four planes by shift and mask (codes 0..3),
 * vpmaddubsw (code x q, int16) summed over the 8 planes of the block in int16 (|.| <= 6144),
 * widened with vpmaddwd; four blocks' partial sums reduced together (ggml_k_avx2.h), the block
 * sums of q subtracted, then the per-block products and the fold in block order of the reference
 * (ggml_k.h).  Decoded codes serve up to BB_GK_NB activation rows. */
#include <immintrin.h>
#include <stddef.h>

#include "ggml_k_avx2.h"
#include "tq2_0.h"

/* The 8 plane vectors of a block by shift and mask, lined up with q[32p..32p+31]. */
static inline void decode(const uint8_t *b, __m256i c[8])
{
    const bb_block_tq2_0 *blk = (const bb_block_tq2_0 *)b;
    const __m256i mask = _mm256_set1_epi8(3);
    bb_prefetch_stream(blk->qs);
    bb_prefetch_stream(blk->qs + sizeof *blk - 1);
    for (int h = 0; h < 2; h++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(blk->qs + 32 * h));
        c[4 * h + 0] = _mm256_and_si256(v, mask);
        c[4 * h + 1] = _mm256_and_si256(_mm256_srli_epi16(v, 2), mask);
        c[4 * h + 2] = _mm256_and_si256(_mm256_srli_epi16(v, 4), mask);
        c[4 * h + 3] = _mm256_and_si256(_mm256_srli_epi16(v, 6), mask);
    }
}

static inline __attribute__((always_inline)) void tq2_0_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                               int nblk, float *out)
{
    bb_gk_tq_row_avx2(wrow, sizeof(bb_block_tq2_0), offsetof(bb_block_tq2_0, d), decode, a, nb, nblk, out);
}

BB_GK_ROW_BY_NB(tq2_0_row, tq2_0_row_nb)

void bb_tq2_0_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_tq2_0_row_bytes(k), act, y, m, k, n, m0, m1, tq2_0_row);
}
