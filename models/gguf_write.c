/* Streaming GGUF v3 writer (gguf_write.h).  Little-endian host assumed, as gguf.c does. */
#include "gguf_write.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_types.h"
#include "support/output_file.h"

#define GGUF_VERSION 3
#define GGUF_MAX_NAME 64 /* ggml's GGML_MAX_NAME: a tensor name and its NUL */

typedef struct {
    uint8_t *p;
    size_t len, cap;
} bytes_buf;

typedef struct {
    char *name;
    uint32_t type;
    int n_dims;
    uint64_t ne[BB_GGUF_MAX_DIMS];
    uint64_t offset, bytes; /* offset from the data section */
} tensor_info;

struct bb_gguf_writer {
    char path[512];
    bb_output_file out; /* a temporary file beside path, renamed over it by finish */
    FILE *f;            /* out.f */
    char err[512];
    uint32_t alignment;
    bytes_buf kv;      /* the encoded key/value pairs */
    char **keys;
    uint64_t n_kv;
    tensor_info *tensors;
    uint64_t n_tensors, cap_tensors;
    uint64_t data_bytes; /* data section size so far, padded */
    bool started;        /* header written */
    uint64_t cur;        /* tensor being written */
    uint64_t cur_done;   /* its bytes written */
};

static int fail(bb_gguf_writer *w, const char *fmt, ...)
{
    if (w->err[0]) return -1;
    int n = snprintf(w->err, sizeof w->err, "%s: ", w->path);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof w->err) vsnprintf(w->err + n, sizeof w->err - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int buf_put(bb_gguf_writer *w, bytes_buf *b, const void *p, size_t n)
{
    if (!n) return 0;
    if (n > SIZE_MAX - b->len) return fail(w, "metadata larger than memory");
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) return fail(w, "out of memory for %zu bytes of metadata", cap);
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

static int put_u32(bb_gguf_writer *w, bytes_buf *b, uint32_t v) { return buf_put(w, b, &v, sizeof v); }
static int put_u64(bb_gguf_writer *w, bytes_buf *b, uint64_t v) { return buf_put(w, b, &v, sizeof v); }

/* A GGUF string: u64 length, then the bytes. */
static int put_str(bb_gguf_writer *w, bytes_buf *b, const char *s)
{
    size_t n = strlen(s);
    return put_u64(w, b, n) || buf_put(w, b, s, n) ? -1 : 0;
}

bb_gguf_writer *bb_gguf_writer_create(const char *path, char *err, size_t errlen)
{
    bb_gguf_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    snprintf(w->path, sizeof w->path, "%s", path);
    w->alignment = BB_GGUF_DEFAULT_ALIGNMENT;
    if (!(w->f = bb_output_begin(&w->out, path, err, errlen))) {
        free(w);
        return NULL;
    }
    setvbuf(w->f, NULL, _IOFBF, 1 << 20);
    return w;
}

/* A new key: not empty, not seen before, before the header went out. */
static int begin_kv(bb_gguf_writer *w, const char *key, bb_gguf_vtype type)
{
    if (w->err[0]) return -1;
    if (w->started) return fail(w, "key '%s': metadata added after tensor data was written", key);
    if (!key[0]) return fail(w, "an empty metadata key");
    for (uint64_t i = 0; i < w->n_kv; i++)
        if (!strcmp(w->keys[i], key)) return fail(w, "key '%s' is set twice", key);
    char **keys = realloc(w->keys, (size_t)(w->n_kv + 1) * sizeof *keys);
    if (!keys) return fail(w, "out of memory");
    w->keys = keys;
    if (!(keys[w->n_kv] = strdup(key))) return fail(w, "out of memory");
    w->n_kv++;
    return put_str(w, &w->kv, key) || put_u32(w, &w->kv, (uint32_t)type) ? -1 : 0;
}

static int set_scalar(bb_gguf_writer *w, const char *key, bb_gguf_vtype type, const void *v)
{
    return begin_kv(w, key, type) || buf_put(w, &w->kv, v, bb_gguf_vtype_size(type)) ? -1 : 0;
}

int bb_gguf_set_u32(bb_gguf_writer *w, const char *key, uint32_t v) { return set_scalar(w, key, BB_GGUF_UINT32, &v); }
int bb_gguf_set_i32(bb_gguf_writer *w, const char *key, int32_t v) { return set_scalar(w, key, BB_GGUF_INT32, &v); }
int bb_gguf_set_u64(bb_gguf_writer *w, const char *key, uint64_t v) { return set_scalar(w, key, BB_GGUF_UINT64, &v); }
int bb_gguf_set_f32(bb_gguf_writer *w, const char *key, float v) { return set_scalar(w, key, BB_GGUF_FLOAT32, &v); }

int bb_gguf_set_bool(bb_gguf_writer *w, const char *key, bool v)
{
    uint8_t b = v ? 1 : 0;
    return set_scalar(w, key, BB_GGUF_BOOL, &b);
}

int bb_gguf_set_str(bb_gguf_writer *w, const char *key, const char *v)
{
    return begin_kv(w, key, BB_GGUF_STRING) || put_str(w, &w->kv, v) ? -1 : 0;
}

int bb_gguf_set_array(bb_gguf_writer *w, const char *key, bb_gguf_vtype elem, const void *elems, uint64_t count)
{
    size_t size = bb_gguf_vtype_size(elem);
    if (w->err[0]) return -1;
    if (!size) return fail(w, "key '%s': array element type %s is not a fixed-size type", key, bb_gguf_vtype_name(elem));
    if (count > SIZE_MAX / size) return fail(w, "key '%s': %llu elements overflow", key, (unsigned long long)count);
    if (begin_kv(w, key, BB_GGUF_ARRAY) || put_u32(w, &w->kv, (uint32_t)elem) || put_u64(w, &w->kv, count)) return -1;
    return buf_put(w, &w->kv, elems, (size_t)count * size);
}

int bb_gguf_set_str_array(bb_gguf_writer *w, const char *key, const char *const *strs, uint64_t count)
{
    if (begin_kv(w, key, BB_GGUF_ARRAY) || put_u32(w, &w->kv, BB_GGUF_STRING) || put_u64(w, &w->kv, count)) return -1;
    for (uint64_t i = 0; i < count; i++)
        if (put_str(w, &w->kv, strs[i])) return -1;
    return 0;
}

/* The bytes of a validated value: a scalar, a string (u64 length + bytes), or an array (u32 element
 * type, u64 count, elements) of scalars or strings; 0 for a nested array. */
static uint64_t value_bytes(const bb_gguf_kv *kv)
{
    uint64_t n;
    if (kv->type == BB_GGUF_STRING) {
        memcpy(&n, kv->value, sizeof n);
        return 8 + n;
    }
    if (kv->type != BB_GGUF_ARRAY) return bb_gguf_vtype_size(kv->type);
    const bb_gguf_array *a = &kv->array;
    if (a->type == BB_GGUF_ARRAY) return 0;
    if (a->type != BB_GGUF_STRING) return 12 + a->count * bb_gguf_vtype_size(a->type);
    if (!a->count) return 12;
    memcpy(&n, a->data + a->offsets[a->count - 1], sizeof n);
    return 12 + a->offsets[a->count - 1] + 8 + n;
}

int bb_gguf_copy_kv(bb_gguf_writer *w, const bb_gguf_kv *kv)
{
    char key[256];
    if (w->err[0]) return -1;
    if (kv->key.len >= sizeof key) return fail(w, "a copied key of %llu bytes is too long", (unsigned long long)kv->key.len);
    memcpy(key, kv->key.ptr, kv->key.len);
    key[kv->key.len] = 0;
    uint64_t n = value_bytes(kv);
    if (!n) return fail(w, "key '%s': nested arrays are not copied", key);
    if (n > SIZE_MAX) return fail(w, "key '%s': value too large", key);
    return begin_kv(w, key, kv->type) || buf_put(w, &w->kv, kv->value, (size_t)n) ? -1 : 0;
}

int bb_gguf_set_alignment(bb_gguf_writer *w, uint32_t alignment)
{
    if (w->err[0]) return -1;
    if (alignment < 8 || (alignment & (alignment - 1)))
        return fail(w, "key 'general.alignment': %u is not a power of two of at least 8", alignment);
    if (w->n_tensors) return fail(w, "key 'general.alignment': set after tensors were laid out");
    if (bb_gguf_set_u32(w, "general.alignment", alignment)) return -1;
    w->alignment = alignment;
    return 0;
}

/* Bytes of a tensor of n values of type ty; -1 on overflow. */
static int tensor_bytes(const bb_ggml_type *ty, uint64_t n, uint64_t *bytes)
{
    return __builtin_mul_overflow(n / ty->block, (uint64_t)ty->block_bytes, bytes) ||
                   __builtin_add_overflow(*bytes, (uint64_t)ty->tail_bytes, bytes)
               ? -1
               : 0;
}

static uint64_t padding(uint64_t n, uint32_t alignment) { return (alignment - n % alignment) % alignment; }

/* Shape and type of a new tensor; fills t's ne, n_dims, bytes. */
static int check_tensor(bb_gguf_writer *w, const char *name, const bb_ggml_type *ty, int n_dims, const uint64_t *ne,
                        tensor_info *t)
{
    if (n_dims < 1 || n_dims > BB_GGUF_MAX_DIMS)
        return fail(w, "tensor '%s': %d dimensions (valid: 1..%d)", name, n_dims, BB_GGUF_MAX_DIMS);
    uint64_t n = 1;
    for (int d = 0; d < BB_GGUF_MAX_DIMS; d++) {
        t->ne[d] = d < n_dims ? ne[d] : 1;
        if (t->ne[d] == 0 || t->ne[d] > (uint64_t)INT64_MAX)
            return fail(w, "tensor '%s': dimension %d is %llu (valid: 1..2^63-1)", name, d, (unsigned long long)t->ne[d]);
        if (__builtin_mul_overflow(n, t->ne[d], &n) || n > (uint64_t)INT64_MAX)
            return fail(w, "tensor '%s': more than 2^63 elements", name);
    }
    if (t->ne[0] % ty->block)
        return fail(w, "tensor '%s': row length %llu is not a multiple of %s's block %u", name,
                    (unsigned long long)t->ne[0], ty->name, ty->block);
    if (tensor_bytes(ty, n, &t->bytes)) return fail(w, "tensor '%s': byte count overflows", name);
    t->n_dims = n_dims;
    return 0;
}

int bb_gguf_add_tensor(bb_gguf_writer *w, const char *name, uint32_t ggml_type, int n_dims, const uint64_t *ne)
{
    if (w->err[0]) return -1;
    if (w->started) return fail(w, "tensor '%s': declared after tensor data was written", name);
    size_t len = strlen(name);
    if (len == 0 || len >= GGUF_MAX_NAME)
        return fail(w, "tensor name '%s' has %zu bytes (valid: 1..%d)", name, len, GGUF_MAX_NAME - 1);
    for (uint64_t i = 0; i < w->n_tensors; i++)
        if (!strcmp(w->tensors[i].name, name)) return fail(w, "tensor '%s' is declared twice", name);
    const bb_ggml_type *ty = bb_ggml_type_by_id(ggml_type);
    if (!ty) return fail(w, "tensor '%s': type id %u is not a ggml type", name, ggml_type);
    tensor_info t = {.type = ggml_type, .offset = w->data_bytes};
    if (check_tensor(w, name, ty, n_dims, ne, &t)) return -1;
    uint64_t end;
    if (__builtin_add_overflow(t.offset, t.bytes, &end) || __builtin_add_overflow(end, padding(end, w->alignment), &end))
        return fail(w, "tensor '%s': the data section overflows 64 bits", name);
    if (w->n_tensors == w->cap_tensors) {
        uint64_t cap = w->cap_tensors ? 2 * w->cap_tensors : 64;
        tensor_info *p = realloc(w->tensors, (size_t)cap * sizeof *p);
        if (!p) return fail(w, "out of memory");
        w->tensors = p;
        w->cap_tensors = cap;
    }
    if (!(t.name = strdup(name))) return fail(w, "out of memory");
    w->tensors[w->n_tensors++] = t;
    w->data_bytes = end;
    return 0;
}

static int write_raw(bb_gguf_writer *w, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, w->f) != n) return fail(w, "write failed: %s", strerror(errno));
    return 0;
}

