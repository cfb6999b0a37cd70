/* The streaming GGUF writer (models/gguf_write.h): a file with every metadata value type and
 * tensors of several ggml types, written in pieces, reads back through models/gguf.h with every
 * key, value, shape, offset and data byte as written; bad uses give one line naming the key or
 * tensor, and a failed file is removed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "models/gguf.h"
#include "models/gguf_types.h"
#include "models/gguf_write.h"

static const char *path = "/tmp/bb_test_gguf_write.gguf";

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

/* Tensors of the round trip: name, type, dims, shape. */
static const struct { const char *name; uint32_t type; int n_dims; uint64_t ne[4]; } tensors[] = {
    {"a.f32", BB_GGML_F32, 1, {7}},          {"b.q4_0", BB_GGML_Q4_0, 2, {64, 3}},
    {"c.i2_s", BB_GGML_I2_S, 2, {128, 5}},   {"d.tq1_0", BB_GGML_TQ1_0, 3, {256, 2, 2}},
    {"e.f16", BB_GGML_F16, 4, {3, 1, 2, 1}},
};
enum { N_TENSORS = sizeof tensors / sizeof tensors[0] };

static uint64_t expected_bytes(int i)
{
    const bb_ggml_type *t = bb_ggml_type_by_id(tensors[i].type);
    uint64_t n = 1;
    for (int d = 0; d < tensors[i].n_dims; d++) n *= tensors[i].ne[d];
    return n / t->block * t->block_bytes + t->tail_bytes;
}

static void write_file(uint8_t *data[N_TENSORS])
{
    char err[512];
    bb_gguf_writer *w = bb_gguf_writer_create(path, err, sizeof err);
    CHECK(w != NULL, "%s", err);
    if (!w) return;
    const char *strs[] = {"<unk>", "", "\xe2\x96\x81the"};
    const float floats[] = {0.5f, -1.25f};
    const int32_t ints[] = {2, 3, 6};
    int rc = bb_gguf_set_str(w, "general.architecture", "llama") || bb_gguf_set_u32(w, "u32", 4000000000u) ||
             bb_gguf_set_i32(w, "i32", -7) || bb_gguf_set_u64(w, "u64", 1ull << 40) ||
             bb_gguf_set_f32(w, "f32", 1e-5f) || bb_gguf_set_bool(w, "flag", true) ||
             bb_gguf_set_alignment(w, 64) || bb_gguf_set_str_array(w, "strs", strs, 3) ||
             bb_gguf_set_array(w, "floats", BB_GGUF_FLOAT32, floats, 2) ||
             bb_gguf_set_array(w, "ints", BB_GGUF_INT32, ints, 3);
    for (int i = 0; i < N_TENSORS && !rc; i++)
        rc = bb_gguf_add_tensor(w, tensors[i].name, tensors[i].type, tensors[i].n_dims, tensors[i].ne);
    CHECK(rc == 0, "%s", bb_gguf_writer_error(w));
    uint64_t size = bb_gguf_writer_file_size(w);
    for (int i = 0; i < N_TENSORS && !rc; i++) { /* in three pieces */
        uint64_t n = expected_bytes(i), bytes;
        CHECK(!strcmp(bb_gguf_writer_current(w, &bytes), tensors[i].name) && bytes == n, "current tensor %d", i);
        size_t a = (size_t)n / 3, b = (size_t)n / 2;
        rc = bb_gguf_write_data(w, data[i], a) || bb_gguf_write_data(w, data[i] + a, b - a) ||
             bb_gguf_write_data(w, data[i] + b, (size_t)n - b);
    }
    CHECK(bb_gguf_writer_current(w, NULL) == NULL, "all tensors complete");
    CHECK(bb_gguf_writer_finish(w, err, sizeof err) == 0, "%s", err);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    CHECK((uint64_t)ftell(f) == size, "file size %ld, announced %llu", ftell(f), (unsigned long long)size);
    fclose(f);
}

