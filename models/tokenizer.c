/* The tokenizer type (tokenizer_impl.h): what all sources share, llama2.c's file, encoding
 * with special tokens split out, decoding.  GGUF metadata: tokenizer_gguf.c; the encoders:
 * tokenizer_spm.c and tokenizer_bpe.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/input_file.h"
#include "support/term_text.h"
#include "tokenizer_impl.h"

bb_tokenizer *bb_tok_alloc(int n, size_t arena_bytes)
{
    bb_tokenizer *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->n_vocab = n;
    t->text = calloc((size_t)n, sizeof *t->text);
    t->text_len = calloc((size_t)n, sizeof *t->text_len);
    t->score = calloc((size_t)n, sizeof *t->score);
    t->type = calloc((size_t)n, 1);
    t->piece = calloc((size_t)n, sizeof *t->piece);
    t->arena = malloc(arena_bytes);
    t->arena_cap = arena_bytes;
    t->bos = t->eos = t->unk = -1;
    if (!t->text || !t->text_len || !t->score || !t->type || !t->piece || !t->arena) {
        bb_tokenizer_free(t);
        return NULL;
    }
    return t;
}

void bb_tokenizer_free(bb_tokenizer *t)
{
    if (!t) return;
    free(t->text);
    free(t->text_len);
    free(t->score);
    free(t->type);
    free(t->piece);
    free(t->arena);
    free(t->specials);
    bb_strmap_free(&t->vocab);
    bb_strmap_free(&t->merges);
    free(t);
}

char *bb_tok_arena_copy(bb_tokenizer *t, const char *s, size_t n)
{
    if (t->arena_cap - t->arena_used < n + 1) return NULL;
    char *p = t->arena + t->arena_used;
    if (n) memcpy(p, s, n);
    p[n] = 0;
    t->arena_used += n + 1;
    return p;
}

int bb_tok_parse_byte(const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    if (n != 6 || memcmp(s, "<0x", 3) != 0 || s[5] != '>') return -1;
    const char *hi = s[3] ? strchr(hex, s[3]) : NULL, *lo = s[4] ? strchr(hex, s[4]) : NULL;
    return hi && lo ? (int)((hi - hex) * 16 + (lo - hex)) : -1;
}

static int by_length_desc(const void *a, const void *b, void *ctx)
{
    const bb_tokenizer *t = ctx;
    uint32_t la = t->text_len[*(const int *)a], lb = t->text_len[*(const int *)b];
    return la != lb ? (la < lb ? 1 : -1) : *(const int *)a - *(const int *)b;
}

void bb_tok_quote(const char *s, size_t n, size_t max, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n && i < max && o + 8 < outlen; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7F || c == '\'' || c == '\\') o += (size_t)snprintf(out + o, outlen - o, "\\x%02X", c);
        else out[o++] = (char)c;
    }
    if (n > max && o + 4 < outlen) memcpy(out + o, "...", 3), o += 3;
    out[o < outlen ? o : outlen - 1] = 0;
}

void bb_tok_note(bb_tokenizer *t, const char *line)
{
    size_t used = strlen(t->notes);
    snprintf(t->notes + used, sizeof t->notes - used, "%s%s", used ? "\n" : "", line);
    /* the line holds a path and token texts from someone's file: shown for a terminal */
    fputs("note: ", stderr);
    bb_term_fputs(line, stderr);
    fputc('\n', stderr);
}

const char *bb_tokenizer_notes(const bb_tokenizer *t) { return t->notes; }

int bb_tok_index(bb_tokenizer *t)
{
    if (bb_strmap_init(&t->vocab, (size_t)t->n_vocab)) return -1;
    /* a repeated text keeps the later id in the map, as llama.cpp's token_to_id does just before
     * it stops on the repeat (GGML_ASSERT: as many texts as ids); the loaders refuse it */
    t->dup_first = t->dup_second = -1;
    for (int i = 0; i < t->n_vocab; i++) {
        if (!t->text_len[i]) continue;
        int before = bb_strmap_get(&t->vocab, t->text[i], t->text_len[i]);
        if (before >= 0 && t->dup_second < 0) t->dup_first = before, t->dup_second = i;
        bb_strmap_put(&t->vocab, t->text[i], t->text_len[i], i);
    }
    for (int b = 0; b < 256; b++) {
        char hex[8];
        snprintf(hex, sizeof hex, "<0x%02X>", b);
        int id = bb_tok_lookup(t, hex, 6);
        if (id < 0 && t->kind == BB_TOK_SPM) id = bb_tok_lookup(t, (const char *)&(unsigned char){(unsigned char)b}, 1);
        if (id < 0 && t->kind == BB_TOK_LLAMA2C && b + 3 < t->n_vocab) id = b + 3; /* run.c's convention */
        t->byte_token[b] = id;
    }
    t->specials = malloc(sizeof(int) * (size_t)t->n_vocab);
    if (!t->specials) return -1;
    for (int i = 0; i < t->n_vocab; i++) {
        int ty = t->type[i];
        if (t->text_len[i] && (ty == BB_TOKTYPE_CONTROL || ty == BB_TOKTYPE_UNKNOWN || ty == BB_TOKTYPE_USER_DEFINED))
            t->specials[t->n_specials++] = i;
    }
    qsort_r(t->specials, (size_t)t->n_specials, sizeof(int), by_length_desc, t);
    return 0;
}

