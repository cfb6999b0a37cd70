/* GGUF export (models/gguf_export.h) read back through models/gguf.h and the engine:
 *   - two tiny synthetic models (bitnet: tied, relu2, GQA; llama: untied, an FFN width 352 that
 *     the 128/256 blocks do not divide) to every type: each tensor has its rule's type and is bit
 *     for bit what the engine's kernel packs from the same weights (Q/K rows of bitnet in NEOX
 *     order), the metadata gives back the model's dimensions, the vocabulary is byte-level;
 *     exporting the exported file again to the same type gives the same file, byte for byte;
 *     the engine on the file gives the source's logits bit for bit where the file holds what the
 *     engine would make (f32; ternary linears with an f16 tied embedding);
 *   - stories260K.bin (llama2.c) to f32 against llama.cpp's own conversion: every tensor value
 *     and the vocabulary (tokens, scores, types) equal, and it tokenizes as tok512.bin does; the
 *     engine's logits equal the .bin's; the byte-level vocabulary spells a text in byte tokens;
 *   - llama.cpp's tiny BitNet TQ2_0 file exported to tq2_0 and tq1_0: tensor bytes equal to
 *     llama.cpp's TQ2_0 and TQ1_0 files (llama-quantize's output);
 *   - bad requests are one error line. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "models/gguf.h"
#include "models/gguf_export.h"
#include "models/gguf_names.h"
#include "models/gguf_source.h"
#include "models/gguf_types.h"
#include "models/gguf_vocab.h"
#include "models/llama2c.h"
#include "models/synthetic.h"
#include "models/tokenizer.h"

static char shared[1024];
static bb_pool *pool;

static const bb_tf_dims tiny_bitnet = {.dim = 256, .hidden_dim = 512, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2,
                                       .vocab_size = 300, .seq_len = 64, .style = BB_STYLE_BITNET, .sub_norms = true,
                                       .ffn_act = BB_FFN_RELU2, .tied_embedding = true};
static const bb_tf_dims tiny_llama = {.dim = 256, .hidden_dim = 352, .n_layers = 2, .n_heads = 4, .n_kv_heads = 4,
                                      .vocab_size = 260, .seq_len = 64, .style = BB_STYLE_LLAMA, .ffn_act = BB_FFN_SILU};

/* A file name of this process's own, so two builds' tests running at once do not write one file. */
static void tmp_file(char *out, size_t n, const char *name)
{
    snprintf(out, n, "/tmp/bb_test_export_%ld_%s", (long)getpid(), name);
}

static void upper(char *out, const char *s)
{
    while ((*out++ = (char)toupper((unsigned char)*s++))) {}
}

/* The type a tensor must have (gguf_export.h's rules, written out independently). */
static void expected_type(const bb_gguf_role *r, const bb_tf_dims *d, const char *target, size_t cols, char *out)
{
    bool ternary = !strcmp(target, "tq1_0") || !strcmp(target, "tq2_0") || !strcmp(target, "i2_s");
    bool fl = !strcmp(target, "f32") || !strcmp(target, "f16") || !strcmp(target, "bf16");
    bool emb = !strcmp(r->engine, "tok_embeddings"), out_role = !strcmp(r->engine, "wcls") || (emb && d->tied_embedding);
    const char *k = target;
    if (!r->linear && !emb && !out_role) k = "f32";
    else if (!r->linear && !fl) k = ternary ? "f16" : out_role ? "q8_0" : target;
    int block = !strcmp(k, "i2_s") ? 128 : (!strcmp(k, "q2_k") || !strncmp(k, "tq", 2)) ? 256 : strncmp(k, "f", 1) && strcmp(k, "bf16") ? 32 : 1;
    upper(out, cols % (size_t)block ? "f32" : k);
}

/* The bytes the engine's kernel packs for a tensor: whole, in engine row order, then (bitnet Q/K)
 * rows moved to the file's NEOX order. */
