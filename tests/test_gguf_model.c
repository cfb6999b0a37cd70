/* GGUF models in the engine (models/gguf_source.h, model_load.h) against llama.cpp
 * (shared/golden/gguf, see its README):
 *   - stories260K.gguf (arch llama, F32): llama.cpp's 196 greedy tokens and its logits of the
 *     first 3 generated positions (f32 KV cache); the llama2.c form of the same model gives the
 *     same logits bit for bit;
 *   - the tiny BitNet (arch bitnet) in TQ2_0 and TQ1_0 run with the tq2_0 / tq1_0 kernels, which
 *     take the file's bytes as stored: llama.cpp's 32 greedy tokens and first-3 logits, and the
 *     two files give identical logits (llama.cpp's do too);
 *   - context beyond the file's training context runs, with a warning;
 *   - a missing tensor and a shape that disagrees with the metadata are one clear error each.
 * Tolerance on logits (f32 KV on both sides): 1e-4 for stories260K, whose |logits| reach 18 and
 * where llama.cpp itself agrees with an independent fp32 reference to 8.6e-6 (the rest is the
 * order of float sums and RoPE angles computed as pos * base^(-2i/d) here, as a running product
 * in ggml); an f16 KV cache alone moves llama.cpp's logits by 6e-3, so the bound separates the
 * two.  For the TQ models 2e-3: both sides quantize activations to Q8_K blocks and sum integer
 * dot products exactly, so the difference is float rounding in the float parts (norms, RoPE,
 * attention, the f16 embedding, per-block scale products) over |logits| up to 8.3. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "files.h"
#include "models/gguf_source.h"
#include "models/llama2c.h"
#include "models/model_load.h"
#include "models/sampler.h"

static char shared[1024];

/* Blocks of vocab values, each after a "# generated position" line; returns the block count. */
static int read_logits(const char *path, float *out, int vocab, int max_blocks)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    int block = -1, i = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            if (++block >= max_blocks) break;
            i = 0;
        } else if (block >= 0 && i < vocab) {
            out[(size_t)block * vocab + i++] = strtof(line, NULL);
        }
    }
    fclose(f);
    return block < max_blocks ? block + 1 : max_blocks;
}

static void golden_path(char *out, size_t len, const char *rel)
{
    snprintf(out, len, "%s/golden/gguf/%s", shared, rel);
}

/* Greedy generation from the golden prompt, compared with llama.cpp's ids and first logits. */
static void against_llamacpp(bb_pool *pool, const char *model, const char *ids_rel, const char *logits_rel,
                             const char *kernel, const char *out_kernel, double tol)
{
    char path[1200], ipath[1200], lpath[1200], err[1024], warn[256];
    golden_path(path, sizeof path, model);
    golden_path(ipath, sizeof ipath, ids_rel);
    golden_path(lpath, sizeof lpath, logits_rel);
    int prompt[16], want[256];
    int np = golden_ids(ipath, "prompt_ids", prompt, 16), ng = golden_ids(ipath, "generated_ids", want, 256);
    CHECK(np > 0 && ng > 0, "cannot read %s", ipath);
    if (np <= 0 || ng <= 0) return;
    bb_tf_options opt = {.kernel = kernel, .out_kernel = out_kernel, .max_batch = 16};
    bb_transformer *tf = bb_model_load_engine(path, np + ng, &opt, NULL, warn, sizeof warn, err, sizeof err);
    CHECK(tf != NULL, "%s", err);
    if (!tf) return;
    int vocab = bb_tf_get_dims(tf)->vocab_size;
    float *gold = malloc(sizeof(float) * (size_t)vocab * 3);
    int nl = read_logits(lpath, gold, vocab, 3);
    CHECK(nl == 3, "%s: %d logit blocks", lpath, nl);
    int ids[300], n = np, bad = 0;
    memcpy(ids, prompt, sizeof(int) * (size_t)np);
    const float *logits = bb_tf_forward(tf, pool, ids, np, 0, NULL);
    double worst = 0;
    for (int g = 0; g < ng && logits; g++) {
        for (int v = 0; g < nl && v < vocab; v++) worst = fmax(worst, fabs(logits[v] - gold[(size_t)g * vocab + v]));
        int next = bb_argmax(logits, vocab);
        if (next != want[g] && bad++ < 3) CHECK(0, "%s: generated token %d is %d, llama.cpp gave %d", model, g, next, want[g]);
        ids[n++] = next;
        logits = bb_tf_forward(tf, pool, &next, 1, n - 1, NULL);
    }
    if (!bad) PASS();
    CHECK(worst <= tol, "%s with %s: max |logit - llama.cpp| = %.3g > %.3g", model, kernel, worst, tol);
    printf("%s with %s: %d tokens as llama.cpp's, max |logit difference| %.3g over 3 positions\n%s\n", model, kernel,
           ng, worst, bb_tf_conversions(tf));
    free(gold);
    bb_tf_free(tf);
}

