/* q4_0 — llama.cpp / GGUF type Q4_0 (GGML_TYPE_Q4_0 = 2): the 4-bit baseline of bitnet.cpp §2
 * (bitnet.cpp) and of the Arm paper (§2, Table 1 "Q4_0 (llama.cpp)").
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
 * SIMD variants (float_accumulation = true), after llama.cpp's x86 path: block b's exact dot is
 * kept as 8 int32 lane partials P_b[i] = sum_{j=4i..4i+3} (n_j - 8) * a_j; per activation row two
 * 8-lane float accumulators A_0 (even b), A_1 (odd b), in block order
 *     A_{b mod 2}[i] = fma(d_w[b] * d_a[b], (float)P_b[i], A_{b mod 2}[i])
 * and y = sum of the 8 lanes of A_0 + A_1 ((i + i+4), then (i + i+2), then the two) — within
 * float rounding of the reference, not bit-equal.  Both variants multiply the stored unsigned
 * nibbles n directly and start each lane at the activation's -8 * (its 4 activations' sum)
 * (qx_0.h aux c), which removes the +8 bias exactly and leaves no large cancelling values:
 *   avx2:   P = vpmaddwd(vpmaddubsw(n, a), 1) + c   (|pair| <= 2*15*127: no saturation)
 *   avx512: P = vpdpbusd(c, n, a)                   (one VNNI instruction per block)
 * They compute identical lane partials and float operations, so they agree bit for bit.  The fp16
 * d_w of 4 blocks are converted together (one vcvtph2ps) and multiplied by the 4 d_a with one
 * vmulps per activation row; up to 4 activation rows share each decoded block; the weight
 * stream is prefetched ahead (common/prefetch.h).  The Arm variant, dotprod (SDOT, qx_0_dotprod.c), gives the
 * reference's bits instead: four weight rows side by side, one per float lane, each lane running
 * the reference's float sequence.  amx (qx_0_amx.c, N >= 16): each block's nibbles decoded to
 * int8 n - 8 once per strip of 32 rows, exact int32 block dots from TDPBSSD, folded in the
 * reference's order: its bits; below 16 activation rows it runs the avx512 variant.
 */
#ifndef BB_Q4_0_H
#define BB_Q4_0_H

#include "qx_0.h"

#endif
