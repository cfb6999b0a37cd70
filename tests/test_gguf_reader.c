/* The GGUF reader (models/gguf.h) on real files written by llama.cpp (shared/golden/gguf, see
 * its README): metadata and tensor lists against gguf_dump's listings, the vocab-only files'
 * token arrays, the tiny BitNet's TQ2_0 / TQ1_0 / F16 tensors decoded exactly to the values its
 * recipe (README §3.2) regenerates, stories260K's Q8_0 and Q4_0 tensors within their
 * quantization bounds of the F32 file.  Prints the open + validate + read-every-byte rate of the
 * largest golden model file.  Hostile and hand-built files: test_gguf_hostile.c. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "files.h"
#include "kernels/common/fp16.h"
#include "models/gguf.h"
#include "models/gguf_types.h"

static char shared[1024];

/* ---- helpers ---- */
static bb_gguf *open_golden(const char *rel)
{
    char path[1400], err[512];
    snprintf(path, sizeof path, "%s/golden/gguf/%s", shared, rel);
    bb_gguf *g = bb_gguf_open(path, err, sizeof err);
    CHECK(g != NULL, "%s", err);
    return g;
}

static float *decode_all(const bb_gguf *g, const bb_gguf_tensor *t)
{
    float *v = malloc(t->n_elements * sizeof(float));
    char err[512];
    int rc = bb_gguf_decode_rows(g, t, 0, t->n_elements / t->ne[0], v, err, sizeof err);
    CHECK(rc == 0, "%s", err);
    return v;
}

static bool str_is(bb_gguf_str s, const char *want) { return s.len == strlen(want) && !memcmp(s.ptr, want, s.len); }

/* ---- gguf_dump listings (tensors_*.txt) ---- */
static void check_kv_line(const bb_gguf *g, char *type, uint64_t count, char *rest)
{
    char *eq = strstr(rest, " = ");
    if (eq) *eq = 0;
    char *key = rest;
    key[strcspn(key, "\n")] = 0;
    if (!strncmp(key, "GGUF.", 5)) {
        uint64_t v = strtoull(eq + 3, NULL, 10);
        uint64_t have = !strcmp(key, "GGUF.version") ? bb_gguf_version(g)
                        : !strcmp(key, "GGUF.tensor_count") ? bb_gguf_tensor_count(g) : bb_gguf_kv_count(g);
        CHECK(have == v, "%s: %" PRIu64 ", listing %" PRIu64, key, have, v);
        return;
    }
    const bb_gguf_kv *kv = bb_gguf_find_kv(g, key);
    CHECK(kv != NULL, "key %s missing", key);
    if (!kv) return;
    if (type[0] == '[') {
        type[strlen(type) - 1] = 0;
        CHECK(kv->type == BB_GGUF_ARRAY && !strcmp(bb_gguf_vtype_name(kv->array.type), type + 1) &&
                  kv->array.count == count, "%s: array type/count", key);
        return;
    }
    CHECK(!strcmp(bb_gguf_vtype_name(kv->type), type), "%s: type %s, listing %s", key, bb_gguf_vtype_name(kv->type), type);
    const char *val = eq + 3;
    char err[256];
    if (kv->type == BB_GGUF_STRING) {
        bb_gguf_str s;
        char want[256];
        snprintf(want, sizeof want, "%.*s", (int)strlen(val) - 3, val + 1); /* 'value'\n */
        CHECK(bb_gguf_get_str(g, key, &s, err, sizeof err) == 0 && str_is(s, want), "%s != '%s'", key, want);
    } else if (kv->type == BB_GGUF_FLOAT32) {
        float f;
        CHECK(bb_gguf_get_f32(g, key, &f, err, sizeof err) == 0 && f == (float)strtod(val, NULL), "%s: %g", key, f);
    } else {
        uint64_t u;
        CHECK(bb_gguf_get_u64(g, key, &u, err, sizeof err) == 0 && u == strtoull(val, NULL, 10), "%s", key);
    }
}

