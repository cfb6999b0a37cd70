/* Well-formed model files that lie (issue 29, item 7): every byte reads, but the metadata
 * disagrees with itself or with the tensors.  Small GGUF models and vocabularies are written here
 * with the GGUF writer, one lie each:
 *   - a RoPE base (ARCH.rope.freq_base) that is infinite, NaN, zero or negative, and the same
 *     values reaching the engine from any source (bb_tf_dims_check; llama2.c files leave it 0,
 *     the default 10000): refused;
 *   - RoPE scaling (ARCH.rope.scaling.factor / scale_linear other than 0 or 1, scaling.type
 *     other than none, a rope_freqs.weight tensor), which bitbench does not implement, and a
 *     norm epsilon that is NaN or negative: refused;
 *   - a token score that is NaN or infinite, a BOS/EOS id past the vocabulary: refused;
 *   - block_count larger than the blocks present, or tensors for blocks past it: refused (as
 *     llama.cpp does: "missing tensor" / "wrong number of tensors");
 *   - a token list shorter or longer than the embedding's rows: refused (llama.cpp sizes
 *     token_embd from the token list: "wrong shape");
 *   - a token text twice, in GGUF and in a llama2.c tokenizer: refused (llama.cpp stops on a
 *     GGML_ASSERT), the text quoted without breaking the line;
 *   - a byte-level (gpt2) vocabulary without one of its 256 byte tokens, merges with no entries
 *     or with entries that are not pairs: loaded as llama.cpp loads them, with one note each on
 *     stderr saying what bitbench does (and it does that: the byte is dropped, nothing merges).
 * Every refusal is one line naming the file and the key or tensor; the real GGUF files of
 * $BITBENCH_SHARED_DIR/golden/gguf still load, with no notes.
 * With a directory argument the hostile files are kept there (the fuzz regressions in
 * tests/fuzz/regressions/gguf/ were made so). */
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "llama2c_files.h"
#include "models/gguf_source.h"
#include "models/gguf_types.h"
#include "models/gguf_write.h"
#include "models/tokenizer.h"
#include "models/transformer.h"

enum { DIM = 8, HIDDEN = 16, HEADS = 2, CTX = 16 };

static char dir[512], shared[1024];
static bool keep;

/* One file's lies; spec_default() is a valid llama model with a SentencePiece-style vocabulary. */
typedef struct {
    const char *name;
    bool rope_set;
    float rope;
    int block_count, blocks_present;
    int rows;             /* token_embd's rows */
    const char *tok_model; /* "llama", "gpt2" */
    int n_tokens;
    int dup_at;           /* tokens[dup_at] repeats tokens[dup_at - 1]; 0: none */
    const char *dup_text; /* the repeated text (NULL: tokens[dup_at - 1] as it is) */
    int drop_byte;        /* gpt2: this byte's character is not a token; -1: none */
    int merges;           /* gpt2: 0 no entries, 1 "h e", 2 "h e" and "" */
    const char *f32_key;  /* one more f32 key (NULL: none) */
    float f32_val;
    const char *str_key;  /* one more string key (NULL: none) */
    const char *str_val;
    const char *u32_key;  /* one more u32 key (NULL: none) */
    uint32_t u32_val;
    bool rope_freqs;      /* a rope_freqs.weight tensor (Llama 3.1 frequency factors) */
    int score_at;         /* tokenizer.ggml.scores with score_val at this index; -1: no scores */
    float score_val;
} spec;

static spec spec_default(const char *name)
{
    return (spec){.name = name, .block_count = 2, .blocks_present = 2, .rows = 24, .tok_model = "llama",
                  .n_tokens = 24, .drop_byte = -1, .merges = 1, .score_at = -1};
}

/* GPT-2's bytes_to_unicode: the printable bytes stand for themselves, the other 68 become
 * U+0100.. in byte order; written out in UTF-8. */
static void byte_char(int b, char out[3])
{
    bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    int cp = b;
    if (!printable) {
        cp = 0x100;
        for (int c = 0; c < b; c++)
            cp += !((c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF));
    }
    if (cp < 0x80) out[0] = (char)cp, out[1] = 0;
    else out[0] = (char)(0xC0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3F)), out[2] = 0;
}

