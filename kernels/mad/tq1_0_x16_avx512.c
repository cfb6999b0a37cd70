/* tq1_0_x16, AVX-512 VNNI: 16 rows at once, one int32 lane per row, no horizontal sums.
 *
 * Trit n of a code byte b is c_n = (3 q_n) >> 8 with q_n = b * 3^n mod 256 (tq1_0.h), and
 * q_{n+1} = 3 q_n mod 256 is the low byte of that same product, so
 *     256 c_n = 3 q_n - q_{n+1}        exactly, for every byte b.
 * A trit is therefore never formed: the sum of c_n * a over the 4 codes of a lane is
 * (3 (q_n . a) - (q_{n+1} . a)) / 256, and q_n . a and q_{n+1} . a are two vpdpbusd of the bytes
 * q_n (u8) against the same 4 activations (s8), broadcast from the q8_K block.  Per 64 codes: two
 * vpaddb (q_{n+1} = q_n + q_n + q_n, wrapping) and two vpdpbusd, four vector instructions split
 * between the two 512-bit ports; a 256-entry table lookup of the trit took two vpermi2b, both on
 * the shuffle port, and a vpdpbusd.  The sums stay exact in int32 (a block: at most 64 products
 * of 4, |.| <= 64 * 4 * 255 * 128, three times that < 2^31), the division by 256 is exact, and
 * less the block's sum of q it is isum_b; tq1_0's float steps follow lane-wise: the reference's
 * bits.  The count per weight: docs/measurements/2026-11-29-tq-kernels.md. */
#include <immintrin.h>

#include "../common/dpbusd_bcast.h"
#include "../common/prefetch.h"
#include "tq1_0_x16.h"
#include "x16_rows_avx512.h"


/* First weight of trit n of run c (tq1_0_x16.h). */
static inline int run_value(int c, int n)
{
    return c < 8 ? 32 * n + 4 * c : (c < 12 ? 160 + 16 * n + 4 * (c - 8) : 240 + 4 * n);
}

#define CHAINS_MAX 3 /* independent accumulators per sum: vpdpbusd's latency covered at N = 1 */

/* sumf[c] += the 16 rows' block terms of one record against block b of activation rows a[c],
 * c < nb.  lo[c] gathers q_n . a, hi[c] q_{n+1} . a, in `chains` accumulators each (3 for one
 * row, 2 for two, 1 for more: 6 to 8 in flight). */
static inline __attribute__((always_inline)) void record_terms(const uint8_t *rec, const bb_block_q8_K *const *a,
                                                               int b, const int nb, __m512 *sumf, size_t ahead,
                                                               const bool pf)
{
    const int chains = nb == 1 ? 3 : (nb == 2 ? 2 : 1);
    __m512i lo[X16_NB_MAX][CHAINS_MAX], hi[X16_NB_MAX][CHAINS_MAX];
    for (int c = 0; c < nb; c++)
        for (int j = 0; j < chains; j++) lo[c][j] = hi[c][j] = _mm512_setzero_si512();
    int j = 0;
#pragma GCC unroll 13
    for (int r = 0; r < BB_TQ1_0_X16_RUNS; r++) {
        /* the record's 14 lines prefetched one per run, as in tq1_0_x16_avx2.c */
        if (pf) bb_prefetch_interleaved(rec + 64 * r, ahead, BB_PREFETCH_L1_BYTES);
        if (pf && r == 0) bb_prefetch_interleaved(rec + BB_TQ1_0_X16_D, ahead, BB_PREFETCH_L1_BYTES);
        __m512i q = _mm512_loadu_si512(rec + 64 * r);
        const int trits = r == BB_TQ1_0_X16_RUNS - 1 ? 4 : 5; /* qh bytes hold 4 trits */
#pragma GCC unroll 5
        for (int n = 0; n < trits; n++) {
            __m512i next = _mm512_add_epi8(_mm512_add_epi8(q, q), q);
            for (int c = 0; c < nb; c++) {
                const int8_t *act = a[c][b].qs + run_value(r, n);
                lo[c][j] = bb_dpbusd_bcast4(lo[c][j], q, act);
                hi[c][j] = bb_dpbusd_bcast4(hi[c][j], next, act);
            }
            q = next;
            j = j + 1 == chains ? 0 : j + 1;
        }
    }
    __m512 wd = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(rec + BB_TQ1_0_X16_D)));
    for (int c = 0; c < nb; c++) {
        const bb_block_q8_K *ab = &a[c][b];
        int32_t sumq = 0;
        for (int s = 0; s < 16; s++) sumq += ab->bsums[s];
        __m512i l = lo[c][0], h = hi[c][0];
        for (int k = 1; k < chains; k++) {
            l = _mm512_add_epi32(l, lo[c][k]);
            h = _mm512_add_epi32(h, hi[c][k]);
        }
        __m512i cq = _mm512_srai_epi32(_mm512_sub_epi32(_mm512_add_epi32(_mm512_add_epi32(l, l), l), h), 8);
        __m512i isum = _mm512_sub_epi32(cq, _mm512_set1_epi32(sumq));
        __m512 d = _mm512_mul_ps(_mm512_set1_ps(ab->d), wd);
        sumf[c] = _mm512_add_ps(sumf[c], _mm512_mul_ps(_mm512_cvtepi32_ps(isum), d));
    }
}

void bb_tq1_0_x16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    x16_matmul(w, BB_TQ1_0_X16_RECORD, act, y, m, k, n, m0, m1, false);
}
