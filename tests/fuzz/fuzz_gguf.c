/* Fuzz target: the GGUF reader (models/gguf.c and its accessors), the tokenizer read from GGUF
 * metadata (models/tokenizer_gguf.c) and the model reader on top (models/gguf_source.c).
 *
 * The input is a GGUF file.  A file bb_gguf_open accepts is walked as its users walk it: every
 * key with its typed value (arrays element by element, nested arrays to the depth the reader
 * allows), every tensor's first and last data byte and its first and last row decoded to float;
 * then a tokenizer is built from its metadata and encodes and decodes a text, and the model
 * reader opens it.  bb_gguf_open promises that every accessor is safe after it succeeds; this
 * target checks that promise.  Seeds: the GGUF files of $BITBENCH_SHARED_DIR/golden/gguf cut to max_len and
 * small hand-made files (tests/fuzz/regressions/gguf). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "models/gguf.h"
#include "models/gguf_source.h"
#include "models/tokenizer.h"

enum { MAX_ELEMENTS = 64, MAX_ROW = 1 << 16 };

static volatile uint64_t sink;

static void walk_array(const bb_gguf_array *a, int depth)
{
    uint64_t n = a->count < MAX_ELEMENTS ? a->count : MAX_ELEMENTS;
    for (uint64_t i = 0; i < n; i++) {
        int64_t iv;
        double fv;
        bb_gguf_array sub;
        if (bb_gguf_array_int(a, i, &iv)) sink += (uint64_t)iv;
        if (bb_gguf_array_float(a, i, &fv)) sink += fv == fv;
        bb_gguf_str s = bb_gguf_array_str(a, i);
        if (s.ptr && s.len) sink += (uint8_t)s.ptr[0] + (uint8_t)s.ptr[s.len - 1];
        if (depth < BB_GGUF_MAX_ARRAY_DEPTH && bb_gguf_array_sub(a, i, &sub)) walk_array(&sub, depth + 1);
    }
}

static void walk_metadata(const bb_gguf *g)
{
    for (uint64_t i = 0; i < bb_gguf_kv_count(g); i++) {
        const bb_gguf_kv *kv = bb_gguf_kv_at(g, i);
        char key[256];
        size_t len = kv->key.len < sizeof key - 1 ? kv->key.len : sizeof key - 1;
        memcpy(key, kv->key.ptr, len);
        key[len] = 0;
        bool whole = len == kv->key.len && !memchr(key, 0, len);
        if (whole && bb_gguf_find_kv(g, key) == NULL) {
            fprintf(stderr, "fuzz_gguf: key '%s' is listed but bb_gguf_find_kv does not find it\n", key);
            abort();
        }
        (void)bb_gguf_vtype_name(kv->type);
        int64_t iv;
        if (kv->type == BB_GGUF_ARRAY) walk_array(&kv->array, 1);
        else if (bb_gguf_read_int(kv->type, kv->value, &iv)) sink += (uint64_t)iv;
        char err[512];
        bb_gguf_str s;
        float f;
        if (bb_gguf_get_str(g, key, &s, err, sizeof err) == 0 && s.len) sink += (uint8_t)s.ptr[s.len - 1];
        if (bb_gguf_get_f32(g, key, &f, err, sizeof err) == 0) sink += f == f;
    }
}

static void walk_tensors(const bb_gguf *g)
{
    for (uint64_t i = 0; i < bb_gguf_tensor_count(g); i++) {
        const bb_gguf_tensor *t = bb_gguf_tensor_at(g, i);
        (void)bb_gguf_find_tensor(g, t->name);
        if (t->n_bytes) sink += ((const uint8_t *)t->data)[0] + ((const uint8_t *)t->data)[t->n_bytes - 1];
        uint64_t rows = t->n_elements / t->ne[0];
        if (t->ne[0] > MAX_ROW) continue;
        float *row = malloc((size_t)t->ne[0] * sizeof *row);
        if (!row) continue;
        char err[512];
        bb_gguf_decode_rows(g, t, 0, 1, row, err, sizeof err);
        bb_gguf_decode_rows(g, t, rows - 1, 1, row, err, sizeof err);
        free(row);
    }
}

static void tokenize(const bb_gguf *g)
{
    static const char text[] = "Hello world! 123 \xc3\xa9t\xc3\xa9 <s>\n\t  x";
    char err[512];
    bb_tokenizer *t = bb_tokenizer_from_gguf(g, err, sizeof err);
    if (!t) return;
    int ids[3 * sizeof text + 5];
    int n = bb_tokenizer_encode_ex(t, text, sizeof text - 1, true, true, ids, (int)(sizeof ids / sizeof *ids), err,
                                   sizeof err);
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= bb_tokenizer_vocab_size(t)) {
            fprintf(stderr, "fuzz_gguf: token %d of the encoding is id %d, outside the vocabulary of %d\n", i, ids[i],
                    bb_tokenizer_vocab_size(t));
            abort();
        }
        sink += strlen(bb_tokenizer_decode(t, i ? ids[i - 1] : -1, ids[i]));
    }
    bb_tokenizer_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_path(data, size);
    char err[512];
    bb_gguf *g = bb_gguf_open(path, err, sizeof err);
    if (!g) return 0;
    walk_metadata(g);
    walk_tensors(g);
    tokenize(g);
    bb_gguf_close(g);
    bb_gguf_model *m = bb_gguf_model_open(path, err, sizeof err);
    if (m) {
        (void)bb_gguf_model_dims(m);
        bb_gguf_model_close(m);
    }
    return 0;
}
