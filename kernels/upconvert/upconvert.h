/* Up-convert family (Intel, "Pushing the Envelope of LLM Inference on AI-PC and Intel GPUs",
 * Intel up-convert paper §III-B..III-D, §III-F): 2-bit / 1-bit weights are up-converted to int8 in registers by
 * a few in-lane byte operations and multiplied with int8 activations by int8 dot-product
 * instructions (vpdpbusd / vpmaddubsw).  This header is the container both kernels share.
 *
 * Packed buffer (both up_i2 and up_i1), 64-byte aligned sections:
 *     bb_up_head            64 bytes: levels[] = the int8 value of each 2-bit code (up_i2) or of
 *                           bit 0 / bit 1 (up_i1), and the offset the SIMD variants add to it
 *     float scale[M]        per-ROW weight scale (the dequantized weight is scale[m] * level),
 *                           padded to a multiple of 64 bytes
 *     weights               M/32 blocks of 32 rows, each covering all of K (the kernel's header
 *                           gives the order inside a block); a block is one contiguous stream
 *
 * Activations: per-row int8 absmax, BB_ACT_I8_ROW (common/act_quant.h, bb_quant_i8_rows), as the
 * paper quantizes the input activations to int8 before the GEMM (§III-B).
 *
 * Exact reference semantics of both kernels: with w_int[m][k] = levels[code] in [-3, 3] and
 * q[n][k] the int8 activations,
 *     isum[n][m] = sum_k w_int[m][k] * q[n][k]          (exact, int32)
 *     y[n][m]    = bb_i8_dequant(isum, s_a[n], scale[m]) = (float)isum / s_a[n] * scale[m]
 *
 * The sign problem (§III-C uses vpdpbssd, signed x signed, of AVX-VNNI-INT8; this machine's
 * vpdpbusd / vpmaddubsw multiply UNSIGNED by SIGNED bytes): the weights are the unsigned operand,
 * shifted by the per-tensor offset o = -min(levels) so that u = w_int + o >= 0 (the shuffle
 * tables / blend constants hold u directly, so the offset costs no instruction), the signed
 * activations are the other operand, and
 *     isum = sum_k u[m][k] * q[n][k] - o * qsum[n],      qsum[n] = sum_k q[n][k]
 * where qsum comes with the prepared activations (bb_i8_row_head.qsum).  Exact in int32:
 * |u*q| <= 6*127 and K <= 2^20 (bb_up_shape_error). */
#ifndef BB_UPCONVERT_H
#define BB_UPCONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "../common/act_quant.h"

#define BB_UP_MB 32        /* rows per block: the paper's b_m = 32 (§III-B) */
#define BB_UP_HEAD 64
#define BB_UP_MAX_K (1 << 20)

typedef struct {
    int8_t levels[4];   /* int8 weight value of code 0..3 (up_i2) or of bit 0, bit 1 (up_i1) */
    int32_t offset;     /* o = -min(levels): the SIMD variants multiply u = level + o */
    uint8_t lut[2][16]; /* up_i2's shuffle tables u(i & 3), u(i >> 2 & 3), built at pack time */
} bb_up_head;

static inline size_t bb_up_scales_bytes(int m) { return ((size_t)m * sizeof(float) + 63) & ~(size_t)63; }
static inline size_t bb_up_packed_size(int m, int k, int bits)
{
    return BB_UP_HEAD + bb_up_scales_bytes(m) + (size_t)m * (size_t)k * (size_t)bits / 8;
}
static inline const bb_up_head *bb_up_head_of(const void *w) { return (const bb_up_head *)w; }
static inline const float *bb_up_scales(const void *w)
{
    return (const float *)((const uint8_t *)w + BB_UP_HEAD);
}
/* First byte of the block holding rows [32b, 32b+32); each block is 32*K*bits/8 bytes. */
static inline const uint8_t *bb_up_block(const void *w, int m, int k, int bits, int b)
{
    return (const uint8_t *)w + BB_UP_HEAD + bb_up_scales_bytes(m) +
           (size_t)b * BB_UP_MB * (size_t)k * (size_t)bits / 8;
}

/* Writes rows [r0, r0+32) of activation row c from the unsigned-offset sums usum[32]
 * (sum_k u*q): subtracts o*qsum, then the reference dequantization.  Every variant ends here,
 * so all give the reference's bits. */
static inline void bb_up_store(float *y, int m, int k, const void *w, const void *act, int c, int r0,
                               const int32_t *usum)
{
    const bb_i8_row_head *h = bb_i8_row(act, k, c);
    const float *scale = bb_up_scales(w);
    int32_t corr = bb_up_head_of(w)->offset * h->qsum;
    for (int i = 0; i < BB_UP_MB; i++)
        y[(size_t)c * m + r0 + i] = bb_i8_dequant(usum[i] - corr, h->scale, scale[r0 + i]);
}

/* The per-variant inner kernel: nblk (1 or 2) consecutive 32-row blocks starting at blk, against
 * nb (<= BB_UP_NB_MAX) activation rows q[0..nb) -> usum[c][32*j + i] = sum_k u * q[c][k] for row
 * i of block j.  The driver asks for two blocks only for a single activation row (GEMV): two
 * weight streams in flight instead of one (measured: a lone stream does not keep enough DRAM
 * requests outstanding once the up-convert work sits between its loads). */
#define BB_UP_NB_MAX 4
typedef void (*bb_up_block_fn)(const void *w, const uint8_t *blk, int nblk, int k, const int8_t *const *q, int nb,
                               int32_t (*usum)[2 * BB_UP_MB]);

/* The row-slice / activation-chunk loop every SIMD variant shares: for each 32-row block of
 * [m0, m1) (pairs of blocks when n == 1) and each chunk of up to nb_max activation rows, fn then
 * bb_up_store. */
void bb_up_matmul_blocks(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                         int bits, int nb_max, bb_up_block_fn fn);

/* Weight-stream prefetch of the family, issued once per 64-byte line of each stream: into L1
 * 1 KiB ahead and into L2 4 KiB ahead.  Chosen with `bitbench gemm --cache dram`-style interleaved
 * runs (M = K = 4096, 1 thread, medians of 30, three rounds) against L1/L2 distances 1K/8K, 2K/4K,
 * 2K/8K, 4K/4K, 4K/16K: 1K/4K gave up_i2 0.96-1.03x the bandwidth of a plain read sweep of the
 * same bytes, the others 0.73-0.95x. */
#ifndef BB_UP_PF_L1
#define BB_UP_PF_L1 1024
#endif
#ifndef BB_UP_PF_L2
#define BB_UP_PF_L2 4096
#endif
/* always_inline: GCC 12 does not inline a plain inline wrapper into the always_inline tiles,
 * then sees a call without side effects and deletes it (no prefetch at all was emitted). */
static inline __attribute__((always_inline)) void bb_up_prefetch(const void *p)
{
    __builtin_prefetch((const char *)p + BB_UP_PF_L1, 0, 3);
    __builtin_prefetch((const char *)p + BB_UP_PF_L2, 0, 2);
}

/* Shape rule shared by the family: int32 exactness (see above). */
const char *bb_up_shape_error(int m, int k);

/* Writes the head and the scales section; the kernel writes the blocks. */
void bb_up_write_head(void *dst, int m, const int8_t *levels, int nlevels, const float *scales);

#endif
