/* iq4_nl, AVX-512 (BW + VNNI).  Two blocks per 512-bit vector: their index bytes are loaded as
 * [b0, b0, b1, b1] (two 128-bit broadcast loads merged under a mask), lanes 1 and 3 shifted right
 * by 4 (one masked shift) and masked to nibbles, so the 64 indices follow the activations' order;
 * one vpshufb from the table in every lane yields kvalue + 128 (§6.3's register-resident table
 * lookup), unsigned.  vpdpbusd multiplies it by q starting from 16 c, c = -8 * lane sum of q the
 * prepared correction (kernels/mad/qx_0.h), so the int32 lanes are the exact partial sums of
 * kvalue * q (four byte products per lane, no int16 stage); one FMA per pair of blocks adds
 * [d0 x8 | d1 x8] times them into a float accumulator, summed at the row's end.  The weights'
 * fp16 scales of 8 blocks are gathered by one vpermt2w and converted together, then multiplied
 * by the prepared float activation scales.  Up to 4 activation columns share each decoded pair;
 * every weight line is prefetched ahead (common/prefetch.h).  (One block per 256-bit vpdpbusd, as q4_0 does,
 * measured slower here.) */
#include <immintrin.h>

#include "../common/act_quant.h"
#include "../common/q8_0_act.h"
#include "cb_simd.h"
#include "iq4_nl.h"

#define CHUNK 8 /* blocks whose scales are converted together */

/* 8 weight blocks (144 bytes): their d words sit at 16-bit offsets 0, 9, ..., 63 of the first
 * 128 bytes, gathered by one vpermt2w */
static inline __m256 weight_d8(const bb_iq4_nl_block *x)
{
    const __m512i idx = _mm512_setr_epi32(0x00090000, 0x001b0012, 0x002d0024, 0x003f0036, 0, 0, 0, 0, 0, 0, 0, 0,
                                          0, 0, 0, 0); /* words 0, 9, 18, ..., 63 */
    __m512i h = _mm512_permutex2var_epi16(_mm512_loadu_si512((const void *)x), idx,
                                          _mm512_loadu_si512((const void *)((const char *)x + 64)));
    return _mm256_cvtph_ps(_mm512_castsi512_si128(h));
}

static inline __attribute__((always_inline)) void row_nc(const bb_iq4_nl_block *x, const bb_block_q8_0 *const *a,
                                                         const float *const *ad, const int32_t *const *corr,
                                                         const int nc, int nb, __m512i table, float *out)
{
    const __m512i m4 = _mm512_set1_epi8(15);
    __m512 acc[BB_CB_NB_MAX];
    for (int c = 0; c < nc; c++) acc[c] = _mm512_setzero_ps();
    for (int b0 = 0; b0 < nb; b0 += CHUNK) {
        const int cnt = nb - b0 < CHUNK ? nb - b0 : CHUNK;
        float sc[BB_CB_NB_MAX][CHUNK];
        __m256 wd = cnt == CHUNK ? weight_d8(&x[b0]) : bb_cb_f16x8(&x[b0].d, sizeof(bb_iq4_nl_block), cnt);
        for (int c = 0; c < nc; c++)
            _mm256_storeu_ps(sc[c], _mm256_mul_ps(wd, _mm256_loadu_ps(ad[c] + b0)));
        for (int o = 0; o < CHUNK * (int)sizeof(bb_iq4_nl_block); o += 64) bb_prefetch_stream((const char *)&x[b0] + o);
        int j = 0;
        for (; j + 2 <= cnt; j += 2) {
            const bb_iq4_nl_block *x0 = &x[b0 + j];
            __m512i z = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)x0[0].qs));
            z = _mm512_mask_broadcast_i32x4(z, 0xff00, _mm_loadu_si128((const __m128i *)x0[1].qs));
            z = _mm512_and_si512(_mm512_mask_srli_epi16(z, 0xff00ff00u, z, 4), m4);
            __m512i u = _mm512_shuffle_epi8(table, z);
            for (int c = 0; c < nc; c++) {
                const bb_block_q8_0 *a0 = &a[c][b0 + j];
                __m512i q = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)a0[0].qs)),
                                               _mm256_loadu_si256((const __m256i *)a0[1].qs), 1);
                __m512i c16 = _mm512_slli_epi32(_mm512_loadu_si512((const void *)(corr[c] + 8 * (b0 + j))), 4);
                __m512i s = _mm512_dpbusd_epi32(c16, u, q);
                __m512 d = _mm512_mask_blend_ps(0xff00, _mm512_set1_ps(sc[c][j]), _mm512_set1_ps(sc[c][j + 1]));
                acc[c] = _mm512_fmadd_ps(d, _mm512_cvtepi32_ps(s), acc[c]);
            }
        }
        if (j < cnt) { /* odd block count: the last block in 256 bits */
            const bb_iq4_nl_block *x0 = &x[b0 + j];
            __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)x0->qs));
            v = _mm256_and_si256(_mm256_srlv_epi64(v, _mm256_setr_epi64x(0, 0, 4, 4)), _mm256_set1_epi8(15));
            __m256i u = _mm256_shuffle_epi8(_mm512_castsi512_si256(table), v);
            for (int c = 0; c < nc; c++) {
                __m256i q = _mm256_loadu_si256((const __m256i *)a[c][b0 + j].qs);
                __m256i c16 = _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(corr[c] + 8 * (b0 + j))),
                                                4);
                __m256i s = _mm256_dpbusd_epi32(c16, u, q);
                __m256 p = _mm256_mul_ps(_mm256_set1_ps(sc[c][j]), _mm256_cvtepi32_ps(s));
                acc[c] = _mm512_add_ps(acc[c], _mm512_zextps256_ps512(p));
            }
        }
    }
    for (int c = 0; c < nc; c++) out[c] = _mm512_reduce_add_ps(acc[c]);
}

void bb_iq4_nl_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    const int nb = k / BB_QK4_NL;
    /* kvalue + 128, as unsigned bytes 1..241 */
    const __m512i table = _mm512_add_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)bb_iq4_nl_kvalues)),
                                          _mm512_set1_epi8((char)0x80));
    for (int c0 = 0; c0 < n; c0 += BB_CB_NB_MAX) {
        const int ncol = n - c0 < BB_CB_NB_MAX ? n - c0 : BB_CB_NB_MAX;
        const bb_block_q8_0 *a[BB_CB_NB_MAX];
        const float *ad[BB_CB_NB_MAX];
        const int32_t *corr[BB_CB_NB_MAX];
        for (int c = 0; c < ncol; c++) {
            bb_qx_aux aux = bb_qx_aux_row(act, n, k, c0 + c);
            a[c] = bb_qx_act_row(act, k, c0 + c);
            ad[c] = aux.d;
            corr[c] = aux.c; /* -8 * lane sums of q */
        }
        for (int r = m0; r < m1; r++) {
            const bb_iq4_nl_block *x = (const bb_iq4_nl_block *)w + (size_t)r * nb;
            float out[BB_CB_NB_MAX];
            switch (ncol) {
            case 1: row_nc(x, a, ad, corr, 1, nb, table, out); break;
            case 2: row_nc(x, a, ad, corr, 2, nb, table, out); break;
            case 3: row_nc(x, a, ad, corr, 3, nb, table, out); break;
            default: row_nc(x, a, ad, corr, 4, nb, table, out); break;
            }
            for (int c = 0; c < ncol; c++) y[(size_t)(c0 + c) * m + r] = out[c];
        }
    }
}
