/* tq1_0 — llama.cpp's TQ1_0 ternary format (GGML_TYPE_TQ1_0), byte-compatible with GGUF, with
 * q8_K activations as llama.cpp pairs them.  bitnet.cpp §2 "element-wise MAD-based" and App. B.3
 * (bitnet.cpp: TQ1_0 is the 1.69-bit MAD baseline TL2_0 is compared with).
 *
 * Layout: row-major, each row K/256 blocks of 54 bytes { uint8 qs[48]; uint8 qh[4]; fp16 d; }.
 * Trits c = t + 1 in {0,1,2}, five per byte in base 3 (first trit most significant), the 8-bit
 * number q = sum c_n 3^(4-n) (< 243) stored as ceil(q * 256 / 243): then trit n of a byte b is
 * ((uint8)(b * 3^n) * 3) >> 8 — multiply by 3^n modulo 256 to bring trit n to the top, and the top
 * third of the byte range is the trit.  Value order (ggml's quantize_row_tq1_0_ref):
 *     values   0..159: qs[i % 32],            trit i / 32
 *     values 160..239: qs[32 + (i-160) % 16], trit (i-160) / 16
 *     values 240..255: qh[(i-240) % 4],       trit (i-240) / 4   (4 trits, the 5th is 0)
 * d: pack stores the per-tensor ternary scale rounded to fp16 in every block; unpack returns
 * t * fp16(d).  54 bytes / 256 weights = 1.6875 bits per weight.
 *
 * Activations: q8_K (BB_ACT_I8_BLOCK256).
 *
 * Exact semantics (ggml_vec_dot_tq1_0_q8_K, scalar form):
 *     isum_b = sum_i (c_i - 1) * q_i                      (exact int32)
 *     y = 0; for b in block order: y += (float)isum_b * (a_b.d * fp16(w_b.d))    (float)
 * The SIMD variants (avx2, avx512, dotprod) give these bits: they compute sum c*q exactly (u8 x s8
 * products; SDOT of -c on Arm), subtract the block's sum of q, and fold the per-block products in
 * block order (ggml_k.h).  The trit
 * extraction c = [b' >= 86] + [b' >= 171] (b' = b * 3^n mod 256) is the same function as
 * (b' * 3) >> 8 on all 256 bytes.
 */
#ifndef BB_TQ1_0_H
#define BB_TQ1_0_H

#include "../kernel.h"
#include "ggml_k.h"

void bb_tq1_0_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq1_0_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq1_0_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_tq1_0_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

static inline size_t bb_tq1_0_row_bytes(int k) { return (size_t)(k / BB_QK_K) * sizeof(bb_block_tq1_0); }

/* One block of 256 ternary values t (-1, 0, 1) with fp16 scale d, as pack stores it. */
void bb_tq1_0_pack_block(const int8_t *t, uint16_t d, bb_block_tq1_0 *out);
/* The block's 256 weights as unpack gives them. */
void bb_tq1_0_unpack_block(const bb_block_tq1_0 *blk, float *dst);
/* One block's term of the reference, (float)isum_b * (a_b.d * fp16(w_b.d)): y is the sum of
 * these in block order. */
float bb_tq1_0_block_term(const bb_block_tq1_0 *x, const bb_block_q8_K *a);

/* Where value i (0..255) of a block lives: byte index into the 52 code bytes (qs then qh) and
 * the power of 3 that brings its trit to the top. */
static inline int bb_tq1_0_byte(int i)
{
    return i < 160 ? i % 32 : (i < 240 ? 32 + (i - 160) % 16 : 48 + (i - 240) % 4);
}
/* tq1_0_amx.c (AMX builds only): a block's 52 code bytes (qs then qh) as the int8 t of its 256
 * weights in value order. */
void bb_tq1_0_codes_i8(const uint8_t *codes, int8_t *out);

static inline int bb_tq1_0_trit(int i) { return i < 160 ? i / 32 : (i < 240 ? (i - 160) / 16 : (i - 240) / 4); }

#endif
