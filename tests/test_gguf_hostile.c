/* The GGUF reader (models/gguf.h) on files built here, byte by byte from the format description
 * (ggml docs/gguf.md): one with every metadata value type, an array of strings and nested arrays,
 * and F32 / Q8_0 / I2_S / Q6_K / Q5_K tensors whose decoded values are worked out from the
 * block layouts (gguf_types.h, kernels/common/q6_k.h) - with alignments 64, 1 (unaligned blocks)
 * and the default; then hostile copies: every truncation of it, truncations of a golden file
 * across header, metadata, tensor infos and data, and one file per bad field (versions, counts
 * of 2^63, lengths past the end, absurd nesting, n_dims, zero and overflowing dims, unknown and
 * removed type ids, misaligned and out-of-file offsets, duplicate names and keys, alignments 0
 * and 3, bad value types and bools).  Each must fail with one line naming the file and the field
 * or tensor; none may crash (this test runs in the sanitizer build too). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "gguf_bytes.h"
#include "kernels/common/fp16.h"
#include "models/gguf.h"
#include "models/gguf_types.h"

static char tmpdir[256], shared[1024];

/* ---- the test file, written with gguf_bytes.h ---- */

/* Where the fields that the hostile cases change were written. */
enum { NT = 5 };
typedef struct {
    size_t version, n_tensors, n_kv, key0_len, key_i8, u8_type, bool_value, str_len, strs_count, strs_type;
    size_t name[NT], n_dims[NT], dim0[NT], dim1[NT], type[NT], offset[NT];
    uint64_t alignment;
} layout;

/* depth levels of arrays: element 0 holds the next level, element 1 an array of two strings;
 * the innermost is UINT8 [1, 2, 3]. */
static void put_nested(gguf_buf *o, int depth)
{
    if (depth == 1) {
        put_u32(o, BB_GGUF_UINT8);
        put_u64(o, 3);
        for (uint8_t v = 1; v <= 3; v++) put_u8(o, v);
        return;
    }
    put_u32(o, BB_GGUF_ARRAY);
    put_u64(o, 2);
    put_nested(o, depth - 1);
    put_u32(o, BB_GGUF_STRING);
    put_u64(o, 2);
    put_str(o, "x");
    put_str(o, "yz");
}

static const char *const tnames[NT] = {"a.f32", "b.q8_0", "c.i2_s", "d.q6_k", "e.q5_k"};
static const uint32_t ttypes[NT] = {BB_GGML_F32, BB_GGML_Q8_0, BB_GGML_I2_S, BB_GGML_Q6_K, 13};
static const uint64_t tdims[NT][2] = {{8, 2}, {32, 3}, {128, 2}, {256, 1}, {256, 1}};

/* I2_S test codes (t in {-1, 0, 1}) and Q6_K test codes / scales. */
static int i2s_t(uint64_t i) { return (int)((i * 7 + i / 5) % 3) - 1; }
static int q6_code(int i) { return (i * 7 + 3) % 64; }
static int8_t q6_scale(int j) { return (int8_t)(j * 3 - 20); }

static void put_tensor_data(gguf_buf *o, int t)
{
    if (t == 0) {
        for (int i = 0; i < 16; i++) { float v = (float)i * 0.5f - 3; put(o, &v, 4); }
    } else if (t == 1) {
        for (int r = 0; r < 3; r++) {
            uint16_t d = bb_fp32_to_fp16(0.25f);
            put(o, &d, 2);
            for (int j = 0; j < 32; j++) put_u8(o, (uint8_t)(int8_t)(j - 16 + r));
        }
    } else if (t == 2) { /* bitnet.cpp I2_S: flat blocks of 128, byte j of a block holds 32s + j at bits 6-2s */
        uint8_t codes[64] = {0};
        for (int i = 0; i < 256; i++)
            codes[(i / 128) * 32 + i % 32] |= (uint8_t)((i2s_t((uint64_t)i) + 1) << (6 - 2 * ((i % 128) / 32)));
        put(o, codes, 64);
        float s = 0.375f;
        put(o, &s, 4);
        for (int i = 0; i < 28; i++) put_u8(o, 0);
    } else if (t == 3) { /* Q6_K from its description, the inverse of the decoder's formulas */
        uint8_t ql[128] = {0}, qh[64] = {0};
        for (int h = 0; h < 2; h++)
            for (int l = 0; l < 32; l++) {
                int q[4];
                for (int i = 0; i < 4; i++) q[i] = q6_code(128 * h + l + 32 * i);
                ql[64 * h + l] = (uint8_t)((q[0] & 15) | (q[2] & 15) << 4);
                ql[64 * h + l + 32] = (uint8_t)((q[1] & 15) | (q[3] & 15) << 4);
                qh[32 * h + l] = (uint8_t)((q[0] >> 4) | (q[1] >> 4) << 2 | (q[2] >> 4) << 4 | (q[3] >> 4) << 6);
            }
        put(o, ql, 128);
        put(o, qh, 64);
        for (int j = 0; j < 16; j++) put_u8(o, (uint8_t)q6_scale(j));
        uint16_t d = bb_fp32_to_fp16(0.5f);
        put(o, &d, 2);
    } else {
        for (int i = 0; i < 176; i++) put_u8(o, (uint8_t)i);
    }
}

