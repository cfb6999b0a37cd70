/* q2_k_x16, AVX-512 VNNI: 16 rows at once, one int32 lane per row, no horizontal sums.
 *
 * One 64-byte load of a record holds 4 code bytes of each row (q2_k_x16.h), i.e. codes of 4
 * consecutive weights in each of the 4 planes.  Plane l is isolated in place by masks: v & 0x03
 * and v & 0x0c give planes 0 and 1 (times 1 and 4), (v >> 4) & 0x03 and & 0x0c planes 2 and 3;
 * each is multiplied with the 4 matching activations, broadcast to every lane from the q8_K
 * block, by one vpdpbusd.  A 16-weight sub-block j takes 4 of them into its own accumulator,
 * |lane| <= 16 * 12 * 128 < 2^15, so the lane is also an exact int16 with a sign-extension high
 * half, and one vpdpwssd with the row's scale in the low word (0 in the high word) adds
 * sc_j * (1 or 4) * dot_j to the block's sum: the sum is 4 * isum exactly (planes 0 and 2 get
 * 4 * sc_j) and an arithmetic shift by 2 gives isum.  The min term is one vpdpwssd per pair of
 * sub-blocks: the two rows' 4-bit mins as words against the two bsums broadcast.  Then q2_k's
 * float steps (bb_q2_k_block_term) lane-wise, the 16 rows' d and dmin converted from the record
 * at once: the reference's bits.  8 sub-block accumulators are in flight at a time.  Decode
 * reads a call's groups in lockstep through x16_rows_avx512.h, or in order with no software
 * prefetch where the CPU's one-stream rule is off (kernels/cpu.h). */
#include <immintrin.h>
#include <string.h>

#include "../common/dpbusd_bcast.h"
#include "../common/prefetch.h"
#include "q2_k_x16.h"
#include "x16_rows_avx512.h"


/* The 16 rows' block terms of one record against one q8_K block; pf: prefetch its lines ahead. */
static inline __attribute__((always_inline)) __m512 block_terms(const uint8_t *rec, const bb_block_q8_K *ab,
                                                                size_t ahead, const bool pf)
{
    const __m512i m03 = _mm512_set1_epi8(0x03), m0c = _mm512_set1_epi8(0x0c);
    const __m512i lo4 = _mm512_set1_epi32(0x0f), x4 = _mm512_set1_epi32(0x3c);
    const __m512i mins_mask = _mm512_set1_epi32(0x000f000f);
    __m512i isum4 = _mm512_setzero_si512(), summs = _mm512_setzero_si512();
    for (int h = 0; h < 2; h++) {
        __m512i acc[4][2]; /* [plane][sub-block of the plane's 32 weights] */
        for (int l = 0; l < 4; l++) acc[l][0] = acc[l][1] = _mm512_setzero_si512();
        for (int g = 0; g < 4; g++)
            for (int s = 0; s < 2; s++) {
                int q = 4 * s + g;
                /* the record's 21 lines prefetched one or two per load, as in q2_k_x16_avx2.c: a run
                 * of 42 prefetches at the record's start held every L1 miss buffer, the loads behind
                 * it waited (docs/measurements/2026-11-29-xeon.md) */
                if (pf) bb_prefetch_interleaved(rec + BB_Q2_K_X16_QS + 64 * (8 * h + q), ahead, BB_PREFETCH_L1_BYTES);
                if (pf && h == 0 && q < 5)
                    bb_prefetch_interleaved(rec + (q < 4 ? BB_Q2_K_X16_SCALES + 64 * q : BB_Q2_K_X16_D), ahead,
                                            BB_PREFETCH_L1_BYTES);
                __m512i v = _mm512_loadu_si512(rec + BB_Q2_K_X16_QS + 64 * (8 * h + q)), v4 = _mm512_srli_epi16(v, 4);
                const int8_t *qa = ab->qs + 128 * h + 4 * q;
                acc[0][s] = bb_dpbusd_bcast4(acc[0][s], _mm512_and_si512(v, m03), qa);
                acc[1][s] = bb_dpbusd_bcast4(acc[1][s], _mm512_and_si512(v, m0c), qa + 32);
                acc[2][s] = bb_dpbusd_bcast4(acc[2][s], _mm512_and_si512(v4, m03), qa + 64);
                acc[3][s] = bb_dpbusd_bcast4(acc[3][s], _mm512_and_si512(v4, m0c), qa + 96);
            }
        for (int l = 0; l < 4; l++) {
            int p = 4 * h + l; /* sub-blocks 2p, 2p+1 */
            /* lane i: row i's scales[2p] in the low word, scales[2p+1] in the high word */
            __m512i w = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(rec + BB_Q2_K_X16_SCALES + 32 * p)));
            __m512i sc0, sc1;
            if (l % 2 == 0) { /* planes 0 and 2 are at weight 1: their scales times 4 */
                sc0 = _mm512_and_si512(_mm512_slli_epi32(w, 2), x4);
                sc1 = _mm512_and_si512(_mm512_srli_epi32(w, 14), x4);
            } else {
                sc0 = _mm512_and_si512(w, lo4);
                sc1 = _mm512_and_si512(_mm512_srli_epi32(w, 16), lo4);
            }
            isum4 = _mm512_dpwssd_epi32(isum4, acc[l][0], sc0);
            isum4 = _mm512_dpwssd_epi32(isum4, acc[l][1], sc1);
            int32_t bs;
            memcpy(&bs, ab->bsums + 2 * p, 4);
            summs = _mm512_dpwssd_epi32(summs, _mm512_and_si512(_mm512_srli_epi16(w, 4), mins_mask), _mm512_set1_epi32(bs));
        }
    }
    __m512i isum = _mm512_srai_epi32(isum4, 2);
    __m512 ad = _mm512_set1_ps(ab->d);
    __m512 dall = _mm512_mul_ps(ad, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(rec + BB_Q2_K_X16_D))));
    __m512 dmin = _mm512_mul_ps(ad, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(rec + BB_Q2_K_X16_DMIN))));
    __m512 p = _mm512_mul_ps(dall, _mm512_cvtepi32_ps(isum)), q = _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(summs));
    return _mm512_sub_ps(p, q);
}

