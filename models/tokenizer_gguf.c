/* A tokenizer from GGUF metadata (tokenizer.ggml.*), read as llama.cpp's llama_vocab::load
 * (src/llama-vocab.cpp) reads it: model, tokens, scores, token_type, merges, pre, the special
 * token ids and the add-BOS/EOS/space-prefix flags with their per-model defaults. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf.h"
#include "tokenizer_impl.h"

#define KEY(k) "tokenizer.ggml." k

/* An optional per-token array (scores, token_type): absent gives 0, else it must have n elements
 * of the right kind. */
static int per_token(const bb_gguf *g, const char *key, int want_type, uint64_t n, bb_gguf_array *a, char *err,
                     size_t errlen)
{
    int rc = bb_gguf_get_array(g, key, want_type, a, err, errlen);
    if (rc == BB_GGUF_MISSING) {
        a->count = 0;
        return 0;
    }
    if (rc) return -1;
    if (a->count != n) {
        snprintf(err, errlen, "%s: '%s' has %llu elements but tokenizer.ggml.tokens has %llu", bb_gguf_path(g), key,
                 (unsigned long long)a->count, (unsigned long long)n);
        return -1;
    }
    return 0;
}

/* A special token id key: absent keeps *id; present must name a token. */
static int special_id(const bb_gguf *g, const char *key, int n, int *id, char *err, size_t errlen)
{
    uint32_t v;
    int rc = bb_gguf_get_u32(g, key, &v, err, errlen);
    if (rc == BB_GGUF_MISSING) return 0;
    if (rc) return -1;
    if (v >= (uint32_t)n) {
        snprintf(err, errlen, "%s: '%s' = %u is not a token id (the vocabulary has %d tokens)", bb_gguf_path(g), key,
                 v, n);
        return -1;
    }
    *id = (int)v;
    return 0;
}

static int flag(const bb_gguf *g, const char *key, bool *value, char *err, size_t errlen)
{
    int rc = bb_gguf_get_bool(g, key, value, err, errlen);
    return rc == BB_GGUF_MISSING ? 0 : rc;
}

/* The kind and, for gpt2, the pre-tokenizer with llama.cpp's defaults for it. */
static int read_model(const bb_gguf *g, bb_tokenizer *t, char *err, size_t errlen)
{
    bb_gguf_str model, pre;
    if (bb_gguf_get_str(g, KEY("model"), &model, err, errlen)) return -1;
    if (model.len == 5 && !memcmp(model.ptr, "llama", 5)) {
        t->kind = BB_TOK_SPM;
        t->bos = 1, t->eos = 2, t->unk = 0;
        t->add_bos = t->add_space_prefix = true;
        return 0;
    }
    if (!(model.len == 4 && !memcmp(model.ptr, "gpt2", 4))) {
        snprintf(err, errlen, "%s: tokenizer.ggml.model is '%.*s'; supported: llama (SentencePiece), gpt2 (byte-level BPE)",
                 bb_gguf_path(g), (int)(model.len > 64 ? 64 : model.len), model.ptr);
        return -1;
    }
    t->kind = BB_TOK_BPE;
    t->bos = t->eos = 11;
    int rc = bb_gguf_get_str(g, KEY("pre"), &pre, err, errlen);
    int kind = rc ? -1 : bb_pretok_from_name(pre.ptr, pre.len);
    if (rc == BB_GGUF_BAD_TYPE) return -1;
    if (kind < 0) {
        snprintf(err, errlen, "%s: tokenizer.ggml.pre is %s%.*s%s; supported: %s", bb_gguf_path(g), rc ? "missing" : "'",
                 rc ? 0 : (int)(pre.len > 64 ? 64 : pre.len), rc ? "" : pre.ptr, rc ? "" : "'", bb_pretok_supported);
        return -1;
    }
    t->pre = (bb_pretok)kind;
    t->add_bos = t->ignore_merges = t->pre == BB_PRETOK_LLAMA3;
    return 0;
}