static int write_zeros(bb_gguf_writer *w, uint64_t n)
{
    static const uint8_t zeros[64];
    while (n) {
        size_t k = n < sizeof zeros ? (size_t)n : sizeof zeros;
        if (write_raw(w, zeros, k)) return -1;
        n -= k;
    }
    return 0;
}

/* Header: magic, version, counts, metadata, tensor infos, padding. */
static int write_header(bb_gguf_writer *w)
{
    bytes_buf h = {0};
    int rc = buf_put(w, &h, "GGUF", 4) || put_u32(w, &h, GGUF_VERSION) || put_u64(w, &h, w->n_tensors) ||
             put_u64(w, &h, w->n_kv) || buf_put(w, &h, w->kv.p, w->kv.len);
    for (uint64_t i = 0; !rc && i < w->n_tensors; i++) {
        const tensor_info *t = &w->tensors[i];
        rc = put_str(w, &h, t->name) || put_u32(w, &h, (uint32_t)t->n_dims);
        for (int d = 0; !rc && d < t->n_dims; d++) rc = put_u64(w, &h, t->ne[d]);
        rc = rc || put_u32(w, &h, t->type) || put_u64(w, &h, t->offset);
    }
    rc = rc || write_raw(w, h.p, h.len) || write_zeros(w, padding(h.len, w->alignment));
    free(h.p);
    w->started = true;
    return rc ? -1 : 0;
}

