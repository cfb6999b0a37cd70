/* q2_k — llama.cpp's Q2_K k-quant (GGML_TYPE_Q2_K), byte-compatible with GGUF, with q8_K
 * activations as llama.cpp pairs them.  bitnet.cpp §2 "bit-wise MAD-based" (bitnet.cpp: the
 * multi-step dequantization that makes Q2_K slower than the ternary formats), Arm paper §5 /
 * Fig. 7 (Arm paper: Q2_K as the 2-bit uniform baseline).
 *
 * Layout: row-major, each row K/256 super-blocks of 84 bytes
 *     { uint8 scales[16]; uint8 qs[64]; fp16 d; fp16 dmin; }
 * scales[j] (values 16j..16j+15): low nibble sc_j, high nibble m_j.  2-bit codes q in the same
 * planes as tq2_0: value 128h + 32l + i (h = 0,1; l = 0..3; i = 0..31) is bits 2l..2l+1 of
 * qs[32h + i].  Weight = fp16(d) * sc_j * q - fp16(dmin) * m_j.  84 bytes / 256 = 2.625 bpw.
 * unpack returns that value computed exactly and rounded once to float.
 *
 * Quantization (pack, real weights) follows quantize_row_q2_K_ref: per 16 values a scale and a
 * non-positive offset fitted by a weighted (|x|) least-absolute-deviation search over 16 trial
 * inverse scales (make_qkx2_quants, nmax 3, rmin -0.5, rdelta 0.1), the 16 scales and the 16
 * mins then quantized to 4 bits against their maxima (d = max_scale/15, dmin = max_min/15, fp16),
 * and the codes recomputed against the quantized scales.
 *
 * Activations: q8_K (BB_ACT_I8_BLOCK256).
 *
 * Exact semantics (ggml_vec_dot_q2_K_q8_K, scalar form), per super-block b:
 *     isum_b  = sum_j sc_j * sum_{i in j} q_i * a_i        (exact int32)
 *     summs_b = sum_j m_j * bsums_j                         (exact int32)
 *     y = 0; in block order: y += (a.d*fp16(d)) * (float)isum_b - (a.d*fp16(dmin)) * (float)summs_b
 * with every product rounded to float and no fused multiply-add.  SIMD variants compute the
 * same integers and run the same scalar float loop (ggml_k.h): the reference's bits.  So does amx
 * (q2_k_amx.c, N >= 16; below, the avx512 variant): the weights decoded to int8 sc_j * q (<= 45)
 * and the mins to int8 m_j per weight, so that isum_b and summs_b = sum_i m_j(i) * a_i (= sum_j
 * m_j * bsums_j) are both exact TDPBSSD dots, folded as above (common/amx.h BB_AMX_BLOCK_K_MINS).
 */
#ifndef BB_Q2_K_H
#define BB_Q2_K_H

#include "../kernel.h"
#include "ggml_k.h"

void bb_q2_k_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q2_k_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q2_k_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_q2_k_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

static inline size_t bb_q2_k_row_bytes(int k) { return (size_t)(k / BB_QK_K) * sizeof(bb_block_q2_K); }

/* Quantize 256 floats into one block (quantize_row_q2_K_ref's algorithm). */
void bb_q2_k_quantize_block(const float *x, bb_block_q2_K *y);
/* The block's 256 weights as unpack gives them. */
void bb_q2_k_unpack_block(const bb_block_q2_K *blk, float *dst);
/* One block's term of the reference, p - q above: y is the sum of these in block order. */
float bb_q2_k_block_term(const bb_block_q2_K *x, const bb_block_q8_K *a);
/* q2_k_amx.c (AMX builds only): a block's 256 weights as the int8 sc_j * q its tiles multiply,
 * and its 256 sub-block mins m_j, one per weight. */
void bb_q2_k_block_i8(const bb_block_q2_K *blk, int8_t *out);
void bb_q2_k_block_mins_i8(const bb_block_q2_K *blk, int8_t *out);

#endif