static int read_tokens(const bb_gguf *g, bb_tokenizer *t, const bb_gguf_array *tok, char *err, size_t errlen)
{
    bb_gguf_array sc, ty;
    if (per_token(g, KEY("scores"), BB_GGUF_FLOAT32, tok->count, &sc, err, errlen) ||
        per_token(g, KEY("token_type"), -1, tok->count, &ty, err, errlen))
        return -1;
    for (int i = 0; i < t->n_vocab; i++) {
        bb_gguf_str s = bb_gguf_array_str(tok, (uint64_t)i);
        t->text[i] = bb_tok_arena_copy(t, s.ptr, s.len);
        t->text_len[i] = (uint32_t)s.len;
        double score = 0;
        int64_t type = BB_TOKTYPE_NORMAL;
        /* a NaN score has no order: SentencePiece merges the highest-scoring pair first, and
         * llama.cpp's queue of pairs, compared with <, is then undefined; inf ties are as bad */
        if (sc.count && bb_gguf_array_float(&sc, (uint64_t)i, &score) && !isfinite(score)) {
            snprintf(err, errlen, "%s: tokenizer.ggml.scores[%d] = %g: a token's score must be a finite number",
                     bb_gguf_path(g), i, score);
            return -1;
        }
        if (ty.count && (!bb_gguf_array_int(&ty, (uint64_t)i, &type) || type < 0 || type > BB_TOKTYPE_BYTE)) {
            snprintf(err, errlen, "%s: tokenizer.ggml.token_type[%d] is not a token type (0..6)", bb_gguf_path(g), i);
            return -1;
        }
        t->score[i] = (float)score;
        t->type[i] = (uint8_t)type;
    }
    return 0;
}

/* SentencePiece pieces: U+2581 back to a space, byte tokens to their byte, unknown to U+2585,
 * user-defined as they are, control and unused to nothing (llama.cpp's token_to_piece). */
static void spm_pieces(bb_tokenizer *t)
{
    for (int i = 0; i < t->n_vocab; i++) {
        const char *s = t->text[i];
        size_t n = t->text_len[i], k = 0;
        char *p = t->arena + t->arena_used;
        int byte = bb_tok_parse_byte(s, n);
        if (t->type[i] == BB_TOKTYPE_NORMAL || t->type[i] == BB_TOKTYPE_UNDEFINED) {
            for (size_t j = 0; j < n; j++) {
                if (j + 2 < n && !memcmp(s + j, "\xE2\x96\x81", 3)) p[k++] = ' ', j += 2;
                else p[k++] = s[j];
            }
        } else if (t->type[i] == BB_TOKTYPE_BYTE && byte >= 0) {
            p[k++] = (char)byte;
        } else if (t->type[i] == BB_TOKTYPE_UNKNOWN) {
            memcpy(p, "\xE2\x96\x85", 3), k = 3;
        } else if (t->type[i] == BB_TOKTYPE_USER_DEFINED) {
            memcpy(p, s, n), k = n;
        }
        p[k] = 0;
        t->piece[i] = p;
        t->arena_used += k + 1;
    }
}

/* The ids llama.cpp ends generation at besides EOS, found by their text. */
static void find_eog(bb_tokenizer *t)
{
    static const char *const names[] = {"<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<|endoftext|>",
                                        "<|im_end|>", "<|end|>",    "<end_of_turn>"};
    if (t->eos >= 0) t->eog[t->n_eog++] = t->eos;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        int id = bb_tok_lookup(t, names[i], strlen(names[i]));
        if (id >= 0 && id != t->eos && t->n_eog < (int)(sizeof t->eog / sizeof *t->eog)) t->eog[t->n_eog++] = id;
    }
}

