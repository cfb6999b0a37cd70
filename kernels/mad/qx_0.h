/* Shared by the llama.cpp "_0" block kernels q8_0, q4_0 and q4_0x8 (bitnet.cpp §2 names them as
 * the llama.cpp baselines; Arm paper §2/§4 describes Q4_0 and its interleaved repack): the GGUF
 * block structs, llama.cpp's q4_0 block quantizer, the activation buffer all three consume, and
 * the scalar reference they all share.
 *
 * Activation buffer (BB_ACT_I8_BLOCK32):
 *     N rows of K/32 bb_block_q8_0, byte-identical to bb_quant_q8_0_rows (ggml's block_q8_0);
 *     then, from the next multiple of 64 bytes, per activation row (nb = K/32 blocks, stride
 *     bb_qx_aux_stride(K)):
 *         float   d[nb]        the block's fp16 scale as float (exact)
 *         int32   o[nb][2]     (at a multiple of 8 bytes) {-8 * sum of the block's 32 int8, 0}
 *         int32   c[nb][8]     (at a multiple of 32 bytes) c[b][i] = -8 * (a[4i] + .. + a[4i+3])
 * The aux part is derived data for the SIMD variants, in the spirit of llama.cpp's q8_1 / q8_K
 * "s" / "bsums": d lets them broadcast the activation scale without an fp16 conversion per weight
 * row; o and c let q4_0x8 and q4_0 multiply the stored unsigned nibbles n directly and remove
 * their +8 bias exactly, (n - 8)·a = n·a - 8·sum(a), by starting the int32 accumulators at the
 * correction: q4_0 per 4-byte lane of vpdpbusd / vpmaddwd (c), q4_0x8 per lane pair (2r, 2r+1)
 * holding row r (o, broadcast as one 64-bit value).  The reference reads only the q8_0 blocks.
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
#include "../common/prefetch.h"
#include "../kernel.h"

#define BB_QK 32 /* weights per block in q8_0 and q4_0 */

/* The SIMD files build their loops from small helpers that must inline into one function. */
#define BB_QX_INLINE static inline __attribute__((always_inline))

/* ggml block_q4_0: 18 bytes, fp16 d then 16 bytes; weight j (0..15) is the low nibble of qs[j],
 * weight j+16 its high nibble; value (nibble - 8) * d. */
typedef struct {
    uint16_t d;
    uint8_t qs[BB_QK / 2];
} bb_block_q4_0;

_Static_assert(sizeof(bb_block_q4_0) == 18, "block_q4_0 is 18 bytes");
_Static_assert(sizeof(bb_block_q8_0) == 34, "block_q8_0 is 34 bytes");

/* llama.cpp's quantize_row_q4_0_ref for one block of 32 floats. */
void bb_quant_q4_0_block(const float *x, bb_block_q4_0 *dst);

/* ---- activations ---- */
typedef struct {
    const float *d;   /* d[b] */
    const int32_t *o; /* o[2b], o[2b + 1] */
    const int32_t *c; /* c[8b + i] */
} bb_qx_aux;

static inline size_t bb_qx_aux_o_offset(int k) { return ((size_t)4 * (k / BB_QK) + 7) & ~(size_t)7; }
static inline size_t bb_qx_aux_c_offset(int k) { return (bb_qx_aux_o_offset(k) + (size_t)8 * (k / BB_QK) + 31) & ~(size_t)31; }
static inline size_t bb_qx_aux_stride(int k) { return (bb_qx_aux_c_offset(k) + (size_t)32 * (k / BB_QK) + 63) & ~(size_t)63; }

size_t bb_qx_act_size(int n, int k);
void bb_qx_prepare(const float *x, int n, int k, void *act);
/* The same bytes, vectorized (qx_0_avx2.c, qx_0_avx512.c): roundf's half-away-from-zero done
 * exactly as trunc plus a step where the exact remainder is >= 0.5. */
void bb_qx_prepare_avx2(const float *x, int n, int k, void *act);
void bb_qx_prepare_avx512(const float *x, int n, int k, void *act);
/* NEON (qx_0_neon.c, Armv8.0): roundf is FCVTAS, round to nearest with ties away from zero. */
void bb_qx_prepare_neon(const float *x, int n, int k, void *act);

static inline const bb_block_q8_0 *bb_qx_act_row(const void *act, int k, int c)
{
    return (const bb_block_q8_0 *)act + (size_t)c * (k / BB_QK);
}
static inline bb_qx_aux bb_qx_aux_row(const void *act, int n, int k, int c)
{
    size_t q8 = ((size_t)n * (k / BB_QK) * sizeof(bb_block_q8_0) + 63) & ~(size_t)63;
    const char *row = (const char *)act + q8 + (size_t)c * bb_qx_aux_stride(k);
    bb_qx_aux a = {(const float *)row, (const int32_t *)(row + bb_qx_aux_o_offset(k)),
                   (const int32_t *)(row + bb_qx_aux_c_offset(k))};
    return a;
}

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
/* the AMX driver's act_i8 / act_scales (bb_amx_ops) for this activation buffer: row c's int8
 * copied out of its q8_0 blocks, and the blocks' scales as float (also iq4_nl_amx.c) */
const int8_t *bb_qx_amx_act_i8(const void *act, int n, int k, int c, int8_t *scratch);
void bb_qx_amx_act_scales(const void *act, int n, int k, int npad, float *da);
/* the AMX driver's row_start / weight_scales of q4_0x8's 8-row records (also iq4_nl_x8's) */
const void *bb_q4_0x8_amx_row_start(const void *w, int m, int k, int r);
void bb_q4_0x8_amx_weight_scales(const void *w, int m, int k, int r, int rows, float *dw);
void bb_q4_0x8_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