static uint8_t *engine_bytes(const bb_weight_source *src, const bb_tf_dims *d, const bb_gguf_role *r, int layer,
                             const char *kname)
{
    size_t rows, cols;
    bb_gguf_role_shape(r, d, &rows, &cols);
    float *w = malloc(rows * cols * sizeof *w);
    char err[256], lower[16];
    snprintf(lower, sizeof lower, "%s", kname);
    for (char *c = lower; *c; c++) *c = (char)tolower((unsigned char)*c);
    const bb_kernel *k = bb_kernel_by_name(lower);
    uint8_t *p = malloc(k->packed_size((int)rows, (int)cols));
    bb_weights bw = {.m = (int)rows, .k = (int)cols, .f32 = w};
    src->get(src->ctx, r->engine, r->global ? -1 : layer, w, rows * cols, err, sizeof err);
    CHECK(bb_kernel_pack(k, &bw, p, err, sizeof err) == 0, "%s", err);
    free(w);
    if (d->style == BB_STYLE_BITNET && (!strcmp(r->engine, "wq") || !strcmp(r->engine, "wk"))) {
        const bb_ggml_type *t = bb_ggml_type_by_name(kname);
        size_t rb = cols / t->block * t->block_bytes, hd = (size_t)bb_tf_head_dim(d);
        uint8_t *q = malloc(k->packed_size((int)rows, (int)cols));
        memcpy(q, p, k->packed_size((int)rows, (int)cols));
        for (size_t i = 0; i < rows; i++) memcpy(q + bb_gguf_neox_file_row(i, hd) * rb, p + i * rb, rb);
        free(p);
        p = q;
    }
    return p;
}

/* Every tensor of the file: present in role order, of its rule's type, with the engine's bytes. */
static void check_tensors(const bb_gguf *g, const bb_tf_dims *d, const bb_weight_source *src, const char *target)
{
    uint64_t i = 0;
    for (int layer = -1; layer < d->n_layers; layer++)
        for (int ri = 0; ri < bb_gguf_role_count(); ri++) {
            const bb_gguf_role *r = bb_gguf_role_at(ri);
            if (r->global != (layer < 0) || !bb_gguf_role_present(r, d)) continue;
            char name[96], want[16];
            bb_gguf_tensor_name(name, sizeof name, r, layer, "weight");
            const bb_gguf_tensor *t = i < bb_gguf_tensor_count(g) ? bb_gguf_tensor_at(g, i++) : NULL;
            if (!t || strcmp(t->name, name)) {
                CHECK(0, "%s: tensor %llu should be %s", target, (unsigned long long)i, name);
                return;
            }
            expected_type(r, d, target, t->ne[0], want);
            const char *type = bb_ggml_type_by_id(t->type)->name;
            CHECK(!strcmp(type, want), "%s: %s is %s, expected %s", target, name, type, want);
            uint8_t *p = engine_bytes(src, d, r, layer, type);
            CHECK(!memcmp(p, t->data, t->n_bytes), "%s: %s differs from the engine's %s bytes", target, name, type);
            free(p);
        }
    CHECK(i == bb_gguf_tensor_count(g), "%s: %llu tensors, expected %llu", target,
          (unsigned long long)bb_gguf_tensor_count(g), (unsigned long long)i);
}

static bool same_dims(const bb_tf_dims *a, const bb_tf_dims *b)
{
    return a->dim == b->dim && a->hidden_dim == b->hidden_dim && a->n_layers == b->n_layers && a->n_heads == b->n_heads &&
           a->n_kv_heads == b->n_kv_heads && a->vocab_size == b->vocab_size && a->seq_len == b->seq_len &&
           a->style == b->style && a->sub_norms == b->sub_norms && a->ffn_act == b->ffn_act &&
           a->tied_embedding == b->tied_embedding && bb_tf_head_dim(a) == bb_tf_head_dim(b);
}

