/* GGUF files written byte by byte, for tests that need files bitbench's own writer
 * (models/gguf_write.h) would never make: hostile headers (test_gguf_hostile.c), a vocabulary of
 * the test's own (test_tokenizer_gguf.c).  A growable buffer and the little-endian fields of the
 * GGUF format (version 3: counts and string lengths are 64-bit); value types are models/gguf.h's.
 * The kv_ functions write one whole key-value pair and count it in n_kv, which the caller patches
 * into the header. */
#ifndef BB_TEST_GGUF_BYTES_H
#define BB_TEST_GGUF_BYTES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/gguf.h"

typedef struct {
    uint8_t *b;
    size_t n, cap;
    uint64_t n_kv;   /* key-value pairs written by the kv_ functions */
} gguf_buf;

/* Append n bytes; exits the test when memory runs out (nothing after it could work). */
static inline void put(gguf_buf *o, const void *p, size_t n)
{
    if (o->n + n > o->cap) {
        size_t cap = (o->n + n) * 2;
        uint8_t *b = realloc(o->b, cap);
        if (!b) {
            fprintf(stderr, "gguf_bytes: out of memory\n");
            exit(1);
        }
        o->b = b, o->cap = cap;
    }
    memcpy(o->b + o->n, p, n);
    o->n += n;
}
static inline void put_u8(gguf_buf *o, uint8_t v) { put(o, &v, 1); }
static inline void put_u32(gguf_buf *o, uint32_t v) { put(o, &v, 4); }
static inline void put_u64(gguf_buf *o, uint64_t v) { put(o, &v, 8); }
static inline void put_str(gguf_buf *o, const char *s) { put_u64(o, strlen(s)), put(o, s, strlen(s)); }
/* A key and its value type; the value follows. */
static inline void put_key(gguf_buf *o, const char *key, uint32_t type) { put_str(o, key), put_u32(o, type); }
static inline void pad_to(gguf_buf *o, size_t align)
{
    while (o->n % align) put_u8(o, 0);
}
static inline void gguf_buf_free(gguf_buf *o)
{
    free(o->b);
    *o = (gguf_buf){0};
}

static inline void kv_str(gguf_buf *o, const char *k, const char *v)
{
    put_key(o, k, BB_GGUF_STRING), put_str(o, v), o->n_kv++;
}
static inline void kv_u32(gguf_buf *o, const char *k, uint32_t v)
{
    put_key(o, k, BB_GGUF_UINT32), put_u32(o, v), o->n_kv++;
}
static inline void kv_strs(gguf_buf *o, const char *k, const char *const *v, int n)
{
    put_key(o, k, BB_GGUF_ARRAY), put_u32(o, BB_GGUF_STRING), put_u64(o, (uint64_t)n), o->n_kv++;
    for (int i = 0; i < n; i++) put_str(o, v[i]);
}
static inline void kv_i32s(gguf_buf *o, const char *k, const int32_t *v, int n)
{
    put_key(o, k, BB_GGUF_ARRAY), put_u32(o, BB_GGUF_INT32), put_u64(o, (uint64_t)n), o->n_kv++;
    put(o, v, sizeof(int32_t) * (size_t)n);
}

#endif
