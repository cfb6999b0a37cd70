/* Shared by the llama.cpp "_0" block kernels q8_0, q4_0 and q4_0x8 (bitnet.cpp §2 names them as
 * the llama.cpp baselines; Arm paper §2/§4 describes Q4_0 and its interleaved repack): the GGUF
 * block structs, llama.cpp's q4_0 block quantizer, the activation buffer all three consume, and
 * the scalar reference they all share.
 *
 * Activation buffer (BB_ACT_I8_BLOCK32): common/q8_0_act.h, shared with codebook's iq4_nl.
 *
 * Reference semantics (all three kernels; llama.cpp's generic ggml_vec_dot_q4_0_q8_0 /
 * ggml_vec_dot_q8_0_q8_0, operands in this order):
 *     isum_b = sum_{j<32} w_b[j] * a_b[j]                          exact, int32
 *     y = 0.0f;  for b = 0 .. K/32-1:  y = y + ((float)isum_b * d_w[b]) * d_a[b]
 * every operation a float (binary32) operation rounded to nearest, in exactly this order, no FMA;
 * d_w, d_a the fp16 scales converted exactly to float, w_b[j] the block's signed integer weights. */
#ifndef BB_QX_0_H
#define BB_QX_0_H

#include <stddef.h>
#include <stdint.h>

#include "../common/act_quant.h"
#include "../common/q8_0_act.h" /* BB_QK, the activation buffer and its prepare */
#include "../common/prefetch.h"
#include "../kernel.h"



/* ggml block_q4_0: 18 bytes, fp16 d then 16 bytes; weight j (0..15) is the low nibble of qs[j],
 * weight j+16 its high nibble; value (nibble - 8) * d. */
typedef struct {
    uint16_t d;
    uint8_t qs[BB_QK / 2];
} bb_block_q4_0;

_Static_assert(sizeof(bb_block_q4_0) == 18, "block_q4_0 is 18 bytes");

/* llama.cpp's quantize_row_q4_0_ref for one block of 32 floats. */
void bb_quant_q4_0_block(const float *x, bb_block_q4_0 *dst);

/* ---- the shared scalar reference ---- */
/* Block b of row r of a packed matrix: its fp16 scale (returned) and its 32 signed weights. */
typedef uint16_t (*bb_qx_get_block)(const void *w, int m, int k, int r, int b, int8_t vals[BB_QK]);

void bb_qx_matmul_ref(bb_qx_get_block get, const void *w, const void *act, float *y, int m, int k, int n,
                      int m0, int m1);
void bb_qx_unpack(bb_qx_get_block get, const void *src, int m, int k, float *dst);

/* SIMD variants of the three kernels (files <kernel>_avx2.c, <kernel>_avx512.c). */
void bb_q8_0_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q8_0_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
/* Arm SDOT, the reference's bits (qx_0_dotprod.c) */
void bb_q8_0_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0x8_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0x8_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
/* AMX tiles (qx_0_amx.c, common/amx.h) */
void bb_q8_0_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q4_0_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
/* (their bb_amx_ops use common/q8_0_act.h's bb_qx_amx_act_* and, for q4_0x8,
 * common/nibble_records.h's bb_nibble_x8_amx_*) */
void bb_q4_0x8_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