static void check_listing(const char *gguf_rel, const char *listing_rel)
{
    bb_gguf *g = open_golden(gguf_rel);
    char path[1400], line[512];
    snprintf(path, sizeof path, "%s/golden/gguf/%s", shared, listing_rel);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot read %s", path);
    if (!f || !g) goto done;
    uint64_t n_tensors = 0, n_kv = 0;
    while (fgets(line, sizeof line, f)) {
        char *bar1 = strchr(line, '|'), *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
        if (!bar2 || line[0] == '*') continue;
        char *bar3 = strchr(bar2 + 1, '|');
        unsigned idx;
        if (!bar3) { /* "  N: TYPE | count | key [= value]" */
            char type[32];
            if (sscanf(line, " %u: %31s", &idx, type) != 2) continue;
            check_kv_line(g, type, strtoull(bar1 + 1, NULL, 10), bar2 + 2);
            n_kv++;
            continue;
        }
        /* "  N: nelem | ne0, ne1, ne2, ne3 | TYPE | name" */
        unsigned long long nel, ne[4];
        char type[32], name[128];
        if (sscanf(line, " %u: %llu", &idx, &nel) != 2 ||
            sscanf(bar1 + 1, " %llu, %llu, %llu, %llu", &ne[0], &ne[1], &ne[2], &ne[3]) != 4 ||
            sscanf(bar2 + 1, " %31s", type) != 1 || sscanf(bar3 + 1, " %127s", name) != 1)
            continue;
        const bb_gguf_tensor *t = bb_gguf_tensor_at(g, idx - 1);
        CHECK(t && !strcmp(t->name, name), "tensor %u: %s, listing %s", idx, t ? t->name : "-", name);
        if (!t) continue;
        CHECK(!strcmp(bb_ggml_type_by_id(t->type)->name, type) && t->n_elements == nel && t->ne[0] == ne[0] &&
                  t->ne[1] == ne[1] && t->ne[2] == ne[2] && t->ne[3] == ne[3],
              "%s: type or shape differs from the listing", name);
        CHECK(bb_gguf_find_tensor(g, name) == t, "find %s", name);
        n_tensors++;
    }
    CHECK(n_tensors == bb_gguf_tensor_count(g) && n_kv == bb_gguf_kv_count(g) + 3,
          "%s: listing has %" PRIu64 " tensors, %" PRIu64 " keys", listing_rel, n_tensors, n_kv);
done:
    if (f) fclose(f);
    bb_gguf_close(g);
}

