/* iq4_nl_x8: packing, the reference and the descriptor.  See iq4_nl_x8.h. */
#include "iq4_nl_x8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t iq4_nl_x8_packed_size(int m, int k) { return (size_t)m * (k / BB_QK4_NL) * sizeof(bb_iq4_nl_block); }

static int iq4_nl_x8_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    int nb = w->k / BB_QK4_NL;
    bb_iq4_nl_block *blocks = malloc(sizeof(bb_iq4_nl_block) * (size_t)nb * BB_Q4_0X8_ROWS);
    if (!blocks) {
        snprintf(err, errlen, "out of memory packing iq4_nl_x8 (K=%d)", w->k);
        return -1;
    }
    for (int g = 0; g < w->m / BB_Q4_0X8_ROWS; g++) {
        for (int i = 0; i < BB_Q4_0X8_ROWS; i++)
            for (int b = 0; b < nb; b++)
                bb_iq4_nl_quant_block(w->f32 + (size_t)(BB_Q4_0X8_ROWS * g + i) * w->k + b * BB_QK4_NL, &blocks[i * nb + b]);
        for (int b = 0; b < nb; b++) {
            uint8_t *rec = (uint8_t *)bb_q4_0x8_record(dst, w->k, g, b);
            for (int i = 0; i < BB_Q4_0X8_ROWS; i++) {
                memcpy(rec + 2 * i, &blocks[i * nb + b].d, 2);
                for (int j = 0; j < BB_QK4_NL / 2; j++)
                    rec[bb_q4_0il_qs_offset(BB_Q4_0X8_ROWS, BB_Q4_0X8_CHUNK, i, j)] = blocks[i * nb + b].qs[j];
            }
        }
    }
    free(blocks);
    return 0;
}

/* Block b of row r, put back together from its record. */
static void iq4_nl_x8_get(const void *w, int k, int r, int b, bb_iq4_nl_block *out)
{
    const uint8_t *rec = bb_q4_0x8_record(w, k, r / BB_Q4_0X8_ROWS, b);
    int i = r % BB_Q4_0X8_ROWS;
    memcpy(&out->d, rec + 2 * i, 2);
    for (int j = 0; j < BB_QK4_NL / 2; j++) out->qs[j] = rec[bb_q4_0il_qs_offset(BB_Q4_0X8_ROWS, BB_Q4_0X8_CHUNK, i, j)];
}

static void iq4_nl_x8_unpack(const void *src, int m, int k, float *dst)
{
    bb_iq4_nl_unpack_with(iq4_nl_x8_get, src, m, k, dst);
}

static void iq4_nl_x8_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_iq4_nl_matmul_ref_with(iq4_nl_x8_get, w, act, y, m, k, n, m0, m1);
}

const bb_kernel bb_kernel_iq4_nl_x8 = {
    .name = "iq4_nl_x8",
    .family = "codebook",
    .description = "IQ4_NL with 8 rows interleaved (SIMD-aware packing), 8 outputs per pass",
    .paper = "Arm paper §4.1 packing (seed 003) of the §6.3 IQ4_NL codebook; llama.cpp's IQ4_NL repack",
    .bits_per_weight = 4.5,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK32,
    .plain_rows = false,
    .float_accumulation = false,
    .k_multiple = BB_QK4_NL,
    .m_multiple = BB_Q4_0X8_ROWS,
    .packed_size = iq4_nl_x8_packed_size,
    .pack = iq4_nl_x8_pack,
    .unpack = iq4_nl_x8_unpack,
    .act_size = bb_qx_act_size,
    .prepare = bb_qx_prepare,
    .variants = {
        {"scalar", 0, iq4_nl_x8_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx512", BB_ISA_AVX512, bb_iq4_nl_x8_matmul_avx512, bb_qx_prepare_avx512},
        {"amx", BB_ISA_AMX, bb_iq4_nl_x8_matmul_amx, bb_qx_prepare_avx512},
#endif
#if defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_iq4_nl_x8_matmul_dotprod, bb_qx_prepare_neon},
        {"i8mm", BB_ISA_I8MM, bb_iq4_nl_x8_matmul_i8mm, bb_qx_prepare_neon},
#endif
    },
};