/* gpt2: the 256 byte characters, "he", "<|endoftext|>", then "pN" to n_tokens. */
static void vocab_text(const spec *s, int i, char *out, size_t len)
{
    if (!strcmp(s->tok_model, "gpt2")) {
        if (i < 256 && i == s->drop_byte) snprintf(out, len, "dropped%d", i);
        else if (i < 256) byte_char(i, out);
        else if (i == 256) snprintf(out, len, "he");
        else if (i == 257) snprintf(out, len, "<|endoftext|>");
        else snprintf(out, len, "p%d", i);
        return;
    }
    static const char *const special[3] = {"<unk>", "<s>", "</s>"};
    if (i < 3) snprintf(out, len, "%s", special[i]);
    else snprintf(out, len, "t%d", i);
}

static int write_tokenizer(bb_gguf_writer *w, const spec *s)
{
    char **texts = calloc((size_t)s->n_tokens, sizeof *texts);
    for (int i = 0; i < s->n_tokens; i++) {
        texts[i] = malloc(32);
        vocab_text(s, i, texts[i], 32);
    }
    if (s->dup_at) snprintf(texts[s->dup_at], 32, "%s", s->dup_text ? s->dup_text : texts[s->dup_at - 1]);
    if (s->dup_at && s->dup_text) snprintf(texts[s->dup_at - 1], 32, "%s", s->dup_text);
    int rc = bb_gguf_set_str(w, "tokenizer.ggml.model", s->tok_model) ||
             bb_gguf_set_str_array(w, "tokenizer.ggml.tokens", (const char *const *)texts, (uint64_t)s->n_tokens);
    if (!strcmp(s->tok_model, "gpt2")) {
        const char *merges[2] = {"h e", ""};
        rc = rc || bb_gguf_set_str(w, "tokenizer.ggml.pre", "gpt-2") ||
             bb_gguf_set_str_array(w, "tokenizer.ggml.merges", merges, (uint64_t)s->merges);
    }
    if (s->score_at >= 0) {
        float *scores = calloc((size_t)s->n_tokens, sizeof *scores);
        for (int i = 0; i < s->n_tokens; i++) scores[i] = -(float)i;
        scores[s->score_at] = s->score_val;
        rc = rc || bb_gguf_set_array(w, "tokenizer.ggml.scores", BB_GGUF_FLOAT32, scores, (uint64_t)s->n_tokens);
        free(scores);
    }
    for (int i = 0; i < s->n_tokens; i++) free(texts[i]);
    free(texts);
    return rc;
}

static int add(bb_gguf_writer *w, const char *name, uint64_t k, uint64_t m)
{
    uint64_t ne[2] = {k, m};
    return bb_gguf_add_tensor(w, name, BB_GGML_F32, m > 1 ? 2 : 1, ne);
}

