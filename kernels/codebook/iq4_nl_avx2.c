/* iq4_nl, AVX2.  Per block of 32: the 16 index bytes are broadcast to both 128-bit halves (a
 * load, no shuffle), the upper half shifted right by 4 (vpsrlvq) and masked, so the 32 indices
 * follow the activations' order; one vpshufb from the register-resident 16-value table yields
 * the int8 weights (§6.3's table lookup); vpmaddubsw(|w|, sign(q, w)) is exact (|w|, |q| <= 127),
 * vpmaddwd widens to 8 int32 lanes, and one FMA per block adds d_w * d_a times them into a float
 * accumulator (even and odd blocks in two accumulators, to keep two FMA chains in flight).  The
 * weights' fp16 scales of 8 blocks are converted together (vcvtph2ps) and multiplied at once by
 * the prepared float activation scales.  Lanes are summed at the row's end.  Up to 4 activation
 * columns share each decoded block; every weight line is prefetched ahead (common/prefetch.h). */
#include <immintrin.h>

#include "../common/act_quant.h"
#include "../common/q8_0_act.h"
#include "cb_simd.h"
#include "iq4_nl.h"

#define CHUNK 8 /* blocks whose scales are converted together */

static inline __m256i decode(const bb_iq4_nl_block *x, __m256i table)
{
    __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)x->qs));
    v = _mm256_and_si256(_mm256_srlv_epi64(v, _mm256_setr_epi64x(0, 0, 4, 4)), _mm256_set1_epi8(15));
    return _mm256_shuffle_epi8(table, v);
}

static inline __m256 block_dot(__m256i aw, __m256i wv, const int8_t *q)
{
    __m256i p = _mm256_maddubs_epi16(aw, _mm256_sign_epi8(_mm256_loadu_si256((const __m256i *)q), wv));
    return _mm256_cvtepi32_ps(_mm256_madd_epi16(p, _mm256_set1_epi16(1)));
}

static inline __attribute__((always_inline)) void row_nc(const bb_iq4_nl_block *x, const bb_block_q8_0 *const *a,
                                                         const float *const *ad, const int nc, int nb, __m256i table,
                                                         float *out)
{
    __m256 acc[BB_CB_NB_MAX][2];
    for (int c = 0; c < nc; c++) acc[c][0] = acc[c][1] = _mm256_setzero_ps();
    for (int b0 = 0; b0 < nb; b0 += CHUNK) {
        const int cnt = nb - b0 < CHUNK ? nb - b0 : CHUNK;
        float sc[BB_CB_NB_MAX][CHUNK];
        __m256 wd = bb_cb_f16x8(&x[b0].d, sizeof(bb_iq4_nl_block), cnt);
        for (int c = 0; c < nc; c++)
            _mm256_storeu_ps(sc[c], _mm256_mul_ps(wd, _mm256_loadu_ps(ad[c] + b0)));
        for (int o = 0; o < CHUNK * (int)sizeof(bb_iq4_nl_block); o += 64) bb_prefetch_stream((const char *)&x[b0] + o);
        for (int j = 0; j < cnt; j += 2) {
            for (int h = 0; h < 2 && j + h < cnt; h++) {
                __m256i wv = decode(&x[b0 + j + h], table), aw = _mm256_sign_epi8(wv, wv);
                for (int c = 0; c < nc; c++)
                    acc[c][h] = _mm256_fmadd_ps(_mm256_broadcast_ss(&sc[c][j + h]),
                                                block_dot(aw, wv, a[c][b0 + j + h].qs), acc[c][h]);
            }
        }
    }
    for (int c = 0; c < nc; c++) out[c] = bb_cb_hsum_ps(_mm256_add_ps(acc[c][0], acc[c][1]));
}

void bb_iq4_nl_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    const int nb = k / BB_QK4_NL;
    const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)bb_iq4_nl_kvalues));
    for (int c0 = 0; c0 < n; c0 += BB_CB_NB_MAX) {
        const int ncol = n - c0 < BB_CB_NB_MAX ? n - c0 : BB_CB_NB_MAX;
        const bb_block_q8_0 *a[BB_CB_NB_MAX];
        const float *ad[BB_CB_NB_MAX];
        for (int c = 0; c < ncol; c++) {
            a[c] = bb_qx_act_row(act, k, c0 + c);
            ad[c] = bb_qx_aux_row(act, n, k, c0 + c).d;
        }
        for (int r = m0; r < m1; r++) {
            const bb_iq4_nl_block *x = (const bb_iq4_nl_block *)w + (size_t)r * nb;
            float out[BB_CB_NB_MAX];
            switch (ncol) {
            case 1: row_nc(x, a, ad, 1, nb, table, out); break;
            case 2: row_nc(x, a, ad, 2, nb, table, out); break;
            case 3: row_nc(x, a, ad, 3, nb, table, out); break;
            default: row_nc(x, a, ad, 4, nb, table, out); break;
            }
            for (int c = 0; c < ncol; c++) y[(size_t)(c0 + c) * m + r] = out[c];
        }
    }
}