static void check_metadata(const bb_gguf *g)
{
    char err[256];
    uint32_t u32;
    int32_t i32;
    uint64_t u64;
    float f;
    bool b;
    bb_gguf_str s;
    bb_gguf_array a;
    CHECK(bb_gguf_get_str(g, "general.architecture", &s, err, sizeof err) == 0 && s.len == 5 &&
              !memcmp(s.ptr, "llama", 5), "architecture");
    CHECK(bb_gguf_get_u32(g, "u32", &u32, err, sizeof err) == 0 && u32 == 4000000000u, "u32");
    CHECK(bb_gguf_get_i32(g, "i32", &i32, err, sizeof err) == 0 && i32 == -7, "i32");
    CHECK(bb_gguf_get_u64(g, "u64", &u64, err, sizeof err) == 0 && u64 == 1ull << 40, "u64");
    CHECK(bb_gguf_get_f32(g, "f32", &f, err, sizeof err) == 0 && f == 1e-5f, "f32");
    CHECK(bb_gguf_get_bool(g, "flag", &b, err, sizeof err) == 0 && b, "bool");
    CHECK(bb_gguf_alignment(g) == 64, "alignment %u", bb_gguf_alignment(g));
    CHECK(bb_gguf_get_array(g, "strs", BB_GGUF_STRING, &a, err, sizeof err) == 0 && a.count == 3, "strs");
    if (a.count == 3) {
        bb_gguf_str s1 = bb_gguf_array_str(&a, 1), s2 = bb_gguf_array_str(&a, 2);
        CHECK(s1.len == 0 && s2.len == 6 && !memcmp(s2.ptr, "\xe2\x96\x81the", 6), "string elements");
    }
    double d;
    int64_t v;
    CHECK(bb_gguf_get_array(g, "floats", BB_GGUF_FLOAT32, &a, err, sizeof err) == 0 && a.count == 2 &&
              bb_gguf_array_float(&a, 1, &d) && d == -1.25, "floats");
    CHECK(bb_gguf_get_array(g, "ints", BB_GGUF_INT32, &a, err, sizeof err) == 0 && a.count == 3 &&
              bb_gguf_array_int(&a, 2, &v) && v == 6, "ints");
    CHECK(bb_gguf_kv_count(g) == 10, "10 keys (alignment included), got %llu", (unsigned long long)bb_gguf_kv_count(g));
}

static void round_trip(void)
{
    uint8_t *data[N_TENSORS];
    for (int i = 0; i < N_TENSORS; i++) {
        data[i] = malloc((size_t)expected_bytes(i));
        fill(data[i], (size_t)expected_bytes(i), (unsigned)i);
    }
    write_file(data);
    char err[512];
    bb_gguf *g = bb_gguf_open(path, err, sizeof err);
    CHECK(g != NULL, "%s", err);
    if (g) {
        check_metadata(g);
        CHECK(bb_gguf_tensor_count(g) == N_TENSORS, "tensor count");
        for (int i = 0; i < N_TENSORS && (uint64_t)i < bb_gguf_tensor_count(g); i++) {
            const bb_gguf_tensor *t = bb_gguf_tensor_at(g, (uint64_t)i);
            CHECK(!strcmp(t->name, tensors[i].name) && t->type == tensors[i].type && t->n_dims == tensors[i].n_dims,
                  "tensor %d: %s", i, t->name);
            for (int d = 0; d < tensors[i].n_dims; d++) CHECK(t->ne[d] == tensors[i].ne[d], "%s ne[%d]", t->name, d);
            CHECK(t->offset % 64 == 0 && t->n_bytes == expected_bytes(i), "%s offset/size", t->name);
            CHECK(!memcmp(t->data, data[i], (size_t)t->n_bytes), "%s data", t->name);
        }
        bb_gguf_close(g);
    }
    for (int i = 0; i < N_TENSORS; i++) free(data[i]);
    unlink(path);
}

/* One misuse: the error line contains want, and (finish) the file is gone. */
static void expect_error(bb_gguf_writer *w, int rc, const char *want)
{
    char err[512] = "";
    CHECK(rc != 0, "expected an error containing '%s'", want);
    int frc = bb_gguf_writer_finish(w, err, sizeof err);
    CHECK(frc != 0 && strstr(err, want) && strstr(err, path), "error '%s' should contain '%s'", err, want);
    CHECK(access(path, F_OK) != 0, "a failed file is removed (%s)", want);
}

