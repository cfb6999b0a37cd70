/* cb2, AVX-512 (BW + VBMI + VNNI).  Per 64 weights (four sub-groups, one per 128-bit lane): one
 * shift gives the 2-bit indices in bits 0-1; vpshufb spreads each lane's codebook number (the
 * meta bytes shifted left by 2, done once per super-block) over the lane; vpternlogd merges the
 * index bits 0-1 with it, and one vpermb looks the element up among all 8 codebooks at once (a
 * 64-byte register holding the 32 u = c + 64 bytes twice, so index bit 5 is a don't-care) — the
 * register-resident codebook lookup of §5.3 / §6.3 in a single instruction.  vpmaddubsw multiplies
 * u by the q8_K activations (pair sums <= 32512, no saturation) and vpdpwssd applies the 5-bit
 * local scales (one vpshufb of the super-block's 16 scales per 64 weights) and accumulates.  The
 * offset is removed inside the same accumulator: vpdpwssd of the 16 bsums with -64 * ls.
 * The int32 accumulators of four super-blocks are reduced together; the float steps then follow
 * the reference's order: the reference's bits.  7 vector instructions per 64 weights plus ~10 per
 * super-block; decoded blocks serve up to 4 activation columns. */
#include <immintrin.h>

#include "../common/act_quant.h"
#include "cb2.h"
#include "cb_simd.h"

#define CHUNK 4 /* super-blocks reduced together */

typedef struct {
    __m512i table;    /* u bytes of the 8 codebooks, twice */
    __m512i ctrl[4];  /* s: lane L all bytes 4s + L */
    __m512i ctrlw[4]; /* s: lane L all 16-bit words = byte 4s + L, zero extended */
} consts;

static inline __attribute__((always_inline)) void row_nc(const bb_cb2_block *row, const bb_block_q8_K *const *a,
                                                         const int nc, int nb, const consts *k, float *out)
{
    const __m512i low2 = _mm512_set1_epi8(3);
    float sum[BB_CB_NB_MAX] = {0};
    for (int b0 = 0; b0 < nb; b0 += CHUNK) {
        const int cnt = nb - b0 < CHUNK ? nb - b0 : CHUNK;
        __m512i v[BB_CB_NB_MAX][CHUNK];
        for (int j = 0; j < CHUNK; j++) {
            if (j >= cnt) {
                for (int c = 0; c < nc; c++) v[c][j] = _mm512_setzero_si512();
                continue;
            }
            const bb_cb2_block *blk = &row[b0 + j];
            bb_prefetch_stream(blk);
            bb_prefetch_stream((const char *)blk + 64);
            __m128i meta = _mm_loadu_si128((const __m128i *)blk->meta);
            __m128i lsb = _mm_and_si128(_mm_srli_epi16(meta, 3), _mm_set1_epi8(31));
            __m512i books = _mm512_broadcast_i32x4(_mm_slli_epi16(meta, 2)); /* codebook in bits 2-4 */
            __m512i lsx = _mm512_broadcast_i32x4(lsb);
            __m512i off = _mm512_zextsi256_si512(
                _mm256_sub_epi16(_mm256_setzero_si256(), _mm256_slli_epi16(_mm256_cvtepu8_epi16(lsb), 6)));
            __m512i raw = _mm512_loadu_si512((const void *)blk->qs);
            __m512i acc[BB_CB_NB_MAX];
            for (int c = 0; c < nc; c++) {
                __m256i bsums = _mm256_loadu_si256((const __m256i *)a[c][b0 + j].bsums);
                acc[c] = _mm512_dpwssd_epi32(_mm512_setzero_si512(), _mm512_castsi256_si512(bsums), off);
            }
            for (int s = 0; s < 4; s++) {
                /* elements 64s .. 64s + 63 = sub-groups 4s .. 4s + 3 */
                __m512i e = s ? _mm512_srli_epi16(raw, 2 * s) : raw;
                __m512i idx = _mm512_ternarylogic_epi32(low2, e, _mm512_shuffle_epi8(books, k->ctrl[s]), 0xca);
                __m512i u = _mm512_permutexvar_epi8(idx, k->table);
                __m512i ls = _mm512_shuffle_epi8(lsx, k->ctrlw[s]);
                for (int c = 0; c < nc; c++) {
                    __m512i q = _mm512_loadu_si512((const void *)(a[c][b0 + j].qs + 64 * s));
                    acc[c] = _mm512_dpwssd_epi32(acc[c], _mm512_maddubs_epi16(u, q), ls);
                }
            }
            for (int c = 0; c < nc; c++) v[c][j] = acc[c];
        }
        for (int c = 0; c < nc; c++) {
            int32_t isum[CHUNK];
            _mm_storeu_si128((__m128i *)isum, bb_cb_reduce4_epi32_512(v[c][0], v[c][1], v[c][2], v[c][3]));
            for (int j = 0; j < cnt; j++)
                sum[c] += (bb_cb_f16(row[b0 + j].d) * a[c][b0 + j].d) * (float)isum[j];
        }
    }
    for (int c = 0; c < nc; c++) out[c] = sum[c];
}

void bb_cb2_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    const int nb = k / BB_CB2_QK;
    consts kc;
    __m256i u32 = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)bb_cb2_books(w, m, k)),
                                  _mm256_set1_epi8(BB_CB2_OFFSET));
    kc.table = _mm512_inserti64x4(_mm512_castsi256_si512(u32), u32, 1);
    for (int s = 0; s < 4; s++) {
        uint8_t cb[64], cw[64];
        for (int i = 0; i < 64; i++) {
            cb[i] = (uint8_t)(4 * s + i / 16);
            cw[i] = i % 2 ? 0x80 : (uint8_t)(4 * s + i / 16); /* 0x80: vpshufb writes zero */
        }
        kc.ctrl[s] = _mm512_loadu_si512((const void *)cb);
        kc.ctrlw[s] = _mm512_loadu_si512((const void *)cw);
    }
    for (int c0 = 0; c0 < n; c0 += BB_CB_NB_MAX) {
        const int ncol = n - c0 < BB_CB_NB_MAX ? n - c0 : BB_CB_NB_MAX;
        const bb_block_q8_K *a[BB_CB_NB_MAX];
        for (int c = 0; c < ncol; c++) a[c] = (const bb_block_q8_K *)act + (size_t)(c0 + c) * nb;
        for (int r = m0; r < m1; r++) {
            const bb_cb2_block *row = bb_cb2_row(w, k, r);
            float out[BB_CB_NB_MAX];
            switch (ncol) {
            case 1: row_nc(row, a, 1, nb, &kc, out); break;
            case 2: row_nc(row, a, 2, nb, &kc, out); break;
            case 3: row_nc(row, a, 3, nb, &kc, out); break;
            default: row_nc(row, a, 4, nb, &kc, out); break;
            }
            for (int c = 0; c < ncol; c++) y[(size_t)(c0 + c) * m + r] = out[c];
        }
    }
}
