/* The q8_0 activation buffer of llama.cpp's "_0" block kernels (mad's q8_0, q4_0 and their
 * interleaved records, mad/qx_0.h) and of codebook's iq4_nl, iq4_nl_x8: the q8_0 blocks of
 * act_quant.h and derived data for the SIMD variants.
 *
 * Layout (BB_ACT_I8_BLOCK32):
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
 * holding row r (o, broadcast as one 64-bit value).  The reference reads only the q8_0 blocks. */
#ifndef BB_Q8_0_ACT_H
#define BB_Q8_0_ACT_H

#include <stddef.h>
#include <stdint.h>

#include "act_quant.h"

/* The SIMD files build their loops from small helpers that must inline into one function. */
#define BB_QX_INLINE static inline __attribute__((always_inline))

#define BB_QK 32 /* values per q8_0 block (and weights per q4_0 block) */

_Static_assert(sizeof(bb_block_q8_0) == 34, "block_q8_0 is 34 bytes");

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
/* The same bytes, vectorized (q8_0_act_avx2.c, q8_0_act_avx512.c): roundf's half-away-from-zero done
 * exactly as trunc plus a step where the exact remainder is >= 0.5. */
void bb_qx_prepare_avx2(const float *x, int n, int k, void *act);
void bb_qx_prepare_avx512(const float *x, int n, int k, void *act);
/* NEON (q8_0_act_neon.c, Armv8.0): roundf is FCVTAS, round to nearest with ties away from zero. */
void bb_qx_prepare_neon(const float *x, int n, int k, void *act);
/* The AMX driver's act_i8 / act_scales (bb_amx_ops, amx.h) for this buffer (q8_0_act_amx.c): row
 * c's int8 copied out of its q8_0 blocks, and the blocks' scales as float. */
const int8_t *bb_qx_amx_act_i8(const void *act, int n, int k, int c, int8_t *scratch);
void bb_qx_amx_act_scales(const void *act, int n, int k, int npad, float *da);

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

#endif