int bb_gguf_write_data(bb_gguf_writer *w, const void *data, size_t bytes)
{
    if (w->err[0]) return -1;
    if (!w->started && write_header(w)) return -1;
    if (!bytes) return 0;
    if (w->cur >= w->n_tensors) return fail(w, "%zu bytes of data past the last tensor", bytes);
    const tensor_info *t = &w->tensors[w->cur];
    uint64_t left = t->bytes - w->cur_done;
    if (bytes > left)
        return fail(w, "tensor '%s': %zu bytes written where %llu of its %llu remain", t->name, bytes,
                    (unsigned long long)left, (unsigned long long)t->bytes);
    if (write_raw(w, data, bytes)) return -1;
    w->cur_done += bytes;
    if (w->cur_done == t->bytes) {
        if (write_zeros(w, padding(t->offset + t->bytes, w->alignment))) return -1;
        w->cur++;
        w->cur_done = 0;
    }
    return 0;
}

const char *bb_gguf_writer_current(const bb_gguf_writer *w, uint64_t *bytes)
{
    if (w->cur >= w->n_tensors) return NULL;
    if (bytes) *bytes = w->tensors[w->cur].bytes;
    return w->tensors[w->cur].name;
}

/* The header's size before padding: computed from what was declared. */
static uint64_t header_bytes(const bb_gguf_writer *w)
{
    uint64_t n = 4 + 4 + 8 + 8 + w->kv.len;
    for (uint64_t i = 0; i < w->n_tensors; i++)
        n += 8 + strlen(w->tensors[i].name) + 4 + 8 * (uint64_t)w->tensors[i].n_dims + 4 + 8;
    return n;
}

