/* cb2 — group-wise non-uniform codebook quantization at 2.5625 bits per weight (Arm paper §5.2,
 * §5.3 and Algorithm 2): every sub-group of 16 weights picks one of 8 small int8 codebooks of 4
 * centroids and a 5-bit local scale; a super-block of 256 weights carries an fp16 scale.
 *
 * Layout.  A row is K/256 super-blocks of 82 bytes (bb_cb2_block):
 *     qs[64]    2-bit element indices: byte j holds element 64*s + j of the super-block in bits
 *               2s..2s+1 (s = 0..3), so one shift and mask of 64 (or 32) bytes yields 64 (or 32)
 *               consecutive elements, i.e. 4 (or 2) whole sub-groups, one per 128-bit lane;
 *     meta[16]  sub-group g (elements 16g..16g+15): codebook number in bits 0-2, local scale
 *               ls in bits 3-7 (0..31);
 *     d         fp16 super-block scale.
 * After the M*K/256 blocks comes a 64-byte trailer: the 8 codebooks C[8][4] as int8 (32 bytes),
 * then 32 zero bytes.  The codebooks travel with the weights, so a set built for a matrix with
 * the builder (cb_builder.h) is used as simply as the default set (cb2_default.c).
 * Bits per weight: (64 + 16 + 2) * 8 / 256 = 2.5625 (trailer negligible); q2_k has 2.625.
 * Centroids are limited to [-64, 63] so that the offset code u = c + 64 fits 7 bits: the SIMD
 * variants multiply u (unsigned) by int8 activations with vpmaddubsw, whose pair sums
 * |u1 q1 + u2 q2| <= 2 * 127 * 128 = 32512 never saturate, and remove the offset exactly with the
 * activations' 16-element sums (q8_K bsums), like q2_k's min term.
 *
 * Activations: llama.cpp q8_K (blocks of 256, float d, BB_ACT_I8_BLOCK256, common/act_quant.h).
 *
 * Dequantized weight: w[256b + 16g + i] = fp16(d_b) * (ls_g * C[cb_g][e_i]), exact in float.
 * Exact semantics:
 *     isum_b = sum_g ls_g * sum_i C[cb_g][e_{16g+i}] * q_b[16g+i]        (exact in int32)
 *     y = 0.0f; for b in order: y = y + (fp16(d_b) * qd_b) * (float)isum_b   (float, this order)
 * Every variant computes isum_b in integers and the float steps in this order, so all variants
 * give the reference's bits (float_accumulation = false).  SIMD: the codebooks (as u = c + 64)
 * sit in one register; AVX2 selects a sub-group's codebook with vpermd (one dword per codebook)
 * and its elements with vpshufb (9 instructions per 32 weights), AVX-512 VBMI looks both up at
 * once with one vpermb over the 32 bytes (index = element | codebook << 2; 7 instructions per 64
 * weights), the register-resident lookup of §5.3 / §6.3; Arm (cb2_arm.h) holds the signed
 * centroids in two registers and looks up 16 weights with one TBL (vqtbl2q_s8, index = element |
 * codebook << 2) for SDOT, which multiplies signed by signed: no offset there.  Why 8
 * codebooks (the paper uses 4, 8 or 16): a 3-bit codebook number and a 5-bit local scale fill one
 * byte per sub-group, and 8 codebooks of 4 bytes are exactly the 8 dwords one vpermd chooses
 * from (and the 32 bytes one two-register TBL looks up in).  The paper's example
 * has 4 codebooks; on Gaussian weights 1, 2, 4, 8 built codebooks give relative RMS errors
 * 0.307, 0.282, 0.274, 0.270 (q2_k: 0.296).
 *
 * Packing (quantization): for each sub-group and codebook the best continuous scale (grid around
 * the absmax fit, each point refined by least squares); d = fp16(largest sub-group scale / 31);
 * then each sub-group chooses the (codebook, ls) pair with the lowest squared reconstruction
 * error at the stored scale (ls within 1 of each codebook's continuous optimum), elements at
 * their nearest centroid: "each group chooses the codebook with the lowest reconstruction MSE"
 * (§5.3).  On N(0, sigma) matrices this gives a relative RMS error of 0.270 against q2_k's 0.296
 * (test_codebook). */
#ifndef BB_CB2_H
#define BB_CB2_H

#include "../kernel.h"
#include "cb_builder.h"

#define BB_CB2_QK 256    /* super-block */
#define BB_CB2_SUB 16    /* sub-group: one codebook and one local scale */
#define BB_CB2_BOOKS 8
#define BB_CB2_ENTRIES 4
#define BB_CB2_OFFSET 64 /* u = c + 64 */
#define BB_CB2_CMIN (-64)
#define BB_CB2_CMAX 63
#define BB_CB2_LSMAX 31
#define BB_CB2_TRAILER 64

typedef struct {
    uint8_t qs[BB_CB2_QK / 4];
    uint8_t meta[BB_CB2_QK / BB_CB2_SUB];
    uint16_t d;
} bb_cb2_block;

/* The committed default codebooks (cb2_default.c) and how they are regenerated. */
extern const int8_t bb_cb2_default_books[BB_CB2_BOOKS][BB_CB2_ENTRIES];
#define BB_CB2_DEFAULT_SEED 20250101u
#define BB_CB2_DEFAULT_GROUPS (1u << 16)
int bb_cb2_generate_default(bb_cb_set *out, char *err, size_t errlen);

/* Turn a builder result into cb2 codebooks (needs 8 books of 4 entries, qmax <= 63). */
int bb_cb2_books_from_set(const bb_cb_set *s, int8_t books[BB_CB2_BOOKS][BB_CB2_ENTRIES], char *err,
                          size_t errlen);
/* Pack with any codebook set whose centroids lie in [-64, 63] (the kernel's pack uses the
 * default set).  dst holds packed_size(m, k) bytes. */
int bb_cb2_pack_books(const bb_weights *w, const int8_t books[BB_CB2_BOOKS][BB_CB2_ENTRIES], void *dst,
                      char *err, size_t errlen);

static inline const bb_cb2_block *bb_cb2_row(const void *w, int k, int r)
{
    return (const bb_cb2_block *)w + (size_t)r * (k / BB_CB2_QK);
}
static inline const int8_t *bb_cb2_books(const void *w, int m, int k)
{
    return (const int8_t *)((const bb_cb2_block *)w + (size_t)m * (k / BB_CB2_QK));
}

void bb_cb2_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_cb2_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_cb2_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_cb2_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
