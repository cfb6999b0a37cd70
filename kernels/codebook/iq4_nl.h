/* iq4_nl — the single 16-entry non-uniform 4-bit codebook, byte-compatible with the GGUF type
 * IQ4_NL (seed 003 §6.3; llama.cpp's format, implemented from its description).
 *
 * Layout: a row is K/32 blocks of 18 bytes (bb_iq4_nl_block): fp16 d, then qs[16] where byte j
 * holds the 4-bit index of element j in its low nibble and of element j + 16 in its high nibble.
 * 4.5 bits per weight.  Weight = d * kvalues[index], with the published table
 *     kvalues = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}
 * (d may be negative: the quantizer maps a block's largest-magnitude value onto -127).
 *
 * Activations: llama.cpp q8_0 (blocks of 32, fp16 d, q in [-127, 127]; BB_ACT_I8_BLOCK32), the
 * pairing llama.cpp uses for IQ4_NL.  Each prepared activation row is its K/32 q8_0 blocks (byte
 * compatible with block_q8_0), then data derived from them for the SIMD variants, in the spirit
 * of llama.cpp's q8_1: the block scales as float (exact) and, per block and 4-byte lane l,
 * -128 * (q[4l] + q[4l+1] + q[4l+2] + q[4l+3]), the correction that lets vpdpbusd multiply the
 * unsigned table values kvalue + 128 by q exactly (bb_iq4_nl_act_*).
 *
 * Exact semantics (llama.cpp's scalar vec_dot): per block
 *     isum_b = sum_j kvalues[idx_j] * q_j          (exact int32)
 *     y = 0.0f; for b in order: y = y + (fp16(d_w,b) * fp16(d_a,b)) * (float)isum_b
 * The SIMD variants look the 16 values up with one byte shuffle from a register holding the
 * table (vpshufb, the x86 counterpart of the vtbl lookup of §6.3), multiply by the activations
 * in int8 (|kvalue| <= 127 and |q| <= 127, so the |w| x sign(q, w) products of vpmaddubsw /
 * vpdpbusd are exact), and keep one float partial sum per SIMD lane, added up at the row's end:
 * their float order differs from the reference (float_accumulation = true).  AVX-512 VNNI looks
 * up kvalue + 128 instead and multiplies it unsigned by q with vpdpbusd, starting each block's
 * accumulator at the prepared correction -128 * sum q (exact, no int16 stage to saturate).
 *
 * Packing: per block, 15 candidate inverse scales (the block's signed max mapped to table value
 * -127 + t, t = -7..7, as llama.cpp's quantizer tries), each assignment refined to its
 * least-squares scale; the one with the lowest squared error is stored as fp16 d, and the
 * elements take their nearest table value for the stored d. */
#ifndef BB_IQ4_NL_H
#define BB_IQ4_NL_H

#include "../kernel.h"

#define BB_QK4_NL 32

typedef struct {
    uint16_t d;
    uint8_t qs[BB_QK4_NL / 2];
} bb_iq4_nl_block;

extern const int8_t bb_iq4_nl_kvalues[16];

/* One prepared activation row: q8_0 blocks, float scales, int32 lane corrections, each part
 * starting on a 64-byte boundary. */
static inline size_t bb_iq4_nl_act_d_offset(int k) { return ((size_t)34 * (k / BB_QK4_NL) + 63) & ~(size_t)63; }
static inline size_t bb_iq4_nl_act_c_offset(int k)
{
    return bb_iq4_nl_act_d_offset(k) + (((size_t)4 * (k / BB_QK4_NL) + 63) & ~(size_t)63);
}
static inline size_t bb_iq4_nl_act_stride(int k) { return bb_iq4_nl_act_c_offset(k) + (size_t)32 * (k / BB_QK4_NL); }
static inline const void *bb_iq4_nl_act_row(const void *act, int k, int c)
{
    return (const char *)act + (size_t)c * bb_iq4_nl_act_stride(k);
}
static inline const float *bb_iq4_nl_act_d(const void *row, int k)
{
    return (const float *)((const char *)row + bb_iq4_nl_act_d_offset(k));
}
static inline const int32_t *bb_iq4_nl_act_corr(const void *row, int k)
{
    return (const int32_t *)((const char *)row + bb_iq4_nl_act_c_offset(k));
}

void bb_iq4_nl_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_iq4_nl_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
