/* GGUF metadata value types (gguf_value.h). */
#include "gguf_value.h"

#include <string.h>

size_t bb_gguf_vtype_size(uint32_t type)
{
    static const size_t size[BB_GGUF_NTYPES] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return type < BB_GGUF_NTYPES ? size[type] : 0;
}

const char *bb_gguf_vtype_name(uint32_t type)
{
    static const char *const names[BB_GGUF_NTYPES] = {"UINT8",  "INT8",   "UINT16", "INT16", "UINT32",
                                                      "INT32",  "FLOAT32", "BOOL",  "STRING", "ARRAY",
                                                      "UINT64", "INT64",  "FLOAT64"};
    return type < BB_GGUF_NTYPES ? names[type] : "?";
}

bool bb_gguf_read_int(uint32_t type, const uint8_t *p, int64_t *out)
{
    switch (type) {
    case BB_GGUF_UINT8: case BB_GGUF_BOOL: *out = p[0]; return true;
    case BB_GGUF_INT8: *out = (int8_t)p[0]; return true;
    case BB_GGUF_UINT16: { uint16_t v; memcpy(&v, p, 2); *out = v; return true; }
    case BB_GGUF_INT16: { int16_t v; memcpy(&v, p, 2); *out = v; return true; }
    case BB_GGUF_UINT32: { uint32_t v; memcpy(&v, p, 4); *out = v; return true; }
    case BB_GGUF_INT32: { int32_t v; memcpy(&v, p, 4); *out = v; return true; }
    case BB_GGUF_INT64: { int64_t v; memcpy(&v, p, 8); *out = v; return true; }
    case BB_GGUF_UINT64: {
        uint64_t v;
        memcpy(&v, p, 8);
        if (v > (uint64_t)INT64_MAX) return false;
        *out = (int64_t)v;
        return true;
    }
    default: return false;
    }
}