/* Writes dir/<name>.gguf; its path in path. */
static void write_model(const spec *s, char *path, size_t len)
{
    static const struct { const char *name; int k, m; } block[] = {
        {"attn_norm", DIM, 1},   {"attn_q", DIM, DIM},     {"attn_k", DIM, DIM},  {"attn_v", DIM, DIM},
        {"attn_output", DIM, DIM}, {"ffn_norm", DIM, 1},   {"ffn_gate", DIM, HIDDEN}, {"ffn_up", DIM, HIDDEN},
        {"ffn_down", HIDDEN, DIM}};
    char err[512], name[64];
    snprintf(path, len, "%s/%s.gguf", dir, s->name);
    bb_gguf_writer *w = bb_gguf_writer_create(path, err, sizeof err);
    if (!w) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    int rc = bb_gguf_set_str(w, "general.architecture", "llama") ||
             bb_gguf_set_u32(w, "llama.context_length", CTX) || bb_gguf_set_u32(w, "llama.embedding_length", DIM) ||
             bb_gguf_set_u32(w, "llama.block_count", (uint32_t)s->block_count) ||
             bb_gguf_set_u32(w, "llama.feed_forward_length", HIDDEN) ||
             bb_gguf_set_u32(w, "llama.attention.head_count", HEADS) ||
             (s->rope_set && bb_gguf_set_f32(w, "llama.rope.freq_base", s->rope)) || write_tokenizer(w, s) ||
             (s->f32_key && bb_gguf_set_f32(w, s->f32_key, s->f32_val)) ||
             (s->str_key && bb_gguf_set_str(w, s->str_key, s->str_val)) ||
             (s->u32_key && bb_gguf_set_u32(w, s->u32_key, s->u32_val)) ||
             add(w, "token_embd.weight", DIM, (uint64_t)s->rows) || add(w, "output_norm.weight", DIM, 1) ||
             (s->rope_freqs && add(w, "rope_freqs.weight", DIM / HEADS / 2, 1));
    for (int b = 0; b < s->blocks_present; b++)
        for (size_t i = 0; i < sizeof block / sizeof *block; i++) {
            snprintf(name, sizeof name, "blk.%d.%s.weight", b, block[i].name);
            rc = rc || add(w, name, (uint64_t)block[i].k, (uint64_t)block[i].m);
        }
    uint64_t bytes;
    for (int n = 0; !rc && bb_gguf_writer_current(w, &bytes); n++) {
        float *v = malloc(bytes);
        for (size_t i = 0; i < bytes / sizeof *v; i++) v[i] = (float)((i * 7 + (size_t)n) % 13) * 0.01f - 0.06f;
        rc = bb_gguf_write_data(w, v, bytes);
        free(v);
    }
    if (rc || bb_gguf_writer_finish(w, err, sizeof err)) {
        fprintf(stderr, "writing %s: %s\n", path, rc ? bb_gguf_writer_error(w) : err);
        exit(1);
    }
}

static void forget(const char *path)
{
    if (!keep) unlink(path);
}

/* The model must be refused with one line naming the file and holding want. */
static void expect_model_refused(const spec *s, const char *want)
{
    char path[600], err[1024] = "";
    write_model(s, path, sizeof path);
    bb_gguf_model *m = bb_gguf_model_open(path, err, sizeof err);
    CHECK(m == NULL && !strncmp(err, path, strlen(path)) && !strchr(err, '\n') && strstr(err, want),
          "%s: %s; wanted '%s'", s->name, m ? "accepted" : err, want);
    bb_gguf_model_close(m);
    forget(path);
}

/* ---- RoPE base ---- */
static void rope_base(void)
{
    const struct { const char *name; float v; const char *text; } bad[] = {
        {"rope-inf", INFINITY, "= inf"}, {"rope-nan", NAN, "= nan"}, {"rope-zero", 0.0f, "= 0"},
        {"rope-negative", -10000.0f, "= -10000"}};
    char want[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        spec s = spec_default(bad[i].name);
        s.rope_set = true;
        s.rope = bad[i].v;
        snprintf(want, sizeof want, "metadata key 'llama.rope.freq_base' %s: must be a finite positive number",
                 bad[i].text);
        expect_model_refused(&s, want);
    }
    /* the engine's own check, whatever the source (a llama2.c checkpoint leaves 0: 10000) */
    bb_tf_dims d = {.dim = DIM, .hidden_dim = HIDDEN, .n_layers = 1, .n_heads = HEADS, .n_kv_heads = HEADS,
                    .vocab_size = 24, .seq_len = CTX};
    char err[256];
    const float thetas[] = {INFINITY, -INFINITY, NAN, -1.0f};
    for (size_t i = 0; i < sizeof thetas / sizeof *thetas; i++) {
        d.rope_theta = thetas[i];
        err[0] = 0;
        CHECK(bb_tf_dims_check(&d, err, sizeof err) != 0 && strstr(err, "must be a finite positive number"),
              "rope_theta %g: %s", (double)thetas[i], err[0] ? err : "accepted");
    }
    const float good[] = {0.0f, 10000.0f, 500000.0f};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        d.rope_theta = good[i];
        CHECK(bb_tf_dims_check(&d, err, sizeof err) == 0, "rope_theta %g: %s", (double)good[i], err);
    }
}