/* ---- tiny BitNet: README §3.2 regenerates every weight ---- */
static uint64_t splitmix(uint64_t s)
{
    uint64_t z = s + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Tensor index k, and the ternary scale index (or -1 for a norm, -2 for the embedding). */
static bool recipe(const char *name, int *k, int *scale_index, int *layer)
{
    static const char *const parts[11] = {"attn_norm", "attn_q",   "attn_k",       "attn_v",   "attn_sub_norm", "attn_output",
                                          "ffn_norm",  "ffn_gate", "ffn_up",       "ffn_sub_norm", "ffn_down"};
    static const int sidx[11] = {-1, 0, 1, 2, -1, 3, -1, 4, 5, -1, 6};
    *layer = 0;
    if (!strcmp(name, "token_embd.weight")) { *k = 0; *scale_index = -2; return true; }
    if (!strcmp(name, "output_norm.weight")) { *k = 1; *scale_index = -1; return true; }
    char part[32];
    if (sscanf(name, "blk.%d.%31[a-z_].weight", layer, part) != 2) return false;
    for (int j = 0; j < 11; j++)
        if (!strcmp(part, parts[j])) { *k = 2 + 11 * *layer + j; *scale_index = sidx[j]; return true; }
    return false;
}

static float recipe_value(int k, int scale_index, int layer, uint64_t i)
{
    uint64_t z = splitmix(((uint64_t)k << 32) + i);
    if (scale_index == -2) return (float)(((double)(z >> 54) - 512) / 2048);
    if (scale_index == -1) return (float)(1 + ((double)(z >> 59) - 16) / 64);
    return (float)((int)(z % 3) - 1) * (float)((8 + scale_index + 7 * layer) / 256.0);
}

static void check_tiny_bitnet(const char *rel, uint32_t ternary_type)
{
    bb_gguf *g = open_golden(rel);
    if (!g) return;
    static const float embd0[4] = {0.19140625f, 0.033203125f, 0.0454101562f, -0.193359375f};
    for (int i = 0; i < 4; i++) CHECK(recipe_value(0, -2, 0, i) == embd0[i], "recipe: token_embd[%d]", i);
    CHECK(bb_gguf_tensor_count(g) == 24, "%s: %" PRIu64 " tensors", rel, bb_gguf_tensor_count(g));
    for (uint64_t ti = 0; ti < bb_gguf_tensor_count(g); ti++) {
        const bb_gguf_tensor *t = bb_gguf_tensor_at(g, ti);
        int k, si, layer;
        CHECK(recipe(t->name, &k, &si, &layer), "unexpected tensor %s", t->name);
        if (!recipe(t->name, &k, &si, &layer)) continue;
        uint32_t want_type = si == -2 ? BB_GGML_F16 : si == -1 ? BB_GGML_F32 : ternary_type;
        CHECK(t->type == want_type, "%s: type %u, expected %u", t->name, t->type, want_type);
        float *v = decode_all(g, t);
        uint64_t bad = 0, first = 0;
        for (uint64_t i = 0; i < t->n_elements; i++)
            if (v[i] != recipe_value(k, si, layer, i) && !bad++) first = i;
        CHECK(bad == 0, "%s %s: %" PRIu64 " values differ from the recipe, first [%" PRIu64 "] %.9g vs %.9g", rel,
              t->name, bad, first, v[first], recipe_value(k, si, layer, first));
        free(v);
    }
    /* a row range decodes to the same values as the whole tensor */
    const bb_gguf_tensor *t = bb_gguf_find_tensor(g, "blk.1.ffn_down.weight");
    float rows[2 * 768];
    char err[512] = "";
    int k, si, layer;
    CHECK(t && recipe(t->name, &k, &si, &layer) && bb_gguf_decode_rows(g, t, 3, 2, rows, err, sizeof err) == 0,
          "rows: %s", err);
    for (int i = 0; t && i < 2 * 768; i++)
        if (rows[i] != recipe_value(k, si, layer, 3 * 768 + (uint64_t)i)) {
            CHECK(0, "row range value %d", i);
            break;
        }
    CHECK(t && bb_gguf_decode_rows(g, t, 255, 2, rows, err, sizeof err) != 0 && strstr(err, "outside its 256 rows"),
          "rows past the end: %s", err);
    uint64_t want[2] = {256, 512};
    CHECK(bb_gguf_expect_tensor(g, "token_embd.weight", 2, want, NULL, err, sizeof err) == 0, "%s", err);
    want[1] = 768;
    CHECK(bb_gguf_expect_tensor(g, "token_embd.weight", 2, want, "vocab_size", err, sizeof err) != 0 &&
              strstr(err, "has shape [256, 512], expected [256, 768] (vocab_size)"), "%s", err);
    CHECK(bb_gguf_expect_tensor(g, "output.weight", 2, want, NULL, err, sizeof err) != 0 &&
              strstr(err, "tensor 'output.weight' is missing"), "%s", err);
    bb_gguf_close(g);
}

/* ---- stories260K: Q8_0 / Q4_0 against the F32 file ---- */
static void check_quantized(const char *rel, uint32_t qtype, double d_per_amax, double bound_in_d)
{
    bb_gguf *f = open_golden("stories260K/stories260K.gguf"), *q = open_golden(rel);
    if (!f || !q) goto done;
    int n_quant = 0;
    double worst = 0;
    for (uint64_t ti = 0; ti < bb_gguf_tensor_count(q); ti++) {
        const bb_gguf_tensor *tq = bb_gguf_tensor_at(q, ti), *tf = bb_gguf_find_tensor(f, tq->name);
        CHECK(tf && tf->n_elements == tq->n_elements, "%s missing in the F32 file", tq->name);
        if (!tf) continue;
        float *a = decode_all(f, tf), *b = decode_all(q, tq);
        for (uint64_t i0 = 0; i0 < tq->n_elements; i0 += 32) {
            float amax = 0;
            for (int j = 0; j < 32; j++) amax = fmaxf(amax, fabsf(a[i0 + j]));
            /* |x - q*fp16(d)| <= bound_in_d * d, d = amax * d_per_amax, plus fp16(d)'s relative error 2^-11 on
             * at most 128 * d */
            double d = amax * d_per_amax, bound = tq->type == BB_GGML_F32 ? 0 : d * (bound_in_d + 128.0 / 2048) * (1 + 1e-6);
            if (tq->type != qtype && tq->type != BB_GGML_Q8_0) bound = 0;
            for (int j = 0; j < 32; j++) {
                double e = fabs((double)a[i0 + j] - b[i0 + j]);
                if (d > 0) worst = fmax(worst, e / d);
                if (e > bound) {
                    CHECK(0, "%s %s[%" PRIu64 "]: %.9g vs %.9g, bound %.3g", rel, tq->name, i0 + j, b[i0 + j], a[i0 + j], bound);
                    i0 = tq->n_elements;
                    break;
                }
            }
        }
        n_quant += tq->type == qtype;
        free(a);
        free(b);
    }
    CHECK(n_quant >= 20 && worst > 0.1, "%s: %d tensors of the type, worst error %.3f d", rel, n_quant, worst);
done:
    bb_gguf_close(f);
    bb_gguf_close(q);
}

/* ---- vocab-only files ---- */
static void check_vocab(const char *rel, uint64_t n_tokens, uint64_t n_merges, const char *model, const char *tok0)
{
    bb_gguf *g = open_golden(rel);
    if (!g) return;
    char err[512];
    bb_gguf_array a;
    bb_gguf_str s;
    CHECK(bb_gguf_tensor_count(g) == 0, "%s has tensors", rel);
    CHECK(bb_gguf_get_str(g, "tokenizer.ggml.model", &s, err, sizeof err) == 0 && str_is(s, model), "%s", err);
    CHECK(bb_gguf_get_array(g, "tokenizer.ggml.tokens", BB_GGUF_STRING, &a, err, sizeof err) == 0 &&
              a.count == n_tokens && str_is(bb_gguf_array_str(&a, 0), tok0),
          "%s: tokens", rel);
    /* every token readable, the last one too (the index of element offsets) */
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < a.count; i++) bytes += bb_gguf_array_str(&a, i).len;
    CHECK(bytes > n_tokens && bb_gguf_array_str(&a, n_tokens).ptr == NULL, "%s: token bytes", rel);
    CHECK(bb_gguf_get_array(g, "tokenizer.ggml.token_type", BB_GGUF_INT32, &a, err, sizeof err) == 0 &&
              a.count == n_tokens, "%s", err);
    int64_t tt;
    CHECK(bb_gguf_array_int(&a, 1, &tt) && tt == (n_merges ? 1 : 3), "%s: token_type[1] %" PRId64, rel, tt);
    if (n_merges) {
        CHECK(bb_gguf_get_array(g, "tokenizer.ggml.merges", BB_GGUF_STRING, &a, err, sizeof err) == 0 &&
                  a.count == n_merges, "%s", err);
        CHECK(str_is(bb_gguf_array_str(&a, 0), "\xc4\xa0 t"), "%s: first merge", rel);
    } else {
        bool add_bos;
        CHECK(bb_gguf_get_bool(g, "tokenizer.ggml.add_bos_token", &add_bos, err, sizeof err) == 0 && add_bos, "%s", err);
        double score;
        CHECK(bb_gguf_get_array(g, "tokenizer.ggml.scores", BB_GGUF_FLOAT32, &a, err, sizeof err) == 0 &&
                  bb_gguf_array_float(&a, 31999, &score), "%s", err);
    }
    uint32_t bos;
    CHECK(bb_gguf_get_u32(g, "tokenizer.ggml.bos_token_id", &bos, err, sizeof err) == 0 && bos == (n_merges ? 50256 : 1),
          "%s", err);
    bb_gguf_close(g);
}