/* Merge rules: "left right", left not empty.  llama.cpp splits each at the first space after the
 * first byte; a rule without one (an empty string among them) becomes the pair ("", ""), which
 * never matches, and no list at all fails its load but an empty list does not (every text is
 * then left one byte-level character per token).  bitbench does the same: such a rule is kept
 * under its own text, which no "left right" key of two non-empty symbols equals, and an empty
 * list merges nothing.  Both are noted, since a converter that wrote them lost the merges. */
static int read_merges(const bb_gguf *g, bb_tokenizer *t, const bb_gguf_array *m)
{
    if (m->count > INT32_MAX || bb_strmap_init(&t->merges, (size_t)m->count)) return -1;
    uint64_t not_pairs = 0, first = 0;
    for (uint64_t i = 0; i < m->count; i++) {
        bb_gguf_str s = bb_gguf_array_str(m, i);
        const char *key = bb_tok_arena_copy(t, s.ptr, s.len);
        /* the first of duplicate rules keeps its rank, as llama.cpp's bpe_ranks.emplace does */
        if (bb_strmap_get(&t->merges, key, s.len) < 0) bb_strmap_put(&t->merges, key, s.len, (int)i);
        if (s.len < 2 || !memchr(s.ptr + 1, ' ', s.len - 1)) {
            if (!not_pairs) first = i;
            not_pairs++;
        }
    }
    char line[400];
    if (m->count == 0) {
        snprintf(line, sizeof line, "%s: tokenizer.ggml.merges has no entries: bitbench, as llama.cpp, encodes text "
                 "one byte-level character per token", bb_gguf_path(g));
        bb_tok_note(t, line);
    } else if (not_pairs) {
        char q[160];
        bb_gguf_str s = bb_gguf_array_str(m, first);
        bb_tok_quote(s.ptr, s.len, 40, q, sizeof q);
        snprintf(line, sizeof line, "%s: tokenizer.ggml.merges has %llu of %llu entries that are not 'left right' "
                 "pairs (the first: [%llu] = '%s'): bitbench, as llama.cpp, never applies them", bb_gguf_path(g),
                 (unsigned long long)not_pairs, (unsigned long long)m->count, (unsigned long long)first, q);
        bb_tok_note(t, line);
    }
    return 0;
}

/* A byte-level vocabulary has a token for each of the 256 byte characters, the start of every
 * merge.  Without one, a piece left with that character cannot be encoded and the byte is
 * dropped from the text: llama.cpp loads such a vocabulary and drops the byte the same way
 * (its BPE fallback looks up each byte alone and skips what it does not find), so bitbench
 * loads it too, with a note. */
static void check_byte_tokens(const bb_gguf *g, bb_tokenizer *t)
{
    int missing = 0, first = -1;
    for (int b = 0; b < 256; b++)
        if (bb_tok_lookup(t, t->byte_utf8[b], t->byte_utf8_len[b]) < 0) {
            if (!missing) first = b;
            missing++;
        }
    if (!missing) return;
    char line[400], q[16];
    bb_tok_quote(t->byte_utf8[first], t->byte_utf8_len[first], 4, q, sizeof q);
    snprintf(line, sizeof line, "%s: tokenizer.ggml.tokens lacks %d of the 256 byte-level tokens (the first: '%s' for "
             "byte 0x%02X): bitbench, as llama.cpp, drops such a byte from the text when no merge covers it",
             bb_gguf_path(g), missing, q, first);
    bb_tok_note(t, line);
}

static uint64_t strings_bytes(const bb_gguf_array *a)
{
    uint64_t b = 0;
    for (uint64_t i = 0; i < a->count; i++) b += bb_gguf_array_str(a, i).len + 1;
    return b;
}