static void put_kvs(gguf_buf *o, layout *L, int depth, int64_t alignment)
{
    L->key0_len = o->n;
    put_key(o, "t.u8", BB_GGUF_UINT8);
    L->u8_type = o->n - 4;
    put_u8(o, 200);
    L->key_i8 = o->n + 8;
    put_key(o, "t.i8", BB_GGUF_INT8); put_u8(o, (uint8_t)-5);
    put_key(o, "t.u16", BB_GGUF_UINT16); uint16_t u16 = 60000; put(o, &u16, 2);
    put_key(o, "t.i16", BB_GGUF_INT16); int16_t i16 = -30000; put(o, &i16, 2);
    put_key(o, "t.u32", BB_GGUF_UINT32); put_u32(o, UINT32_MAX);
    put_key(o, "t.i32", BB_GGUF_INT32); put_u32(o, (uint32_t)-7);
    put_key(o, "t.f32", BB_GGUF_FLOAT32); float f = 1.5f; put(o, &f, 4);
    put_key(o, "t.bool", BB_GGUF_BOOL);
    L->bool_value = o->n;
    put_u8(o, 1);
    put_key(o, "t.str", BB_GGUF_STRING);
    L->str_len = o->n;
    put_str(o, "hello");
    put_key(o, "t.strs", BB_GGUF_ARRAY);
    L->strs_type = o->n;
    put_u32(o, BB_GGUF_STRING);
    L->strs_count = o->n;
    put_u64(o, 3);
    put_str(o, "a"); put_str(o, "bc"); put_str(o, "");
    put_key(o, "t.u64", BB_GGUF_UINT64); put_u64(o, 1ull << 40);
    put_key(o, "t.i64", BB_GGUF_INT64); put_u64(o, (uint64_t)-(1ll << 40));
    put_key(o, "t.f64", BB_GGUF_FLOAT64); double d = 0.1; put(o, &d, 8);
    put_key(o, "t.nested", BB_GGUF_ARRAY); put_nested(o, depth);
    if (alignment >= 0) { put_key(o, "general.alignment", BB_GGUF_UINT32); put_u32(o, (uint32_t)alignment); }
}

/* A valid file (for alignment a power of two or -1: absent, default 32). */
static gguf_buf build(layout *L, int depth, int64_t alignment, bool dup_name)
{
    gguf_buf o = {0};
    L->alignment = alignment > 0 ? (uint64_t)alignment : 32;
    put(&o, "GGUF", 4);
    L->version = o.n;
    put_u32(&o, 3);
    L->n_tensors = o.n;
    put_u64(&o, NT);
    L->n_kv = o.n;
    put_u64(&o, alignment >= 0 ? 15 : 14);
    put_kvs(&o, L, depth, alignment);
    uint64_t off = 0, sizes[NT] = {64, 102, 96, 210, 176};
    for (int t = 0; t < NT; t++) {
        L->name[t] = o.n + 8;
        put_str(&o, dup_name && t == NT - 1 ? tnames[0] : tnames[t]);
        L->n_dims[t] = o.n;
        put_u32(&o, 2);
        L->dim0[t] = o.n;
        put_u64(&o, tdims[t][0]);
        L->dim1[t] = o.n;
        put_u64(&o, tdims[t][1]);
        L->type[t] = o.n;
        put_u32(&o, ttypes[t]);
        L->offset[t] = o.n;
        put_u64(&o, off);
        off = (off + sizes[t] + L->alignment - 1) / L->alignment * L->alignment;
    }
    pad_to(&o, L->alignment);
    size_t data = o.n;
    for (int t = 0; t < NT; t++) {
        while (o.n < data + (size_t)(L->alignment * ((o.n - data + L->alignment - 1) / L->alignment))) put_u8(&o, 0);
        put_tensor_data(&o, t);
    }
    return o;
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    if (n) fwrite(b, 1, n, f);
    fclose(f);
}

