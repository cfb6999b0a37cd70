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

/* Merge when the concatenation is a token, by its score. */
static bool spm_priority(bb_tok_merger *m, int left, int right, double *priority)
{
    const bb_tok_symbol *l = &m->sym[left], *r = &m->sym[right];
    int id = bb_tok_lookup(m->t, m->text + l->start, l->n + r->n);
    if (id < 0) return false;
    *priority = m->t->score[id];
    return true;
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

static void emit_symbol(const bb_tokenizer *t, const char *s, const bb_tok_symbol *y, int *out, int *count)
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
    bb_tok_symbol *sym = malloc(sizeof *sym * (n + 1));
    bb_tok_pair *heap = malloc(sizeof *heap * (3 * n + 1));
    if (!s || !sym || !heap) {
        free(s), free(sym), free(heap);
        snprintf(err, errlen, "out of memory encoding %zu bytes", len);
        return -1;
    }
    bb_tok_merger m = {.t = t, .text = s, .sym = sym, .heap = heap, .pair_priority = spm_priority};
    for (int i = bb_tok_merge(&m, n); i >= 0; i = sym[i].next) emit_symbol(t, s, &sym[i], out, count);
    free(heap);
    free(sym);
    free(s);
    return 0;
}
