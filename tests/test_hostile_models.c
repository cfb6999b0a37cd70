/* Damaged and hostile model files (issue 23): each case once crashed, read out of bounds or was
 * accepted silently.
 *   - a llama2.c tokenizer smaller than 259 pieces: run.c's byte fallback (id = byte + 3) points
 *     past the vocabulary, so encoding a byte it lacks must give ids inside the vocabulary;
 *   - a llama2.c header whose vocab_size is INT32_MIN (its negation overflows: UBSan in the
 *     sanitizer build) is refused in one line;
 *   - NaN or Inf weights in a llama2.c checkpoint or a GGUF file are refused with the file and
 *     the tensor named, and run when the user allows them (models/weights_finite.h);
 *   - (issue 29) a FIFO, a character device (/dev/zero) or a directory given as a llama2.c
 *     checkpoint, a GGUF file, a tokenizer, a model config or an experiment is refused with one
 *     line naming it, at once: a FIFO used to block the reader forever (an alarm fails the test
 *     if one still does), /dev/zero to be read until memory ran out. */
#include <lauxlib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "llama2c_files.h"
#include "models/gguf.h"
#include "models/gguf_export.h"
#include "models/gguf_vocab.h"
#include "models/llama2c.h"
#include "models/model_config.h"
#include "models/model_load.h"
#include "models/tokenizer.h"
#include "models/weights_finite.h"
#include "support/input_file.h"
#include "support/lua_file.h"

enum { DIM = 16, HIDDEN = 32, LAYERS = 1, HEADS = 2, SEQ = 8 };

/* A tied llama2.c checkpoint of small random weights; poke[i] (at float offset poke_at[i] after
 * the header) replaces one value. */
static void write_checkpoint(const char *path, int32_t vocab, const size_t *poke_at, const float *poke, int npoke)
{
    size_t hd = DIM / HEADS, kv = (size_t)HEADS * hd;
    size_t n = (size_t)vocab * DIM + LAYERS * (DIM + 2 * (size_t)DIM * DIM + 2 * kv * DIM + DIM + 3 * (size_t)HIDDEN * DIM) +
               DIM + SEQ * hd;
    float *w = malloc(sizeof(float) * n);
    uint32_t s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        w[i] = ((float)(s >> 8) / 16777216.0f - 0.5f) * 0.2f;
    }
    for (int i = 0; i < npoke; i++) w[poke_at[i]] = poke[i];
    int32_t h[7] = {DIM, HIDDEN, LAYERS, HEADS, HEADS, vocab, SEQ};
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(h, sizeof h, 1, f) != 1 || fwrite(w, sizeof(float), n, f) != n || fclose(f)) {
        perror(path);
        exit(1);
    }
    free(w);
}

/* A llama2.c tokenizer of 32 pieces: the three specials, a..z, " ", "e ", "th". */
static void write_tokenizer32(const char *path)
{
    const char *pieces[32] = {"<unk>", "<s>", "</s>", " ", "e ", "th"};
    static char letters[26][2];
    for (int i = 0; i < 26; i++) {
        letters[i][0] = (char)('a' + i);
        pieces[6 + i] = letters[i];
    }
    write_llama2c_tokenizer(path, pieces, 32, 5);
}

static void small_vocab_byte_fallback(const char *dir)
{
    char model[512], tok[512], err[1024];
    snprintf(model, sizeof model, "%s/m32.bin", dir);
    snprintf(tok, sizeof tok, "%s/tok32.bin", dir);
    write_checkpoint(model, 32, NULL, NULL, 0);
    write_tokenizer32(tok);
    bb_model_source *m = bb_model_source_open(model, NULL, err, sizeof err);
    CHECK(m != NULL, "%s", err);
    if (!m) return;
    bb_tokenizer *t = bb_model_source_tokenizer(m, tok, err, sizeof err);
    CHECK(t != NULL, "%s", err);
    if (t) {
        int ids[64];
        int n = bb_tokenizer_encode(t, "HI \xff", ids, 64, err, sizeof err);
        CHECK(n > 1, "encode: %s", err);
        for (int i = 0; i < n; i++)
            CHECK(ids[i] >= 0 && ids[i] < 32, "token %d of \"HI\\xff\" is id %d, outside the 32-token vocabulary", i,
                  ids[i]);
        bb_tokenizer_free(t);
    }
    bb_model_source_close(m);
}

