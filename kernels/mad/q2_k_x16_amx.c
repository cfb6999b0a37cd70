/* q2_k_x16 on AMX tiles (common/amx.h; layout and semantics: q2_k_x16.h).  The 16 blocks of a
 * record are taken back out of it by a dword transpose and word permutes, once per strip, and
 * decoded to int8 by q2_k@amx's own block decoders (q2_k_amx.c); d and dmin are read in place.
 * The driver folds them as q2_k's reference does, so this gives q2_k_x16's (= q2_k's) bits. */
#include <stddef.h>

#include "../common/amx.h"
#include "q2_k_x16.h"

/* The 16 blocks of one record (block b of rows 16g .. 16g + 15) back in bb_block_q2_K form, their
 * scales and qs only (d and dmin are left unset: the driver reads them in place).  qs: the 16
 * vectors of the record's qs hold 4 bytes of each row per 32-bit lane (q2_k_x16.h), so a 16 x 16
 * dword transpose gives each row's 64 bytes.  scales: vector v holds the 16-bit words p = 2v and
 * 2v + 1 (scales[2p], scales[2p + 1]) of the 16 rows, word 16 (p % 2) + i for row i; two rounds
 * of two-source word permutes put each row's 8 words together. */
typedef struct {
    __m512i round1, round2;
} scale_permutes;

static scale_permutes make_scale_permutes(void)
{
    _Alignas(64) uint16_t idx1[32], idx2[32];
    for (int j = 0; j < 32; j++) {
        /* round 1, output word j = 4 i + p (rows i < 8 of a half, p < 4 of a pair of vectors):
         * vector p / 2 (source a or b), word 16 (p % 2) + i */
        int i = j / 4, p = j % 4;
        idx1[j] = (uint16_t)((p / 2) * 32 + 16 * (p % 2) + i);
        /* round 2, output word j = 8 i + p (rows i < 4, p < 8): p < 4 from the first round-1
         * output (word 4 i + p), else from the second (word 4 i + p - 4) */
        int i2 = j / 8, p2 = j % 8;
        idx2[j] = (uint16_t)(p2 < 4 ? 4 * i2 + p2 : 32 + 4 * i2 + p2 - 4);
    }
    return (scale_permutes){_mm512_load_si512(idx1), _mm512_load_si512(idx2)};
}

static void record_blocks(const uint8_t *rec, const scale_permutes *sp, bb_block_q2_K blk[16])
{
    const __m512i i1 = sp->round1, i2 = sp->round2, up8 = _mm512_set1_epi16(8);
    __m512i v[4], t[2][2];
    for (int k = 0; k < 4; k++) v[k] = _mm512_loadu_si512(rec + BB_Q2_K_X16_SCALES + 64 * k);
    /* t[h][half]: p = 4h .. 4h + 3 of rows 8 half .. 8 half + 7 */
    for (int h = 0; h < 2; h++) {
        t[h][0] = _mm512_permutex2var_epi16(v[2 * h], i1, v[2 * h + 1]);
        t[h][1] = _mm512_permutex2var_epi16(v[2 * h], _mm512_add_epi16(i1, up8), v[2 * h + 1]);
    }
    for (int q = 0; q < 4; q++) { /* rows 4q .. 4q + 3: half q / 2, rows 4 (q % 2) .. within it */
        __m512i sel = _mm512_add_epi16(i2, _mm512_set1_epi16((short)(16 * (q % 2))));
        __m512i o = _mm512_permutex2var_epi16(t[0][q / 2], sel, t[1][q / 2]);
        /* the lane number must be an immediate (also at -O0) */
        _mm_storeu_si128((__m128i *)blk[4 * q].scales, _mm512_castsi512_si128(o));
        _mm_storeu_si128((__m128i *)blk[4 * q + 1].scales, _mm512_extracti32x4_epi32(o, 1));
        _mm_storeu_si128((__m128i *)blk[4 * q + 2].scales, _mm512_extracti32x4_epi32(o, 2));
        _mm_storeu_si128((__m128i *)blk[4 * q + 3].scales, _mm512_extracti32x4_epi32(o, 3));
    }
    __m512i r[16];
    for (int j = 0; j < 16; j++) r[j] = _mm512_loadu_si512(rec + BB_Q2_K_X16_QS + 64 * j);
    bb_amx_transpose16(r);
    for (int i = 0; i < 16; i++) _mm512_storeu_si512(blk[i].qs, r[i]);
}

/* Rows [r, r + rows) (r and rows multiples of 16) through fn, block by block. */
static void decode_rows(const void *w, int k, int r, int rows, int8_t *dst, size_t stride,
                        void (*fn)(const bb_block_q2_K *blk, int8_t *out))
{
    bb_block_q2_K blk[16];
    scale_permutes sp = make_scale_permutes();
    for (int g = 0; g < rows; g += BB_Q2_K_X16_ROWS)
        for (int b = 0; b < k / BB_QK_K; b++) {
            record_blocks(bb_il_record(&bb_q2_k_x16_layout, w, k, r + g, b), &sp, blk);
            for (int i = 0; i < BB_Q2_K_X16_ROWS; i++) fn(&blk[i], dst + (g + i) * stride + BB_QK_K * b);
        }
}

static void weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    decode_rows(w, k, r, rows, dst, stride, bb_q2_k_block_i8);
}

static void mins_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    (void)m;
    decode_rows(w, k, r, rows, dst, stride, bb_q2_k_block_mins_i8);
}

static const bb_amx_ops q2_k_x16_amx = {
    .seg = BB_QK_K,
    .fold = BB_AMX_BLOCK_K_MINS,
    .weights_i8 = weights_i8,
    .mins_i8 = mins_i8,
    .il = &bb_q2_k_x16_layout,
    .d_at = BB_Q2_K_X16_D,
    .dm_at = BB_Q2_K_X16_DMIN,
    .act_i8 = bb_gk_amx_act_i8,
    .act_scales = bb_gk_amx_act_scales,
    .small_n = bb_q2_k_x16_matmul_avx512,
};

void bb_q2_k_x16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&q2_k_x16_amx, w, act, y, m, k, n, m0, m1);
}
