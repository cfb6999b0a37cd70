/* A hash map from byte strings to ints, open addressing with linear probing (FNV-1a hash).
 * The map does not copy keys: they must outlive it (the tokenizer keeps them in its arena).
 * Sized once for a known number of keys; a key put twice keeps the later value, as llama.cpp's
 * token_to_id map does for a vocabulary with duplicate strings. */
#ifndef BB_STRMAP_H
#define BB_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *key;
    uint32_t len;
    int value;
} bb_strmap_slot;

typedef struct {
    bb_strmap_slot *slots;
    size_t mask;
} bb_strmap;

/* Room for max_keys keys at a load factor of at most 1/2.  Returns 0, or -1 out of memory. */
int bb_strmap_init(bb_strmap *m, size_t max_keys);
void bb_strmap_free(bb_strmap *m);
void bb_strmap_put(bb_strmap *m, const char *key, size_t len, int value);
/* The value of the key, or -1 when absent. */
int bb_strmap_get(const bb_strmap *m, const char *key, size_t len);

#endif
