/* GGUF reader: a memory-mapped, fully validated view of a GGUF file (versions 2 and 3).
 *
 * Format (ggml's docs/gguf.md; little endian; v2 and v3 use 64-bit counts and lengths, v1's
 * 32-bit ones are refused; v3 only added big-endian files, which are refused here):
 *     "GGUF"  u32 version  u64 n_tensors  u64 n_kv
 *     n_kv x { string key, u32 value_type, value }
 *     n_tensors x { string name, u32 n_dims, u64 ne[n_dims], u32 ggml_type, u64 offset }
 *     padding to general.alignment (default 32), then the data section
 * string = u64 length + bytes (no NUL); array = u32 element type + u64 count + elements.
 * A tensor's offset is relative to the data section and a multiple of the alignment.
 *
 * bb_gguf_open checks everything before it is used: every count, length and offset against the
 * bytes left in the file (overflow-safe), every value type, nested array depth, tensor dims
 * (1..4, each >= 1, product without overflow), type (gguf_types.h), row length a multiple of the
 * type's block, offset aligned, data inside the file, unique names.  A bad file gives one line:
 *     "<file>: tensor 'blk.0.attn_q.weight': data [96, 65632) runs past the end of the file ..."
 * After a successful open every accessor below is safe on the mapped bytes.
 */
#ifndef BB_GGUF_H
#define BB_GGUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gguf_value.h"

#define BB_GGUF_DEFAULT_ALIGNMENT 32
#define BB_GGUF_MAX_DIMS 4
/* Arrays of arrays are legal GGUF; deeper nesting than this is refused as hostile. */
#define BB_GGUF_MAX_ARRAY_DEPTH 8

/* A string in the mapped file: not NUL-terminated. */
typedef struct {
    const char *ptr;
    uint64_t len;
} bb_gguf_str;

/* An array value: `count` elements of `type`.  Fixed-size elements lie back to back from
 * `data`; strings and arrays have variable size, and `offsets` (when not NULL) gives each one's
 * byte offset from `data` (top-level arrays have it; elements of nested arrays are found by a
 * scan of the already validated bytes). */
typedef struct {
    bb_gguf_vtype type;
    uint64_t count;
    const uint8_t *data;
    const uint64_t *offsets;
} bb_gguf_array;

typedef struct {
    bb_gguf_str key;
    bb_gguf_vtype type;
    const uint8_t *value; /* the value's bytes (for an array: its element type field) */
    bb_gguf_array array;  /* when type == BB_GGUF_ARRAY */
} bb_gguf_kv;

typedef struct {
    char *name;      /* NUL-terminated copy */
    uint32_t type;   /* ggml type id (gguf_types.h) */
    int n_dims;
    uint64_t ne[BB_GGUF_MAX_DIMS]; /* ggml order: ne[0] is the row length; unused dims are 1 */
    uint64_t n_elements;
    uint64_t offset; /* from the start of the data section */
    uint64_t n_bytes;
    const void *data; /* into the mapped file */
} bb_gguf_tensor;

typedef struct bb_gguf bb_gguf;

/* Open, map and validate.  NULL with one line in err on any problem. */
bb_gguf *bb_gguf_open(const char *path, char *err, size_t errlen);
void bb_gguf_close(bb_gguf *g);

const char *bb_gguf_path(const bb_gguf *g);
uint32_t bb_gguf_version(const bb_gguf *g);
uint64_t bb_gguf_file_size(const bb_gguf *g);
uint32_t bb_gguf_alignment(const bb_gguf *g);
uint64_t bb_gguf_data_offset(const bb_gguf *g); /* file offset of the data section */

/* ---- metadata (gguf_meta.c) ---- */
uint64_t bb_gguf_kv_count(const bb_gguf *g);
const bb_gguf_kv *bb_gguf_kv_at(const bb_gguf *g, uint64_t i);
const bb_gguf_kv *bb_gguf_find_kv(const bb_gguf *g, const char *key); /* NULL when absent */

/* Typed reads.  Return 0 with *out set; BB_GGUF_MISSING when the key is absent (err says so,
 * callers with a default ignore it); BB_GGUF_BAD_TYPE when the value has another type or does
 * not fit (integers convert between widths and signedness only when the value fits; f32 takes
 * FLOAT32 or FLOAT64).  err names the file, the key, its type and what was wanted. */
enum { BB_GGUF_MISSING = -1, BB_GGUF_BAD_TYPE = -2 };
int bb_gguf_get_u32(const bb_gguf *g, const char *key, uint32_t *out, char *err, size_t errlen);
int bb_gguf_get_i32(const bb_gguf *g, const char *key, int32_t *out, char *err, size_t errlen);
int bb_gguf_get_u64(const bb_gguf *g, const char *key, uint64_t *out, char *err, size_t errlen);
int bb_gguf_get_f32(const bb_gguf *g, const char *key, float *out, char *err, size_t errlen);
int bb_gguf_get_bool(const bb_gguf *g, const char *key, bool *out, char *err, size_t errlen);
int bb_gguf_get_str(const bb_gguf *g, const char *key, bb_gguf_str *out, char *err, size_t errlen);
/* An array of any element type; want_type < 0 accepts any, else the element type must match. */
int bb_gguf_get_array(const bb_gguf *g, const char *key, int want_type, bb_gguf_array *out, char *err,
                      size_t errlen);

/* Element i (< a->count) of an array.  The integer form takes any integer or bool element
 * (false for an UINT64 above INT64_MAX or a non-integer type); the float form FLOAT32/FLOAT64. */
bool bb_gguf_array_int(const bb_gguf_array *a, uint64_t i, int64_t *out);
bool bb_gguf_array_float(const bb_gguf_array *a, uint64_t i, double *out);
bb_gguf_str bb_gguf_array_str(const bb_gguf_array *a, uint64_t i);     /* {NULL, 0} if not STRING */
bool bb_gguf_array_sub(const bb_gguf_array *a, uint64_t i, bb_gguf_array *out); /* ARRAY elements */

/* ---- tensors ---- */
uint64_t bb_gguf_tensor_count(const bb_gguf *g);
const bb_gguf_tensor *bb_gguf_tensor_at(const bb_gguf *g, uint64_t i); /* file order */
const bb_gguf_tensor *bb_gguf_find_tensor(const bb_gguf *g, const char *name); /* NULL if absent */

/* The tensor `name` must exist with n_dims dims equal to ne[] (ggml order).  Returns 0, or -1
 * with "<file>: tensor 'name' is missing" / "... has shape [a, b], expected [c, d] (why)". */
int bb_gguf_expect_tensor(const bb_gguf *g, const char *name, int n_dims, const uint64_t *ne, const char *why,
                          char *err, size_t errlen);

/* Decode rows [r0, r0 + n) of a tensor to float (a row is ne[0] values; rows count over
 * ne[1..3]).  Returns 0, or -1 with one line in err when the type has no decoder here
 * ("type Q5_K (13) is not supported for decoding; supported: ...") or the range is bad. */
int bb_gguf_decode_rows(const bb_gguf *g, const bb_gguf_tensor *t, uint64_t r0, uint64_t n, float *dst, char *err,
                        size_t errlen);

#endif
