/* q8_0 — llama.cpp / GGUF type Q8_0 (GGML_TYPE_Q8_0 = 8), one of the block formats bitnet.cpp §2
 * (seed 000) compares against.
 *
 * Layout: row-major, each row K/32 ggml block_q8_0 of 34 bytes: fp16 d (little endian), then 32
 * int8 q; weight j of the block is q[j] * d.  8.5 bits per weight.  Quantization is
 * quantize_row_q8_0_ref: d = amax/127, q = round(x/d) half away from zero (bb_quant_q8_0).
 *
 * Activations: q8_0 blocks of 32 (BB_ACT_I8_BLOCK32) plus per-block aux (see qx_0.h).
 *
 * Reference: y = 0; for each block b in order: y = y + ((float)isum_b * d_w) * d_a (qx_0.h),
 * llama.cpp's generic ggml_vec_dot_q8_0_q8_0.
 * SIMD variants (float_accumulation = true): as llama.cpp's x86 path, each block's exact int32
 * dot is kept as 8 int32 lane partials (4 weights each), converted to float and accumulated with
 * FMA into 8-lane float accumulators (two per activation row, even and odd blocks), the 16
 * lanes summed at the end; within float rounding of the reference, not bit-equal.
 *   avx2:   sign trick, vpmaddubsw(|w|, sign(a, w)) then vpmaddwd(·, 1)  (as llama.cpp)
 *   avx512: sign trick, vpdpbusd(|w|, sign(a, w))  (llama.cpp's AVX-512 VNNI path)
 * Both form the same exact int32 lane partials (4 weights each) and the same float operations,
 * so the two variants agree with each other bit for bit.
 */
#ifndef BB_Q8_0_H
#define BB_Q8_0_H

#include "qx_0.h"

#endif
