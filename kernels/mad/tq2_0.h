/* tq2_0 — llama.cpp's TQ2_0 ternary format (GGML_TYPE_TQ2_0), byte-compatible with GGUF, with
 * q8_K activations as llama.cpp pairs them.  bitnet.cpp §2 "element-wise MAD-based":
 * 2.06 bits per weight, per-block scale, block-quantized activations (hence not lossless for
 * BitNet b1.58, which quantizes activations per tensor).
 *
 * Layout: row-major, each row K/256 blocks of 66 bytes { uint8 qs[64]; fp16 d; }.  Codes
 * c = t + 1 in {0,1,2}: value 32*4*j + 32*l + m of the block (half j = 0,1; plane l = 0..3;
 * m = 0..31) is bits 2l..2l+1 of qs[32j + m].  Decoding maps code c to c - 1 (so a stray code 3
 * reads as +2, as in ggml).  d: pack stores the per-tensor ternary scale rounded to fp16 in
 * every block; unpack returns t * fp16(d), which is what the kernel multiplies by.
 * 66 bytes / 256 weights = 2.0625 bits per weight.
 *
 * Activations: q8_K (common/act_quant.h, BB_ACT_I8_BLOCK256): per 256 values int8 q, float d,
 * int16 bsums of each 16.
 *
 * Reference semantics (ggml_vec_dot_tq2_0_q8_K, scalar form; the scalar variant):
 *     isum_b = sum_i (c_i - 1) * q_i                      (exact int32)
 *     y = 0; for b in block order: y += (float)isum_b * (a_b.d * fp16(w_b.d))    (float)
 * avx2 gives exactly these bits (sum c*q with u8 x s8 products minus sum q, exact; then the same
 * per-block products folded in block order, ggml_k.h).  avx512 accumulates in float lanes, as
 * ggml's AVX paths do (float_accumulation = true): per block, each of 16 lanes holds an exact
 * integer that is 1 or 4 times a partial sum; it is converted and accumulated with one FMA by
 * d_b, and at the end of the row the lanes are weighted back (exact powers of two), the offset
 * sum_b d_b * (sum of block b's q) is subtracted and the lanes are added — the same products
 * summed in another order, so within float rounding of sum |w x| of the reference.  That removes
 * the per-block horizontal sum, which costs as much as the dot product itself.  Its
 * one-activation-row (GEMV) and multi-row (GEMM) paths fold the same per-block integers
 * (tq2_0_avx512.c); each gives a row the same bits whatever the split of M.  The Arm variants, neon (SMLAL to int16)
 * and dotprod (SDOT), give the reference's bits as avx2 does (ggml_k_neon.h).
 * A model file's TQ2_0 tensors run by default through tq2_0_x16 (tq2_0_x16.h), these blocks with
 * 16 rows interleaved: the reference's bits, with the per-block fold shared by 16 rows.
 */
#ifndef BB_TQ2_0_H
#define BB_TQ2_0_H

#include "../kernel.h"
#include "ggml_k.h"

void bb_tq2_0_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq2_0_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq2_0_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq2_0_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq2_0_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

static inline size_t bb_tq2_0_row_bytes(int k) { return (size_t)(k / BB_QK_K) * sizeof(bb_block_tq2_0); }

/* One block of 256 ternary values t (-1, 0, 1) with fp16 scale d, as pack stores it. */
void bb_tq2_0_pack_block(const int8_t *t, uint16_t d, bb_block_tq2_0 *out);
/* The block's 256 weights as unpack gives them. */
void bb_tq2_0_unpack_block(const bb_block_tq2_0 *blk, float *dst);
/* One block's term of the reference, (float)isum_b * (a_b.d * fp16(w_b.d)): y is the sum of
 * these in block order. */
float bb_tq2_0_block_term(const bb_block_tq2_0 *x, const bb_block_q8_K *a);

#endif
