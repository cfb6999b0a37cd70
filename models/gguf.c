/* GGUF reader: open, map and validate (gguf.h).  Typed metadata access and decoding are in
 * gguf_access.c; the ggml type table in gguf_types.c. */
#include "gguf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gguf_types.h"
#include "support/input_file.h"

/* A name sorted for binary search (keys and tensor names). */
typedef struct {
    const char *ptr;
    uint64_t len;
    uint64_t index;
} sorted_name;

struct bb_gguf {
    char *path;
    const uint8_t *map;
    uint64_t size;
    uint32_t version, alignment;
    uint64_t n_kv, n_tensors, data_offset;
    bb_gguf_kv *kv;
    bb_gguf_tensor *tensors;
    sorted_name *kv_sorted, *tensor_sorted;
};

/* ---- a bounds-checked cursor over the mapped bytes; errors are "<file>: <where>: <what>" ---- */
typedef struct {
    const uint8_t *p;
    uint64_t size, pos;
    const char *file;
    char *err;
    size_t errlen;
    char where[192];
} cursor;

static int fail(cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(cursor *c, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s: %s: %s", c->file, c->where, msg);
    return -1;
}

static uint64_t left(const cursor *c) { return c->size - c->pos; }

static int need(cursor *c, uint64_t n, const char *what)
{
    if (n > left(c))
        return fail(c, "%s runs past the end of the file (%llu bytes)", what, (unsigned long long)c->size);
    return 0;
}

static int rd_u32(cursor *c, uint32_t *v, const char *what)
{
    if (need(c, 4, what)) return -1;
    memcpy(v, c->p + c->pos, 4);
    c->pos += 4;
    return 0;
}

static int rd_u64(cursor *c, uint64_t *v, const char *what)
{
    if (need(c, 8, what)) return -1;
    memcpy(v, c->p + c->pos, 8);
    c->pos += 8;
    return 0;
}

static int rd_str(cursor *c, bb_gguf_str *s, const char *what)
{
    if (left(c) < 8)
        return fail(c, "%s length runs past the end of the file (%llu bytes)", what, (unsigned long long)c->size);
    memcpy(&s->len, c->p + c->pos, 8);
    c->pos += 8;
    if (s->len > left(c))
        return fail(c, "%s length %llu runs past the end of the file (%llu bytes)", what, (unsigned long long)s->len,
                    (unsigned long long)c->size);
    s->ptr = (const char *)c->p + c->pos;
    c->pos += s->len;
    return 0;
}

/* A name from the file, printable and short, for messages. */
static void show(char *buf, size_t len, const char *s, uint64_t n)
{
    size_t o = 0, max = len > 68 ? 64 : len - 4;
    for (uint64_t i = 0; i < n && o < max; i++) buf[o++] = (s[i] >= 32 && s[i] < 127) ? s[i] : '?';
    if (n > max) o += (size_t)snprintf(buf + o, len - o, "...");
    buf[o < len ? o : len - 1] = 0;
}

/* ---- metadata values ---- */
static int value(cursor *c, uint32_t type, int depth, bb_gguf_array *top);

static int array(cursor *c, int depth, bb_gguf_array *top)
{
    uint32_t et;
    uint64_t n;
    if (rd_u32(c, &et, "array element type") || rd_u64(c, &n, "array element count")) return -1;
    if (et >= BB_GGUF_NTYPES) return fail(c, "array element type %u is not a GGUF value type (valid: 0..12)", et);
    if (depth >= BB_GGUF_MAX_ARRAY_DEPTH)
        return fail(c, "arrays nested deeper than %d levels", BB_GGUF_MAX_ARRAY_DEPTH);
    /* the least an element can take: its fixed size, a string's length, an array's header */
    size_t es = bb_gguf_vtype_size(et), least = es ? es : (et == BB_GGUF_STRING ? 8 : 12);
    if (n > left(c) / least)
        return fail(c, "array of %llu %s elements runs past the end of the file (%llu bytes)", (unsigned long long)n,
                    bb_gguf_vtype_name(et), (unsigned long long)c->size);
    const uint8_t *data = c->p + c->pos;
    uint64_t *offsets = NULL;
    if (top && !es && n) {
        offsets = malloc(n * sizeof *offsets);
        if (!offsets) return fail(c, "out of memory for an index of %llu array elements", (unsigned long long)n);
    }
    if (top) *top = (bb_gguf_array){.type = (bb_gguf_vtype)et, .count = n, .data = data, .offsets = offsets};
    if (es && et != BB_GGUF_BOOL) {
        c->pos += n * es;
        return 0;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (offsets) offsets[i] = (uint64_t)(c->p + c->pos - data);
        if (value(c, et, depth + 1, NULL)) return -1;
    }
    return 0;
}

static int value(cursor *c, uint32_t type, int depth, bb_gguf_array *top)
{
    if (type >= BB_GGUF_NTYPES) return fail(c, "value type %u is not a GGUF value type (valid: 0..12)", type);
    if (type == BB_GGUF_STRING) {
        bb_gguf_str s;
        return rd_str(c, &s, "string");
    }
    if (type == BB_GGUF_ARRAY) return array(c, depth, top);
    size_t n = bb_gguf_vtype_size(type);
    if (need(c, n, "value")) return -1;
    if (type == BB_GGUF_BOOL && c->p[c->pos] > 1) return fail(c, "bool value %u is not 0 or 1", c->p[c->pos]);
    c->pos += n;
    return 0;
}

static int read_kv(cursor *c, bb_gguf *g)
{
    for (uint64_t i = 0; i < g->n_kv; i++) {
        bb_gguf_kv *kv = &g->kv[i];
        snprintf(c->where, sizeof c->where, "metadata key #%llu", (unsigned long long)i);
        if (rd_str(c, &kv->key, "key")) return -1;
        char name[72];
        show(name, sizeof name, kv->key.ptr, kv->key.len);
        snprintf(c->where, sizeof c->where, "metadata key #%llu '%s'", (unsigned long long)i, name);
        uint32_t type;
        if (rd_u32(c, &type, "value type")) return -1;
        kv->type = (bb_gguf_vtype)type;
        kv->value = c->p + c->pos;
        if (value(c, type, 0, type == BB_GGUF_ARRAY ? &kv->array : NULL)) return -1;
    }
    return 0;
}

/* ---- tensor infos ---- */
static int read_tensor_info(cursor *c, uint64_t i, bb_gguf_tensor *t)
{
    bb_gguf_str name = {NULL, 0};
    snprintf(c->where, sizeof c->where, "tensor #%llu", (unsigned long long)i);
    if (rd_str(c, &name, "name")) return -1;
    char shown[72];
    show(shown, sizeof shown, name.ptr, name.len);
    if (memchr(name.ptr, 0, name.len)) return fail(c, "name '%s' contains a NUL byte", shown);
    snprintf(c->where, sizeof c->where, "tensor '%s'", shown);
    t->name = malloc(name.len + 1);
    if (!t->name) return fail(c, "out of memory for its name");
    memcpy(t->name, name.ptr, name.len);
    t->name[name.len] = 0;
    uint32_t nd;
    if (rd_u32(c, &nd, "n_dims")) return -1;
    if (nd < 1 || nd > BB_GGUF_MAX_DIMS) return fail(c, "n_dims %u is out of range (valid: 1..%d)", nd, BB_GGUF_MAX_DIMS);
    t->n_dims = (int)nd;
    for (int d = 0; d < BB_GGUF_MAX_DIMS; d++) t->ne[d] = 1;
    for (uint32_t d = 0; d < nd; d++) {
        if (rd_u64(c, &t->ne[d], "dimension")) return -1;
        if (t->ne[d] == 0 || t->ne[d] > (uint64_t)INT64_MAX)
            return fail(c, "dimension %u is %llu (valid: 1..2^63-1)", d, (unsigned long long)t->ne[d]);
    }
    return rd_u32(c, &t->type, "type") || rd_u64(c, &t->offset, "data offset") ? -1 : 0;
}

/* Type, size and place of a tensor's data, once the data section's start is known. */
static int check_tensor(cursor *c, const bb_gguf *g, bb_gguf_tensor *t)
{
    char shown[72];
    show(shown, sizeof shown, t->name, strlen(t->name));
    snprintf(c->where, sizeof c->where, "tensor '%s'", shown);
    const bb_ggml_type *ty = bb_ggml_type_by_id(t->type);
    if (!ty) return fail(c, "type id %u is not a ggml type", t->type);
    uint64_t n = 1;
    for (int d = 0; d < BB_GGUF_MAX_DIMS; d++)
        if (__builtin_mul_overflow(n, t->ne[d], &n) || n > (uint64_t)INT64_MAX)
            return fail(c, "shape [%llu, %llu, %llu, %llu] has more than 2^63 elements", (unsigned long long)t->ne[0],
                        (unsigned long long)t->ne[1], (unsigned long long)t->ne[2], (unsigned long long)t->ne[3]);
    t->n_elements = n;
    if (t->ne[0] % ty->block)
        return fail(c, "row length %llu is not a multiple of type %s's block of %u", (unsigned long long)t->ne[0],
                    ty->name, ty->block);
    if (__builtin_mul_overflow(n / ty->block, (uint64_t)ty->block_bytes, &t->n_bytes) ||
        __builtin_add_overflow(t->n_bytes, (uint64_t)ty->tail_bytes, &t->n_bytes))
        return fail(c, "%llu elements of type %s overflow a 64-bit byte count", (unsigned long long)n, ty->name);
    if (t->offset % g->alignment)
        return fail(c, "data offset %llu is not a multiple of the alignment %u", (unsigned long long)t->offset,
                    g->alignment);
    uint64_t room = g->data_offset <= g->size ? g->size - g->data_offset : 0;
    if (t->offset > room || t->n_bytes > room - t->offset)
        return fail(c, "data [%llu, %llu) of %llu bytes (%s) runs past the end of the file (%llu bytes, data from %llu)",
                    (unsigned long long)t->offset, (unsigned long long)(t->offset + t->n_bytes),
                    (unsigned long long)t->n_bytes, ty->name, (unsigned long long)g->size,
                    (unsigned long long)g->data_offset);
    t->data = g->map + g->data_offset + t->offset;
    return 0;
}

/* ---- sorted names: lookups and duplicate checks ---- */
static int cmp_name(const void *a, const void *b)
{
    const sorted_name *x = a, *y = b;
    uint64_t n = x->len < y->len ? x->len : y->len;
    int r = n ? memcmp(x->ptr, y->ptr, n) : 0;
    return r ? r : (x->len < y->len ? -1 : x->len > y->len);
}

/* Sort, and fail naming the first duplicate. */
static int sort_names(cursor *c, sorted_name *s, uint64_t n, const char *what)
{
    qsort(s, n, sizeof *s, cmp_name);
    for (uint64_t i = 1; i < n; i++)
        if (cmp_name(&s[i - 1], &s[i]) == 0) {
            char shown[72];
            show(shown, sizeof shown, s[i].ptr, s[i].len);
            snprintf(c->where, sizeof c->where, "%s '%s'", what, shown);
            return fail(c, "appears twice (#%llu and #%llu)", (unsigned long long)s[i - 1].index,
                        (unsigned long long)s[i].index);
        }
    return 0;
}

static const sorted_name *find_sorted(const sorted_name *s, uint64_t n, const char *name)
{
    sorted_name key = {name, strlen(name), 0};
    return n ? bsearch(&key, s, n, sizeof *s, cmp_name) : NULL;
}

/* ---- open ---- */
static int read_header(cursor *c, bb_gguf *g)
{
    snprintf(c->where, sizeof c->where, "header");
    if (need(c, 4, "magic")) return -1;
    if (memcmp(c->p, "GGUF", 4) != 0) {
        char m[8];
        show(m, sizeof m, (const char *)c->p, 4);
        return fail(c, "not a GGUF file (magic '%s', expected 'GGUF')", m);
    }
    c->pos = 4;
    if (rd_u32(c, &g->version, "version")) return -1;
    if (g->version != 2 && g->version != 3) {
        uint32_t v = g->version;
        if ((v & 0xffffu) == 0 && (v >> 24) >= 1 && (v >> 24) <= 3)
            return fail(c, "version field 0x%08x is a byte-swapped %u: big-endian GGUF is not supported", v, v >> 24);
        return fail(c, "GGUF version %u is not supported (valid: 2, 3)", v);
    }
    if (rd_u64(c, &g->n_tensors, "tensor count") || rd_u64(c, &g->n_kv, "metadata key count")) return -1;
    /* bound both counts by the bytes left before allocating per entry: a tensor info takes at
     * least 32 bytes (empty name, one dim), a key-value 13 (empty key, one-byte value) */
    if (g->n_tensors > left(c) / 32)
        return fail(c, "tensor count %llu is more than the file's %llu bytes can hold", (unsigned long long)g->n_tensors,
                    (unsigned long long)c->size);
    if (g->n_kv > left(c) / 13)
        return fail(c, "metadata key count %llu is more than the file's %llu bytes can hold",
                    (unsigned long long)g->n_kv, (unsigned long long)c->size);
    return 0;
}

static int read_alignment(cursor *c, bb_gguf *g)
{
    g->alignment = BB_GGUF_DEFAULT_ALIGNMENT;
    const bb_gguf_kv *kv = bb_gguf_find_kv(g, "general.alignment");
    if (!kv) return 0;
    snprintf(c->where, sizeof c->where, "metadata key 'general.alignment'");
    int64_t a;
    if (!bb_gguf_read_int(kv->type, kv->value, &a) || kv->type == BB_GGUF_BOOL)
        return fail(c, "type %s is not an integer", bb_gguf_vtype_name(kv->type));
    if (a <= 0 || a > (1 << 30) || (a & (a - 1)))
        return fail(c, "alignment %lld is not a power of two (valid: 1, 2, 4, ... 2^30)", (long long)a);
    g->alignment = (uint32_t)a;
    return 0;
}

static int parse(cursor *c, bb_gguf *g)
{
    if (read_header(c, g)) return -1;
    g->kv = calloc(g->n_kv ? g->n_kv : 1, sizeof *g->kv);
    g->tensors = calloc(g->n_tensors ? g->n_tensors : 1, sizeof *g->tensors);
    g->kv_sorted = calloc(g->n_kv ? g->n_kv : 1, sizeof *g->kv_sorted);
    g->tensor_sorted = calloc(g->n_tensors ? g->n_tensors : 1, sizeof *g->tensor_sorted);
    if (!g->kv || !g->tensors || !g->kv_sorted || !g->tensor_sorted) return fail(c, "out of memory");
    if (read_kv(c, g)) return -1;
    for (uint64_t i = 0; i < g->n_kv; i++) g->kv_sorted[i] = (sorted_name){g->kv[i].key.ptr, g->kv[i].key.len, i};
    if (sort_names(c, g->kv_sorted, g->n_kv, "metadata key") || read_alignment(c, g)) return -1;
    for (uint64_t i = 0; i < g->n_tensors; i++)
        if (read_tensor_info(c, i, &g->tensors[i])) return -1;
    g->data_offset = (c->pos + g->alignment - 1) / g->alignment * g->alignment;
    for (uint64_t i = 0; i < g->n_tensors; i++) {
        if (check_tensor(c, g, &g->tensors[i])) return -1;
        g->tensor_sorted[i] = (sorted_name){g->tensors[i].name, strlen(g->tensors[i].name), i};
    }
    return sort_names(c, g->tensor_sorted, g->n_tensors, "tensor");
}

bb_gguf *bb_gguf_open(const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO with no writer would otherwise block in open() before the check could
     * refuse it.  No size bound: every offset is checked against the mapped size while parsing. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    uint64_t file_size = 0;
    if (bb_input_check_fd(fd, path, "GGUF model", BB_INPUT_ANY_SIZE, &file_size, err, errlen) != 0) {
        close(fd);
        return NULL;
    }
    bb_gguf *g = calloc(1, sizeof *g);
    if (!g || !(g->path = strdup(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        close(fd);
        free(g);
        return NULL;
    }
    g->size = file_size;
    if (g->size) {
        void *m = mmap(NULL, g->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            snprintf(err, errlen, "%s: cannot map %llu bytes: %s", path, (unsigned long long)g->size, strerror(errno));
            close(fd);
            bb_gguf_close(g);
            return NULL;
        }
        g->map = m;
    }
    close(fd);
    cursor c = {.p = g->map, .size = g->size, .file = path, .err = err, .errlen = errlen};
    if (parse(&c, g)) {
        bb_gguf_close(g);
        return NULL;
    }
    return g;
}

void bb_gguf_close(bb_gguf *g)
{
    if (!g) return;
    if (g->kv)
        for (uint64_t i = 0; i < g->n_kv; i++) free((void *)g->kv[i].array.offsets);
    if (g->tensors)
        for (uint64_t i = 0; i < g->n_tensors; i++) free(g->tensors[i].name);
    free(g->kv);
    free(g->tensors);
    free(g->kv_sorted);
    free(g->tensor_sorted);
    if (g->map) munmap((void *)g->map, g->size);
    free(g->path);
    free(g);
}

const char *bb_gguf_path(const bb_gguf *g) { return g->path; }
uint32_t bb_gguf_version(const bb_gguf *g) { return g->version; }
uint64_t bb_gguf_file_size(const bb_gguf *g) { return g->size; }
uint32_t bb_gguf_alignment(const bb_gguf *g) { return g->alignment; }
uint64_t bb_gguf_data_offset(const bb_gguf *g) { return g->data_offset; }
uint64_t bb_gguf_kv_count(const bb_gguf *g) { return g->n_kv; }
const bb_gguf_kv *bb_gguf_kv_at(const bb_gguf *g, uint64_t i) { return i < g->n_kv ? &g->kv[i] : NULL; }
uint64_t bb_gguf_tensor_count(const bb_gguf *g) { return g->n_tensors; }
const bb_gguf_tensor *bb_gguf_tensor_at(const bb_gguf *g, uint64_t i) { return i < g->n_tensors ? &g->tensors[i] : NULL; }

const bb_gguf_kv *bb_gguf_find_kv(const bb_gguf *g, const char *key)
{
    const sorted_name *s = find_sorted(g->kv_sorted, g->n_kv, key);
    return s ? &g->kv[s->index] : NULL;
}

const bb_gguf_tensor *bb_gguf_find_tensor(const bb_gguf *g, const char *name)
{
    const sorted_name *s = find_sorted(g->tensor_sorted, g->n_tensors, name);
    return s ? &g->tensors[s->index] : NULL;
}