static float *logits(const bb_tf_dims *d, const bb_weight_source *src, const char *kernel, const char *out_kernel)
{
    static const int ids[] = {1, 70, 200, 3, 255, 17};
    bb_tf_options opt = {.kernel = kernel, .out_kernel = out_kernel};
    char err[512];
    bb_transformer *tf = bb_tf_create(d, src, &opt, err, sizeof err);
    CHECK(tf != NULL, "%s", err);
    if (!tf) return NULL;
    float *out = malloc(sizeof(float) * (size_t)d->vocab_size * 6);
    memcpy(out, bb_tf_forward(tf, pool, ids, 4, 0, NULL), sizeof(float) * (size_t)d->vocab_size);
    for (int i = 4; i < 6; i++)
        memcpy(out + (size_t)(i - 3) * d->vocab_size, bb_tf_forward(tf, pool, &ids[i], 1, i, NULL),
               sizeof(float) * (size_t)d->vocab_size);
    bb_tf_free(tf);
    return out;
}

/* The engine on the file and on the source: bit-identical logits (3 positions). */
static void same_logits(const bb_tf_dims *d, const bb_weight_source *src, bb_gguf_model *m, const char *kernel,
                        const char *out_kernel)
{
    bb_weight_source fs = bb_gguf_model_source(m);
    float *a = logits(d, src, kernel, out_kernel), *b = logits(bb_gguf_model_dims(m), &fs, kernel, out_kernel);
    CHECK(a && b && !memcmp(a, b, sizeof(float) * (size_t)d->vocab_size * 3), "kernel %s / %s: logits differ", kernel,
          out_kernel);
    free(a);
    free(b);
}