/* ---- RoPE scaling and the other numbers beside the RoPE base ---- */
static void rope_scaling_and_norms(void)
{
    const struct { const char *name, *key; float v; const char *want; } bad[] = {
        {"rope-scaling-factor-4", "llama.rope.scaling.factor", 4.0f,
         "metadata key 'llama.rope.scaling.factor' = 4: bitbench does not implement RoPE scaling"},
        {"rope-scale-linear-nan", "llama.rope.scale_linear", NAN,
         "metadata key 'llama.rope.scale_linear' = nan: bitbench does not implement RoPE scaling"},
        {"norm-eps-nan", "llama.attention.layer_norm_rms_epsilon", NAN,
         "metadata key 'llama.attention.layer_norm_rms_epsilon' = nan: must be a finite positive number"},
        {"norm-eps-negative", "llama.attention.layer_norm_rms_epsilon", -1e-5f,
         "metadata key 'llama.attention.layer_norm_rms_epsilon' = -1e-05: must be a finite positive number"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        spec s = spec_default(bad[i].name);
        s.f32_key = bad[i].key;
        s.f32_val = bad[i].v;
        expect_model_refused(&s, bad[i].want);
    }
    spec s = spec_default("rope-scaling-type-linear");
    s.str_key = "llama.rope.scaling.type";
    s.str_val = "linear";
    expect_model_refused(&s, "metadata key 'llama.rope.scaling.type' = 'linear': bitbench does not implement RoPE "
                             "scaling (valid: none)");
    s = spec_default("rope-freqs-tensor");
    s.rope_freqs = true;
    expect_model_refused(&s, "tensor 'rope_freqs.weight' (RoPE frequency factors, Llama 3.1 scaling): bitbench does "
                             "not implement RoPE scaling");
    /* the identity is no scaling at all: factor 1 (or 0, llama.cpp's "unset") and type none load */
    char path[600], err[1024] = "";
    const float identity[] = {0.0f, 1.0f};
    for (size_t i = 0; i < 2; i++) {
        s = spec_default("rope-scaling-identity");
        s.f32_key = "llama.rope.scaling.factor";
        s.f32_val = identity[i];
        s.str_key = "llama.rope.scaling.type";
        s.str_val = "none";
        write_model(&s, path, sizeof path);
        bb_gguf_model *m = bb_gguf_model_open(path, err, sizeof err);
        CHECK(m != NULL, "scaling factor %g, type none: %s", (double)identity[i], err);
        bb_gguf_model_close(m);
        forget(path);
    }
}

/* ---- block_count against the tensors ---- */
static void blocks(void)
{
    spec s = spec_default("blocks-fewer-than-declared");
    s.block_count = 3;
    expect_model_refused(&s, "llama.block_count = 3, but the file has tensors up to block 1 (blk.2.* is missing)");
    s = spec_default("blocks-past-block-count");
    s.blocks_present = 3;
    expect_model_refused(&s, "tensor 'blk.2.attn_norm.weight' belongs to block 2, but llama.block_count = 2 "
                             "(valid blocks: 0 .. 1)");
    s = spec_default("blocks-none");
    s.blocks_present = 0;
    expect_model_refused(&s, "llama.block_count = 2, but the file has no block tensors (blk.0.* is missing)");
}

/* ---- the token list against the embedding ---- */
static void vocabulary_rows(void)
{
    spec s = spec_default("vocab-shorter-than-embedding");
    s.n_tokens = 20;
    expect_model_refused(&s, "tokenizer.ggml.tokens has 20 entries, but the model's vocabulary (llama.vocab_size or "
                             "token_embd.weight's rows) is 24; they must be equal");
    s = spec_default("vocab-longer-than-embedding");
    s.n_tokens = 30;
    expect_model_refused(&s, "tokenizer.ggml.tokens has 30 entries, but the model's vocabulary");
    /* the valid file opens, and its tokenizer with it */
    char path[600], err[1024];
    s = spec_default("valid-llama");
    write_model(&s, path, sizeof path);
    bb_gguf_model *m = bb_gguf_model_open(path, err, sizeof err);
    CHECK(m != NULL && bb_gguf_model_dims(m)->vocab_size == 24 && bb_gguf_model_dims(m)->n_layers == 2, "%s", err);
    bb_tokenizer *t = m ? bb_tokenizer_from_gguf(bb_gguf_model_file(m), err, sizeof err) : NULL;
    CHECK(t != NULL && bb_tokenizer_vocab_size(t) == 24 && !bb_tokenizer_notes(t)[0], "%s", t ? bb_tokenizer_notes(t) : err);
    bb_tokenizer_free(t);
    bb_gguf_model_close(m);
    forget(path);
}

/* ---- duplicate tokens ---- */
static void expect_tokenizer_refused(const spec *s, const char *want)
{
    char path[600], err[1024] = "";
    write_model(s, path, sizeof path);
    bb_tokenizer *t = bb_tokenizer_open_gguf(path, err, sizeof err);
    CHECK(t == NULL && !strncmp(err, path, strlen(path)) && !strchr(err, '\n') && strstr(err, want),
          "%s: %s; wanted '%s'", s->name, t ? "accepted" : err, want);
    bb_tokenizer_free(t);
    forget(path);
}

/* scores that are not numbers, special ids past the vocabulary, token types out of range */
static void token_values(void)
{
    spec s = spec_default("scores-nan");
    s.score_at = 7;
    s.score_val = NAN;
    expect_tokenizer_refused(&s, "tokenizer.ggml.scores[7] = nan: a token's score must be a finite number");
    s.name = "scores-inf";
    s.score_val = -INFINITY;
    expect_tokenizer_refused(&s, "tokenizer.ggml.scores[7] = -inf: a token's score must be a finite number");
    s = spec_default("bos-past-vocabulary");
    s.u32_key = "tokenizer.ggml.bos_token_id";
    s.u32_val = 24;
    expect_tokenizer_refused(&s, "'tokenizer.ggml.bos_token_id' = 24 is not a token id (the vocabulary has 24 tokens)");
    s = spec_default("eos-past-vocabulary");
    s.u32_key = "tokenizer.ggml.eos_token_id";
    s.u32_val = 1000;
    expect_tokenizer_refused(&s, "'tokenizer.ggml.eos_token_id' = 1000 is not a token id");
    /* finite scores load */
    char path[600], err[1024] = "";
    s = spec_default("scores-finite");
    s.score_at = 7;
    s.score_val = -3.5f;
    write_model(&s, path, sizeof path);
    bb_tokenizer *t = bb_tokenizer_open_gguf(path, err, sizeof err);
    CHECK(t != NULL, "finite scores: %s", err);
    bb_tokenizer_free(t);
    forget(path);
}

static void duplicates(void)
{
    spec s = spec_default("duplicate-token-llama");
    s.dup_at = 6;
    expect_tokenizer_refused(&s, "tokenizer.ggml.tokens[6] = 't5' repeats tokenizer.ggml.tokens[5]; every token's "
                                 "text must be unique");
    s = spec_default("duplicate-token-newline");
    s.dup_at = 10;
    s.dup_text = "a\nb'";
    expect_tokenizer_refused(&s, "tokenizer.ggml.tokens[10] = 'a\\x0Ab\\x27' repeats tokenizer.ggml.tokens[9]");
    s = spec_default("duplicate-token-gpt2");
    s.tok_model = "gpt2";
    s.n_tokens = s.rows = 260;
    s.dup_at = 259;
    expect_tokenizer_refused(&s, "tokenizer.ggml.tokens[259] = 'p258' repeats tokenizer.ggml.tokens[258]");

    /* a llama2.c tokenizer with "b" twice */
    char path[600], err[1024] = "";
    snprintf(path, sizeof path, "%s/dup-tok.bin", dir);
    const char *pieces[6] = {"<unk>", "<s>", "</s>", "a", "b", "b"};
    write_llama2c_tokenizer(path, pieces, 6, 5);
    bb_tokenizer *t = bb_tokenizer_load(path, 6, err, sizeof err);
    CHECK(t == NULL && strstr(err, "dup-tok.bin: token 5 'b' repeats token 4; every token's text must be unique"),
          "llama2.c duplicate: %s", t ? "accepted" : err);
    bb_tokenizer_free(t);
    unlink(path);
}

/* ---- a llama2.c tokenizer longer than the model's vocabulary: read as run.c reads it, with a
 * note naming what was not read ---- */
static void llama2c_extra_tokens(void)
{
    char path[600], err[1024] = "", cap[640];
    snprintf(path, sizeof path, "%s/long-tok.bin", dir);
    snprintf(cap, sizeof cap, "%s/stderr.txt", dir);
    const char *pieces[7] = {"<unk>", "<s>", "</s>", "a", "b", "c", "d"};
    write_llama2c_tokenizer(path, pieces, 7, 5);
    for (int vocab = 7; vocab >= 5; vocab -= 2) {
        fflush(stderr);
        int saved = dup(2), fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 2);
        close(fd);
        bb_tokenizer *t = bb_tokenizer_load(path, vocab, err, sizeof err);
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        char *got = slurp(cap);
        CHECK(t != NULL, "llama2.c tokenizer of 7 tokens for vocab %d: %s", vocab, err);
        if (t && vocab == 7)
            CHECK(!bb_tokenizer_notes(t)[0] && got && !got[0], "all 7 tokens read, yet a note: %s", got ? got : "");
        if (t && vocab == 5)
            CHECK(strstr(bb_tokenizer_notes(t), "long-tok.bin: 18 bytes after the model's 5 tokens (2 more token "
                                               "records) are not read, as llama2.c's run.c does not read them") &&
                      got && !strncmp(got, "note: ", 6) && strstr(got, "2 more token records"),
                  "2 tokens past the model's 5: notes '%s', stderr '%s'", bb_tokenizer_notes(t), got ? got : "");
        free(got);
        bb_tokenizer_free(t);
    }
    unlink(cap);
    unlink(path);
}

