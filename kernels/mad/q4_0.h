/* q4_0 — llama.cpp / GGUF type Q4_0 (GGML_TYPE_Q4_0 = 2): the 4-bit baseline of bitnet.cpp §2
 * (seed 000) and of the Arm paper (seed 003 §2, Table 1 "Q4_0 (llama.cpp)").
 *
 * Layout: row-major, each row K/32 ggml block_q4_0 of 18 bytes: fp16 d (little endian), then 16
 * bytes qs; weight j (0..15) of the block is the low nibble of qs[j], weight j+16 the high nibble;
 * value (nibble - 8) * d.  4.5 bits per weight.  Quantization is quantize_row_q4_0_ref: max = the
 * signed value of largest magnitude, d = max / -8, nibble = min(15, (int8)(x/d + 8.5))
 * (bb_quant_q4_0_block).
 *
 * Activations: q8_0 blocks of 32 (BB_ACT_I8_BLOCK32) plus per-block aux (see qx_0.h).
 *
 * Reference: y = 0; for each block b in order: y = y + ((float)isum_b * d_w) * d_a (qx_0.h),
 * llama.cpp's generic ggml_vec_dot_q4_0_q8_0; isum_b = sum (nibble - 8) * a exact.
 * SIMD variants (float_accumulation = true): as llama.cpp's x86 path, each block's exact int32
 * dot is kept as 8 int32 lane partials, converted to float and accumulated with FMA into 8-lane
 * float accumulators (two per activation row, even and odd blocks), summed at the end.
 *   avx2:   w = nibble - 8, then the sign trick vpmaddubsw(|w|, sign(a, w)), vpmaddwd(·, 1)
 *   avx512: w = nibble - 8, then vpdpbusd(|w|, sign(a, w))  (llama.cpp's AVX-512 VNNI path)
 * Both form the same exact int32 lane partials (4 weights each) and the same float operations,
 * so the two variants agree with each other bit for bit.
 */
#ifndef BB_Q4_0_H
#define BB_Q4_0_H

#include "qx_0.h"

#endif