/* The logits of a short sequence fed one token at a time (n * vocab floats, malloc'd). */
static float *logits_of(bb_pool *pool, bb_transformer *tf, const int *ids, int n)
{
    int vocab = bb_tf_get_dims(tf)->vocab_size;
    float *out = malloc(sizeof(float) * (size_t)vocab * n);
    for (int i = 0; i < n; i++) memcpy(out + (size_t)i * vocab, bb_tf_forward(tf, pool, &ids[i], 1, i, NULL), sizeof(float) * vocab);
    return out;
}

/* llama2.c's stories260K.bin and llama.cpp's conversion of it: the same logits, bit for bit. */
static void bin_equals_gguf(bb_pool *pool)
{
    char bin[1200], gguf[1200], err[1024], warn[256];
    snprintf(bin, sizeof bin, "%s/models/stories260K/stories260K.bin", shared);
    golden_path(gguf, sizeof gguf, "stories260K/stories260K.gguf");
    static const int ids[] = {1, 403, 407, 261, 378, 432, 383, 286};
    const char *kernels[] = {"f32", "q8_0", "i2_s"};
    for (int k = 0; k < 3; k++) {
        bb_tf_options opt = {.kernel = kernels[k], .out_kernel = "f32"};
        bb_transformer *a = bb_model_load_engine(bin, 16, &opt, NULL, warn, sizeof warn, err, sizeof err);
        CHECK(a != NULL, "%s", err);
        bb_transformer *b = bb_model_load_engine(gguf, 16, &opt, NULL, warn, sizeof warn, err, sizeof err);
        CHECK(b != NULL, "%s", err);
        if (a && b) {
            int vocab = bb_tf_get_dims(a)->vocab_size;
            float *la = logits_of(pool, a, ids, 8), *lb = logits_of(pool, b, ids, 8);
            CHECK(memcmp(la, lb, sizeof(float) * (size_t)vocab * 8) == 0,
                  "kernel %s: stories260K.bin and stories260K.gguf give different logits", kernels[k]);
            free(la);
            free(lb);
        }
        bb_tf_free(a);
        bb_tf_free(b);
    }
}

/* TQ1_0 and TQ2_0 hold the same ternary weights: identical logits with their own kernels' scalar
 * references (the same integer block sums and block-ordered float products; the SIMD variants
 * order float sums their own way), and both say their bytes were used as stored; tq1_0_x16
 * rearranges the TQ1_0 blocks and gives the same logits. */
static void tq_files_agree(bb_pool *pool)
{
    char p1[1200], p2[1200], err[1024], warn[256];
    golden_path(p1, sizeof p1, "bitnet/tiny-bitnet-tq1_0-embf16.gguf");
    golden_path(p2, sizeof p2, "bitnet/tiny-bitnet-tq2_0-embf16.gguf");
    bb_tf_options o1 = {.kernel = "tq1_0@scalar", .out_kernel = "f16"}, o2 = {.kernel = "tq2_0@scalar", .out_kernel = "f16"};
    bb_transformer *a = bb_model_load_engine(p1, 16, &o1, NULL, warn, sizeof warn, err, sizeof err);
    CHECK(a != NULL, "%s", err);
    bb_transformer *b = bb_model_load_engine(p2, 16, &o2, NULL, warn, sizeof warn, err, sizeof err);
    CHECK(b != NULL, "%s", err);
    if (a && b) {
        static const int ids[] = {1, 403, 407, 261, 378, 414};
        float *la = logits_of(pool, a, ids, 6), *lb = logits_of(pool, b, ids, 6);
        CHECK(memcmp(la, lb, sizeof(float) * 512 * 6) == 0, "TQ1_0 and TQ2_0 files give different logits");
        CHECK(strstr(bb_tf_conversions(a), "wq: TQ1_0 used as stored by tq1_0") != NULL, "%s", bb_tf_conversions(a));
        CHECK(strstr(bb_tf_conversions(b), "w2: TQ2_0 used as stored by tq2_0") != NULL, "%s", bb_tf_conversions(b));
        CHECK(strstr(bb_tf_conversions(b), "classifier: F16 used as stored by f16") != NULL, "%s", bb_tf_conversions(b));
        /* tq1_0_x16 takes the TQ1_0 blocks as they are, only rearranged (kernel.h
         * gguf_repack_type), and computes tq1_0's numbers: the same logits, bit for bit */
        bb_tf_options o3 = {.kernel = "tq1_0_x16", .out_kernel = "f16"};
        bb_transformer *c = bb_model_load_engine(p1, 16, &o3, NULL, warn, sizeof warn, err, sizeof err);
        CHECK(c != NULL, "%s", err);
        if (c) {
            float *lc = logits_of(pool, c, ids, 6);
            CHECK(memcmp(la, lc, sizeof(float) * 512 * 6) == 0, "tq1_0_x16 gives other logits than tq1_0 on the TQ1_0 file");
            CHECK(strstr(bb_tf_conversions(c), "wq: TQ1_0 blocks rearranged (not requantized) for tq1_0_x16") != NULL,
                  "%s", bb_tf_conversions(c));
            free(lc);
            bb_tf_free(c);
        }
        free(la);
        free(lb);
    }
    bb_tf_free(a);
    bb_tf_free(b);
}

