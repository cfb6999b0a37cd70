/* Byte-level BPE (GPT-2; llama.cpp's llm_tokenizer_bpe): the text is cut by the pre-tokenizer
 * (bpe_pretok.h); each piece's bytes are written as printable characters (GPT-2's
 * bytes_to_unicode: the bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF stand for themselves, the
 * other 68 become U+0100, U+0101, ... in byte order); then, repeatedly, the adjacent pair of
 * lowest rank in the merges list (the leftmost on a tie) is merged.  With ignore_merges (the
 * llama-bpe pre-tokenizer) a whole piece that is a token is taken as it is.  Text that is not
 * valid UTF-8 is read as U+FFFD per bad byte, as llama.cpp does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer_impl.h"
#include "unicode.h"

static int printable(int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); }

static uint32_t byte_to_cp(int b)
{
    if (printable(b)) return (uint32_t)b;
    int k = 0; /* rank of b among the bytes that do not stand for themselves */
    for (int c = 0; c < b; c++) k += !printable(c);
    return 0x100u + (uint32_t)k;
}

void bb_bpe_byte_map(bb_tokenizer *t)
{
    for (int b = 0; b < 256; b++) t->byte_utf8_len[b] = (uint8_t)bb_utf8_encode(byte_to_cp(b), t->byte_utf8[b]);
}

/* What each token prints: normal tokens' characters back to bytes, user-defined tokens as
 * they are, others (control, unused, byte) nothing, as llama.cpp's token_to_piece does
 * without special rendering.  A character outside the map is copied as it is. */
int bb_bpe_make_pieces(bb_tokenizer *t)
{
    int16_t byte_of[0x200]; /* character (all below U+0200) -> byte, -1 if none */
    memset(byte_of, 0xFF, sizeof byte_of);
    for (int b = 0; b < 256; b++) byte_of[byte_to_cp(b)] = (int16_t)b;
    for (int i = 0; i < t->n_vocab; i++) {
        const char *s = t->text[i];
        size_t n = t->text_len[i], k = 0;
        char *p = t->arena + t->arena_used;
        if (t->arena_cap - t->arena_used < n + 1) return -1;
        if (t->type[i] == BB_TOKTYPE_USER_DEFINED) {
            memcpy(p, s, n);
            k = n;
        } else if (t->type[i] == BB_TOKTYPE_NORMAL || t->type[i] == BB_TOKTYPE_UNDEFINED) {
            for (size_t j = 0; j < n;) {
                int cl;
                uint32_t cp = bb_utf8_decode((const unsigned char *)s + j, n - j, &cl);
                if (cp < 0x200 && byte_of[cp] >= 0) p[k++] = (char)byte_of[cp];
                else memcpy(p + k, s + j, (size_t)cl), k += (size_t)cl;
                j += (size_t)cl;
            }
        }
        p[k] = 0;
        t->piece[i] = p;
        t->arena_used += k + 1;
    }
    return 0;
}

/* Work space for one piece, grown as needed across the pieces of a text. */
typedef struct {
    char *word, *key;
    bb_tok_symbol *sym;
    bb_tok_pair *heap;
    size_t cap; /* bytes of word */
} session;

static int session_reserve(session *w, size_t bytes)
{
    if (bytes <= w->cap) return 0;
    size_t cap = bytes * 2;
    char *word = realloc(w->word, cap), *key = word ? realloc(w->key, 2 * cap + 1) : NULL;
    if (word) w->word = word;
    if (key) w->key = key;
    bb_tok_symbol *sym = key ? realloc(w->sym, sizeof *sym * cap) : NULL;
    if (sym) w->sym = sym;
    bb_tok_pair *heap = sym ? realloc(w->heap, sizeof *heap * (3 * cap + 1)) : NULL;
    if (!heap) return -1;
    w->heap = heap;
    w->cap = cap;
    return 0;
}

/* Merge when "left right" is a rule, lower ranks first. */
static bool bpe_priority(bb_tok_merger *m, int left, int right, double *priority)
{
    const bb_tok_symbol *l = &m->sym[left], *r = &m->sym[right];
    memcpy(m->key, m->text + l->start, l->n);
    m->key[l->n] = ' ';
    memcpy(m->key + l->n + 1, m->text + r->start, r->n);
    int rank = bb_strmap_get(&m->t->merges, m->key, l->n + 1 + r->n);
    *priority = -(double)rank;
    return rank >= 0;
}

/* Merges the byte-level characters of w->word[0, n) and appends the tokens. */
static void merge_word(const bb_tokenizer *t, session *w, size_t n, int *out, int *count)
{
    int id = t->ignore_merges ? bb_tok_lookup(t, w->word, n) : -1;
    if (id >= 0) {
        out[(*count)++] = id;
        return;
    }
    bb_tok_merger m = {.t = t, .text = w->word, .sym = w->sym, .heap = w->heap, .key = w->key,
                       .pair_priority = bpe_priority};
    const bb_tok_symbol *sym = w->sym;
    for (int i = bb_tok_merge(&m, n); i >= 0; i = sym[i].next) {
        id = bb_tok_lookup(t, w->word + sym[i].start, sym[i].n);
        if (id >= 0) {
            out[(*count)++] = id;
            continue;
        }
        /* llama.cpp's fallback: each byte that is a token by itself; others are dropped (a
         * byte-level vocabulary has every character, so this does not happen there). */
        for (size_t j = 0; j < sym[i].n; j++)
            if ((id = bb_tok_lookup(t, w->word + sym[i].start + j, 1)) >= 0) out[(*count)++] = id;
    }
}

int bb_bpe_encode(const bb_tokenizer *t, const char *text, size_t len, int *out, int *count, char *err, size_t errlen)
{
    uint32_t *cps = malloc(sizeof *cps * (len + 1));
    size_t *ends = malloc(sizeof *ends * (len + 1)), ncp = 0;
    session w = {0};
    int rc = -1;
    if (!cps || !ends) goto done;
    for (size_t i = 0; i < len;) {
        int cl;
        cps[ncp++] = bb_utf8_decode((const unsigned char *)text + i, len - i, &cl);
        i += (size_t)cl;
    }
    long pieces = bb_pretok_split(t->pre, cps, ncp, ends);
    if (pieces < 0) goto done;
    for (long k = 0, start = 0; k < pieces; start = (long)ends[k++]) {
        /* a code point is at most 4 bytes, each at most 2 as a byte-level character */
        if (session_reserve(&w, 8 * (ends[k] - (size_t)start))) goto done;
        size_t n = 0;
        for (size_t i = (size_t)start; i < ends[k]; i++) {
            char u[4];
            int ul = bb_utf8_encode(cps[i], u);
            for (int j = 0; j < ul; j++) {
                unsigned char b = (unsigned char)u[j];
                memcpy(w.word + n, t->byte_utf8[b], t->byte_utf8_len[b]);
                n += t->byte_utf8_len[b];
            }
        }
        merge_word(t, &w, n, out, count);
    }
    rc = 0;
done:
    if (rc) snprintf(err, errlen, "out of memory encoding %zu bytes", len);
    free(cps);
    free(ends);
    free(w.word);
    free(w.key);
    free(w.sym);
    free(w.heap);
    return rc;
}