static void vocab_int_min(const char *dir)
{
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/intmin.bin", dir);
    int32_t h[7] = {DIM, HIDDEN, LAYERS, HEADS, HEADS, INT32_MIN, SEQ};
    FILE *f = fopen(path, "wb");
    fwrite(h, sizeof h, 1, f);
    fwrite(h, sizeof h, 1, f);
    fclose(f);
    bb_llama2c *c = bb_llama2c_open(path, err, sizeof err);
    CHECK(c == NULL && strstr(err, "intmin.bin: not a llama2.c checkpoint") && strstr(err, "vocab=-2147483648"),
          "vocab_size INT32_MIN: %s", c ? "accepted" : err);
    bb_llama2c_close(c);
}

/* Build the engine for `model` with kernel; the error ("" when it builds). */
static void build(const char *model, const char *kernel, char *err, size_t errlen)
{
    char warn[512];
    bb_tf_options o = {.kernel = kernel, .out_kernel = "f32"};
    err[0] = 0;
    bb_transformer *t = bb_model_load_engine(model, 0, &o, NULL, warn, sizeof warn, err, errlen);
    if (t) err[0] = 0;
    bb_tf_free(t);
}

static void nonfinite_llama2c(const char *dir, char *nan_bin, size_t len)
{
    char path[512], err[1024];
    const int V = 300;
    size_t wq = (size_t)V * DIM + LAYERS * DIM; /* tok_embeddings, rms_att, then wq */
    size_t hd = DIM / HEADS, kv = (size_t)HEADS * hd;
    size_t rms_final = wq + LAYERS * (2 * (size_t)DIM * DIM + 2 * kv * DIM + DIM + 3 * (size_t)HIDDEN * DIM);
    snprintf(nan_bin, len, "%s/nan.bin", dir);
    write_checkpoint(nan_bin, V, (size_t[]){wq + 5}, (float[]){NAN}, 1);
    build(nan_bin, "f32", err, sizeof err);
    CHECK(strstr(err, "nan.bin: tensor 'wq' of layer 0 holds a non-finite value (nan) at element 5") &&
              strstr(err, "--allow-nonfinite"), "NaN in wq: %s", err[0] ? err : "accepted");
    snprintf(path, sizeof path, "%s/inf.bin", dir);
    write_checkpoint(path, V, (size_t[]){rms_final + 3}, (float[]){-INFINITY}, 1);
    build(path, "i2_s", err, sizeof err);
    CHECK(strstr(err, "inf.bin: tensor 'rms_final' holds a non-finite value (-inf) at element 3"), "-Inf in rms_final: %s",
          err[0] ? err : "accepted");
    bb_weights_allow_nonfinite(true);
    build(nan_bin, "f32", err, sizeof err);
    CHECK(!err[0], "allowed NaN weights: %s", err);
    bb_weights_allow_nonfinite(false);
}

/* The same NaN in a GGUF file (exported while allowed): refused through get() (q8_0 converts)
 * and through the as-stored path (f32 takes F32 tensors as they are). */
static void nonfinite_gguf(const char *dir, const char *nan_bin)
{
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/nan.gguf", dir);
    bb_weights_allow_nonfinite(true);
    bb_llama2c *c = bb_llama2c_open(nan_bin, err, sizeof err);
    CHECK(c != NULL, "%s", err);
    if (!c) return;
    bb_weight_source src = bb_llama2c_source(c);
    bb_gguf_export_options opt = {.type = "f32", .name = "nan"};
    bb_gguf_export_report rep;
    CHECK(bb_gguf_export(path, bb_llama2c_dims(c), &src, &opt, &rep, err, sizeof err) == 0, "%s", err);
    bb_llama2c_close(c);
    bb_weights_allow_nonfinite(false);
    const char *kernels[] = {"f32", "q8_0"};
    for (int i = 0; i < 2; i++) {
        build(path, kernels[i], err, sizeof err);
        CHECK(strstr(err, "nan.gguf: tensor 'blk.0.attn_q.weight' holds a non-finite value (nan) at element 5"),
              "NaN in a GGUF, kernel %s: %s", kernels[i], err[0] ? err : "accepted");
    }
    setenv("BITBENCH_ALLOW_NONFINITE", "1", 1);
    build(path, "f32", err, sizeof err);
    CHECK(!err[0], "BITBENCH_ALLOW_NONFINITE=1: %s", err);
    unsetenv("BITBENCH_ALLOW_NONFINITE");
}

