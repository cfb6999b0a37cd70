/* q2_k, AVX-512 VNNI.  Each 32-byte half of a super-block is broadcast to both 256-bit halves and
 * shifted per half (vpsrlvq by 0|2 and 4|6) and masked, so one zmm holds the codes of 64
 * consecutive values and lines up with 64 consecutive activations.  vpmaddubsw (code x q, int16)
 * then vpdpwssd with the sub-block scales (vpermw of the 16 nibble scales: int16 lane i of
 * vector v takes scale 4v + i/8) accumulate exact int32; the min term is one vpmaddwd of the 16
 * bsums with the 16 mins.  Four super-blocks' two partial sums are reduced together, then the
 * per-block products and the fold in block order of the reference (ggml_k.h).  Decoded codes
 * and scales serve up to BB_GK_NB activation rows. */
#include <immintrin.h>

#include "ggml_k_avx512.h"
#include "q2_k.h"

/* v_b = [8 lanes of isum partials | 8 lanes of summs partials] for 4 blocks →
 * [I0, I1, I2, I3, M0, M1, M2, M3]. */
static inline __m256i reduce4x2(__m512i v0, __m512i v1, __m512i v2, __m512i v3)
{
    __m512i t01 = _mm512_add_epi32(_mm512_shuffle_i64x2(v0, v1, 0x88), _mm512_shuffle_i64x2(v0, v1, 0xdd));
    __m512i t23 = _mm512_add_epi32(_mm512_shuffle_i64x2(v2, v3, 0x88), _mm512_shuffle_i64x2(v2, v3, 0xdd));
    /* 128-bit lanes: t01 = [I0, M0, I1, M1], t23 = [I2, M2, I3, M3], 4 partials each */
    __m512i x = _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23), _mm512_unpackhi_epi64(t01, t23));
    x = _mm512_add_epi32(x, _mm512_shuffle_epi32(x, 0xb1));
    /* lane k: dword 4k = total of t01's lane k, dword 4k+2 = total of t23's lane k */
    return _mm512_castsi512_si256(
        _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 8, 2, 10, 4, 12, 6, 14, 0, 0, 0, 0, 0, 0, 0, 0), x));
}

static inline float fold(float sumf, __m512i isum, __m512i summs, const bb_gk_arow *a, int b0, __m512 wd,
                         __m512 wdmin, int nc)
{
    __m512 ad = _mm512_maskz_loadu_ps(bb_gk_mask16(nc), a->d + b0);
    __m512 dall = _mm512_mul_ps(ad, wd), dmin = _mm512_mul_ps(ad, wdmin);
    __m512 p = _mm512_mul_ps(dall, _mm512_cvtepi32_ps(isum)), q = _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(summs));
    float r[16];
    _mm512_storeu_ps(r, _mm512_sub_ps(p, q));
    return bb_gk_fold(sumf, r, nc);
}

