/* Tokenizers from GGUF metadata against llama.cpp's tokenizer test vectors
 * ($BITBENCH_SHARED_DIR/golden/gguf/tokenizer/, README §2: 46 texts each, encoded without BOS and without
 * parsing special tokens, which llama.cpp reproduces 46/46):
 *  - llama-spm (SentencePiece, 32000 tokens) and gpt-2 (byte-level BPE, 50000 merges): the ids
 *    of every text, id for id, and decoding gives the text back;
 *  - llama-bpe (Llama 3, BitNet b1.58 2B4T): its vocabulary file is not in the golden set (too
 *    large for the snapshot), so only its pre-tokenizer is checked: pieces cover each text, are
 *    never more than the expected ids (BPE never merges across pieces), and a few splits are
 *    written out by hand from the pattern;
 *  - the stories260K GGUF's vocabulary encodes as llama2.c's tok512.bin does, and "Once upon a
 *    time" is 1 403 407 261 378 with BOS (README §3.4);
 *  - small GGUF files written here: the llama-bpe path end to end (ignore_merges, BOS, a
 *    user-defined token), and refusals of unsupported tokenizer.ggml.model / pre values.
 * Prints the encoding speed of the GPL-3 text with the gpt-2 vocabulary. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "files.h"
#include "gguf_bytes.h"
#include "models/bpe_pretok.h"
#include "models/gguf.h"
#include "models/tokenizer.h"
#include "models/unicode.h"
#include "support/timer.h"

static char shared[1024];
#define SEP "\n__ggml_vocab_test__\n"
#define MAX_TEXTS 64

/* The .inp texts (cut at SEP in place) and the .out id lines. */
typedef struct {
    char *inp, *out;
    char *text[MAX_TEXTS];
    char *ids[MAX_TEXTS];
    int n;
} vectors;

static int load_vectors(const char *name, vectors *v)
{
    char path[1200];
    memset(v, 0, sizeof *v);
    snprintf(path, sizeof path, "%s/golden/gguf/tokenizer/%s.inp", shared, name);
    v->inp = slurp(path);
    snprintf(path, sizeof path, "%s/golden/gguf/tokenizer/%s.out", shared, name);
    v->out = slurp(path);
    CHECK(v->inp && v->out, "cannot read %s(.inp)", path);
    if (!v->inp || !v->out) return -1;
    for (char *p = v->inp, *q; v->n < MAX_TEXTS && (q = strstr(p, SEP)); p = q + strlen(SEP)) {
        *q = 0; /* each text is followed by SEP */
        v->text[v->n++] = p;
    }
    int lines = 0;
    for (char *p = v->out; *p && lines < MAX_TEXTS; lines++) {
        v->ids[lines] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = 0;
        p = nl + 1;
    }
    CHECK(v->n == 46 && lines == 46, "%s: %d texts and %d id lines, expected 46 and 46", name, v->n, lines);
    return v->n == 46 && lines == 46 ? 0 : -1;
}

static void free_vectors(vectors *v)
{
    free(v->inp);
    free(v->out);
}

static int parse_ids(const char *line, int *ids, int cap)
{
    int n = 0;
    for (char *end; n < cap; line = end) {
        long x = strtol(line, &end, 10);
        if (end == line) break;
        ids[n++] = (int)x;
    }
    return n;
}

/* decode(encode(text)) as a caller streams it: each token's text after the previous token. */
static char *decode_all(const bb_tokenizer *t, const int *ids, int n)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    for (int i = 0; s && i < n; i++) {
        const char *p = bb_tokenizer_decode(t, i ? ids[i - 1] : -1, ids[i]);
        size_t pl = strlen(p);
        if (len + pl + 1 > cap) {
            char *ns = realloc(s, cap = 2 * (len + pl + 1));
            if (!ns) free(s);
            s = ns;
        }
        if (s) memcpy(s + len, p, pl), len += pl;
    }
    if (s) s[len] = 0;
    return s;
}