/* ---- llama2.c's tokenizer file ---- */

/* The longest path a note quotes (notes share one 640-byte buffer). */
#define BB_TOK_NOTE_PATH 300

/* A llama2.c tokenizer file holds a score, a length and at most 4096 bytes per token, for at most
 * a few million tokens: a gibibyte is far beyond any real one, and bounds what a hostile file costs. */
#define BB_TOKENIZER_MAX_BYTES ((uint64_t)1 << 30)

static int parse_llama2c(bb_tokenizer *t, const char *path, const char *b, size_t len, char *err, size_t errlen)
{
    int32_t max_len;
    if (len < 4 || (memcpy(&max_len, b, 4), max_len <= 0 || max_len > 4096)) {
        snprintf(err, errlen, "%s: bad tokenizer header (max_token_length)", path);
        return -1;
    }
    size_t at = 4;
    for (int i = 0; i < t->n_vocab; i++) {
        int32_t tl;
        if (len - at < 8) {
            snprintf(err, errlen, "%s: truncated at token %d of %d (the model's vocab_size)", path, i, t->n_vocab);
            return -1;
        }
        memcpy(&t->score[i], b + at, 4);
        memcpy(&tl, b + at + 4, 4);
        at += 8;
        if (tl < 0 || tl > max_len) {
            snprintf(err, errlen, "%s: token %d has length %d (max_token_length is %d): corrupt file", path, i, tl, max_len);
            return -1;
        }
        if (len - at < (size_t)tl) {
            snprintf(err, errlen, "%s: truncated in token %d of %d", path, i, t->n_vocab);
            return -1;
        }
        t->text[i] = bb_tok_arena_copy(t, b + at, (size_t)tl);
        t->text_len[i] = (uint32_t)tl;
        at += (size_t)tl;
        int byte = bb_tok_parse_byte(t->text[i], (size_t)tl);
        t->type[i] = byte >= 0 ? BB_TOKTYPE_BYTE : BB_TOKTYPE_NORMAL;
        t->piece[i] = byte >= 0 ? bb_tok_arena_copy(t, (const char *)&(unsigned char){(unsigned char)byte}, 1) : t->text[i];
    }
    if (at < len) {
        /* run.c reads vocab_size tokens and no more; so does this, but says so: a tokenizer of
         * another model (more tokens than this checkpoint's classifier has rows) is no error
         * there, and would be no visible one here */
        size_t extra = 0, p = at;
        for (int32_t tl; len - p >= 8 && (memcpy(&tl, b + p + 4, 4), tl >= 0 && tl <= max_len) &&
                         len - p - 8 >= (size_t)tl;
             p += 8 + (size_t)tl)
            extra++;
        char line[BB_TOK_NOTE_PATH + 200];
        snprintf(line, sizeof line,
                 "%.*s: %zu byte%s after the model's %d tokens (%zu more token record%s%s) are not read, as "
                 "llama2.c's run.c does not read them",
                 BB_TOK_NOTE_PATH, path, len - at, len - at == 1 ? "" : "s", t->n_vocab, extra, extra == 1 ? "" : "s",
                 p < len ? ", then bytes that are none" : "");
        bb_tok_note(t, line);
    }
    return 0;
}

bb_tokenizer *bb_tokenizer_load(const char *path, int vocab_size, char *err, size_t errlen)
{
    char *buf;
    size_t len;
    /* run.c's ids 0, 1, 2 are <unk>, <s> (BOS, also where generation stops) and </s>: a smaller
     * vocabulary would have the encoder emit a BOS id past its end. */
    if (vocab_size < 3) {
        snprintf(err, errlen, "%s: vocab_size %d: a llama2.c tokenizer has at least 3 tokens (<unk>, <s>, </s>)",
                 path, vocab_size);
        return NULL;
    }
    if (!(buf = bb_input_read_all(path, "llama2.c tokenizer", BB_TOKENIZER_MAX_BYTES, &len, err, errlen))) return NULL;
    bb_tokenizer *t = bb_tok_alloc(vocab_size, len + 2 * (size_t)vocab_size + 16);
    if (!t) {
        snprintf(err, errlen, "%s: out of memory", path);
    } else {
        t->kind = BB_TOK_LLAMA2C;
        t->bos = 1;
        t->eos = 2;
        t->unk = 0;
        t->add_bos = t->add_space_prefix = true;
        t->eog[t->n_eog++] = 1; /* run.c stops when it samples BOS */
        int bad = parse_llama2c(t, path, buf, len, err, errlen);
        if (!bad && bb_tok_index(t)) {
            snprintf(err, errlen, "%s: out of memory", path);
            bad = 1;
        } else if (!bad && t->dup_second >= 0) {
            /* run.c's binary search over the sorted texts would find either id; llama.cpp, given
             * the GGUF that convert-llama2c-to-ggml makes of this file, stops on the repeat */
            char q[160];
            bb_tok_quote(t->text[t->dup_second], t->text_len[t->dup_second], 40, q, sizeof q);
            snprintf(err, errlen, "%s: token %d '%s' repeats token %d; every token's text must be unique", path,
                     t->dup_second, q, t->dup_first);
            bad = 1;
        }
        if (bad) {
            bb_tokenizer_free(t);
            t = NULL;
        }
    }
    free(buf);
    return t;
}

