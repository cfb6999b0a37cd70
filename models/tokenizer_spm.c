/* SentencePiece-style encoding (llama.cpp's llm_tokenizer_spm; llama2.c's run.c does the same
 * with a quadratic loop): the text, spaces written as the vocabulary writes them ("▁" U+2581
 * in GGUF, " " in llama2.c files) and optionally led by one, is split into UTF-8 characters;
 * then, repeatedly, the adjacent pair whose concatenation is a token with the highest score
 * (the leftmost on a tie) is merged.  A final symbol that is no token becomes its bytes'
 * <0xHH> tokens (byte fallback), or the unknown token if the vocabulary has no such byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer_impl.h"
#include "unicode.h"

typedef struct {
    size_t start;
    size_t n; /* 0 once merged into its left neighbour */
    int prev, next;
} symbol;

typedef struct {
    float score;
    int left, right;
    size_t size; /* bytes of the pair when queued: a changed symbol makes the entry stale */
} bigram;

/* Max-heap order: higher score first, then the leftmost pair. */
static int before(const bigram *a, const bigram *b)
{
    return a->score > b->score || (a->score == b->score && a->left < b->left);
}

static void heap_push(bigram *h, int *n, bigram b)
{
    int i = (*n)++;
    while (i > 0 && before(&b, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = b;
}

static bigram heap_pop(bigram *h, int *n)
{
    bigram top = h[0], last = h[--(*n)];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && before(&h[c + 1], &h[c])) c++;
        if (!before(&h[c], &last)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

typedef struct {
    const bb_tokenizer *t;
    const char *s;
    symbol *sym;
    bigram *heap;
    int n_heap;
} session;

static void try_pair(session *w, int left, int right)
{
    if (left < 0 || right < 0) return;
    size_t size = w->sym[left].n + w->sym[right].n;
    int id = bb_tok_lookup(w->t, w->s + w->sym[left].start, size);
    if (id < 0) return;
    heap_push(w->heap, &w->n_heap, (bigram){w->t->score[id], left, right, size});
}

/* text with spaces replaced and the optional leading space; *n its length. */
static char *escape_spaces(const bb_tokenizer *t, const char *text, size_t len, bool space_prefix, size_t *n)
{
    const char *space = t->kind == BB_TOK_SPM ? "\xE2\x96\x81" : " ";
    size_t sl = strlen(space), spaces = space_prefix;
    for (size_t i = 0; i < len; i++) spaces += text[i] == ' ';
    char *s = malloc(len + spaces * (sl - 1) + sl + 1);
    if (!s) return NULL;
    size_t k = 0;
    if (space_prefix) memcpy(s + k, space, sl), k += sl;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == ' ') memcpy(s + k, space, sl), k += sl;
        else s[k++] = text[i];
    }
    *n = k;
    return s;
}

static void emit_symbol(const bb_tokenizer *t, const char *s, const symbol *y, int *out, int *count)
{
    int id = bb_tok_lookup(t, s + y->start, y->n);
    if (id >= 0) {
        out[(*count)++] = id;
        return;
    }
    for (size_t i = 0; i < y->n; i++) {
        int b = t->byte_token[(unsigned char)s[y->start + i]];
        out[(*count)++] = b >= 0 ? b : t->unk;
    }
}

int bb_spm_encode(const bb_tokenizer *t, const char *text, size_t len, bool space_prefix, int *out, int *count,
                  char *err, size_t errlen)
{
    size_t n = 0;
    char *s = escape_spaces(t, text, len, space_prefix, &n);
    symbol *sym = malloc(sizeof *sym * (n + 1));
    bigram *heap = malloc(sizeof *heap * (3 * n + 1));
    if (!s || !sym || !heap) {
        free(s), free(sym), free(heap);
        snprintf(err, errlen, "out of memory encoding %zu bytes", len);
        return -1;
    }
    session w = {t, s, sym, heap, 0};
    int ns = 0;
    for (size_t at = 0; at < n; ns++) {
        size_t cl = (size_t)bb_utf8_len((unsigned char)s[at]);
        if (cl > n - at) cl = n - at;
        sym[ns] = (symbol){at, cl, ns - 1, at + cl < n ? ns + 1 : -1};
        at += cl;
    }
    for (int i = 1; i < ns; i++) try_pair(&w, i - 1, i);
    while (w.n_heap) {
        bigram b = heap_pop(heap, &w.n_heap);
        symbol *l = &sym[b.left], *r = &sym[b.right];
        if (l->n == 0 || r->n == 0 || l->n + r->n != b.size) continue;
        l->n += r->n;
        r->n = 0;
        l->next = r->next;
        if (r->next >= 0) sym[r->next].prev = b.left;
        try_pair(&w, l->prev, b.left);
        try_pair(&w, b.left, l->next);
    }
    for (int i = ns ? 0 : -1; i >= 0; i = sym[i].next) emit_symbol(t, s, &sym[i], out, count);
    free(heap);
    free(sym);
    free(s);
    return 0;
}
