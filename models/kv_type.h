/* The element types of the KV cache, as llama.cpp's -ctk / -ctv offer them (f32, f16, bf16,
 * q8_0), chosen for keys and values separately, and how one head's row of hd elements is stored:
 *   f32   hd floats
 *   f16   hd IEEE binary16, round to nearest even (kernels/common/fp16.h)
 *   bf16  hd bfloat16 (the upper 16 bits of an f32, round to nearest even)
 *   q8_0  hd / 32 blocks of ggml's block_q8_0 layout: an f16 scale d, then 32 int8 q; the value
 *         is d * q.  Quantized as ggml quantizes a q8_0 row: amax = max |x| over the block,
 *         d = amax / 127, q = round-half-away(x / d) (x * (1/d) in float), d stored as f16; a
 *         block of zeros gets d = 0 and q = 0.  34 bytes per 32 elements: 8.5 bits each.
 * A row's values are exactly what the attention primitives of models/vec.h read back. */
#ifndef BB_KV_TYPE_H
#define BB_KV_TYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum { BB_KV_F32 = 0, BB_KV_F16, BB_KV_BF16, BB_KV_Q8_0, BB_KV_TYPES } bb_kv_type;

enum { BB_KV_Q8_0_BLOCK = 32, BB_KV_Q8_0_BYTES = 34 };

/* "f32", "f16", "bf16", "q8_0" */
const char *bb_kv_type_name(bb_kv_type t);
/* Parse one of those names (llama.cpp's spelling); returns 0, or -1 with one line naming the
 * value and the valid ones. */
int bb_kv_type_parse(const char *s, bb_kv_type *out, char *err, size_t errlen);
/* Bytes of one head's row of hd elements. */
size_t bb_kv_row_bytes(bb_kv_type t, int hd);
/* Can a head of hd elements be stored as t (q8_0 needs whole blocks of 32)?  0, or -1 with a
 * message naming the type, the head dimension and what is valid. */
int bb_kv_type_check(bb_kv_type t, int hd, char *err, size_t errlen);
/* One row of hd floats into dst in type t (f16 through to_f16, the vector table's conversion,
 * bit-identical to the scalar one). */
void bb_kv_store_row(bb_kv_type t, void *dst, const float *src, int hd,
                     void (*to_f16)(uint16_t *dst, const float *src, int n));
/* The row read back as floats (tests and references). */
void bb_kv_load_row(bb_kv_type t, float *dst, const void *src, int hd);

#endif