/* One refusal: NULL / non-zero, the path and "not a regular file" in one line. */
static void expect_refused(const char *reader, const char *path, int refused, const char *err)
{
    CHECK(refused && strstr(err, path) && strstr(err, "not a regular file") && !strchr(err, '\n'),
          "%s of %s: %s", reader, path, refused ? err : "accepted");
}

static void non_regular_files(const char *dir)
{
    char fifo[600], dirpath[600], beside[600], err[1024];
    snprintf(fifo, sizeof fifo, "%s/tokenizer.bin", dir); /* a FIFO where the tokenizer is looked for */
    snprintf(dirpath, sizeof dirpath, "%s/sub", dir);
    CHECK(mkfifo(fifo, 0600) == 0 && mkdir(dirpath, 0700) == 0, "mkfifo / mkdir in %s", dir);
    const char *paths[3] = {fifo, "/dev/zero", dirpath};
    alarm(20); /* a reader that blocks fails the test instead of hanging it */
    for (int i = 0; i < 3; i++) {
        const char *p = paths[i];
        err[0] = 0;
        bb_llama2c *c = bb_llama2c_open(p, err, sizeof err);
        expect_refused("bb_llama2c_open", p, !c, err);
        bb_llama2c_close(c);
        bb_gguf *g = bb_gguf_open(p, err, sizeof err);
        expect_refused("bb_gguf_open", p, !g, err);
        bb_gguf_close(g);
        bb_tokenizer *t = bb_tokenizer_load(p, 32, err, sizeof err);
        expect_refused("bb_tokenizer_load", p, !t, err);
        bb_tokenizer_free(t);
        bb_gguf_vocab v;
        memset(&v, 0, sizeof v);
        int rc = bb_gguf_vocab_from_llama2c(p, 32, &v, err, sizeof err);
        expect_refused("bb_gguf_vocab_from_llama2c", p, rc != 0, err);
        if (!rc) bb_gguf_vocab_free(&v);
        bb_model_config cfg;
        expect_refused("bb_model_load_file", p, bb_model_load_file(p, &cfg, err, sizeof err) != 0, err);
        lua_State *L = luaL_newstate();
        rc = bb_lua_load_file(L, p, "Lua experiment", BB_INPUT_ANY_SIZE);
        snprintf(err, sizeof err, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
        expect_refused("bb_lua_load_file", p, rc == LUA_ERRFILE, err);
        lua_close(L);
    }
    /* Looking beside a checkpoint for its tokenizer (no tok64.bin here) names the FIFO
     * tokenizer.bin without opening it. */
    snprintf(beside, sizeof beside, "%s/model.bin", dir);
    char found[600];
    CHECK(bb_llama2c_tokenizer_beside(beside, 64, found, sizeof found) == 0 && strcmp(found, fifo) == 0,
          "tokenizer beside %s: %s", beside, found);
    alarm(0);
    unlink(fifo);
    rmdir(dirpath);
}

int main(void)
{
    char dir[] = "/tmp/bb_test_hostile_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char nan_bin[512];
    small_vocab_byte_fallback(dir);
    vocab_int_min(dir);
    nonfinite_llama2c(dir, nan_bin, sizeof nan_bin);
    nonfinite_gguf(dir, nan_bin);
    non_regular_files(dir);
    const char *names[] = {"m32.bin", "tok32.bin", "intmin.bin", "nan.bin", "inf.bin", "nan.gguf"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
    return check_summary("hostile_models");
}