static void check_vocab(const char *name)
{
    char path[1200], err[512];
    snprintf(path, sizeof path, "%s/golden/gguf/tokenizer/%s", shared, name);
    bb_tokenizer *t = bb_tokenizer_open_gguf(path, err, sizeof err);
    CHECK(t != NULL, "%s", err);
    vectors v;
    if (!t || load_vectors(name, &v)) {
        bb_tokenizer_free(t);
        return;
    }
    int want[4096], got[4096], same = 0, round = 0;
    for (int i = 0; i < v.n; i++) {
        int nw = parse_ids(v.ids[i], want, 4096);
        int ng = bb_tokenizer_encode_ex(t, v.text[i], strlen(v.text[i]), false, false, got, 4096, err, sizeof err);
        bool ok = ng == nw && !memcmp(got, want, sizeof(int) * (size_t)nw);
        same += ok;
        if (!ok) {
            fprintf(stderr, "%s text %d '%s': %d ids, want %d:", name, i, v.text[i], ng, nw);
            for (int k = 0; k < ng; k++) fprintf(stderr, " %d", got[k]);
            fprintf(stderr, "\n  want %s\n", v.ids[i]);
        }
        char *back = ng >= 0 ? decode_all(t, got, ng) : NULL;
        bool rt = back && !strcmp(back, v.text[i]);
        round += rt;
        if (!rt) fprintf(stderr, "%s text %d: decodes to '%s', not '%s'\n", name, i, back ? back : "?", v.text[i]);
        free(back);
    }
    CHECK(same == v.n, "%s: %d of %d texts encode to llama.cpp's ids", name, same, v.n);
    CHECK(round == v.n, "%s: %d of %d texts decode back to themselves", name, round, v.n);
    printf("%s (%s): %d/%d texts id for id, %d/%d decode back\n", name, bb_tokenizer_describe(t), same, v.n, round, v.n);
    free_vectors(&v);
    bb_tokenizer_free(t);
}

/* Pieces of text under the llama-bpe pattern, each followed by '|'. */
static void split(bb_pretok pre, const char *text, char *out, size_t cap)
{
    size_t len = strlen(text), n = 0, k = 0;
    uint32_t *cps = malloc(sizeof *cps * (len + 1));
    size_t *ends = malloc(sizeof *ends * (len + 1));
    for (size_t i = 0; i < len;) {
        int cl;
        cps[n++] = bb_utf8_decode((const unsigned char *)text + i, len - i, &cl);
        i += (size_t)cl;
    }
    long np = bb_pretok_split(pre, cps, n, ends);
    for (long p = 0, s = 0; p < np; s = (long)ends[p++]) {
        for (long i = s; i < (long)ends[p] && k + 5 < cap; i++) k += (size_t)bb_utf8_encode(cps[i], out + k);
        out[k++] = '|';
    }
    out[k] = 0;
    free(cps);
    free(ends);
}

