/* q8_0 — llama.cpp / GGUF type Q8_0 (GGML_TYPE_Q8_0 = 8), one of the block formats bitnet.cpp §2
 * (bitnet.cpp) compares against.
 *
 * Layout: row-major, each row K/32 ggml block_q8_0 of 34 bytes: fp16 d (little endian), then 32
 * int8 q; weight j of the block is q[j] * d.  8.5 bits per weight.  Quantization is
 * quantize_row_q8_0_ref: d = amax/127, q = round(x/d) half away from zero (bb_quant_q8_0).
 *
 * Activations: q8_0 blocks of 32 (BB_ACT_I8_BLOCK32) plus per-block aux (see qx_0.h).
 *
 * Reference: y = 0; for each block b in order: y = y + ((float)isum_b * d_w) * d_a (qx_0.h),
 * llama.cpp's generic ggml_vec_dot_q8_0_q8_0.
 * SIMD variants (float_accumulation = true), after llama.cpp's x86 path: block b's exact dot is
 * kept as 8 int32 lane partials P_b[i] = sum_{j=4i..4i+3} w_j * a_j; per activation row two
 * 8-lane float accumulators A_0 (even b), A_1 (odd b), in block order
 *     A_{b mod 2}[i] = fma(d_w[b] * d_a[b], (float)P_b[i], A_{b mod 2}[i])
 * and y = sum of the 8 lanes of A_0 + A_1 ((i + i+4), then (i + i+2), then the two) — within
 * float rounding of the reference, not bit-equal.  Both variants use llama.cpp's sign trick, |w|
 * as the unsigned operand and sign(a, w) as the signed one:
 *   avx2:   P = vpmaddwd(vpmaddubsw(|w|, sign(a, w)), 1)   (|pair| <= 2*127*127 < 2^15)
 *   avx512: P = vpdpbusd(0, |w|, sign(a, w))
 * They compute identical lane partials and float operations, so they agree bit for bit.  Scales
 * of 4 blocks are converted together; up to 4 activation rows share each loaded block; the weight
 * stream is prefetched ahead (common/prefetch.h).  The Arm variant, dotprod (SDOT, qx_0_dotprod.c), gives the
 * reference's bits instead: four weight rows side by side, one per float lane, each lane running
 * the reference's float sequence.
 */
#ifndef BB_Q8_0_H
#define BB_Q8_0_H

#include "qx_0.h"

#endif