static void misuse(void)
{
    char err[256];
    uint64_t ne[2] = {100, 2}, ok[2] = {64, 2}, zero[2] = {64, 0};
    bb_gguf_writer *w = bb_gguf_writer_create(path, err, sizeof err);
    expect_error(w, bb_gguf_set_u32(w, "k", 1) || bb_gguf_set_str(w, "k", "x"), "key 'k' is set twice");
    w = bb_gguf_writer_create(path, err, sizeof err);
    expect_error(w, bb_gguf_add_tensor(w, "q", BB_GGML_Q4_0, 2, ne), "row length 100 is not a multiple of Q4_0's block 32");
    w = bb_gguf_writer_create(path, err, sizeof err);
    expect_error(w, bb_gguf_add_tensor(w, "z", BB_GGML_F32, 2, zero), "tensor 'z': dimension 1 is 0");
    w = bb_gguf_writer_create(path, err, sizeof err);
    expect_error(w, bb_gguf_add_tensor(w, "t", 4, 2, ok), "type id 4 is not a ggml type");
    w = bb_gguf_writer_create(path, err, sizeof err);
    expect_error(w, bb_gguf_add_tensor(w, "t", BB_GGML_F32, 2, ok) || bb_gguf_add_tensor(w, "t", BB_GGML_F32, 2, ok),
                 "tensor 't' is declared twice");
    w = bb_gguf_writer_create(path, err, sizeof err);
    char long_name[65];
    memset(long_name, 'x', 64);
    long_name[64] = 0;
    expect_error(w, bb_gguf_add_tensor(w, long_name, BB_GGML_F32, 2, ok),
                 "has 64 bytes (valid: 1..63)");
    w = bb_gguf_writer_create(path, err, sizeof err);
    expect_error(w, bb_gguf_set_alignment(w, 48), "48 is not a power of two");
    uint8_t buf[1024] = {0};
    w = bb_gguf_writer_create(path, err, sizeof err);
    expect_error(w, bb_gguf_add_tensor(w, "t", BB_GGML_F32, 2, ok) || bb_gguf_write_data(w, buf, 513),
                 "tensor 't': 513 bytes written where 512 of its 512 remain");
    w = bb_gguf_writer_create(path, err, sizeof err);
    expect_error(w, bb_gguf_add_tensor(w, "t", BB_GGML_F32, 2, ok) || bb_gguf_write_data(w, buf, 100) ||
                        bb_gguf_set_u32(w, "late", 1),
                 "key 'late': metadata added after tensor data was written");
    w = bb_gguf_writer_create(path, err, sizeof err);
    expect_error(w, bb_gguf_add_tensor(w, "t", BB_GGML_F32, 2, ok) || bb_gguf_write_data(w, buf, 100) ? 0 : 1,
                 "tensor 't' got 100 of its 512 bytes; the file is incomplete");
    CHECK(bb_gguf_writer_create("/nonexistent-dir/x.gguf", err, sizeof err) == NULL &&
              strstr(err, "/nonexistent-dir/x.gguf: cannot write it: the folder /nonexistent-dir does not exist"),
          "unwritable path: %s", err);
    CHECK(bb_gguf_writer_create("/dev/null", err, sizeof err) == NULL && strstr(err, "/dev/null: is a character device"),
          "a device is refused: %s", err);
}

/* A failed or abandoned write leaves the file already at path byte for byte as it was (before,
 * the writer truncated it at create and removed it on failure). */
static void keeps_previous(void)
{
    static const char previous[] = "the previous file";
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(previous, 1, sizeof previous, f) == sizeof previous && fclose(f) == 0, "write %s", path);
    char err[512], got[64] = "";
    uint64_t ok[2] = {64, 2};
    uint8_t buf[100] = {0};
    bb_gguf_writer *w = bb_gguf_writer_create(path, err, sizeof err);
    CHECK(w && !bb_gguf_add_tensor(w, "t", BB_GGML_F32, 2, ok) && !bb_gguf_write_data(w, buf, sizeof buf), "%s", err);
    CHECK(bb_gguf_writer_finish(w, err, sizeof err) != 0 && strstr(err, "the file is incomplete"), "%s", err);
    w = bb_gguf_writer_create(path, err, sizeof err);
    CHECK(w && !bb_gguf_add_tensor(w, "t", BB_GGML_F32, 2, ok) && !bb_gguf_write_data(w, buf, sizeof buf), "%s", err);
    bb_gguf_writer_abort(w);
    f = fopen(path, "rb");
    size_t n = f ? fread(got, 1, sizeof got, f) : 0;
    if (f) fclose(f);
    CHECK(n == sizeof previous && !memcmp(got, previous, n), "the previous file survives a failed and an aborted write");
    unlink(path);
}

int main(void)
{
    round_trip();
    misuse();
    keeps_previous();
    return check_summary("test_gguf_write");
}
