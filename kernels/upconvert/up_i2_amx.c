/* up_i2 on AMX tiles (common/amx.h).  A 32-row block stores per 4 columns one 32-byte group whose
 * dword M8 holds the 4 columns' codes of rows M8, 8 + M8, 16 + M8, 24 + M8 at bits 2*m4 of each
 * byte (up_i2.h): 16 groups (64 columns), each zero-extended to a zmm, transpose into 8 vectors
 * whose dword g is group g's dword M8; a shift by 2*m4, an AND and a byte shuffle through the
 * level table then give row 8*m4 + M8's 64 int8 levels in column order.  One segment, all of K,
 * ends in bb_i8_dequant with the row's scale: the reference's bits.  K not a multiple of 32 runs
 * on the AVX-512 variant (amx.h). */
#include <string.h>

#include "../common/amx.h"
#include "up_i2.h"

static void up_i2_weights_i8(const void *w, int m, int k, int r, int rows, int8_t *dst, size_t stride)
{
    int32_t table;
    memcpy(&table, bb_up_head_of(w)->levels, sizeof table);
    const __m512i levels = _mm512_broadcast_i32x4(_mm_cvtsi32_si128(table)); /* levels[code], code 0..3 */
    const __m512i three = _mm512_set1_epi8(3);
    for (int blk0 = r; blk0 < r + rows; blk0 += BB_UP_MB) {
        const uint8_t *blk = bb_up_block(w, m, k, 2, blk0 / BB_UP_MB);
        int8_t *out = dst + (size_t)(blk0 - r) * stride;
        for (int k0 = 0; k0 < k; k0 += 64) {
            int groups = k - k0 < 64 ? (k - k0) / 4 : 16;
            __m512i v[16];
            for (int g = 0; g < 16; g++)
                v[g] = g < groups ? _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)(blk + (size_t)(k0 / 4 + g) * BB_UP_I2_GROUP)))
                                  : _mm512_setzero_si512();
            bb_amx_transpose16(v);
            __mmask64 keep = groups == 16 ? ~0ull : (1ull << (4 * groups)) - 1;
            for (int m8 = 0; m8 < 8; m8++)
                for (int m4 = 0; m4 < 4; m4++) {
                    __m512i codes = _mm512_and_si512(_mm512_srli_epi32(v[m8], (unsigned)(2 * m4)), three);
                    _mm512_mask_storeu_epi8(out + (size_t)(8 * m4 + m8) * stride + k0, keep,
                                            _mm512_shuffle_epi8(levels, codes));
                }
        }
    }
}

/* Blocks of 32 rows: row r (a multiple of 32) starts block r/32. */
static const void *up_i2_row_start(const void *w, int m, int k, int r)
{
    return bb_up_block(w, m, k, 2, r / BB_UP_MB);
}

static void up_i2_weight_scales(const void *w, int m, int k, int r, int rows, float *dw)
{
    (void)m; (void)k;
    for (int i = 0; i < rows; i++) dw[i] = bb_up_scales(w)[r + i];
}

static const bb_amx_ops up_i2_amx = {
    .seg = 0,
    .fold = BB_AMX_DEQUANT_ROW,
    .weights_i8 = up_i2_weights_i8,
    .row_start = up_i2_row_start,
    .weight_scales = up_i2_weight_scales,
    .act_i8 = bb_amx_i8_row_act,
    .act_scales = bb_amx_i8_row_scales,
    .small_n = bb_up_i2_matmul_avx512,
};

void bb_up_i2_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_amx_matmul(&up_i2_amx, w, act, y, m, k, n, m0, m1);
}
