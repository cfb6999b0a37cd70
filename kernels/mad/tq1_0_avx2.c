/* tq1_0, AVX2.  Per 32 consecutive values a vector whose bytes are (b * 3^n) mod 256 for each
 * value's byte b and trit n: values 0..159 from qs[0..31] times 1, 3, 9, 27, 81 (each step two
 * byte adds); 160..223 from qs[32..47] broadcast to both 128-bit halves, times [1|3], [9|27];
 * 224..255 from [qs[32..47] * 81 | qh bytes times 1, 3, 9, 27 per dword] (one vpmullw pair).
 * The trit is then [b >= 86] + [b >= 171] (signed compares after flipping the top bit), equal to
 * (b * 3) >> 8 on every byte.  vpmaddubsw (code x q, |lane| <= 512) summed in int16 over the 8
 * vectors (<= 4096), widened with vpmaddwd; four blocks reduced together, the block sums of q
 * subtracted, and the per-block products folded in block order: the reference's bits
 * (ggml_k.h).  Decoded codes serve up to BB_GK_NB activation rows. */
#include <immintrin.h>
#include <stddef.h>
#include <string.h>

#include "ggml_k_avx2.h"
#include "tq1_0.h"

static inline __m256i times3(__m256i v) { return _mm256_add_epi8(v, _mm256_add_epi8(v, v)); }
static inline __m256i times9(__m256i v) { return times3(times3(v)); }

/* Trit codes 0..2 of 32 bytes already multiplied to bring the trit to the top. */
static inline __m256i trit(__m256i t)
{
    const __m256i flip = _mm256_set1_epi8((char)0x80);
    __m256i s = _mm256_xor_si256(t, flip); /* unsigned order as signed */
    __m256i ge86 = _mm256_cmpgt_epi8(s, _mm256_set1_epi8(85 - 128));
    __m256i ge171 = _mm256_cmpgt_epi8(s, _mm256_set1_epi8(170 - 128));
    return _mm256_sub_epi8(_mm256_setzero_si256(), _mm256_add_epi8(ge86, ge171));
}

static inline void decode(const uint8_t *b, __m256i c[8])
{
    const bb_block_tq1_0 *blk = (const bb_block_tq1_0 *)b;
    bb_prefetch_stream(blk);
    __m256i v = _mm256_loadu_si256((const __m256i *)blk->qs);
    for (int n = 0; n < 5; n++, v = times3(v)) c[n] = trit(v);
    __m256i s = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(blk->qs + 32)));
    __m256i s13 = _mm256_blend_epi32(s, times3(s), 0xf0); /* [s | 3s] */
    __m256i s927 = times9(s13);                           /* [9s | 27s] */
    c[5] = trit(s13);
    c[6] = trit(s927);
    /* qh: each dword of the high half times 1, 3, 9, 27 (vpmullw: the even bytes of each 16-bit
     * lane come out right, and the odd bytes from a copy with the even bytes cleared) */
    uint32_t qh;
    memcpy(&qh, blk->qh, 4);
    const __m256i pw = _mm256_setr_epi16(1, 1, 3, 3, 9, 9, 27, 27, 1, 1, 3, 3, 9, 9, 27, 27);
    __m256i h = _mm256_set1_epi32((int)qh);
    __m256i ev = _mm256_mullo_epi16(h, pw), od = _mm256_mullo_epi16(_mm256_and_si256(h, _mm256_set1_epi16((short)0xff00)), pw);
    __m256i hp = _mm256_blendv_epi8(ev, od, _mm256_set1_epi16((short)0xff00));
    c[7] = trit(_mm256_blend_epi32(times9(s927), hp, 0xf0)); /* [81s | qh * 3^n] */
}

static inline __attribute__((always_inline)) void tq1_0_row_nb(const uint8_t *wrow, const bb_gk_arow *a, const int nb,
                                                               int nblk, float *out)
{
    bb_gk_tq_row_avx2(wrow, sizeof(bb_block_tq1_0), offsetof(bb_block_tq1_0, d), decode, a, nb, nblk, out);
}

BB_GK_ROW_BY_NB(tq1_0_row, tq1_0_row_nb)

void bb_tq1_0_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_gk_matmul(w, bb_tq1_0_row_bytes(k), act, y, m, k, n, m0, m1, tq1_0_row);
}