/* Open + validate + read every tensor byte, repeated: MB of file per second. */
static void measure_rate(const char *rel)
{
    char path[1400], err[512];
    snprintf(path, sizeof path, "%s/golden/gguf/%s", shared, rel);
    struct timespec t0, t1;
    uint64_t sum = 0, bytes = 0;
    int reps = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double secs = 0;
    while (secs < 0.3) {
        bb_gguf *g = bb_gguf_open(path, err, sizeof err);
        if (!g) break;
        for (uint64_t i = 0; i < bb_gguf_tensor_count(g); i++) {
            const bb_gguf_tensor *t = bb_gguf_tensor_at(g, i);
            const uint64_t *p = t->data; /* offsets are multiples of the alignment (32) */
            for (uint64_t j = 0; j < t->n_bytes / 8; j++) sum += p[j];
        }
        bytes += bb_gguf_file_size(g);
        bb_gguf_close(g);
        reps++;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    }
    CHECK(reps > 0, "%s", err);
    printf("open + validate + read all tensor bytes of %s: %.0f MB/s (%d opens, checksum %" PRIx64 ")\n", rel,
           (double)bytes / secs / 1e6, reps, sum);
}

int main(void)
{
    shared_dir(shared, sizeof shared);

    check_listing("stories260K/stories260K.gguf", "stories260K/tensors_stories260K.txt");
    check_listing("stories260K/stories260K-q8_0.gguf", "stories260K/tensors_stories260K-q8_0.txt");
    check_listing("stories260K/stories260K-q4_0.gguf", "stories260K/tensors_stories260K-q4_0.txt");
    check_listing("bitnet/tiny-bitnet-tq2_0-embf16.gguf", "bitnet/tensors_tiny-bitnet-tq2_0-embf16.txt");
    check_listing("bitnet/tiny-bitnet-tq1_0-embf16.gguf", "bitnet/tensors_tiny-bitnet-tq1_0-embf16.txt");
    check_vocab("tokenizer/ggml-vocab-llama-spm.gguf", 32000, 0, "llama", "<unk>");
    check_vocab("tokenizer/ggml-vocab-gpt-2.gguf", 50257, 50000, "gpt2", "!");
    check_tiny_bitnet("bitnet/tiny-bitnet-tq2_0-embf16.gguf", BB_GGML_TQ2_0);
    check_tiny_bitnet("bitnet/tiny-bitnet-tq1_0-embf16.gguf", BB_GGML_TQ1_0);
    /* Q8_0: d = amax/127, error <= d/2.  Q4_0: d = amax/8 (sign of the extreme), error <= d (the
     * value opposite the extreme clamps at +7d). */
    check_quantized("stories260K/stories260K-q8_0.gguf", BB_GGML_Q8_0, 1.0 / 127, 0.5);
    check_quantized("stories260K/stories260K-q4_0.gguf", BB_GGML_Q4_0, 1.0 / 8, 1.0);

    measure_rate("stories260K/stories260K.gguf");
    measure_rate("tokenizer/ggml-vocab-gpt-2.gguf"); /* the largest golden GGUF: 100k strings indexed */
    return check_summary("gguf_reader");
}
