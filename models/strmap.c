#include "strmap.h"

#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

int bb_strmap_init(bb_strmap *m, size_t max_keys)
{
    size_t cap = 16;
    while (cap < max_keys * 2) cap *= 2;
    m->slots = calloc(cap, sizeof *m->slots);
    m->mask = cap - 1;
    return m->slots ? 0 : -1;
}

void bb_strmap_free(bb_strmap *m)
{
    free(m->slots);
    m->slots = NULL;
}

static size_t find_slot(const bb_strmap *m, const char *key, size_t len)
{
    size_t i = (size_t)fnv1a(key, len) & m->mask;
    while (m->slots[i].key && !(m->slots[i].len == len && memcmp(m->slots[i].key, key, len) == 0))
        i = (i + 1) & m->mask;
    return i;
}

void bb_strmap_put(bb_strmap *m, const char *key, size_t len, int value)
{
    bb_strmap_slot *s = &m->slots[find_slot(m, key, len)];
    s->key = key;
    s->len = (uint32_t)len;
    s->value = value;
}

int bb_strmap_get(const bb_strmap *m, const char *key, size_t len)
{
    const bb_strmap_slot *s = &m->slots[find_slot(m, key, len)];
    return s->key ? s->value : -1;
}
