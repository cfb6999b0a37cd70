/* tq1_0 on AMX tiles (common/amx.h; layout and semantics: tq1_0.h).  A block's 52 code bytes are
 * decoded to the int8 t = c - 1 of its 256 weights in value order, 64 at a time: trit n of a byte
 * is read by bringing it to the top (the byte times 3^n modulo 256, by byte additions) and
 * comparing, t = -1 + [b' >= 86] + [b' >= 171] (tq1_0.h).  Vectors are put together so that
 * each holds 64 consecutive weights: qs[0..31] with trits 0 | 1 and 2 | 3 in its 256-bit halves,
 * qs[32..47] with trits 0 | 1 | 2 | 3 in its 128-bit lanes, and one of qs[0..31]'s trit 4, qs[32..47]'s
 * trit 4 and qh's four trits.  One segment per 256-weight block, folded as the scalar reference
 * does: y += (float)isum * (a.d * fp16(w.d)), blocks in order, so this gives the reference's bits. */
#include <stddef.h>
#include <string.h>

#include "../common/amx.h"
#include "tq1_0.h"

static inline __m512i times3(__m512i v) { return _mm512_add_epi8(_mm512_add_epi8(v, v), v); }

/* t = -1 + [b >= 86] + [b >= 171] per byte (movm: -1 where the mask is set). */
static inline __m512i top_trits(__m512i b)
{
    __m512i ge1 = _mm512_movm_epi8(_mm512_cmpge_epu8_mask(b, _mm512_set1_epi8(86)));
    __m512i ge2 = _mm512_movm_epi8(_mm512_cmpge_epu8_mask(b, _mm512_set1_epi8((char)171)));
    return _mm512_sub_epi8(_mm512_sub_epi8(_mm512_set1_epi8(-1), ge1), ge2);
}

void bb_tq1_0_codes_i8(const uint8_t *codes, int8_t *out)
{
    __m512i a[5], b[5], c[4];
    a[0] = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)codes));
    b[0] = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(codes + 32)));
    int qh;
    memcpy(&qh, codes + 48, 4);
    c[0] = _mm512_set1_epi32(qh);
    for (int n = 1; n < 5; n++) {
        a[n] = times3(a[n - 1]);
        b[n] = times3(b[n - 1]);
        if (n < 4) c[n] = times3(c[n - 1]);
    }
    /* values 0..127: trits 0 | 1, then 2 | 3, of qs[0..31] */
    _mm512_storeu_si512(out, top_trits(_mm512_mask_mov_epi32(a[0], 0xff00, a[1])));
    _mm512_storeu_si512(out + 64, top_trits(_mm512_mask_mov_epi32(a[2], 0xff00, a[3])));
    /* values 160..223: trits 0 | 1 | 2 | 3 of qs[32..47] */
    __m512i v = _mm512_mask_mov_epi32(b[0], 0x00f0, b[1]);
    v = _mm512_mask_mov_epi32(v, 0x0f00, b[2]);
    v = _mm512_mask_mov_epi32(v, 0xf000, b[3]);
    _mm512_storeu_si512(out + 160, top_trits(v));
    /* values 128..159 (trit 4 of qs[0..31]), then 224..239 (trit 4 of qs[32..47]) and 240..255
     * (trits 0..3 of qh[0..3], four bytes each) */
    __m512i h = _mm512_mask_mov_epi32(c[0], 0x2222, c[1]);
    h = _mm512_mask_mov_epi32(h, 0x4444, c[2]);
    h = _mm512_mask_mov_epi32(h, 0x8888, c[3]);
    v = _mm512_mask_mov_epi32(a[4], 0x0f00, b[4]);
    v = top_trits(_mm512_mask_mov_epi32(v, 0xf000, h));
    _mm256_storeu_si256((__m256i *)(out + 128), _mm512_castsi512_si256(v));
    _mm256_storeu_si256((__m256i *)(out + 224), _mm512_extracti64x4_epi64(v, 1));
}

static void tq1_0_weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    for (int i = 0; i < rows; i++) {
        const bb_block_tq1_0 *blk = (const bb_block_tq1_0 *)w + (size_t)(r + i) * (k / BB_QK_K);
        for (int b = 0; b < k / BB_QK_K; b++) bb_tq1_0_codes_i8(blk[b].qs, dst + i * stride + BB_QK_K * b);
    }
}

static const bb_amx_ops tq1_0_amx = {
    .seg = BB_QK_K,
    .fold = BB_AMX_BLOCK_K,
    .weights_i8 = tq1_0_weights_i8,
    .block_bytes = sizeof(bb_block_tq1_0),
    .d_at = offsetof(bb_block_tq1_0, d),
    .act_i8 = bb_gk_amx_act_i8,
    .act_scales = bb_gk_amx_act_scales,
    .small_n = bb_tq1_0_matmul_avx512,
};

void bb_tq1_0_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&tq1_0_amx, w, act, y, m, k, n, m0, m1);
}
