/* Typed access to a validated GGUF file (gguf.h): metadata values, arrays, tensor checks and
 * decoding.  Everything here reads bytes bb_gguf_open has already bounds-checked. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gguf.h"
#include "gguf_types.h"

/* ---- typed metadata reads ---- */
static const bb_gguf_kv *lookup(const bb_gguf *g, const char *key, char *err, size_t errlen)
{
    const bb_gguf_kv *kv = bb_gguf_find_kv(g, key);
    if (!kv) snprintf(err, errlen, "%s: metadata key '%s' is missing", bb_gguf_path(g), key);
    return kv;
}

static int bad_type(const bb_gguf *g, const char *key, const bb_gguf_kv *kv, const char *want, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: metadata key '%s' has type %s, expected %s", bb_gguf_path(g), key,
             bb_gguf_vtype_name(kv->type), want);
    return BB_GGUF_BAD_TYPE;
}

/* An integer value within [lo, hi]; an UINT64 above INT64_MAX is read for u64 only. */
static int get_int(const bb_gguf *g, const char *key, int64_t lo, int64_t hi, const char *want, int64_t *out,
                   char *err, size_t errlen)
{
    const bb_gguf_kv *kv = lookup(g, key, err, errlen);
    if (!kv) return BB_GGUF_MISSING;
    int64_t v;
    if (kv->type == BB_GGUF_BOOL || !bb_gguf_read_int(kv->type, kv->value, &v))
        return bad_type(g, key, kv, want, err, errlen);
    if (v < lo || v > hi) {
        snprintf(err, errlen, "%s: metadata key '%s' = %" PRId64 " does not fit in %s", bb_gguf_path(g), key, v, want);
        return BB_GGUF_BAD_TYPE;
    }
    *out = v;
    return 0;
}

int bb_gguf_get_u32(const bb_gguf *g, const char *key, uint32_t *out, char *err, size_t errlen)
{
    int64_t v;
    int rc = get_int(g, key, 0, UINT32_MAX, "an unsigned 32-bit integer", &v, err, errlen);
    if (!rc) *out = (uint32_t)v;
    return rc;
}

int bb_gguf_get_i32(const bb_gguf *g, const char *key, int32_t *out, char *err, size_t errlen)
{
    int64_t v;
    int rc = get_int(g, key, INT32_MIN, INT32_MAX, "a signed 32-bit integer", &v, err, errlen);
    if (!rc) *out = (int32_t)v;
    return rc;
}

int bb_gguf_get_u64(const bb_gguf *g, const char *key, uint64_t *out, char *err, size_t errlen)
{
    const bb_gguf_kv *kv = bb_gguf_find_kv(g, key);
    if (kv && kv->type == BB_GGUF_UINT64) {
        memcpy(out, kv->value, 8);
        return 0;
    }
    int64_t v;
    int rc = get_int(g, key, 0, INT64_MAX, "an unsigned 64-bit integer", &v, err, errlen);
    if (!rc) *out = (uint64_t)v;
    return rc;
}

int bb_gguf_get_f32(const bb_gguf *g, const char *key, float *out, char *err, size_t errlen)
{
    const bb_gguf_kv *kv = lookup(g, key, err, errlen);
    if (!kv) return BB_GGUF_MISSING;
    if (kv->type == BB_GGUF_FLOAT32) {
        memcpy(out, kv->value, 4);
    } else if (kv->type == BB_GGUF_FLOAT64) {
        double d;
        memcpy(&d, kv->value, 8);
        *out = (float)d;
    } else {
        return bad_type(g, key, kv, "FLOAT32 or FLOAT64", err, errlen);
    }
    return 0;
}

int bb_gguf_get_bool(const bb_gguf *g, const char *key, bool *out, char *err, size_t errlen)
{
    const bb_gguf_kv *kv = lookup(g, key, err, errlen);
    if (!kv) return BB_GGUF_MISSING;
    if (kv->type != BB_GGUF_BOOL) return bad_type(g, key, kv, "BOOL", err, errlen);
    *out = kv->value[0] != 0;
    return 0;
}

int bb_gguf_get_str(const bb_gguf *g, const char *key, bb_gguf_str *out, char *err, size_t errlen)
{
    const bb_gguf_kv *kv = lookup(g, key, err, errlen);
    if (!kv) return BB_GGUF_MISSING;
    if (kv->type != BB_GGUF_STRING) return bad_type(g, key, kv, "STRING", err, errlen);
    memcpy(&out->len, kv->value, 8);
    out->ptr = (const char *)kv->value + 8;
    return 0;
}

int bb_gguf_get_array(const bb_gguf *g, const char *key, int want_type, bb_gguf_array *out, char *err,
                      size_t errlen)
{
    const bb_gguf_kv *kv = lookup(g, key, err, errlen);
    if (!kv) return BB_GGUF_MISSING;
    if (kv->type != BB_GGUF_ARRAY) return bad_type(g, key, kv, "ARRAY", err, errlen);
    if (want_type >= 0 && kv->array.type != (bb_gguf_vtype)want_type) {
        snprintf(err, errlen, "%s: metadata key '%s' is an array of %s, expected an array of %s", bb_gguf_path(g), key,
                 bb_gguf_vtype_name(kv->array.type), bb_gguf_vtype_name((uint32_t)want_type));
        return BB_GGUF_BAD_TYPE;
    }
    *out = kv->array;
    return 0;
}

