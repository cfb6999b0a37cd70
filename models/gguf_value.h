/* GGUF metadata value types (ggml's docs/gguf.md, "gguf_metadata_value_type"): their ids, names
 * and sizes, and reading a fixed-size integer value.  Used by the reader that validates a file
 * (gguf.c), by the typed accessors on a validated one (gguf_access.c) and by the writer
 * (gguf_write.c); it needs neither. */
#ifndef BB_GGUF_VALUE_H
#define BB_GGUF_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* GGUF metadata value types (gguf.md "gguf_metadata_value_type"). */
typedef enum {
    BB_GGUF_UINT8 = 0,
    BB_GGUF_INT8 = 1,
    BB_GGUF_UINT16 = 2,
    BB_GGUF_INT16 = 3,
    BB_GGUF_UINT32 = 4,
    BB_GGUF_INT32 = 5,
    BB_GGUF_FLOAT32 = 6,
    BB_GGUF_BOOL = 7,
    BB_GGUF_STRING = 8,
    BB_GGUF_ARRAY = 9,
    BB_GGUF_UINT64 = 10,
    BB_GGUF_INT64 = 11,
    BB_GGUF_FLOAT64 = 12,
    BB_GGUF_NTYPES = 13,
} bb_gguf_vtype;

/* "UINT32", ...; "?" for an unknown type. */
const char *bb_gguf_vtype_name(uint32_t type);
/* Size in bytes of a fixed-size value type (0 for STRING, ARRAY and unknown types). */
size_t bb_gguf_vtype_size(uint32_t type);
/* Scalar value at p of a fixed-size integer or bool type, as int64 (false if it does not fit). */
bool bb_gguf_read_int(uint32_t type, const uint8_t *p, int64_t *out);

#endif