static void check_llama_bpe_pretokenizer(void)
{
    vectors v;
    if (load_vectors("ggml-vocab-llama-bpe.gguf", &v)) return;
    int ok = 0, ids[4096];
    static char pieces[1 << 16];
    for (int i = 0; i < v.n; i++) {
        split(BB_PRETOK_LLAMA3, v.text[i], pieces, sizeof pieces);
        long np = 0;
        for (char *p = pieces; *p; p++) np += *p == '|';
        int nid = parse_ids(v.ids[i], ids, 4096);
        bool fits = np <= nid;
        char *w = pieces, *r = pieces; /* the pieces joined again are the text */
        for (; *r; r++)
            if (*r != '|') *w++ = *r;
        *w = 0;
        ok += fits && !strcmp(pieces, v.text[i]);
    }
    CHECK(ok == v.n, "llama-bpe: %d of %d texts cut into pieces that cover them, no more than their ids", ok, v.n);
    free_vectors(&v);
    static const struct {
        bb_pretok pre;
        const char *text, *want;
    } cases[] = {
        {BB_PRETOK_LLAMA3, "I'LL go 12345 times", "I|'LL| go| |123|45| times|"},
        {BB_PRETOK_LLAMA3, "a  \n\n b\r\n(x)...\n", "a|  \n\n| b|\r\n|(x|)...\n|"},
        {BB_PRETOK_LLAMA3, "\tHello   world!!", "\tHello|  | world|!!|"},
        {BB_PRETOK_GPT2, "I'LL go 12345 times", "I|'|LL| go| 12345| times|"},
        {BB_PRETOK_GPT2, "a  \n\n b\r\n(x)...\n", "a|  \n\n| b|\r|\n|(|x|)...|\n|"},
        {BB_PRETOK_GPT2, "caf\xC3\xA9 \xD9\xA3\xD9\xA4 x", "caf\xC3\xA9| \xD9\xA3\xD9\xA4| x|"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        split(cases[i].pre, cases[i].text, pieces, sizeof pieces);
        CHECK(!strcmp(pieces, cases[i].want), "pre %d '%s': pieces '%s', expected '%s'", cases[i].pre, cases[i].text,
              pieces, cases[i].want);
    }
}

/* stories260K.gguf's vocabulary (llama.cpp's converter copied it from tok512.bin) encodes as
 * llama2.c's tokenizer does. */
static void check_stories260k(void)
{
    char gpath[1200], bpath[1200], err[512];
    snprintf(gpath, sizeof gpath, "%s/golden/gguf/stories260K/stories260K.gguf", shared);
    snprintf(bpath, sizeof bpath, "%s/models/stories260K/tok512.bin", shared);
    bb_tokenizer *g = bb_tokenizer_open_gguf(gpath, err, sizeof err);
    CHECK(g != NULL, "%s", err);
    bb_tokenizer *b = bb_tokenizer_load(bpath, 512, err, sizeof err);
    CHECK(b != NULL, "%s", err);
    if (!g || !b) goto done;
    CHECK(bb_tokenizer_vocab_size(g) == 512 && bb_tokenizer_bos(g) == 1 && bb_tokenizer_eos(g) == 2,
          "stories260K.gguf: %d tokens, BOS %d, EOS %d", bb_tokenizer_vocab_size(g), bb_tokenizer_bos(g),
          bb_tokenizer_eos(g));
    int ids[256], ref[256];
    int n = bb_tokenizer_encode(g, "Once upon a time", ids, 256, err, sizeof err);
    static const int want[] = {1, 403, 407, 261, 378};
    CHECK(n == 5 && !memcmp(ids, want, sizeof want), "'Once upon a time': %d ids (%d %d ...), expected 1 403 407 261 378",
          n, n > 0 ? ids[0] : -1, n > 1 ? ids[1] : -1);
    static const char *const texts[] = {"The little dog", "Lily and Ben went to the park. They saw a big, red ball!",
                                        "  two spaces, tabs\tand\nnewlines", "caf\xC3\xA9 \xE4\xB8\xAD 42", ""};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        int ng = bb_tokenizer_encode(g, texts[i], ids, 256, err, sizeof err);
        int nb = bb_tokenizer_encode(b, texts[i], ref, 256, err, sizeof err);
        CHECK(ng > 0 && ng == nb && !memcmp(ids, ref, sizeof(int) * (size_t)ng), "'%s': GGUF %d ids, tok512.bin %d",
              texts[i], ng, nb);
        char *back = decode_all(g, ids + 1, ng - 1);
        CHECK(back && !strcmp(back, texts[i]), "'%s' decodes to '%s'", texts[i], back ? back : "?");
        free(back);
    }
done:
    bb_tokenizer_free(g);
    bb_tokenizer_free(b);
}

/* ---- a GGUF vocabulary written here (gguf_bytes.h) ---- */

