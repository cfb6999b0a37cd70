#include "tokenizer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bb_tokenizer {
    int vocab_size, max_len;
    char **vocab;
    float *scores;
    int *sorted; /* token ids sorted by string, for lookups */
    unsigned char byte_pieces[512];
};

static const bb_tokenizer *sort_ctx;
static int cmp_ids(const void *a, const void *b)
{
    return strcmp(sort_ctx->vocab[*(const int *)a], sort_ctx->vocab[*(const int *)b]);
}

void bb_tokenizer_free(bb_tokenizer *t)
{
    if (!t) return;
    if (t->vocab)
        for (int i = 0; i < t->vocab_size; i++) free(t->vocab[i]);
    free(t->vocab);
    free(t->scores);
    free(t->sorted);
    free(t);
}

bb_tokenizer *bb_tokenizer_load(const char *path, int vocab_size, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open tokenizer", path);
        return NULL;
    }
    bb_tokenizer *t = calloc(1, sizeof *t);
    if (!t) goto oom;
    t->vocab_size = vocab_size;
    t->vocab = calloc((size_t)vocab_size, sizeof *t->vocab);
    t->scores = malloc(sizeof(float) * (size_t)vocab_size);
    t->sorted = malloc(sizeof(int) * (size_t)vocab_size);
    if (!t->vocab || !t->scores || !t->sorted) goto oom;
    if (fread(&t->max_len, sizeof(int), 1, f) != 1 || t->max_len <= 0 || t->max_len > 4096) {
        snprintf(err, errlen, "%s: bad tokenizer header (max_token_length)", path);
        goto fail;
    }
    for (int i = 0; i < vocab_size; i++) {
        int32_t len;
        if (fread(&t->scores[i], sizeof(float), 1, f) != 1 || fread(&len, sizeof len, 1, f) != 1) {
            snprintf(err, errlen, "%s: truncated at token %d of %d (the model's vocab_size)", path, i, vocab_size);
            goto fail;
        }
        if (len < 0 || len > t->max_len) {
            snprintf(err, errlen, "%s: token %d has length %d (max_token_length is %d): corrupt file", path, i, len, t->max_len);
            goto fail;
        }
        if (!(t->vocab[i] = malloc((size_t)len + 1))) goto oom;
        if (fread(t->vocab[i], 1, (size_t)len, f) != (size_t)len) {
            snprintf(err, errlen, "%s: truncated in token %d of %d", path, i, vocab_size);
            goto fail;
        }
        t->vocab[i][len] = 0;
        t->sorted[i] = i;
    }
    fclose(f);
    for (int i = 0; i < 256; i++) {
        t->byte_pieces[i * 2] = (unsigned char)i;
        t->byte_pieces[i * 2 + 1] = 0;
    }
    sort_ctx = t;
    qsort(t->sorted, (size_t)vocab_size, sizeof(int), cmp_ids);
    return t;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
fail:
    fclose(f);
    bb_tokenizer_free(t);
    return NULL;
}

static int lookup(const bb_tokenizer *t, const char *s)
{
    int lo = 0, hi = t->vocab_size - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = strcmp(s, t->vocab[t->sorted[mid]]);
        if (c == 0) return t->sorted[mid];
        if (c < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return -1;
}

int bb_tokenizer_encode(const bb_tokenizer *t, const char *text, int *out, int cap, char *err, size_t errlen)
{
    size_t tl = strlen(text);
    if (cap < (int)tl + 3) {
        snprintf(err, errlen, "prompt of %zu bytes does not fit in %d tokens", tl, cap);
        return -1;
    }
    char *buf = malloc((size_t)t->max_len * 2 + 3);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int n = 0;
    out[n++] = 1; /* BOS */
    if (text[0]) {
        int sp = lookup(t, " ");
        if (sp >= 0) out[n++] = sp;
    }
    size_t len = 0;
    for (const char *c = text; *c; c++) {
        /* collect one UTF-8 code point: a lead byte and its continuation bytes (up to 4) */
        if ((*c & 0xC0) != 0x80) len = 0;
        buf[len++] = *c;
        buf[len] = 0;
        if ((c[1] & 0xC0) == 0x80 && len < 4) continue;
        int id = lookup(t, buf);
        if (id >= 0) out[n++] = id;
        else
            for (size_t i = 0; i < len; i++) out[n++] = (unsigned char)buf[i] + 3;
        len = 0;
    }
    for (;;) {
        float best = -1e10f;
        int best_id = -1, best_i = -1;
        for (int i = 0; i + 1 < n; i++) {
            snprintf(buf, (size_t)t->max_len * 2 + 3, "%s%s", t->vocab[out[i]], t->vocab[out[i + 1]]);
            int id = lookup(t, buf);
            if (id >= 0 && t->scores[id] > best) {
                best = t->scores[id];
                best_id = id;
                best_i = i;
            }
        }
        if (best_i < 0) break;
        out[best_i] = best_id;
        memmove(out + best_i + 1, out + best_i + 2, sizeof(int) * (size_t)(n - best_i - 2));
        n--;
    }
    free(buf);
    return n;
}

const char *bb_tokenizer_decode(const bb_tokenizer *t, int prev, int tok)
{
    if (tok < 0 || tok >= t->vocab_size) return "";
    const char *piece = t->vocab[tok];
    if (prev == 1 && piece[0] == ' ') piece++;
    unsigned int byte;
    if (sscanf(piece, "<0x%02X>", &byte) == 1 && strlen(piece) == 6) piece = (const char *)t->byte_pieces + byte * 2;
    return piece;
}