/* ---- byte-level vocabularies: loaded as llama.cpp loads them, with a note ---- */

/* Open the tokenizer with stderr going to a file; what stderr got in got. */
static bb_tokenizer *open_capturing(const char *path, char *got, size_t gotlen, char *err, size_t errlen)
{
    char cap[600];
    snprintf(cap, sizeof cap, "%s/stderr.txt", dir);
    fflush(stderr);
    int saved = dup(2), fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    bb_tokenizer *t = bb_tokenizer_open_gguf(path, err, errlen);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *s = slurp(cap);
    snprintf(got, gotlen, "%s", s ? s : "");
    free(s);
    unlink(cap);
    return t;
}

/* Loads with exactly the one note holding want (on stderr as "note: <line>\n"); encodes text to
 * the ids want_ids (n_want of them). */
static void expect_note(const spec *s, const char *want, const char *text, const int *want_ids, int n_want)
{
    char path[600], err[1024] = "", got[2048], line[1200];
    write_model(s, path, sizeof path);
    bb_tokenizer *t = open_capturing(path, got, sizeof got, err, sizeof err);
    CHECK(t != NULL, "%s: %s", s->name, err);
    if (t) {
        const char *notes = bb_tokenizer_notes(t);
        snprintf(line, sizeof line, "note: %s\n", notes);
        CHECK(!strncmp(notes, path, strlen(path)) && !strchr(notes, '\n') && strstr(notes, want),
              "%s: notes '%s', wanted '%s'", s->name, notes, want);
        CHECK(!strcmp(got, line), "%s: stderr '%s', wanted '%s'", s->name, got, line);
        int ids[64];
        int n = bb_tokenizer_encode_ex(t, text, strlen(text), false, false, ids, 64, err, sizeof err);
        bool same = n == n_want;
        for (int i = 0; same && i < n; i++) same = ids[i] == want_ids[i];
        CHECK(same, "%s: '%s' encodes to %d ids (first %d), wanted %d (first %d)", s->name, text, n, n > 0 ? ids[0] : -1,
              n_want, n_want ? want_ids[0] : -1);
    }
    bb_tokenizer_free(t);
    forget(path);
}

