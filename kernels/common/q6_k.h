/* q6_k — llama.cpp's Q6_K k-quant (GGML_TYPE_Q6_K = 14), decoding only: llama-quantize's
 * default for output and tied-embedding tensors (e.g. a BitNet GGUF's token_embd.weight), which
 * the engine dequantizes rather than multiplies in a kernel.
 *
 * Layout (ggml-common.h block_q6_K), per 256 values, 210 bytes:
 *     { uint8 ql[128]; uint8 qh[64]; int8 scales[16]; fp16 d; }
 * Each half h = 0, 1 of the block (values 128h .. 128h+127) uses ql[64h ..], qh[32h ..] and
 * scales[8h ..]; for l = 0..31 its four values l, l+32, l+64, l+96 are the 6-bit codes
 *     q0 = (ql[l] & 15)      | ((qh[l] >> 0) & 3) << 4
 *     q1 = (ql[l + 32] & 15) | ((qh[l] >> 2) & 3) << 4
 *     q2 = (ql[l] >> 4)      | ((qh[l] >> 4) & 3) << 4
 *     q3 = (ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4
 * (ql, qh relative to the half), and value l + 32i is d * scales[l/16 + 2i] * (q_i - 32),
 * computed in float as (d * scale) * (q - 32), as ggml's dequantize_row_q6_K does.
 * 210 bytes / 256 values = 6.5625 bits per weight. */
#ifndef BB_Q6_K_H
#define BB_Q6_K_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t ql[128];
    uint8_t qh[64];
    int8_t scales[16];
    uint16_t d;
} bb_block_q6_K;

_Static_assert(sizeof(bb_block_q6_K) == 210, "block_q6_K is 210 bytes in ggml");

/* Decode nblk consecutive blocks to nblk * 256 floats. */
void bb_q6_k_dequant(const bb_block_q6_K *blk, size_t nblk, float *dst);

#endif