/* ---- array elements ---- */
/* Bytes of the (validated) value of `type` at p. */
static uint64_t value_bytes(uint32_t type, const uint8_t *p)
{
    size_t fixed = bb_gguf_vtype_size(type);
    if (fixed) return fixed;
    uint64_t n;
    memcpy(&n, type == BB_GGUF_STRING ? p : p + 4, 8);
    if (type == BB_GGUF_STRING) return 8 + n;
    uint32_t et;
    memcpy(&et, p, 4);
    uint64_t bytes = 12;
    size_t es = bb_gguf_vtype_size(et);
    if (es) return bytes + n * es;
    for (uint64_t i = 0; i < n; i++) bytes += value_bytes(et, p + bytes);
    return bytes;
}

static const uint8_t *element(const bb_gguf_array *a, uint64_t i)
{
    size_t es = bb_gguf_vtype_size(a->type);
    if (es) return a->data + i * es;
    if (a->offsets) return a->data + a->offsets[i];
    const uint8_t *p = a->data;
    for (uint64_t j = 0; j < i; j++) p += value_bytes(a->type, p);
    return p;
}

bool bb_gguf_array_int(const bb_gguf_array *a, uint64_t i, int64_t *out)
{
    return i < a->count && bb_gguf_read_int(a->type, element(a, i), out);
}

bool bb_gguf_array_float(const bb_gguf_array *a, uint64_t i, double *out)
{
    if (i >= a->count) return false;
    const uint8_t *p = element(a, i);
    if (a->type == BB_GGUF_FLOAT32) {
        float f;
        memcpy(&f, p, 4);
        *out = f;
        return true;
    }
    if (a->type == BB_GGUF_FLOAT64) {
        memcpy(out, p, 8);
        return true;
    }
    return false;
}

bb_gguf_str bb_gguf_array_str(const bb_gguf_array *a, uint64_t i)
{
    bb_gguf_str s = {NULL, 0};
    if (i >= a->count || a->type != BB_GGUF_STRING) return s;
    const uint8_t *p = element(a, i);
    memcpy(&s.len, p, 8);
    s.ptr = (const char *)p + 8;
    return s;
}

bool bb_gguf_array_sub(const bb_gguf_array *a, uint64_t i, bb_gguf_array *out)
{
    if (i >= a->count || a->type != BB_GGUF_ARRAY) return false;
    const uint8_t *p = element(a, i);
    uint32_t et;
    memcpy(&et, p, 4);
    out->type = (bb_gguf_vtype)et;
    memcpy(&out->count, p + 4, 8);
    out->data = p + 12;
    out->offsets = NULL;
    return true;
}

/* ---- tensors ---- */
static void format_shape(char *buf, size_t len, int n_dims, const uint64_t *ne)
{
    size_t o = (size_t)snprintf(buf, len, "[");
    for (int d = 0; d < n_dims && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, "%s%" PRIu64, d ? ", " : "", ne[d]);
    if (o < len) snprintf(buf + o, len - o, "]");
}

int bb_gguf_expect_tensor(const bb_gguf *g, const char *name, int n_dims, const uint64_t *ne, const char *why,
                          char *err, size_t errlen)
{
    const bb_gguf_tensor *t = bb_gguf_find_tensor(g, name);
    if (!t) {
        snprintf(err, errlen, "%s: tensor '%s' is missing", bb_gguf_path(g), name);
        return -1;
    }
    bool same = t->n_dims == n_dims;
    for (int d = 0; same && d < n_dims; d++) same = t->ne[d] == ne[d];
    if (same) return 0;
    char have[96], want[96];
    format_shape(have, sizeof have, t->n_dims, t->ne);
    format_shape(want, sizeof want, n_dims, ne);
    snprintf(err, errlen, "%s: tensor '%s' has shape %s, expected %s%s%s%s", bb_gguf_path(g), name, have, want,
             why ? " (" : "", why ? why : "", why ? ")" : "");
    return -1;
}

int bb_gguf_decode_rows(const bb_gguf *g, const bb_gguf_tensor *t, uint64_t r0, uint64_t n, float *dst, char *err,
                        size_t errlen)
{
    const bb_ggml_type *ty = bb_ggml_type_by_id(t->type);
    uint64_t rows = t->n_elements / t->ne[0];
    if (!ty->decodes) {
        snprintf(err, errlen, "%s: tensor '%s': type %s (%u) is not supported for decoding (supported: %s)",
                 bb_gguf_path(g), t->name, ty->name, ty->id, bb_ggml_decoded_types());
        return -1;
    }
    if (r0 > rows || n > rows - r0) {
        snprintf(err, errlen, "%s: tensor '%s': rows [%" PRIu64 ", %" PRIu64 ") are outside its %" PRIu64 " rows",
                 bb_gguf_path(g), t->name, r0, r0 + n, rows);
        return -1;
    }
    char why[160];
    if (bb_ggml_decode_rows(ty, t->data, t->n_elements, t->ne[0], r0, n, dst, why, sizeof why)) {
        snprintf(err, errlen, "%s: tensor '%s': %s", bb_gguf_path(g), t->name, why);
        return -1;
    }
    return 0;
}
