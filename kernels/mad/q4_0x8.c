#include "q4_0x8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t q4_0x8_packed_size(int m, int k) { return (size_t)m * (k / BB_QK) * sizeof(bb_block_q4_0); }

/* Where byte j (0..15) of row i's qs lives inside a record (offset from the record start). */
static inline int qs_offset(int i, int j) { return 16 + 8 * (8 * (j / 8) + i) + j % 8; }

static int q4_0x8_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    int nb = w->k / BB_QK;
    bb_block_q4_0 *rows = malloc(sizeof(bb_block_q4_0) * (size_t)nb * BB_Q4_0X8_ROWS);
    if (!rows) {
        snprintf(err, errlen, "out of memory packing q4_0x8 (K=%d)", w->k);
        return -1;
    }
    for (int g = 0; g < w->m / BB_Q4_0X8_ROWS; g++) {
        for (int i = 0; i < BB_Q4_0X8_ROWS; i++)
            for (int b = 0; b < nb; b++)
                bb_quant_q4_0_block(w->f32 + (size_t)(BB_Q4_0X8_ROWS * g + i) * w->k + b * BB_QK, &rows[i * nb + b]);
        for (int b = 0; b < nb; b++) {
            uint8_t *rec = (uint8_t *)bb_q4_0x8_record(dst, w->k, g, b);
            for (int i = 0; i < BB_Q4_0X8_ROWS; i++) {
                memcpy(rec + 2 * i, &rows[i * nb + b].d, 2);
                for (int j = 0; j < BB_QK / 2; j++) rec[qs_offset(i, j)] = rows[i * nb + b].qs[j] ^ 0x88;
            }
        }
    }
    free(rows);
    return 0;
}

static uint16_t q4_0x8_get(const void *w, int m, int k, int r, int b, int8_t vals[BB_QK])
{
    (void)m;
    const uint8_t *rec = bb_q4_0x8_record(w, k, r / BB_Q4_0X8_ROWS, b);
    int i = r % BB_Q4_0X8_ROWS;
    for (int j = 0; j < BB_QK / 2; j++) {
        uint8_t q = rec[qs_offset(i, j)] ^ 0x88;
        vals[j] = (int8_t)((q & 15) - 8);
        vals[j + BB_QK / 2] = (int8_t)((q >> 4) - 8);
    }
    uint16_t d;
    memcpy(&d, rec + 2 * i, 2);
    return d;
}

static void q4_0x8_unpack(const void *src, int m, int k, float *dst) { bb_qx_unpack(q4_0x8_get, src, m, k, dst); }

static void q4_0x8_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_qx_matmul_ref(q4_0x8_get, w, act, y, m, k, n, m0, m1);
}

const bb_kernel bb_kernel_q4_0x8 = {
    .name = "q4_0x8",
    .family = "mad",
    .description = "Q4_0 with 8 rows interleaved (SIMD-aware packing), 8 outputs per pass",
    .paper = "Arm §4.1 SIMD-aware packing, Q4_0_8_8 (seed 003)",
    .bits_per_weight = 4.5,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK32,
    .plain_rows = false,
    .float_accumulation = false,
    .k_multiple = BB_QK,
    .m_multiple = BB_Q4_0X8_ROWS,
    .packed_size = q4_0x8_packed_size,
    .pack = q4_0x8_pack,
    .unpack = q4_0x8_unpack,
    .act_size = bb_qx_act_size,
    .prepare = bb_qx_prepare,
    .variants = {
        {"scalar", 0, q4_0x8_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_q4_0x8_matmul_avx2, bb_qx_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_q4_0x8_matmul_avx512, bb_qx_prepare_avx512},
#endif
    },
};
