/* q2_k on AMX tiles (common/amx.h; layout and semantics: q2_k.h).  One segment per 256-weight
 * super-block.  Half h of a block's codes is one 32-byte broadcast, shifted by 0 | 2 (then 4 | 6)
 * per 16-bit lane and masked: 64 codes in value order whose 128-bit lane L holds sub-block
 * j = 4t + L (t the quarter, as tq2_0_amx.c decodes its planes).  Each code is multiplied by its
 * sub-block's 4-bit scale in 16-bit lanes (code <= 3, scale <= 15: a byte's product never
 * reaches the next byte), so the strip holds sc_j * q exactly; the mins strip holds m_j once per
 * weight, whose dot with the activations is summs = sum_j m_j * bsums_j.  The driver folds both
 * as the reference does: the reference's bits. */
#include <stddef.h>

#include "../common/amx.h"
#include "q2_k.h"

static const bb_block_q2_K *q2_k_row(const void *w, int k, int r)
{
    return (const bb_block_q2_K *)w + (size_t)r * (k / BB_QK_K);
}

/* The 16-bit lanes of lane L holding byte 4t + L of s (the high byte zero), or with spread8
 * every byte of lane L that byte: sub-block 4t + L's value across its 16 weights. */
static inline __m512i sub_block_lanes(__m128i s, int t, int spread8)
{
    const __m512i lane = _mm512_set_epi64(0x0303030303030303ll, 0x0303030303030303ll, 0x0202020202020202ll,
                                          0x0202020202020202ll, 0x0101010101010101ll, 0x0101010101010101ll, 0, 0);
    __m512i idx = _mm512_add_epi8(lane, _mm512_set1_epi8((char)(4 * t)));
    if (!spread8) idx = _mm512_mask_mov_epi8(idx, 0xaaaaaaaaaaaaaaaaull, _mm512_set1_epi8((char)0x80));
    return _mm512_shuffle_epi8(_mm512_broadcast_i32x4(s), idx);
}

void bb_q2_k_block_i8(const bb_block_q2_K *blk, int8_t *out)
{
    const __m512i shifts[2] = {bb_amx_shift_pair(0, 2), bb_amx_shift_pair(4, 6)}, three = _mm512_set1_epi8(3);
    __m128i sc = _mm_and_si128(_mm_loadu_si128((const __m128i *)blk->scales), _mm_set1_epi8(15));
    for (int h = 0; h < 2; h++) {
        __m512i v = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(blk->qs + 32 * h)));
        for (int p = 0; p < 2; p++) {
            int t = 2 * h + p; /* values 64t .. 64t + 63 */
            __m512i q = _mm512_and_si512(_mm512_srlv_epi16(v, shifts[p]), three);
            _mm512_storeu_si512(out + 64 * t, _mm512_mullo_epi16(q, sub_block_lanes(sc, t, 0)));
        }
    }
}

void bb_q2_k_block_mins_i8(const bb_block_q2_K *blk, int8_t *out)
{
    __m128i mins = _mm_and_si128(_mm_srli_epi16(_mm_loadu_si128((const __m128i *)blk->scales), 4), _mm_set1_epi8(15));
    for (int t = 0; t < 4; t++) _mm512_storeu_si512(out + 64 * t, sub_block_lanes(mins, t, 1));
}

static void q2_k_weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    for (int i = 0; i < rows; i++)
        for (int b = 0; b < k / BB_QK_K; b++) bb_q2_k_block_i8(q2_k_row(w, k, r + i) + b, dst + i * stride + BB_QK_K * b);
}

static void q2_k_mins_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    for (int i = 0; i < rows; i++)
        for (int b = 0; b < k / BB_QK_K; b++)
            bb_q2_k_block_mins_i8(q2_k_row(w, k, r + i) + b, dst + i * stride + BB_QK_K * b);
}

static const bb_amx_ops q2_k_amx = {
    .seg = BB_QK_K,
    .fold = BB_AMX_BLOCK_K_MINS,
    .weights_i8 = q2_k_weights_i8,
    .mins_i8 = q2_k_mins_i8,
    .block_bytes = sizeof(bb_block_q2_K),
    .d_at = offsetof(bb_block_q2_K, d),
    .dm_at = offsetof(bb_block_q2_K, dmin),
    .act_i8 = bb_gk_amx_act_i8,
    .act_scales = bb_gk_amx_act_scales,
    .small_n = bb_q2_k_matmul_avx512,
};

void bb_q2_k_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&q2_k_amx, w, act, y, m, k, n, m0, m1);
}