bb_tokenizer *bb_tokenizer_from_gguf(const bb_gguf *g, char *err, size_t errlen)
{
    bb_tokenizer probe = {0};
    bb_gguf_array tok, merges = {0};
    if (read_model(g, &probe, err, errlen) || bb_gguf_get_array(g, KEY("tokens"), BB_GGUF_STRING, &tok, err, errlen))
        return NULL;
    if (tok.count == 0 || tok.count > INT32_MAX / 8) {
        snprintf(err, errlen, "%s: tokenizer.ggml.tokens has %llu entries; expected 1 .. %d", bb_gguf_path(g),
                 (unsigned long long)tok.count, INT32_MAX / 8);
        return NULL;
    }
    if (probe.kind == BB_TOK_BPE && bb_gguf_get_array(g, KEY("merges"), BB_GGUF_STRING, &merges, err, errlen))
        return NULL;
    /* texts, then pieces (never longer than the text but for U+2585), then merges */
    uint64_t arena = 2 * strings_bytes(&tok) + 4 * tok.count + strings_bytes(&merges) + 16;
    bb_tokenizer *t = arena <= SIZE_MAX ? bb_tok_alloc((int)tok.count, (size_t)arena) : NULL;
    if (!t) {
        snprintf(err, errlen, "%s: out of memory for a vocabulary of %llu tokens", bb_gguf_path(g),
                 (unsigned long long)tok.count);
        return NULL;
    }
    t->kind = probe.kind, t->pre = probe.pre;
    t->bos = probe.bos, t->eos = probe.eos, t->unk = probe.unk;
    t->add_bos = probe.add_bos, t->add_space_prefix = probe.add_space_prefix, t->ignore_merges = probe.ignore_merges;
    if (t->bos >= t->n_vocab) t->bos = -1;
    if (t->eos >= t->n_vocab) t->eos = -1;
    if (t->unk >= t->n_vocab) t->unk = -1;
    if (read_tokens(g, t, &tok, err, errlen) || special_id(g, KEY("bos_token_id"), t->n_vocab, &t->bos, err, errlen) ||
        special_id(g, KEY("eos_token_id"), t->n_vocab, &t->eos, err, errlen) ||
        special_id(g, KEY("unknown_token_id"), t->n_vocab, &t->unk, err, errlen) ||
        flag(g, KEY("add_bos_token"), &t->add_bos, err, errlen) ||
        flag(g, KEY("add_eos_token"), &t->add_eos, err, errlen) ||
        flag(g, KEY("add_space_prefix"), &t->add_space_prefix, err, errlen))
        goto fail;
    if (bb_tok_index(t)) {
        snprintf(err, errlen, "%s: out of memory indexing the vocabulary", bb_gguf_path(g));
        goto fail;
    }
    if (t->dup_second >= 0) {
        /* llama.cpp stops on this (GGML_ASSERT that there are as many texts as ids): one text
         * with two ids leaves one of them unreachable by encoding */
        char q[160];
        bb_tok_quote(t->text[t->dup_second], t->text_len[t->dup_second], 40, q, sizeof q);
        snprintf(err, errlen, "%s: tokenizer.ggml.tokens[%d] = '%s' repeats tokenizer.ggml.tokens[%d]; every token's "
                 "text must be unique", bb_gguf_path(g), t->dup_second, q, t->dup_first);
        goto fail;
    }
    if (t->kind == BB_TOK_BPE && read_merges(g, t, &merges)) {
        snprintf(err, errlen, "%s: out of memory indexing the merges", bb_gguf_path(g));
        goto fail;
    }
    if (t->kind == BB_TOK_BPE) {
        bb_bpe_byte_map(t);
        check_byte_tokens(g, t);
        if (bb_bpe_make_pieces(t)) {
            snprintf(err, errlen, "%s: the decoded tokens do not fit the space reserved for them", bb_gguf_path(g));
            goto fail;
        }
    } else {
        spm_pieces(t);
    }
    find_eog(t);
    return t;
fail:
    bb_tokenizer_free(t);
    return NULL;
}

bb_tokenizer *bb_tokenizer_open_gguf(const char *path, char *err, size_t errlen)
{
    bb_gguf *g = bb_gguf_open(path, err, errlen);
    if (!g) return NULL;
    bb_tokenizer *t = bb_tokenizer_from_gguf(g, err, errlen);
    bb_gguf_close(g);
    return t;
}