static inline __attribute__((always_inline)) void q2_k_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                              int nblk, float *out)
{
    const bb_block_q2_K *x = (const bb_block_q2_K *)wrow;
    const __m512i mask = _mm512_set1_epi8(3);
    const __m512i sh01 = _mm512_inserti64x4(_mm512_set1_epi64(0), _mm256_set1_epi64x(2), 1);
    const __m512i sh23 = _mm512_inserti64x4(_mm512_set1_epi64(4), _mm256_set1_epi64x(6), 1);
    const __m128i nib = _mm_set1_epi8(0x0f);
    const __m512i sidx0 = _mm512_setr_epi32(0, 0, 0, 0, 0x00010001, 0x00010001, 0x00010001, 0x00010001, 0x00020002,
                                            0x00020002, 0x00020002, 0x00020002, 0x00030003, 0x00030003, 0x00030003,
                                            0x00030003);
    const __m512i four = _mm512_set1_epi16(4);
    float sumf[BB_GK_NB] = {0};
    for (int b0 = 0; b0 < nblk; b0 += BB_GK_CHUNK) {
        int nc = nblk - b0 < BB_GK_CHUNK ? nblk - b0 : BB_GK_CHUNK;
        /* the dword at offset 80 is d (low half) and dmin (high half) */
        __m512i dd = bb_gk_gather_dw((const uint8_t *)&x[b0] + 80, sizeof(bb_block_q2_K), nc);
        __m512 wd = bb_gk_fp16_lanes(dd, 0), wdmin = bb_gk_fp16_lanes(dd, 1);
        __m256i part[BB_GK_NB][BB_GK_CHUNK / 4];
        for (int g = 0; g < BB_GK_CHUNK / 4; g++) {
            __m512i v[BB_GK_NB][4];
            for (int j = 0; j < 4; j++) {
                if (4 * g + j >= nc) {
                    for (int r = 0; r < nb; r++) v[r][j] = _mm512_setzero_si512();
                    continue;
                }
                const bb_block_q2_K *blk = &x[b0 + 4 * g + j];
                bb_prefetch_stream(blk);
                bb_prefetch_stream((const uint8_t *)blk + sizeof *blk - 1); /* 84 bytes: both ends */
                __m128i sc = _mm_loadu_si128((const __m128i *)blk->scales);
                __m512i scales = _mm512_castsi256_si512(_mm256_cvtepu8_epi16(_mm_and_si128(sc, nib)));
                __m256i mins = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sc, 4), nib));
                __m512i lo = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)blk->qs));
                __m512i hi = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(blk->qs + 32)));
                __m512i c[4] = {_mm512_and_si512(_mm512_srlv_epi64(lo, sh01), mask),
                                _mm512_and_si512(_mm512_srlv_epi64(lo, sh23), mask),
                                _mm512_and_si512(_mm512_srlv_epi64(hi, sh01), mask),
                                _mm512_and_si512(_mm512_srlv_epi64(hi, sh23), mask)};
                __m512i s[4], idx = sidx0;
                for (int t = 0; t < 4; t++, idx = _mm512_add_epi16(idx, four)) s[t] = _mm512_permutexvar_epi16(idx, scales);
                for (int r = 0; r < nb; r++) {
                    const bb_block_q8_K *ab = &a[r].q[b0 + 4 * g + j];
                    __m512i acc = _mm512_setzero_si512();
                    for (int t = 0; t < 4; t++)
                        acc = _mm512_dpwssd_epi32(acc, _mm512_maddubs_epi16(c[t], _mm512_loadu_si512(ab->qs + 64 * t)), s[t]);
                    __m256i isum8 = _mm256_add_epi32(_mm512_castsi512_si256(acc), _mm512_extracti64x4_epi64(acc, 1));
                    __m256i msum8 = _mm256_madd_epi16(mins, _mm256_loadu_si256((const __m256i *)ab->bsums));
                    v[r][j] = _mm512_inserti64x4(_mm512_castsi256_si512(isum8), msum8, 1);
                }
            }
            for (int r = 0; r < nb; r++) part[r][g] = reduce4x2(v[r][0], v[r][1], v[r][2], v[r][3]);
            if (4 * g + 4 >= nc) {
                for (int g2 = g + 1; g2 < BB_GK_CHUNK / 4; g2++)
                    for (int r = 0; r < nb; r++) part[r][g2] = _mm256_setzero_si256();
                break;
            }
        }
        for (int r = 0; r < nb; r++) {
            __m256i *p = part[r];
            __m512i isum = bb_gk_join4x4(_mm256_castsi256_si128(p[0]), _mm256_castsi256_si128(p[1]),
                                         _mm256_castsi256_si128(p[2]), _mm256_castsi256_si128(p[3]));
            __m512i summs = bb_gk_join4x4(_mm256_extracti128_si256(p[0], 1), _mm256_extracti128_si256(p[1], 1),
                                          _mm256_extracti128_si256(p[2], 1), _mm256_extracti128_si256(p[3], 1));
            sumf[r] = fold(sumf[r], isum, summs, &a[r], b0, wd, wdmin, nc);
        }
    }
    for (int r = 0; r < nb; r++) out[r] = sumf[r];
}

BB_GK_ROW_BY_NB(q2_k_row, q2_k_row_nb)

void bb_q2_k_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_q2_k_row_bytes(k), act, y, m, k, n, m0, m1, q2_k_row);
}
