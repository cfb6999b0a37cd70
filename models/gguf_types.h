/* The ggml tensor types a GGUF file may name, and decoding of the ones bitbench reads to float.
 *
 * Ids, block sizes and bytes per block are ggml's (ggml.h enum ggml_type, ggml-common.h block
 * structs): every standard type is in the table, so a file with a type we do not decode still
 * opens and its tensors are sized and bounds-checked; only decoding it fails, with the type
 * named.  Ids 4, 5 and 31..33 were removed from ggml and are unknown here.
 *
 * Decoded types and where the decoder lives (a GGUF tensor's bytes are rows of blocks; the
 * kernels' unpack functions read exactly those bytes, see each kernel header):
 *     F32, F16, BF16          here (kernels/common/fp16.h conversions)
 *     Q8_0, Q4_0              kernels/mad/q8_0.h, q4_0.h (kernel unpack)
 *     Q2_K, TQ1_0, TQ2_0      kernels/mad/q2_k.h, tq1_0.h, tq2_0.h (kernel unpack)
 *     IQ4_NL                  kernels/codebook/iq4_nl.h (kernel unpack)
 *     Q6_K                    kernels/common/q6_k.h (no kernel: output/embedding tensors)
 *     I2_S                    kernels/mad/i2_s.h (kernel unpack), see below
 * Q2_K's unpack rounds d*sc*q - dmin*m once (q2_k.h); ggml rounds each product in float, so a
 * value may differ from ggml's dequantize_row_q2_K in the last bit.  The others give ggml's
 * dequantized values bit for bit.
 *
 * I2_S (bitnet.cpp, type id 36 in its ggml fork Eddie-Wang1120/llama.cpp, branch merge-dev,
 * ggml.h; not an upstream ggml type — upstream left 36..38 unused after removing IQ4_NL_4_4 etc.):
 * written by quantize_i2_s (bitnet.cpp src/ggml-bitnet-mad.cpp).  The tensor's n = ne0*ne1
 * values, taken flat, are cut into blocks of 128; block b is 32 bytes, byte j holding the 2-bit
 * codes of values 128b + 32s + j (s = 0..3) in bits 6-2s..7-2s, code = t + 1 for t in
 * {-1, 0, +1} (a stray code 3 decodes as +2, as bitnet.cpp's dot product treats it).  Then, at
 * byte n/4, one little-endian float: the per-tensor scale (the weights' absmax, which for
 * ternary-times-scale weights is the scale), and padding: ggml_nbytes (fork) = n/4 + 32.
 * Weight = t * scale.  That is the x86 layout with bitnet.cpp's default ACT_PARALLEL
 * (include/gemm-config.h); a file quantized on ARM (blocks of 64 values in 16 bytes) or without
 * ACT_PARALLEL (4 rows interleaved per byte) has other bytes and nothing in the file says so.
 * bitbench's i2_s kernel (kernels/mad/i2_s.h) uses exactly this code layout per row; with ne0 a
 * multiple of 128 (required here) flat blocks are row blocks, so bitnet.cpp's code bytes ARE
 * bitbench's packed codes, and the float at n/4 is where bitbench's i2_s keeps its scale.  A
 * lossless re-layout is a copy of the n/4 + 4 bytes into a buffer of bitbench's packed size
 * (n/4 + 64, zero padded).
 */
#ifndef BB_GGUF_TYPES_H
#define BB_GGUF_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    BB_GGML_F32 = 0, BB_GGML_F16 = 1, BB_GGML_Q4_0 = 2, BB_GGML_Q8_0 = 8, BB_GGML_Q2_K = 10,
    BB_GGML_Q6_K = 14, BB_GGML_IQ4_NL = 20, BB_GGML_BF16 = 30, BB_GGML_TQ1_0 = 34,
    BB_GGML_TQ2_0 = 35, BB_GGML_I2_S = 36,
};

typedef struct {
    uint32_t id;
    const char *name;     /* as gguf_dump prints it */
    uint32_t block;       /* values per block */
    uint32_t block_bytes; /* bytes per block */
    uint32_t tail_bytes;  /* bytes after the last block, once per tensor (I2_S: scale + padding) */
    bool decodes;         /* bb_ggml_decode_rows handles it */
} bb_ggml_type;

/* NULL for an id that is not a ggml type. */
const bb_ggml_type *bb_ggml_type_by_id(uint32_t id);
/* By name as gguf_dump prints it ("Q4_0", "TQ2_0", "I2_S"); NULL when unknown. */
const bb_ggml_type *bb_ggml_type_by_name(const char *name);
/* The names of the decoded types, comma separated (for error messages). */
const char *bb_ggml_decoded_types(void);

/* Decode n rows of row_len values starting at row r0 of a tensor whose bytes start at data
 * (tensor_values = all its values, for I2_S's trailing scale).  The type must decode and the
 * caller must have checked sizes (gguf.c does).  Returns 0, or -1 with err when row_len is
 * larger than a kernel's int index. */
int bb_ggml_decode_rows(const bb_ggml_type *t, const uint8_t *data, uint64_t tensor_values, uint64_t row_len,
                        uint64_t r0, uint64_t n, float *dst, char *err, size_t errlen);

#endif