/* ---- the valid built file ---- */
static void check_metadata(const bb_gguf *g, int depth)
{
    char err[512];
    uint32_t u32;
    int32_t i32;
    uint64_t u64;
    float f;
    bool b;
    bb_gguf_str s;
    CHECK(bb_gguf_get_u32(g, "t.u8", &u32, err, sizeof err) == 0 && u32 == 200, "u8 as u32");
    CHECK(bb_gguf_get_i32(g, "t.i8", &i32, err, sizeof err) == 0 && i32 == -5, "i8 as i32");
    CHECK(bb_gguf_get_u32(g, "t.i8", &u32, err, sizeof err) == BB_GGUF_BAD_TYPE &&
              strstr(err, "'t.i8' = -5 does not fit"), "%s", err);
    CHECK(bb_gguf_get_u32(g, "t.u16", &u32, err, sizeof err) == 0 && u32 == 60000, "u16");
    CHECK(bb_gguf_get_i32(g, "t.i16", &i32, err, sizeof err) == 0 && i32 == -30000, "i16");
    CHECK(bb_gguf_get_u32(g, "t.u32", &u32, err, sizeof err) == 0 && u32 == UINT32_MAX, "u32");
    CHECK(bb_gguf_get_i32(g, "t.u32", &i32, err, sizeof err) == BB_GGUF_BAD_TYPE, "u32 max as i32");
    CHECK(bb_gguf_get_i32(g, "t.i32", &i32, err, sizeof err) == 0 && i32 == -7, "i32");
    CHECK(bb_gguf_get_f32(g, "t.f32", &f, err, sizeof err) == 0 && f == 1.5f, "f32");
    CHECK(bb_gguf_get_f32(g, "t.f64", &f, err, sizeof err) == 0 && f == 0.1f, "f64 as f32");
    CHECK(bb_gguf_get_f32(g, "t.u8", &f, err, sizeof err) == BB_GGUF_BAD_TYPE &&
              strstr(err, "'t.u8' has type UINT8, expected FLOAT32 or FLOAT64"), "%s", err);
    CHECK(bb_gguf_get_bool(g, "t.bool", &b, err, sizeof err) == 0 && b, "bool");
    CHECK(bb_gguf_get_u32(g, "t.bool", &u32, err, sizeof err) == BB_GGUF_BAD_TYPE, "bool as u32");
    CHECK(bb_gguf_get_str(g, "t.str", &s, err, sizeof err) == 0 && s.len == 5 && !memcmp(s.ptr, "hello", 5), "str");
    CHECK(bb_gguf_get_u64(g, "t.u64", &u64, err, sizeof err) == 0 && u64 == 1ull << 40, "u64");
    CHECK(bb_gguf_get_u32(g, "t.u64", &u32, err, sizeof err) == BB_GGUF_BAD_TYPE, "2^40 as u32");
    CHECK(bb_gguf_get_u64(g, "t.i64", &u64, err, sizeof err) == BB_GGUF_BAD_TYPE, "-2^40 as u64");
    CHECK(bb_gguf_get_u32(g, "nope", &u32, err, sizeof err) == BB_GGUF_MISSING &&
              strstr(err, "metadata key 'nope' is missing"), "%s", err);
    bb_gguf_array a, sub;
    CHECK(bb_gguf_get_array(g, "t.strs", BB_GGUF_INT32, &a, err, sizeof err) == BB_GGUF_BAD_TYPE &&
              strstr(err, "is an array of STRING, expected an array of INT32"), "%s", err);
    CHECK(bb_gguf_get_array(g, "t.strs", BB_GGUF_STRING, &a, err, sizeof err) == 0 && a.count == 3, "strs");
    bb_gguf_str e1 = bb_gguf_array_str(&a, 1), e2 = bb_gguf_array_str(&a, 2);
    CHECK(e1.len == 2 && !memcmp(e1.ptr, "bc", 2) && e2.len == 0 && bb_gguf_array_str(&a, 3).ptr == NULL, "strs elements");
    CHECK(bb_gguf_get_array(g, "t.nested", -1, &a, err, sizeof err) == 0, "%s", err);
    for (int level = depth; level > 1; level--) {
        bb_gguf_array strs;
        CHECK(a.type == BB_GGUF_ARRAY && a.count == 2 && bb_gguf_array_sub(&a, 1, &strs) && strs.count == 2 &&
                  bb_gguf_array_str(&strs, 1).len == 2 && !memcmp(bb_gguf_array_str(&strs, 1).ptr, "yz", 2),
              "nested level %d", level);
        CHECK(bb_gguf_array_sub(&a, 0, &sub), "nested level %d element 0", level);
        a = sub;
    }
    int64_t v;
    CHECK(a.type == BB_GGUF_UINT8 && a.count == 3 && bb_gguf_array_int(&a, 2, &v) && v == 3 && !bb_gguf_array_int(&a, 3, &v),
          "innermost array");
}

