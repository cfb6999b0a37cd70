#include "bpe_pretok.h"

#include <stdlib.h>
#include <string.h>

#include "unicode.h"

enum { L = BB_CP_LETTER, N = BB_CP_NUMBER, S = BB_CP_SPACE };

/* The values llama.cpp (src/llama-vocab.cpp) maps to each pattern. */
static const char *const gpt2_names[] = {"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de"};
static const char *const llama3_names[] = {"llama-bpe", "llama3", "llama-v3", "falcon3"};
const char bb_pretok_supported[] = "gpt-2 (also phi-2, jina-es, jina-de, gigachat, jina-v2-es, jina-v2-de), "
                                   "llama-bpe (also llama3, llama-v3, falcon3)";

static int name_in(const char *const *names, size_t count, const char *name, size_t len)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0) return 1;
    return 0;
}

int bb_pretok_from_name(const char *name, size_t len)
{
    if (name_in(gpt2_names, sizeof gpt2_names / sizeof *gpt2_names, name, len)) return BB_PRETOK_GPT2;
    if (name_in(llama3_names, sizeof llama3_names / sizeof *llama3_names, name, len)) return BB_PRETOK_LLAMA3;
    return -1;
}

typedef struct {
    const uint32_t *cp;
    const uint8_t *cl; /* class bits of each code point */
    size_t n;
} text_view;

static unsigned cls(const text_view *t, size_t i) { return i < t->n ? t->cl[i] : 0; }
static int is_newline(uint32_t c) { return c == '\r' || c == '\n'; }
static uint32_t ascii_lower(uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* 's 't 're 've 'm 'll 'd at i: the end of the match, or 0.  fold: case-insensitive. */
static size_t contraction(const text_view *t, size_t i, int fold)
{
    if (t->cp[i] != '\'' || i + 1 >= t->n) return 0;
    uint32_t a = t->cp[i + 1], b = i + 2 < t->n ? t->cp[i + 2] : 0;
    if (fold) a = ascii_lower(a), b = ascii_lower(b);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
    return 0;
}

static size_t run_of(const text_view *t, size_t j, unsigned want)
{
    while (j < t->n && (t->cl[j] & want)) j++;
    return j;
}

static size_t run_of_other(const text_view *t, size_t j) /* [^\s\p{L}\p{N}]+ */
{
    while (j < t->n && !(t->cl[j] & (L | N | S))) j++;
    return j;
}

/* \s+(?!\S)|\s+ at i (a whitespace code point): the whole run at the end of the text, else the
 * run less its last code point (which then starts the next piece), else one code point. */
static size_t space_run(const text_view *t, size_t i)
{
    size_t e = run_of(t, i, S);
    if (e < t->n && e - i > 1) return e - 1;
    return e;
}

static size_t match_gpt2(const text_view *t, size_t i)
{
    size_t e = contraction(t, i, 0);
    if (e) return e;
    size_t j = i + (t->cp[i] == ' ' && i + 1 < t->n); /* the optional leading space */
    unsigned c = cls(t, j);
    if (c & L) return run_of(t, j, L);
    if (c & N) return run_of(t, j, N);
    if (!(c & S)) return run_of_other(t, j);
    return space_run(t, i);
}

static size_t match_llama3(const text_view *t, size_t i)
{
    size_t e = contraction(t, i, 1);
    if (e) return e;
    unsigned c = t->cl[i];
    if (c & L) return run_of(t, i, L);
    if (!(c & (L | N)) && !is_newline(t->cp[i]) && (cls(t, i + 1) & L)) return run_of(t, i + 1, L);
    if (c & N) {
        size_t j = i;
        while (j < t->n && j - i < 3 && (t->cl[j] & N)) j++;
        return j;
    }
    size_t j = i + (t->cp[i] == ' ' && i + 1 < t->n);
    if (!(cls(t, j) & (L | N | S))) {
        j = run_of_other(t, j);
        while (j < t->n && is_newline(t->cp[j])) j++;
        return j;
    }
    /* \s*[\r\n]+ : up to the last newline of the whitespace run */
    size_t last_nl = 0, k = i;
    for (; k < t->n && (t->cl[k] & S); k++)
        if (is_newline(t->cp[k])) last_nl = k + 1;
    if (last_nl) return last_nl;
    return space_run(t, i);
}

long bb_pretok_split(bb_pretok pre, const uint32_t *cps, size_t n, size_t *ends)
{
    uint8_t *cl = malloc(n ? n : 1);
    if (!cl) return -1;
    for (size_t i = 0; i < n; i++) cl[i] = (uint8_t)bb_unicode_class(cps[i]);
    text_view t = {cps, cl, n};
    long count = 0;
    for (size_t i = 0; i < n;) {
        size_t e = pre == BB_PRETOK_LLAMA3 ? match_llama3(&t, i) : match_gpt2(&t, i);
        if (e <= i) e = i + 1; /* every code point falls in some alternative; never stall */
        ends[count++] = e;
        i = e;
    }
    free(cl);
    return count;
}