uint64_t bb_gguf_writer_file_size(const bb_gguf_writer *w)
{
    uint64_t h = header_bytes(w);
    return h + padding(h, w->alignment) + w->data_bytes;
}

const char *bb_gguf_writer_error(const bb_gguf_writer *w) { return w->err; }

static void release(bb_gguf_writer *w)
{
    for (uint64_t i = 0; i < w->n_kv; i++) free(w->keys[i]);
    for (uint64_t i = 0; i < w->n_tensors; i++) free(w->tensors[i].name);
    free(w->keys);
    free(w->tensors);
    free(w->kv.p);
    free(w);
}

int bb_gguf_writer_finish(bb_gguf_writer *w, char *err, size_t errlen)
{
    if (!w->err[0] && !w->started) write_header(w);
    if (!w->err[0] && w->cur < w->n_tensors)
        fail(w, "tensor '%s' got %llu of its %llu bytes; the file is incomplete", w->tensors[w->cur].name,
             (unsigned long long)w->cur_done, (unsigned long long)w->tensors[w->cur].bytes);
    if (w->err[0]) {
        bb_output_abort(&w->out); /* the previous file at path, if any, stays as it was */
    } else {
        char cerr[sizeof w->err];
        if (bb_output_commit(&w->out, cerr, sizeof cerr)) snprintf(w->err, sizeof w->err, "%s", cerr);
    }
    w->f = NULL;
    int rc = w->err[0] ? -1 : 0;
    if (rc) snprintf(err, errlen, "%s", w->err);
    release(w);
    return rc;
}

void bb_gguf_writer_abort(bb_gguf_writer *w)
{
    if (!w) return;
    bb_output_abort(&w->out);
    release(w);
}