static void check_tensors(const bb_gguf *g)
{
    char err[512];
    float v[256];
    const bb_gguf_tensor *t;
    CHECK((t = bb_gguf_find_tensor(g, "a.f32")) && bb_gguf_decode_rows(g, t, 0, 2, v, err, sizeof err) == 0, "%s", err);
    for (int i = 0; t && i < 16; i++) CHECK(v[i] == (float)i * 0.5f - 3, "a.f32[%d] = %g", i, v[i]);
    CHECK((t = bb_gguf_find_tensor(g, "b.q8_0")) && bb_gguf_decode_rows(g, t, 1, 2, v, err, sizeof err) == 0, "%s", err);
    for (int i = 0; t && i < 64; i++) CHECK(v[i] == (float)(i % 32 - 16 + 1 + i / 32) * 0.25f, "b.q8_0[%d] = %g", i, v[i]);
    CHECK((t = bb_gguf_find_tensor(g, "c.i2_s")) && t->n_bytes == 96 &&
              bb_gguf_decode_rows(g, t, 0, 2, v, err, sizeof err) == 0, "%s", err);
    for (int i = 0; t && i < 256; i++) CHECK(v[i] == (float)i2s_t((uint64_t)i) * 0.375f, "c.i2_s[%d] = %g", i, v[i]);
    CHECK(t && bb_gguf_decode_rows(g, t, 1, 1, v, err, sizeof err) == 0 && v[5] == (float)i2s_t(133) * 0.375f, "i2_s row 1");
    CHECK((t = bb_gguf_find_tensor(g, "d.q6_k")) && bb_gguf_decode_rows(g, t, 0, 1, v, err, sizeof err) == 0, "%s", err);
    for (int i = 0; t && i < 256; i++)
        CHECK(v[i] == 0.5f * q6_scale(i / 16) * (float)(q6_code(i) - 32), "d.q6_k[%d] = %g", i, v[i]);
    CHECK((t = bb_gguf_find_tensor(g, "e.q5_k")) && t->n_bytes == 176 &&
              bb_gguf_decode_rows(g, t, 0, 1, v, err, sizeof err) != 0 &&
              strstr(err, "tensor 'e.q5_k': type Q5_K (13) is not supported for decoding (supported: F32, F16, Q4_0, "),
          "%s", err);
}

static void check_built_file(void)
{
    static const int64_t aligns[3] = {64, 1, -1};
    for (int a = 0; a < 3; a++) {
        layout L;
        gguf_buf o = build(&L, 3, aligns[a], false);
        char path[400], err[512];
        snprintf(path, sizeof path, "%s/valid%d.gguf", tmpdir, a);
        write_file(path, o.b, o.n);
        bb_gguf *g = bb_gguf_open(path, err, sizeof err);
        CHECK(g != NULL, "%s", err);
        if (g) {
            CHECK(bb_gguf_alignment(g) == L.alignment && bb_gguf_data_offset(g) % L.alignment == 0 &&
                      bb_gguf_tensor_count(g) == NT && bb_gguf_kv_count(g) == (aligns[a] >= 0 ? 15u : 14u),
                  "alignment %" PRIu64, L.alignment);
            check_metadata(g, 3);
            check_tensors(g);
            bb_gguf_close(g);
        }
        /* version 2 reads the same */
        o.b[L.version] = 2;
        write_file(path, o.b, o.n);
        CHECK((g = bb_gguf_open(path, err, sizeof err)) != NULL && bb_gguf_version(g) == 2, "v2: %s", err);
        bb_gguf_close(g);
        free(o.b);
    }
}