/* x16_rows_avx512.h's record_terms, used by its decode (nb = 1). */
static inline __attribute__((always_inline)) void record_terms(const uint8_t *rec, const bb_block_q8_K *const *a,
                                                               int b, const int nb, __m512 *sumf, size_t ahead,
                                                               const bool pf)
{
    for (int c = 0; c < nb; c++) sumf[c] = _mm512_add_ps(sumf[c], block_terms(rec, &a[c][b], ahead, pf));
}

/* Each activation row walks the group's records (16 * K * 2.625 / 8 bytes, in L1/L2) in turn:
 * x16_matmul's four rows per record were no faster in a quick check (N = 8, 2026-11-30). */
static inline __attribute__((always_inline)) void rows_in_order(const void *w, const void *act, float *y, int m,
                                                                int k, int n, int m0, int m1, const bool pf)
{
    int nblk = k / BB_QK_K;
    for (int r = m0; r < m1; r += BB_Q2_K_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_Q2_K_X16_ROWS) * nblk * BB_Q2_K_X16_RECORD;
        for (int c = 0; c < n; c++) {
            const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nblk;
            __m512 sumf = _mm512_setzero_ps();
            for (int b = 0; b < nblk; b++) {
                const uint8_t *rec = grp + (size_t)b * BB_Q2_K_X16_RECORD;
                sumf = _mm512_add_ps(sumf, block_terms(rec, &a[b], BB_PREFETCH_BYTES, pf));
            }
            _mm512_storeu_ps(y + (size_t)c * m + r, sumf);
        }
    }
}

void bb_q2_k_x16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    if (!bb_cpu_stream_prefetch()) { /* one stream, left to the hardware (x16_rows_avx512.h) */
        rows_in_order(w, act, y, m, k, n, m0, m1, false);
        return;
    }
    if (n == 1) {
        x16_decode_streams(w, BB_Q2_K_X16_RECORD, act, y, k, m0, m1);
        return;
    }
    rows_in_order(w, act, y, m, k, n, m0, m1, true);
}
