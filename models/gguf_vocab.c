/* GGUF vocabularies (gguf_vocab.h). */
#include "gguf_vocab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/input_file.h"

static int alloc_vocab(int n, bb_gguf_vocab *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->tokens = calloc((size_t)n, sizeof *v->tokens);
    v->scores = calloc((size_t)n, sizeof *v->scores);
    v->types = calloc((size_t)n, sizeof *v->types);
    v->n = n;
    v->unk = 0;
    v->bos = 1;
    v->eos = 2;
    if (v->tokens && v->scores && v->types) return 0;
    bb_gguf_vocab_free(v);
    snprintf(err, errlen, "out of memory for a vocabulary of %d tokens", n);
    return -1;
}

void bb_gguf_vocab_free(bb_gguf_vocab *v)
{
    if (v->tokens)
        for (int i = 0; i < v->n; i++) free(v->tokens[i]);
    free(v->tokens);
    free(v->scores);
    free(v->types);
    memset(v, 0, sizeof *v);
}

static int set_token(bb_gguf_vocab *v, int id, const char *text, int type, char *err, size_t errlen)
{
    if (!(v->tokens[id] = strdup(text))) {
        snprintf(err, errlen, "out of memory for token %d", id);
        return -1;
    }
    v->types[id] = type;
    return 0;
}

int bb_gguf_vocab_byte_level(int n, bb_gguf_vocab *v, char *err, size_t errlen)
{
    if (n < BB_GGUF_BYTE_VOCAB_MIN) {
        snprintf(err, errlen, "a byte-level vocabulary needs at least %d tokens (<unk>, <s>, </s> and 256 bytes); "
                 "the model has %d", BB_GGUF_BYTE_VOCAB_MIN, n);
        return -1;
    }
    if (alloc_vocab(n, v, err, errlen)) return -1;
    char text[32];
    int rc = set_token(v, 0, "<unk>", BB_GGUF_TOKEN_UNKNOWN, err, errlen) ||
             set_token(v, 1, "<s>", BB_GGUF_TOKEN_CONTROL, err, errlen) ||
             set_token(v, 2, "</s>", BB_GGUF_TOKEN_CONTROL, err, errlen);
    for (int b = 0; b < 256 && !rc; b++) {
        snprintf(text, sizeof text, "<0x%02X>", b);
        rc = set_token(v, 3 + b, text, BB_GGUF_TOKEN_BYTE, err, errlen);
    }
    for (int i = BB_GGUF_BYTE_VOCAB_MIN; i < n && !rc; i++) {
        snprintf(text, sizeof text, "<unused%d>", i - BB_GGUF_BYTE_VOCAB_MIN);
        rc = set_token(v, i, text, BB_GGUF_TOKEN_NORMAL, err, errlen);
    }
    if (rc) bb_gguf_vocab_free(v);
    return rc;
}

/* A llama2.c token's GGUF text and type (convert-llama2c-to-ggml's rules). */
static int convert_token(bb_gguf_vocab *v, int id, const char *raw, size_t len, char *err, size_t errlen)
{
    unsigned byte;
    char tail;
    if (id == 0) return set_token(v, id, "<unk>", BB_GGUF_TOKEN_UNKNOWN, err, errlen);
    if (id == 1) return set_token(v, id, "<s>", BB_GGUF_TOKEN_CONTROL, err, errlen);
    if (id == 2) return set_token(v, id, "</s>", BB_GGUF_TOKEN_CONTROL, err, errlen);
    char *text = malloc(3 * len + 1), *o = text;
    if (!text) {
        snprintf(err, errlen, "out of memory for token %d", id);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        if (raw[i] == ' ') o += sprintf(o, "\xe2\x96\x81");
        else *o++ = raw[i];
    }
    *o = 0;
    int type = BB_GGUF_TOKEN_NORMAL;
    if (!len) type = BB_GGUF_TOKEN_CONTROL;
    else if (len == 6 && sscanf(text, "<0x%2X%c", &byte, &tail) == 2 && tail == '>') type = BB_GGUF_TOKEN_BYTE;
    v->tokens[id] = text;
    v->types[id] = type;
    return 0;
}

static int read_tokens(FILE *f, const char *path, int n, bb_gguf_vocab *v, char *err, size_t errlen)
{
    int32_t max_len, len;
    if (fread(&max_len, sizeof max_len, 1, f) != 1 || max_len < 1 || max_len > (1 << 16)) {
        snprintf(err, errlen, "%s: not a llama2.c tokenizer (bad max_token_length header)", path);
        return -1;
    }
    char *raw = malloc((size_t)max_len + 1);
    if (!raw) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (fread(&v->scores[i], sizeof(float), 1, f) != 1 || fread(&len, sizeof len, 1, f) != 1) {
            snprintf(err, errlen, "%s: holds %d tokens, the model needs %d", path, i, n);
            rc = -1;
        } else if (len < 0 || len > max_len || fread(raw, 1, (size_t)len, f) != (size_t)len) {
            snprintf(err, errlen, "%s: token %d: length %d is beyond max_token_length %d or the file's end", path, i, len,
                     max_len);
            rc = -1;
        } else {
            rc = convert_token(v, i, raw, (size_t)len, err, errlen);
        }
    }
    free(raw);
    return rc;
}

int bb_gguf_vocab_from_llama2c(const char *path, int n, bb_gguf_vocab *v, char *err, size_t errlen)
{
    /* No size bound: the reader checks every length it reads against max_len and stops at EOF. */
    FILE *f = bb_input_open(path, "llama2.c tokenizer", BB_INPUT_ANY_SIZE, NULL, err, errlen);
    if (!f) return -1;
    int rc = n < 3 ? (snprintf(err, errlen, "%s: a vocabulary of %d tokens has no <unk>, <s>, </s>", path, n), -1)
                   : alloc_vocab(n, v, err, errlen);
    if (!rc && (rc = read_tokens(f, path, n, v, err, errlen))) bb_gguf_vocab_free(v);
    fclose(f);
    return rc;
}

int bb_gguf_vocab_write(bb_gguf_writer *w, const bb_gguf_vocab *v)
{
    return bb_gguf_set_str(w, "tokenizer.ggml.model", "llama") ||
                   bb_gguf_set_str_array(w, "tokenizer.ggml.tokens", (const char *const *)v->tokens, (uint64_t)v->n) ||
                   bb_gguf_set_array(w, "tokenizer.ggml.scores", BB_GGUF_FLOAT32, v->scores, (uint64_t)v->n) ||
                   bb_gguf_set_array(w, "tokenizer.ggml.token_type", BB_GGUF_INT32, v->types, (uint64_t)v->n) ||
                   bb_gguf_set_u32(w, "tokenizer.ggml.bos_token_id", (uint32_t)v->bos) ||
                   bb_gguf_set_u32(w, "tokenizer.ggml.eos_token_id", (uint32_t)v->eos) ||
                   bb_gguf_set_u32(w, "tokenizer.ggml.unknown_token_id", (uint32_t)v->unk)
               ? -1
               : 0;
}
