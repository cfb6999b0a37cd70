/* tq1_0_x16, AVX-512 VBMI + VNNI: 16 rows at once, one int32 lane per row, no horizontal sums.
 *
 * Trit n of a code byte b is T_n[b] = (((b * 3^n) mod 256) * 3) >> 8 (tq1_0.h), a function of
 * the byte alone: one 256-entry table per n, looked up for 64 bytes at once by two masked
 * vpermi2b (entries 128-255 for the bytes with the top bit set, then 0-127 for the others, each
 * half from two 64-byte registers).  That is 2 instructions per 64 codes (and a register copy)
 * where the byte-multiply-and-compare extraction of tq1_0's AVX-512 variant takes 6 to 8.  Each trit vector (4 codes c in {0,1,2} of each row) meets its
 * 4 activations, broadcast from the q8_K block, in one vpdpbusd; the block's sum of c * q, exact
 * in int32 (|.| <= 256 * 2 * 128), less its sum of q is isum_b, and tq1_0's float steps follow
 * lane-wise: the reference's bits. */
#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#include "../common/prefetch.h"
#include "tq1_0_x16.h"

static uint8_t trit_table[5][256] __attribute__((aligned(64)));
static pthread_once_t trit_table_once = PTHREAD_ONCE_INIT;

static void trit_table_init(void)
{
    unsigned p = 1;
    for (int n = 0; n < 5; n++, p *= 3)
        for (unsigned b = 0; b < 256; b++) trit_table[n][b] = (uint8_t)((((b * p) & 255u) * 3u) >> 8);
}

static inline __m512i bcast4(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

/* T[v] for the 64 bytes v, T in four registers; top: the bytes >= 128.  Two vpermi2b that
 * write into their index register under a mask: the first replaces the top bytes by entries
 * 128-255 and leaves the others as they were, indices, which the second then looks up in
 * entries 0-127 (no blend). */
static inline __attribute__((always_inline)) __m512i lookup(__m512i v, __mmask64 top, const __m512i t[4])
{
    __m512i r = _mm512_mask2_permutex2var_epi8(t[2], v, top, t[3]);
    return _mm512_mask2_permutex2var_epi8(t[0], r, (__mmask64)~top, t[1]);
}

/* First weight of trit n of run c (tq1_0_x16.h). */
static inline int run_value(int c, int n)
{
    return c < 8 ? 32 * n + 4 * c : (c < 12 ? 160 + 16 * n + 4 * (c - 8) : 240 + 4 * n);
}

#define NB_MAX 4 /* activation rows sharing each decoded trit vector (N > 1) */

/* sumf[c] += the 16 rows' block terms of one record against block b of activation rows a[c],
 * c < nb: each trit vector is looked up once for the nb rows; chains: 4 accumulators for one
 * row, 2 per row for more. */
static inline __attribute__((always_inline)) void record_terms(const uint8_t *rec, const bb_block_q8_K *const *a,
                                                               int b, const int nb, const __m512i tab[5][4],
                                                               __m512 *sumf)
{
    const int chains = nb == 1 ? 4 : 2;
    __m512i acc[NB_MAX][4];
    for (int c = 0; c < nb; c++)
        for (int j = 0; j < chains; j++) acc[c][j] = _mm512_setzero_si512();
    int j = 0;
#pragma GCC unroll 13
    for (int r = 0; r < BB_TQ1_0_X16_RUNS; r++) {
        /* the record's 14 lines prefetched one per run, as in tq1_0_x16_avx2.c */
        bb_prefetch_stream(rec + 64 * r);
        if (r == 0) bb_prefetch_stream(rec + BB_TQ1_0_X16_D);
        __m512i v = _mm512_loadu_si512(rec + 64 * r);
        __mmask64 top = _mm512_movepi8_mask(v);
#pragma GCC unroll 5
        for (int n = 0; n < 5; n++) {
            if (r == 12 && n == 4) break; /* qh bytes hold 4 trits */
            __m512i codes = lookup(v, top, tab[n]);
            for (int c = 0; c < nb; c++)
                acc[c][j] = _mm512_dpbusd_epi32(acc[c][j], codes, bcast4(a[c][b].qs + run_value(r, n)));
            j = (j + 1) % chains;
        }
    }
    __m512 wd = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(rec + BB_TQ1_0_X16_D)));
    for (int c = 0; c < nb; c++) {
        const bb_block_q8_K *ab = &a[c][b];
        int32_t sumq = 0;
        for (int s = 0; s < 16; s++) sumq += ab->bsums[s];
        __m512i isum = chains == 4 ? _mm512_add_epi32(_mm512_add_epi32(acc[c][0], acc[c][1]),
                                                      _mm512_add_epi32(acc[c][2], acc[c][3]))
                                   : _mm512_add_epi32(acc[c][0], acc[c][1]);
        isum = _mm512_sub_epi32(isum, _mm512_set1_epi32(sumq));
        __m512 d = _mm512_mul_ps(_mm512_set1_ps(ab->d), wd);
        sumf[c] = _mm512_add_ps(sumf[c], _mm512_mul_ps(_mm512_cvtepi32_ps(isum), d));
    }
}

/* One group of 16 rows against activation rows c0 .. c0+nb-1. */
static inline __attribute__((always_inline)) void group_rows(const uint8_t *grp, const void *act, float *y, int m,
                                                             int nblk, int r, int c0, const int nb,
                                                             const __m512i tab[5][4])
{
    const bb_block_q8_K *a[NB_MAX];
    __m512 sumf[NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = (const bb_block_q8_K *)act + (size_t)(c0 + c) * nblk;
        sumf[c] = _mm512_setzero_ps();
    }
    for (int b = 0; b < nblk; b++) record_terms(grp + (size_t)b * BB_TQ1_0_X16_RECORD, a, b, nb, tab, sumf);
    for (int c = 0; c < nb; c++) _mm512_storeu_ps(y + (size_t)(c0 + c) * m + r, sumf[c]);
}

void bb_tq1_0_x16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    pthread_once(&trit_table_once, trit_table_init);
    __m512i tab[5][4]; /* the tables stay in registers */
    for (int t = 0; t < 5; t++)
        for (int q = 0; q < 4; q++) tab[t][q] = _mm512_load_si512(trit_table[t] + 64 * q);
    int nblk = k / BB_QK_K;
    for (int r = m0; r < m1; r += BB_TQ1_0_X16_ROWS) {
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_TQ1_0_X16_ROWS) * nblk * BB_TQ1_0_X16_RECORD;
        /* The group's records (16 * K * 1.6875 / 8 bytes) stay in L1/L2 across the activation rows. */
        for (int c0 = 0; c0 < n; c0 += NB_MAX) {
            switch (n - c0 < NB_MAX ? n - c0 : NB_MAX) { /* constant nb: unrolled, in registers */
            case 1: group_rows(grp, act, y, m, nblk, r, c0, 1, tab); break;
            case 2: group_rows(grp, act, y, m, nblk, r, c0, 2, tab); break;
            case 3: group_rows(grp, act, y, m, nblk, r, c0, 3, tab); break;
            default: group_rows(grp, act, y, m, nblk, r, c0, 4, tab); break;
            }
        }
    }
}