/* ---- hostile files ---- */
static int n_hostile;

/* bytes must fail to open with an error naming the file and containing want (if any). */
static void expect_bad(const char *what, const uint8_t *b, size_t n, const char *want)
{
    char path[400], err[512] = "";
    snprintf(path, sizeof path, "%s/bad.gguf", tmpdir);
    write_file(path, b, n);
    bb_gguf *g = bb_gguf_open(path, err, sizeof err);
    CHECK(g == NULL, "%s: opened", what);
    bb_gguf_close(g);
    CHECK(!strncmp(err, path, strlen(path)) && !strchr(err, '\n') && (!want || strstr(err, want)),
          "%s: error '%s', wanted '%s'", what, err, want ? want : "(the file name)");
    n_hostile++;
}

static void patch_u32(gguf_buf *o, size_t at, uint32_t v) { memcpy(o->b + at, &v, 4); }
static void patch_u64(gguf_buf *o, size_t at, uint64_t v) { memcpy(o->b + at, &v, 8); }

/* Apply one change to a fresh copy of the valid file and expect an error. */
#define CASE(what, want, change)                          \
    do {                                                  \
        gguf_buf o = build(&L, 3, 32, false);             \
        change;                                           \
        expect_bad(what, o.b, o.n, want);                 \
        free(o.b);                                        \
    } while (0)