/* GPT-2's printable character for byte b (the other 68 bytes map to U+0100 on, in order). */
static int byte_char(int b, char *out)
{
    int k = 0;
    if ((b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE) return bb_utf8_encode((uint32_t)b, out);
    for (int c = 0; c < b; c++) k += !((c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || c >= 0xAE);
    return bb_utf8_encode(0x100u + (uint32_t)k, out);
}

/* 256 byte tokens, "Hello" (no merge makes it), "Ġw" and "Ġwo" by merges, a control BOS and a
 * user-defined "<|x|>".  model/pre NULL leaves the key out; bos is the bos_token_id. */
static bb_tokenizer *tiny_bpe(const char *model, const char *pre, uint32_t bos, char *err, size_t errlen)
{
    static char chars[256][4];
    static const char *tokens[261];
    static int32_t types[261];
    for (int b = 0; b < 256; b++) {
        chars[b][byte_char(b, chars[b])] = 0;
        tokens[b] = chars[b];
        types[b] = 1;
    }
    const char *extra[] = {"Hello", "\xC4\xA0w", "\xC4\xA0wo", "<|begin_of_text|>", "<|x|>"};
    const int32_t extra_type[] = {1, 1, 1, 3, 4};
    for (int i = 0; i < 5; i++) tokens[256 + i] = extra[i], types[256 + i] = extra_type[i];
    const char *merges[] = {"\xC4\xA0 w", "\xC4\xA0w o"};
    static gguf_buf o; /* kept between calls: its memory is reused */
    o.n = o.n_kv = 0;
    put(&o, "GGUF", 4), put_u32(&o, 3), put_u64(&o, 0);
    size_t kv_at = o.n;
    put_u64(&o, 0);
    if (model) kv_str(&o, "tokenizer.ggml.model", model);
    if (pre) kv_str(&o, "tokenizer.ggml.pre", pre);
    kv_strs(&o, "tokenizer.ggml.tokens", tokens, 261);
    kv_i32s(&o, "tokenizer.ggml.token_type", types, 261);
    kv_strs(&o, "tokenizer.ggml.merges", merges, 2);
    kv_u32(&o, "tokenizer.ggml.bos_token_id", bos);
    memcpy(o.b + kv_at, &o.n_kv, 8);
    char path[] = "/tmp/bb_tok_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f || fwrite(o.b, 1, o.n, f) != o.n) {
        snprintf(err, errlen, "cannot write %s", path);
        if (f) fclose(f);
        return NULL;
    }
    fclose(f);
    bb_tokenizer *t = bb_tokenizer_open_gguf(path, err, errlen);
    remove(path);
    return t;
}

static void expect_ids(const bb_tokenizer *t, const char *what, const char *text, bool parse_special, const int *want,
                       int nw)
{
    int ids[64];
    char err[256];
    int n = bb_tokenizer_encode_ex(t, text, strlen(text), true, parse_special, ids, 64, err, sizeof err);
    bool ok = n == nw && !memcmp(ids, want, sizeof(int) * (size_t)nw);
    CHECK(ok, "%s '%s': %d ids %d %d %d %d ..., expected %d", what, text, n, ids[0], ids[1], ids[2], ids[3], nw);
}

static void check_tiny_bpe(void)
{
    char err[512];
    bb_tokenizer *t = tiny_bpe("gpt2", "llama-bpe", 259, err, sizeof err);
    CHECK(t != NULL, "%s", err);
    if (t) {
        /* BOS (llama-bpe adds it); "Hello" whole (ignore_merges); " world": Ġw+o merged, r l d bytes;
         * the user-defined token whole even without parse_special */
        const int want[] = {259, 256, 258, 'r', 'l', 'd', 260};
        expect_ids(t, "llama-bpe", "Hello world<|x|>", false, want, 7);
        const int want_special[] = {259, 259, 'h', 'i'};
        expect_ids(t, "llama-bpe, parse_special", "<|begin_of_text|>hi", true, want_special, 4);
        const int want_literal[] = {259, '<', '|'};
        expect_ids(t, "llama-bpe, control text taken literally", "<|", false, want_literal, 3);
        CHECK(!strcmp(bb_tokenizer_decode(t, 259, 258), " wo") && !strcmp(bb_tokenizer_decode(t, -1, 259), "") &&
                  !strcmp(bb_tokenizer_decode(t, 0, 260), "<|x|>"),
              "decode: '%s' '%s' '%s'", bb_tokenizer_decode(t, 259, 258), bb_tokenizer_decode(t, -1, 259),
              bb_tokenizer_decode(t, 0, 260));
        bb_tokenizer_free(t);
    }
    t = tiny_bpe("gpt2", "gpt-2", 259, err, sizeof err);
    CHECK(t != NULL, "%s", err);
    if (t) { /* no BOS by default, and "Hello" from its bytes: gpt-2 merges every piece */
        const int want[] = {'H', 'e', 'l', 'l', 'o', 258, 'r', 'l', 'd'};
        expect_ids(t, "gpt-2", "Hello world", false, want, 9);
        bb_tokenizer_free(t);
    }
    static const struct {
        const char *model, *pre;
        uint32_t bos;
        const char *want1, *want2;
    } bad[] = {
        {"bert", "gpt-2", 259, "'bert'", "supported: llama (SentencePiece), gpt2"},
        {"gpt2", "qwen2", 259, "'qwen2'", "llama-bpe"},
        {"gpt2", NULL, 259, "tokenizer.ggml.pre is missing", "gpt-2"},
        {NULL, NULL, 259, "tokenizer.ggml.model", "missing"},
        {"gpt2", "gpt-2", 261, "bos_token_id' = 261", "261 tokens"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        t = tiny_bpe(bad[i].model, bad[i].pre, bad[i].bos, err, sizeof err);
        CHECK(!t && strstr(err, bad[i].want1) && strstr(err, bad[i].want2), "bad file %zu: '%s'", i, err);
        bb_tokenizer_free(t);
    }
}

/* Encoding speed on a real text; also that it decodes back. */
static void measure_gpl3(void)
{
    char path[1200], err[512];
    snprintf(path, sizeof path, "%s/golden/gguf/tokenizer/ggml-vocab-gpt-2.gguf", shared);
    char *text = slurp("/usr/share/common-licenses/GPL-3");
    if (!text) {
        printf("no /usr/share/common-licenses/GPL-3: speed not measured\n");
        return;
    }
    bb_tokenizer *t = bb_tokenizer_open_gguf(path, err, sizeof err);
    size_t len = strlen(text);
    int *ids = malloc(sizeof(int) * (len + 3));
    if (t && ids) {
        double t0 = bb_now();
        int n = bb_tokenizer_encode_ex(t, text, len, false, false, ids, (int)len + 3, err, sizeof err);
        double dt = bb_now() - t0;
        CHECK(n > 0, "%s", err);
        char *back = n > 0 ? decode_all(t, ids, n) : NULL;
        CHECK(back && !strcmp(back, text), "GPL-3 does not decode back to itself");
        free(back);
        printf("GPL-3 (%zu bytes) with the gpt-2 vocabulary: %d tokens in %.1f ms, %.0f tokens/s\n", len, n, dt * 1e3,
               n / dt);
    }
    free(ids);
    free(text);
    bb_tokenizer_free(t);
}

int main(void)
{
    shared_dir(shared, sizeof shared);
    check_vocab("ggml-vocab-llama-spm.gguf");
    check_vocab("ggml-vocab-gpt-2.gguf");
    check_llama_bpe_pretokenizer();
    check_stories260k();
    check_tiny_bpe();
    measure_gpl3();
    return check_summary("tokenizer_gguf");
}