static void context_beyond_training(void)
{
    char path[1200], err[1024], warn[256];
    golden_path(path, sizeof path, "stories260K/stories260K.gguf");
    bb_model_source *m = bb_model_source_open(path, NULL, err, sizeof err);
    CHECK(m != NULL, "%s", err);
    if (!m) return;
    CHECK(bb_model_source_dims(m)->seq_len == 128, "context %d", bb_model_source_dims(m)->seq_len);
    bb_tf_dims d;
    CHECK(bb_model_source_run_dims(m, 128, &d, warn, sizeof warn, err, sizeof err) == 0 && !warn[0], "%s", warn);
    CHECK(bb_model_source_run_dims(m, 512, &d, warn, sizeof warn, err, sizeof err) == 0 && d.seq_len == 512 &&
              strstr(warn, "more than the 128"), "warning '%s'", warn);
    bb_model_source_close(m);
}

/* A copy of stories260K.gguf with the first occurrence of `from` replaced by `to` (same length). */
static void patched_copy(const char *out, const char *from, const void *to, size_t len)
{
    char src[1200];
    golden_path(src, sizeof src, "stories260K/stories260K.gguf");
    FILE *f = fopen(src, "rb");
    CHECK(f != NULL, "%s", src);
    if (!f) return;
    static char buf[2 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    char *at = memmem(buf, n, from, strlen(from));
    CHECK(at != NULL, "'%s' not in %s", from, src);
    if (at) memcpy(at, to, len);
    f = fopen(out, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
}

static void bad_files(void)
{
    char err[1024];
    const char *missing = "/tmp/bb_test_gguf_model_missing.gguf", *shape = "/tmp/bb_test_gguf_model_shape.gguf";
    patched_copy(missing, "blk.4.ffn_up.weight", "blk.4.ffn_uq.weight", 19);
    bb_gguf_model *m = bb_gguf_model_open(missing, err, sizeof err);
    CHECK(m == NULL && strstr(err, "tensor 'blk.4.ffn_up.weight' is missing"), "%s", m ? "opened" : err);
    bb_gguf_model_close(m);
    /* llama.feed_forward_length: key, u32 type 4, value 172 -> 171 */
    char key[64] = "llama.feed_forward_length";
    size_t kl = strlen(key);
    unsigned char patched[64];
    memcpy(patched, key, kl);
    const unsigned char tail[8] = {4, 0, 0, 0, 171, 0, 0, 0};
    memcpy(patched + kl, tail, 8);
    patched_copy(shape, key, patched, kl + 8);
    m = bb_gguf_model_open(shape, err, sizeof err);
    CHECK(m == NULL && strstr(err, "tensor 'blk.0.ffn_gate.weight' has shape [64, 172], expected [64, 171]"), "%s",
          m ? "opened" : err);
    printf("bad files: '%s'\n", err);
    bb_gguf_model_close(m);
    remove(missing);
    remove(shape);
}

int main(void)
{
    shared_dir(shared, sizeof shared);
    char err[256];
    bb_pool *pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (!pool) return check_summary("gguf_model");
    against_llamacpp(pool, "stories260K/stories260K.gguf", "stories260K/llamacpp_greedy_ids_f32_prompt1_n196_kvf32.txt",
                     "stories260K/llamacpp_logits_f32_prompt1_first3_kvf32.txt", "f32", "f32", 1e-4);
    against_llamacpp(pool, "bitnet/tiny-bitnet-tq2_0-embf16.gguf", "bitnet/llamacpp_greedy_ids_tq2_0-embf16_n32_kvf32.txt",
                     "bitnet/llamacpp_logits_tq2_0-embf16_first3_kvf32.txt", "tq2_0", "f16", 2e-3);
    against_llamacpp(pool, "bitnet/tiny-bitnet-tq1_0-embf16.gguf", "bitnet/llamacpp_greedy_ids_tq1_0-embf16_n32_kvf32.txt",
                     "bitnet/llamacpp_logits_tq1_0-embf16_first3_kvf32.txt", "tq1_0", "f16", 2e-3);
    bin_equals_gguf(pool);
    tq_files_agree(pool);
    context_beyond_training();
    bad_files();
    bb_pool_destroy(pool);
    return check_summary("gguf_model");
}