static void check_bad_fields(void)
{
    layout L;
    CASE("magic", "not a GGUF file (magic 'GGML'", memcpy(o.b, "GGML", 4));
    CASE("version 1", "header: GGUF version 1 is not supported (valid: 2, 3)", patch_u32(&o, L.version, 1));
    CASE("version 99", "GGUF version 99 is not supported", patch_u32(&o, L.version, 99));
    CASE("big endian", "big-endian GGUF is not supported", patch_u32(&o, L.version, 0x03000000));
    CASE("tensor count 2^63", "header: tensor count 9223372036854775808 is more than", patch_u64(&o, L.n_tensors, 1ull << 63));
    CASE("key count 2^63", "header: metadata key count 9223372036854775808", patch_u64(&o, L.n_kv, 1ull << 63));
    CASE("key count + 1", NULL, patch_u64(&o, L.n_kv, 16));
    CASE("tensor count + 1", NULL, patch_u64(&o, L.n_tensors, NT + 1));
    CASE("key length", "metadata key #0: key length 1099511627776 runs past the end", patch_u64(&o, L.key0_len, 1ull << 40));
    CASE("string length 2^32", "metadata key #8 't.str': string length 4294967296 runs past the end of the file",
         patch_u64(&o, L.str_len, 1ull << 32));
    CASE("string length 2^64-1", "string length 18446744073709551615 runs past", patch_u64(&o, L.str_len, UINT64_MAX));
    CASE("array count", "metadata key #9 't.strs': array of 4611686018427387904 STRING elements runs past the end",
         patch_u64(&o, L.strs_count, 1ull << 62));
    CASE("array type", "'t.strs': array element type 13 is not a GGUF value type", patch_u32(&o, L.strs_type, 13));
    CASE("value type", "metadata key #0 't.u8': value type 42 is not a GGUF value type", patch_u32(&o, L.u8_type, 42));
    CASE("bool", "'t.bool': bool value 2 is not 0 or 1", o.b[L.bool_value] = 2);
    CASE("duplicate key", "metadata key 't.u8': appears twice", memcpy(o.b + L.key_i8, "t.u8", 4));
    CASE("n_dims 5", "tensor 'a.f32': n_dims 5 is out of range (valid: 1..4)", patch_u32(&o, L.n_dims[0], 5));
    CASE("n_dims 0", "tensor 'b.q8_0': n_dims 0 is out of range", patch_u32(&o, L.n_dims[1], 0));
    CASE("dim 0", "tensor 'a.f32': dimension 1 is 0", patch_u64(&o, L.dim1[0], 0));
    CASE("dim 2^64-1", "dimension 0 is 18446744073709551615", patch_u64(&o, L.dim0[0], UINT64_MAX));
    CASE("dims overflow", "tensor 'a.f32': shape [1099511627776, 1099511627776, 1, 1] has more than 2^63 elements",
         (patch_u64(&o, L.dim0[0], 1ull << 40), patch_u64(&o, L.dim1[0], 1ull << 40)));
    CASE("bytes overflow", "tensor 'a.f32': 4611686018427387904 elements of type F32 overflow a 64-bit byte count",
         (patch_u64(&o, L.dim0[0], 1ull << 61), patch_u64(&o, L.dim1[0], 2)));
    CASE("type 200", "tensor 'a.f32': type id 200 is not a ggml type", patch_u32(&o, L.type[0], 200));
    CASE("type 4 (removed)", "tensor 'c.i2_s': type id 4 is not a ggml type", patch_u32(&o, L.type[2], 4));
    CASE("row length", "tensor 'b.q8_0': row length 33 is not a multiple of type Q8_0's block of 32",
         patch_u64(&o, L.dim0[1], 33));
    CASE("misaligned offset", "tensor 'b.q8_0': data offset 65 is not a multiple of the alignment 32",
         patch_u64(&o, L.offset[1], 65));
    CASE("offset past end", "tensor 'e.q5_k': data [", patch_u64(&o, L.offset[4], 1ull << 62));
    CASE("size past end", "tensor 'e.q5_k': data [544, 720) of 176 bytes (Q5_K) runs past the end of the file",
         patch_u64(&o, L.offset[4], 544));
    CASE("bigger tensor", "tensor 'd.q6_k': data [", patch_u64(&o, L.dim1[3], 1000));
    CASE("NUL in name", "tensor #0: name 'a?f32' contains a NUL byte", o.b[L.name[0] + 1] = 0);
    CASE("empty", "header: magic runs past the end of the file (0 bytes)", o.n = 0);
    {
        gguf_buf o = build(&L, 100, -1, false);
        expect_bad("nested 100", o.b, o.n, "metadata key #13 't.nested': arrays nested deeper than 8 levels");
        free(o.b);
        o = build(&L, 3, -1, true);
        expect_bad("duplicate tensor", o.b, o.n, "tensor 'a.f32': appears twice (#0 and #4)");
        free(o.b);
        o = build(&L, 3, 0, false);
        expect_bad("alignment 0", o.b, o.n, "metadata key 'general.alignment': alignment 0 is not a power of two");
        free(o.b);
        o = build(&L, 3, 3, false);
        expect_bad("alignment 3", o.b, o.n, "alignment 3 is not a power of two");
        free(o.b);
    }
}

/* Every cut of the built file, and cut points across a golden file. */
static void check_truncations(void)
{
    layout L;
    gguf_buf o = build(&L, 3, -1, false);
    for (size_t cut = 0; cut < o.n; cut++) expect_bad("truncated built file", o.b, cut, NULL);
    free(o.b);
    char path[1400];
    snprintf(path, sizeof path, "%s/golden/gguf/stories260K/stories260K-q8_0.gguf", shared);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot read %s", path);
    if (!f) return;
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    uint8_t *b = malloc(n);
    fseek(f, 0, SEEK_SET);
    CHECK(fread(b, 1, n, f) == n, "read %s", path);
    fclose(f);
    /* the header and first key byte by byte, then the key-values (the token list) and tensor
     * infos in steps, then the data section in larger steps and its last bytes */
    for (size_t cut = 0; cut < n; cut += cut < 64 ? 1 : cut < 20000 ? 97 : cut < n - 64 ? 4099 : 1)
        expect_bad("truncated golden file", b, cut, NULL);
    free(b);
}

int main(void)
{
    shared_dir(shared, sizeof shared);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/bb_gguf_hostile_XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL, "mkdtemp");
    check_built_file();
    check_bad_fields();
    check_truncations();
    printf("%d hostile files, each refused with one line\n", n_hostile);
    char path[400];
    const char *files[] = {"valid0.gguf", "valid1.gguf", "valid2.gguf", "bad.gguf"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, files[i]);
        unlink(path);
    }
    rmdir(tmpdir);
    return check_summary("gguf_hostile");
}