static void byte_level(void)
{
    spec s = spec_default("gpt2-valid");
    s.tok_model = "gpt2";
    s.n_tokens = s.rows = 260;
    char path[600], err[1024], got[1024];
    write_model(&s, path, sizeof path);
    bb_tokenizer *t = open_capturing(path, got, sizeof got, err, sizeof err);
    int ids[8];
    CHECK(t && !bb_tokenizer_notes(t)[0] && !got[0], "gpt2 valid: %s / %s", t ? bb_tokenizer_notes(t) : err, got);
    CHECK(t && bb_tokenizer_encode_ex(t, "hea", 3, false, false, ids, 8, err, sizeof err) == 2 && ids[0] == 256 &&
              ids[1] == 'a', "gpt2 valid: 'hea' is 'he' 'a'");
    bb_tokenizer_free(t);
    bb_gguf_model *m = bb_gguf_model_open(path, err, sizeof err);
    CHECK(m != NULL, "gpt2 valid model: %s", err);
    bb_gguf_model_close(m);
    forget(path);

    s.name = "gpt2-missing-byte";
    s.drop_byte = 'A';
    expect_note(&s, "tokenizer.ggml.tokens lacks 1 of the 256 byte-level tokens (the first: 'A' for byte 0x41): "
                    "bitbench, as llama.cpp, drops such a byte from the text when no merge covers it",
                "ABA", (const int[]){'B'}, 1);
    s = spec_default("gpt2-merges-empty");
    s.tok_model = "gpt2";
    s.n_tokens = s.rows = 260;
    s.merges = 0;
    expect_note(&s, "tokenizer.ggml.merges has no entries: bitbench, as llama.cpp, encodes text one byte-level "
                    "character per token", "he", (const int[]){'h', 'e'}, 2);
    s.name = "gpt2-merges-empty-string";
    s.merges = 2;
    expect_note(&s, "tokenizer.ggml.merges has 1 of 2 entries that are not 'left right' pairs (the first: [1] = ''): "
                    "bitbench, as llama.cpp, never applies them", "he", (const int[]){256}, 1);
}

