/* tq2_0_x16, AVX-512 VNNI: 16 rows at once, one int32 lane per row, no horizontal sums.
 *
 * A run's 64 bytes hold 4 code bytes of each row (tq2_0_x16.h).  Plane l is v & (3 << 2l): the
 * codes times 4^l, unsigned bytes <= 192, so one vpdpbusd against the plane's 4 activations
 * (broadcast from the q8_K block, an embedded-broadcast operand: common/dpbusd_bcast.h) adds 4^l
 * times its 4 products to the row's lane; no shift is taken per run.  Per plane of a run (64
 * codes, 4 of each row): one vpandd and one vpdpbusd, split between the two 512-bit ports.  Each
 * plane keeps its own accumulators, whose lanes are exact multiples of 4^l (a block: at most 64
 * products of 3 * 128 per lane, times 64, < 2^21), so per record three arithmetic shifts bring
 * them to a common scale exactly; less the block's sum of q (codes c are t + 1) that is isum_b,
 * and tq2_0's float steps follow lane-wise: the reference's bits.  A stray code 3 is 3 here as in
 * the reference. */
#include <immintrin.h>

#include "../common/dpbusd_bcast.h"
#include "../common/prefetch.h"
#include "tq2_0_x16.h"
#include "x16_rows_avx512.h"

#define CHAINS_MAX 2 /* accumulators per plane: vpdpbusd's latency covered at N = 1 */

/* sumf[c] += the 16 rows' block terms of one record against block b of activation rows a[c],
 * c < nb.  acc[c][l][j]: plane l, chain j (2 for one row: 8 sums in flight; 1 for more). */
static inline __attribute__((always_inline)) void record_terms(const uint8_t *rec, const bb_block_q8_K *const *a,
                                                               int b, const int nb, __m512 *sumf, size_t ahead,
                                                               const bool pf)
{
    const int chains = nb == 1 ? CHAINS_MAX : 1;
    __m512i acc[X16_NB_MAX][4][CHAINS_MAX];
    for (int c = 0; c < nb; c++)
        for (int l = 0; l < 4; l++)
            for (int j = 0; j < chains; j++) acc[c][l][j] = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (int r = 0; r < BB_TQ2_0_X16_RUNS; r++) {
        /* the record's 17 lines prefetched one per run (and the scales' with the first), as in
         * tq1_0_x16_avx512.c */
        if (pf) bb_prefetch_interleaved(rec + 64 * r, ahead, BB_PREFETCH_L1_BYTES);
        if (pf && r == 0) bb_prefetch_interleaved(rec + BB_TQ2_0_X16_D, ahead, BB_PREFETCH_L1_BYTES);
        __m512i v = _mm512_loadu_si512(rec + 64 * r);
        const int j = r % chains;
#pragma GCC unroll 4
        for (int l = 0; l < 4; l++) {
            __m512i plane = _mm512_and_si512(v, _mm512_set1_epi8((char)(3 << (2 * l))));
            for (int c = 0; c < nb; c++)
                acc[c][l][j] = bb_dpbusd_bcast4(acc[c][l][j], plane, a[c][b].qs + bb_tq2_0_x16_value(r, l));
        }
    }
    __m512 wd = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(rec + BB_TQ2_0_X16_D)));
    for (int c = 0; c < nb; c++) {
        const bb_block_q8_K *ab = &a[c][b];
        int32_t sumq = 0;
        for (int s = 0; s < 16; s++) sumq += ab->bsums[s];
        __m512i p[4];
        for (int l = 0; l < 4; l++) {
            p[l] = acc[c][l][0];
            for (int j = 1; j < chains; j++) p[l] = _mm512_add_epi32(p[l], acc[c][l][j]);
        }
        __m512i s = _mm512_add_epi32(_mm512_add_epi32(p[0], _mm512_srai_epi32(p[1], 2)),
                                     _mm512_add_epi32(_mm512_srai_epi32(p[2], 4), _mm512_srai_epi32(p[3], 6)));
        __m512i isum = _mm512_sub_epi32(s, _mm512_set1_epi32(sumq));
        __m512 d = _mm512_mul_ps(_mm512_set1_ps(ab->d), wd);
        sumf[c] = _mm512_add_ps(sumf[c], _mm512_mul_ps(_mm512_cvtepi32_ps(isum), d));
    }
}

void bb_tq2_0_x16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    x16_matmul(w, BB_TQ2_0_X16_RECORD, act, y, m, k, n, m0, m1, true);
}
