/* iq4_nl — the single 16-entry non-uniform 4-bit codebook, byte-compatible with the GGUF type
 * IQ4_NL (Arm paper §6.3; llama.cpp's format, implemented from its description).
 *
 * Layout: a row is K/32 blocks of 18 bytes (bb_iq4_nl_block): fp16 d, then qs[16] where byte j
 * holds the 4-bit index of element j in its low nibble and of element j + 16 in its high nibble.
 * 4.5 bits per weight.  Weight = d * kvalues[index], with the published table
 *     kvalues = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}
 * (d may be negative: the quantizer maps a block's largest-magnitude value onto -127).
 *
 * Activations: llama.cpp q8_0 (blocks of 32, fp16 d, q in [-127, 127]; BB_ACT_I8_BLOCK32), the
 * pairing llama.cpp uses for IQ4_NL, in the very buffer q4_0 and q8_0 use (kernels/mad/qx_0.h,
 * with its vectorized prepare): N rows of q8_0 blocks byte-compatible with block_q8_0, then
 * derived data for the SIMD variants: the block scales as float and, per block and 4-byte lane
 * l, c = -8 * (q[4l] + .. + q[4l+3]).
 *
 * Exact semantics (llama.cpp's scalar vec_dot): per block
 *     isum_b = sum_j kvalues[idx_j] * q_j          (exact int32)
 *     y = 0.0f; for b in order: y = y + (fp16(d_w,b) * fp16(d_a,b)) * (float)isum_b
 * The SIMD variants look the 16 values up with one byte shuffle from a register holding the
 * table (vpshufb, the x86 counterpart of the vtbl lookup of §6.3), multiply by the int8
 * activations exactly, and keep one float partial sum per SIMD lane, added up at the row's end:
 * their float order differs from the reference (float_accumulation = true).  AVX2 uses
 * vpmaddubsw(|w|, sign(q, w)) (|w|, |q| <= 127: pair sums < 2^15); AVX-512 VNNI looks up
 * kvalue + 128 instead and multiplies it unsigned by q with vpdpbusd, starting each lane's
 * accumulator at 16 c = -128 * sum q (four byte products per int32 lane, no int16 stage).
 * The Arm variants (iq4_nl_arm.h: TBL, then SDOT or SMULL/SMLAL2/SADALP) sum each block in int32
 * and keep the reference's float steps in its order: they give its bits.  So does amx
 * (iq4_nl_amx.c, N >= 16): indices looked up to int8 kvalues once per strip of 32 rows,
 * TDPBSSD block dots, folded as isum * (d_a * d_w) (common/amx.h BB_AMX_BLOCK_K: the same
 * product); below 16 activation rows it runs the avx512 variant.
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

/* The codebook, the quantizer and the reference over blocks: iq4_nl_blocks.c, below both
 * layouts' descriptors and every variant. */
extern const int8_t bb_iq4_nl_kvalues[16];

/* The quantizer of one block of 32 floats (Packing, above). */
void bb_iq4_nl_quant_block(const float *x, bb_iq4_nl_block *out);
/* Block b of row r of a packed matrix, as the GGUF block it came from (iq4_nl's layout or
 * iq4_nl_x8's records); the reference and unpack of both layouts read the blocks through it. */
typedef void (*bb_iq4_nl_get_block)(const void *w, int k, int r, int b, bb_iq4_nl_block *out);
void bb_iq4_nl_matmul_ref_with(bb_iq4_nl_get_block get, const void *w, const void *act, float *y, int m, int k,
                               int n, int m0, int m1);
void bb_iq4_nl_unpack_with(bb_iq4_nl_get_block get, const void *src, int m, int k, float *dst);

void bb_iq4_nl_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_iq4_nl_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_iq4_nl_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_iq4_nl_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_iq4_nl_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