/* ---- the real files: still load, with no notes ---- */
static void golden_files(void)
{
    const char *models[] = {"stories260K/stories260K.gguf", "stories260K/stories260K-q8_0.gguf",
                            "stories260K/stories260K-q4_0.gguf", "bitnet/tiny-bitnet-tq2_0-embf16.gguf",
                            "bitnet/tiny-bitnet-tq1_0-embf16.gguf"};
    const char *vocabs[] = {"tokenizer/ggml-vocab-gpt-2.gguf", "tokenizer/ggml-vocab-llama-spm.gguf"};
    char path[1400], err[1024], got[1024];
    for (size_t i = 0; i < sizeof models / sizeof *models + sizeof vocabs / sizeof *vocabs; i++) {
        bool model = i < sizeof models / sizeof *models;
        snprintf(path, sizeof path, "%s/golden/gguf/%s", shared, model ? models[i] : vocabs[i - sizeof models / sizeof *models]);
        if (model) {
            bb_gguf_model *m = bb_gguf_model_open(path, err, sizeof err);
            CHECK(m != NULL, "%s", err);
            bb_gguf_model_close(m);
        }
        bb_tokenizer *t = open_capturing(path, got, sizeof got, err, sizeof err);
        CHECK(t != NULL && !bb_tokenizer_notes(t)[0] && !got[0], "%s: %s%s", path, t ? "notes: " : err,
              t ? bb_tokenizer_notes(t) : "");
        bb_tokenizer_free(t);
    }
}

int main(int argc, char **argv)
{
    shared_dir(shared, sizeof shared);
    if (argc > 1) {
        snprintf(dir, sizeof dir, "%s", argv[1]);
        keep = true;
    } else {
        snprintf(dir, sizeof dir, "/tmp/bb_model_semantics_XXXXXX");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            return 1;
        }
    }
    rope_base();
    rope_scaling_and_norms();
    blocks();
    vocabulary_rows();
    duplicates();
    llama2c_extra_tokens();
    token_values();
    byte_level();
    golden_files();
    if (!keep) rmdir(dir);
    return check_summary("model_semantics");
}