static bool files_equal(const char *a, const char *b)
{
    static char x[1 << 16], y[1 << 16];
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool eq = fa && fb;
    for (size_t n = 1; eq && n;) {
        n = fread(x, 1, sizeof x, fa);
        eq = fread(y, 1, sizeof y, fb) == n && !memcmp(x, y, n);
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return eq;
}

/* The ids of text (BOS added as the tokenizer says); count in *n. */
static int *encode(const bb_tokenizer *t, const char *text, int *n)
{
    char err[256];
    int cap = (int)strlen(text) * 3 + 8, *ids = malloc(sizeof(int) * (size_t)cap);
    *n = bb_tokenizer_encode(t, text, ids, cap, err, sizeof err);
    CHECK(*n > 0, "%s", err);
    return ids;
}

/* The byte-level vocabulary loads as llama.cpp's SPM vocabularies do and spells any text in bytes. */
static void byte_vocab_tokenizes(const char *path)
{
    char err[256];
    bb_tokenizer *t = bb_tokenizer_open_gguf(path, err, sizeof err);
    CHECK(t != NULL, "%s", err);
    if (!t) return;
    const char *text = "Hi \xc3\xa9\n";
    int n, *ids = encode(t, text, &n);
    /* BOS, then the bytes of the dummy-prefix U+2581 and of the text, each its <0xXX> token */
    static const unsigned char bytes[] = {0xe2, 0x96, 0x81, 'H', 'i', 0xe2, 0x96, 0x81, 0xc3, 0xa9, '\n'};
    bool same = n == 1 + (int)sizeof bytes && ids[0] == 1;
    for (int i = 0; same && i < (int)sizeof bytes; i++) same = ids[1 + i] == 3 + bytes[i];
    CHECK(same, "byte-level vocabulary: %d ids for '%s'", n, text);
    free(ids);
    bb_tokenizer_free(t);
}

/* One tiny model to one type; the checks of the header's first item. */
static void synthetic_to(const bb_tf_dims *d, const char *target)
{
    bb_synthetic syn = {.dims = *d, .seed = 7};
    bb_weight_source src = bb_synthetic_source(&syn);
    char path[128], again[128], err[1024];
    char name[96];
    snprintf(name, sizeof name, "%d_%s.gguf", (int)d->style, target);
    tmp_file(path, sizeof path, name);
    snprintf(name, sizeof name, "%d_%s.again.gguf", (int)d->style, target);
    tmp_file(again, sizeof again, name);
    bb_gguf_export_options opt = {.type = target, .name = "tiny"};
    bb_gguf_export_report rep;
    CHECK(bb_gguf_export(path, d, &src, &opt, &rep, err, sizeof err) == 0, "%s", err);
    bb_gguf_model *m = bb_gguf_model_open(path, err, sizeof err);
    CHECK(m != NULL, "%s: %s", target, err);
    if (!m) return;
    const bb_gguf *g = bb_gguf_model_file(m);
    CHECK(same_dims(bb_gguf_model_dims(m), d), "%s: dimensions read back differ", target);
    CHECK(bb_gguf_file_size(g) == rep.file_bytes, "%s: report says %llu bytes", target, (unsigned long long)rep.file_bytes);
    check_tensors(g, d, &src, target);
    bb_gguf_array tokens;
    CHECK(bb_gguf_get_array(g, "tokenizer.ggml.tokens", BB_GGUF_STRING, &tokens, err, sizeof err) == 0 &&
              tokens.count == (uint64_t)d->vocab_size && !memcmp(bb_gguf_array_str(&tokens, 3 + 0x41).ptr, "<0x41>", 6),
          "%s: byte-level vocabulary", target);
    bool ternary = !strcmp(target, "i2_s") || !strncmp(target, "tq", 2);
    if (!strcmp(target, "f32")) byte_vocab_tokenizes(path);
    if (!strcmp(target, "f32")) same_logits(d, &src, m, "f32", "f32");
    if (ternary && d->tied_embedding) same_logits(d, &src, m, target, "f16");
    /* export(read(x)) == x: every tensor is stored in its planned type, so copied */
    bb_weight_source fs = bb_gguf_model_source(m);
    opt.vocab_from = g;
    CHECK(bb_gguf_export(again, bb_gguf_model_dims(m), &fs, &opt, &rep, err, sizeof err) == 0, "%s", err);
    CHECK(files_equal(path, again), "%s: exporting the exported file gives another file", target);
    bb_gguf_model_close(m);
    remove(path);
    remove(again);
}

static void synthetic_models(void)
{
    char types[128];
    snprintf(types, sizeof types, "%s", bb_gguf_export_types());
    int n = 0;
    for (char *t = strtok(types, ", "); t; t = strtok(NULL, ", "), n++) {
        synthetic_to(&tiny_bitnet, t);
        synthetic_to(&tiny_llama, t);
    }
    CHECK(n == 10, "%d export types", n);
}

/* Two arrays of a key hold the same values (strings, floats or ints, byte for byte). */
static bool same_array(const bb_gguf *a, const bb_gguf *b, const char *key)
{
    char err[256];
    bb_gguf_array x, y;
    if (bb_gguf_get_array(a, key, -1, &x, err, sizeof err) || bb_gguf_get_array(b, key, -1, &y, err, sizeof err) ||
        x.type != y.type || x.count != y.count)
        return false;
    for (uint64_t i = 0; i < x.count; i++) {
        if (x.type == BB_GGUF_STRING) {
            bb_gguf_str s = bb_gguf_array_str(&x, i), t = bb_gguf_array_str(&y, i);
            if (s.len != t.len || memcmp(s.ptr, t.ptr, s.len)) return false;
        } else if (memcmp(x.data + i * bb_gguf_vtype_size(x.type), y.data + i * bb_gguf_vtype_size(y.type),
                          bb_gguf_vtype_size(x.type))) {
            return false;
        }
    }
    return true;
}

/* Tensor `name` of a equals tensor `other` of b: type, shape and bytes. */
static void same_tensor(const bb_gguf *a, const char *name, const bb_gguf *b, const char *other)
{
    const bb_gguf_tensor *s = bb_gguf_find_tensor(a, name), *t = bb_gguf_find_tensor(b, other);
    CHECK(s && t && s->type == t->type && s->ne[0] == t->ne[0] && s->ne[1] == t->ne[1] && s->n_bytes == t->n_bytes &&
              !memcmp(s->data, t->data, s->n_bytes),
          "%s: %s differs from %s's %s", bb_gguf_path(a), name, bb_gguf_path(b), other);
}

/* llama2.c's stories260K and its tokenizer, exported as f32, against llama.cpp's conversion. */
static void stories260k(void)
{
    char bin[1200], tok[1200], golden[1200], err[1024];
    snprintf(bin, sizeof bin, "%s/models/stories260K/stories260K.bin", shared);
    snprintf(tok, sizeof tok, "%s/models/stories260K/tok512.bin", shared);
    snprintf(golden, sizeof golden, "%s/golden/gguf/stories260K/stories260K.gguf", shared);
    char path[160];
    tmp_file(path, sizeof path, "stories260K.gguf");
    bb_llama2c *c = bb_llama2c_open(bin, err, sizeof err);
    CHECK(c != NULL, "%s", err);
    if (!c) return;
    bb_weight_source src = bb_llama2c_source(c);
    bb_gguf_vocab v;
    CHECK(bb_gguf_vocab_from_llama2c(tok, 512, &v, err, sizeof err) == 0, "%s", err);
    bb_gguf_export_options opt = {.type = "f32", .name = "stories260K", .vocab = &v};
    bb_gguf_export_report rep;
    CHECK(bb_gguf_export(path, bb_llama2c_dims(c), &src, &opt, &rep, err, sizeof err) == 0, "%s", err);
    CHECK(rep.n_tensors == 47 && rep.n_types == 1 && !rep.fallbacks[0], "47 F32 tensors, no fallback");
    bb_gguf *a = bb_gguf_open(path, err, sizeof err), *b = bb_gguf_open(golden, err, sizeof err);
    CHECK(a && b, "%s", err);
    if (a && b) {
        for (uint64_t i = 0; i < bb_gguf_tensor_count(a); i++) {
            const char *name = bb_gguf_tensor_at(a, i)->name;
            same_tensor(a, name, b, name);
        }
        same_tensor(a, "token_embd.weight", b, "output.weight"); /* llama.cpp writes the tied classifier again */
        CHECK(same_array(a, b, "tokenizer.ggml.tokens") && same_array(a, b, "tokenizer.ggml.scores") &&
                  same_array(a, b, "tokenizer.ggml.token_type"), "the vocabulary differs from llama.cpp's");
        bb_tokenizer *ta = bb_tokenizer_open_gguf(path, err, sizeof err), *tb = bb_tokenizer_load(tok, 512, err, sizeof err);
        CHECK(ta && tb, "%s", err);
        if (ta && tb) {
            const char *text = "Once upon a time, a little dog named Max found a shiny red ball.\nThe end.";
            int na, nb, *ia = encode(ta, text, &na), *ib = encode(tb, text, &nb);
            CHECK(na == nb && !memcmp(ia, ib, sizeof(int) * (size_t)na), "the exported vocabulary tokenizes as tok512.bin");
            free(ia);
            free(ib);
        }
        bb_tokenizer_free(ta);
        bb_tokenizer_free(tb);
        bb_gguf_model *m = bb_gguf_model_open(path, err, sizeof err);
        CHECK(m != NULL, "%s", err);
        if (m) {
            same_logits(bb_llama2c_dims(c), &src, m, "f32", "f32");
            same_logits(bb_llama2c_dims(c), &src, m, "q8_0", "f16");
            bb_gguf_model_close(m);
        }
    }
    bb_gguf_close(a);
    bb_gguf_close(b);
    bb_gguf_vocab_free(&v);
    bb_llama2c_close(c);
    remove(path);
}

/* llama.cpp's tiny BitNet in TQ2_0 exported to tq2_0 and tq1_0 equals its TQ2_0 and TQ1_0 files. */
static void tiny_bitnet_files(void)
{
    char tq2[1200], tq1[1200], err[1024];
    snprintf(tq2, sizeof tq2, "%s/golden/gguf/bitnet/tiny-bitnet-tq2_0-embf16.gguf", shared);
    snprintf(tq1, sizeof tq1, "%s/golden/gguf/bitnet/tiny-bitnet-tq1_0-embf16.gguf", shared);
    const char *targets[2] = {"tq2_0", "tq1_0"}, *goldens[2] = {tq2, tq1};
    bb_gguf_model *m = bb_gguf_model_open(tq2, err, sizeof err);
    CHECK(m != NULL, "%s", err);
    if (!m) return;
    for (int i = 0; i < 2; i++) {
        char path[160];
        tmp_file(path, sizeof path, "tiny_bitnet.gguf");
        bb_weight_source src = bb_gguf_model_source(m);
        bb_gguf_export_options opt = {.type = targets[i], .name = "tiny", .vocab_from = bb_gguf_model_file(m)};
        bb_gguf_export_report rep;
        CHECK(bb_gguf_export(path, bb_gguf_model_dims(m), &src, &opt, &rep, err, sizeof err) == 0, "%s", err);
        bb_gguf *a = bb_gguf_open(path, err, sizeof err), *b = bb_gguf_open(goldens[i], err, sizeof err);
        CHECK(a && b && bb_gguf_tensor_count(a) == bb_gguf_tensor_count(b), "%s: tensor count", targets[i]);
        for (uint64_t t = 0; a && b && t < bb_gguf_tensor_count(b); t++) {
            const char *name = bb_gguf_tensor_at(b, t)->name;
            same_tensor(a, name, b, name);
        }
        CHECK(a && b && same_array(a, b, "tokenizer.ggml.tokens"), "the vocabulary is copied");
        bb_gguf_close(a);
        bb_gguf_close(b);
        remove(path);
    }
    bb_gguf_model_close(m);
}

static void expect_error(const bb_tf_dims *d, const char *type, const char *want)
{
    bb_synthetic syn = {.dims = *d, .seed = 1};
    bb_weight_source src = bb_synthetic_source(&syn);
    bb_gguf_export_options opt = {.type = type, .name = "x"};
    bb_gguf_export_report rep;
    char err[512] = "";
    char path[160];
    tmp_file(path, sizeof path, "bad.gguf");
    CHECK(bb_gguf_export(path, d, &src, &opt, &rep, err, sizeof err) != 0 && strstr(err, want), "'%s' should contain '%s'",
          err, want);
    FILE *f = fopen(path, "rb");
    CHECK(f == NULL, "no file is left after '%s'", want);
    if (f) fclose(f);
}

static void bad_requests(void)
{
    expect_error(&tiny_llama, "q4_k", "type 'q4_k' cannot be exported; valid: f32, f16, bf16, q8_0");
    bb_tf_dims d = tiny_llama;
    d.ffn_act = BB_FFN_RELU2;
    expect_error(&d, "f32", "llama architecture has no squared-ReLU FFN");
    d = tiny_llama;
    d.vocab_size = 200;
    expect_error(&d, "f32", "a byte-level vocabulary needs at least 259 tokens");
    d = tiny_llama;
    d.seq_len = 0;
    expect_error(&d, "f32", "seq_len = 0");
    char err[512];
    bb_gguf_vocab v;
    CHECK(bb_gguf_vocab_from_llama2c("/nonexistent/tok.bin", 512, &v, err, sizeof err) != 0 &&
              strstr(err, "/nonexistent/tok.bin: cannot open"), "%s", err);
    char tok[1200];
    snprintf(tok, sizeof tok, "%s/models/stories260K/tok512.bin", shared);
    CHECK(bb_gguf_vocab_from_llama2c(tok, 600, &v, err, sizeof err) != 0 && strstr(err, "holds 512 tokens, the model needs 600"),
          "%s", err);
}

int main(void)
{
    shared_dir(shared, sizeof shared);
    char err[256];
    pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (!pool) return check_summary("test_export");
    synthetic_models();
    stories260k();
    tiny_bitnet_files();
    bad_requests();
    bb_pool_destroy(pool);
    return check_summary("test_export");
}
