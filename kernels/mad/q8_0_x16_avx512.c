/* q8_0_x16, AVX-512 VNNI: 16 rows at once, one int32 lane per row, no horizontal sums.
 *
 * vpdpbusd multiplies unsigned by signed bytes.  A weight w XOR 0x80, read unsigned, is w + 128
 * for every byte, so one vpdpbusd per run of 64 weights against the run's 4 activations
 * (an embedded-broadcast operand, common/dpbusd_bcast.h) sums (w + 128) a; adding sixteen times
 * the activation block's aux o (-8 sum(a), common/q8_0_act.h), that is -128 sum(a), leaves
 * isum_b exactly.  Per 64 weights: one vpxord and one vpdpbusd (q8_0@avx512: vpsignb twice and
 * a vpdpbusd per 32, then a float step per block and row).  q8_0's float steps follow lane-wise,
 * y = y + ((float)isum * d_w) * d_a with separate multiplies: the reference's bits. */
#include <immintrin.h>

#include "../common/dpbusd_bcast.h"
#include "../common/prefetch.h"
#include "../cpu.h"
#include "q8_0_x16.h"

#define NB_MAX 4 /* activation rows sharing each loaded run of weights (N > 1) */

/* sumf[c] += the 16 rows' terms of the record at rec against block b of activation rows a[c],
 * c < nb.  Two accumulators per activation row take the 8 runs in turn.  pf: software prefetch
 * (bb_cpu_stream_prefetch). */
static inline __attribute__((always_inline)) void record_terms(const uint8_t *rec, const bb_block_q8_0 *const *a,
                                                               const bb_qx_aux *aux, int b, const int nb,
                                                               __m512 *sumf, int pf)
{
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    __m512i acc[NB_MAX][2];
    for (int c = 0; c < nb; c++) acc[c][0] = acc[c][1] = _mm512_setzero_si512();
    if (pf) bb_prefetch_stream(rec + 64 * BB_Q8_0_X16_RUNS); /* the record's 9 lines: one per run, and its last */
#pragma GCC unroll 8
    for (int r = 0; r < BB_Q8_0_X16_RUNS; r++) {
        const uint8_t *run = rec + BB_Q8_0_X16_Q + 64 * r;
        if (pf) bb_prefetch_stream(rec + 64 * r);
        __m512i u = _mm512_xor_si512(_mm512_loadu_si512(run), flip);
        for (int c = 0; c < nb; c++) acc[c][r & 1] = bb_dpbusd_bcast4(acc[c][r & 1], u, a[c][b].qs + 4 * r);
    }
    __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)rec));
    for (int c = 0; c < nb; c++) {
        __m512i isum = _mm512_add_epi32(_mm512_add_epi32(acc[c][0], acc[c][1]), _mm512_set1_epi32(16 * aux[c].o[2 * b]));
        __m512 t = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(isum), dw), _mm512_set1_ps(aux[c].d[b]));
        sumf[c] = _mm512_add_ps(sumf[c], t);
    }
}

/* One group of 16 rows against activation rows c0 .. c0+nb-1. */
static inline __attribute__((always_inline)) void group_rows(const uint8_t *grp, const void *act, float *y, int m,
                                                             int n, int k, int r, int c0, const int nb, int pf)
{
    int nblk = k / BB_QK;
    const bb_block_q8_0 *a[NB_MAX];
    bb_qx_aux aux[NB_MAX];
    __m512 sumf[NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = bb_qx_act_row(act, k, c0 + c);
        aux[c] = bb_qx_aux_row(act, n, k, c0 + c);
        sumf[c] = _mm512_setzero_ps();
    }
    for (int b = 0; b < nblk; b++) record_terms(grp + (size_t)b * BB_Q8_0_X16_RECORD, a, aux, b, nb, sumf, pf);
    for (int c = 0; c < nb; c++) _mm512_storeu_ps(y + (size_t)(c0 + c) * m + r, sumf[c]);
}

void bb_q8_0_x16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK, pf = bb_cpu_stream_prefetch();
    for (int r = m0; r < m1; r += BB_Q8_0_X16_ROWS) { /* m0, m1: multiples of 16, the kernel's m_multiple */
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / BB_Q8_0_X16_ROWS) * nblk * BB_Q8_0_X16_RECORD;
        for (int c0 = 0; c0 < n; c0 += NB_MAX) {
            switch (n - c0 < NB_MAX ? n - c0 : NB_MAX) {
            case 1: group_rows(grp, act, y, m, n, k, r, c0, 1, pf); break;
            case 2: group_rows(grp, act, y, m, n, k, r, c0, 2, pf); break;
            case 3: group_rows(grp, act, y, m, n, k, r, c0, 3, pf); break;
            default: group_rows(grp, act, y, m, n, k, r, c0, 4, pf); break;
            }
        }
    }
}