/* ---- encoding and decoding ---- */

/* The first special token in text[from, len) that this encoding splits out: its start in
 * *at and its id, or -1.  At one position the longest token wins (specials is sorted so). */
static int next_special(const bb_tokenizer *t, const char *text, size_t from, size_t len, bool parse_special,
                        size_t *at)
{
    int best = -1;
    size_t best_at = len;
    for (int k = 0; k < t->n_specials; k++) {
        int id = t->specials[k];
        if (t->type[id] != BB_TOKTYPE_USER_DEFINED && !parse_special) continue;
        size_t tl = t->text_len[id];
        if (tl > len - from) continue;
        /* only a start before the best so far counts: search [from, best_at - 1 + tl) */
        size_t end = best_at < len ? best_at - 1 + tl : len;
        if (end > len) end = len;
        if (end < from + tl) continue;
        const char *p = memmem(text + from, end - from, t->text[id], tl);
        if (p) {
            best_at = (size_t)(p - text);
            best = id;
        }
    }
    *at = best_at;
    return best;
}

static int encode_plain(const bb_tokenizer *t, const char *s, size_t n, bool after_special, int *out, int *count,
                        char *err, size_t errlen)
{
    if (t->kind == BB_TOK_BPE) return bb_bpe_encode(t, s, n, out, count, err, errlen);
    return bb_spm_encode(t, s, n, t->add_space_prefix && after_special, out, count, err, errlen);
}

int bb_tokenizer_encode_ex(const bb_tokenizer *t, const char *text, size_t len, bool add_special, bool parse_special,
                           int *out, int cap, char *err, size_t errlen)
{
    /* Room for the worst case (tokenizer_impl.h) in every run of text between special tokens,
     * BOS and EOS; cap is checked at the end. */
    int *tmp = malloc(sizeof(int) * (6 * len + 8));
    if (!tmp) {
        snprintf(err, errlen, "out of memory encoding %zu bytes", len);
        return -1;
    }
    int n = 0;
    if (add_special && t->add_bos && t->bos >= 0) tmp[n++] = t->bos;
    bool after_special = true; /* SentencePiece prefixes a space to text that starts a run */
    for (size_t pos = 0; pos < len;) {
        size_t at;
        int sp = next_special(t, text, pos, len, parse_special, &at);
        if (at > pos && encode_plain(t, text + pos, at - pos, after_special, tmp, &n, err, errlen)) {
            free(tmp);
            return -1;
        }
        after_special = false;
        if (sp < 0) break;
        tmp[n++] = sp;
        after_special = true;
        pos = at + t->text_len[sp];
    }
    if (add_special && t->add_eos && t->eos >= 0) tmp[n++] = t->eos;
    if (n > cap) {
        snprintf(err, errlen, "the text of %zu bytes is %d tokens, more than the %d allowed", len, n, cap);
        n = -1;
    } else {
        memcpy(out, tmp, sizeof(int) * (size_t)n);
    }
    free(tmp);
    return n;
}

int bb_tokenizer_encode(const bb_tokenizer *t, const char *text, int *out, int cap, char *err, size_t errlen)
{
    return bb_tokenizer_encode_ex(t, text, strlen(text), true, false, out, cap, err, errlen);
}

const char *bb_tokenizer_decode(const bb_tokenizer *t, int prev, int tok)
{
    if (tok < 0 || tok >= t->n_vocab) return "";
    const char *p = t->piece[tok];
    if (t->add_space_prefix && t->type[tok] == BB_TOKTYPE_NORMAL && p[0] == ' ' && (prev < 0 || prev == t->bos)) p++;
    return p;
}

int bb_tokenizer_vocab_size(const bb_tokenizer *t) { return t->n_vocab; }
int bb_tokenizer_bos(const bb_tokenizer *t) { return t->bos; }
int bb_tokenizer_eos(const bb_tokenizer *t) { return t->eos; }

bool bb_tokenizer_is_eog(const bb_tokenizer *t, int tok)
{
    for (int i = 0; i < t->n_eog; i++)
        if (t->eog[i] == tok) return true;
    return false;
}

const char *bb_tokenizer_describe(const bb_tokenizer *t)
{
    switch (t->kind) {
    case BB_TOK_LLAMA2C: return "llama2.c tokenizer";
    case BB_TOK_SPM: return "GGUF llama (SentencePiece-style)";
    case BB_TOK_BPE: return t->pre == BB_PRETOK_LLAMA3 ? "GGUF gpt2 (byte-level BPE, pre llama-bpe)"
                                                       : "GGUF gpt2 (byte-level BPE, pre gpt-2)";
    }
    return "?";
}
