/* The engine's memory estimate (bb_tf_estimate_memory), which bitbench e2e and model sweeps use to
 * refuse a model before building it: it must count what bb_tf_create really allocates (heap growth
 * measured with mallinfo2 where the allocator is glibc's), size the KV cache to the context it is
 * given, and put the 70B BitNet model at <= 2 bits per weight under a 24 GiB machine at a short
 * context while the 100B model and a 70B f16 model are over. */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "harness/bench/e2e_bench.h"
#include "models/synthetic.h"
#include "support/memory.h"

#define GIB 1073741824.0

/* The packed weights are one arena in the order a decode step reads them (bb_tf_weight_buffers):
 * each buffer starts on a cache line right after the previous one, they fill exactly the
 * estimate's weights, and bb_read_buffers reads them (less the tails past a multiple of 256). */
static void weight_buffers_in_decode_order(bb_transformer *t, const bb_tf_memory *m)
{
    int n = bb_tf_weight_buffers(t, NULL, NULL);
    CHECK(n == 7 * bb_tf_get_dims(t)->n_layers + 1, "%d weight buffers", n);
    const void *bufs[64];
    size_t bytes[64], sum = 0, readable = 0;
    if (n > 64) return;
    bb_tf_weight_buffers(t, bufs, bytes);
    for (int i = 0; i < n; i++) {
        sum += bytes[i];
        readable += bytes[i] / 256 * 256;
        CHECK((uintptr_t)bufs[i] % 64 == 0, "buffer %d not on a cache line", i);
        if (i > 0)
            CHECK((const char *)bufs[i] == (const char *)bufs[i - 1] + (bytes[i - 1] + 63) / 64 * 64,
                  "buffer %d does not follow buffer %d", i, i - 1);
    }
    CHECK(sum == bb_tf_weight_bytes_per_token(t), "buffers %zu bytes, weight_bytes_per_token %zu", sum,
          bb_tf_weight_bytes_per_token(t));
    CHECK((const char *)bufs[n - 1] + (bytes[n - 1] + 63) / 64 * 64 == (const char *)bufs[0] + m->weights,
          "the buffers do not fill the estimated %zu bytes of weights", m->weights);
    char err[256];
    bb_pool *pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (!pool) return;
    for (int streams = 1; streams <= BB_READ_STREAMS; streams += BB_READ_STREAMS - 1) {
        size_t read = 0;
        double secs = bb_read_buffers(pool, bufs, bytes, n, streams, &read);
        CHECK(secs > 0 && read == readable, "%d streams: read %zu of %zu bytes in %g s", streams, read, readable, secs);
    }
    bb_pool_destroy(pool);
}

static void estimate_is_allocation(bb_kv_type kv_k, bb_kv_type kv_v, bool tied)
{
    bb_tf_dims d = {.dim = 256, .hidden_dim = 768, .n_layers = 3, .n_heads = 4, .n_kv_heads = 2, .vocab_size = 300,
                    .seq_len = 40, .style = BB_STYLE_BITNET, .sub_norms = true, .ffn_act = BB_FFN_SILU,
                    .tied_embedding = tied};
    bb_tf_options opt = {.kernel = "i2_s", .out_kernel = "f16", .kv_k = kv_k, .kv_v = kv_v, .max_batch = 16};
    bb_tf_memory m;
    char err[1024];
    CHECK(bb_tf_estimate_memory(&d, &opt, &m, err, sizeof err) == 0, "%s", err);
    /* head_dim 64: f32 256 bytes a row, f16 and bf16 128, q8_0 2 blocks of 34 */
    static const size_t row[BB_KV_TYPES] = {256, 128, 128, 68};
    size_t kv = (size_t)3 * 40 * 2 * (row[kv_k] + row[kv_v]);
    CHECK(m.kv_cache == kv, "kv cache %zu bytes, expected %zu", m.kv_cache, kv);
    size_t later = m.kv_cache > m.build_scratch ? m.kv_cache : m.build_scratch;
    CHECK(m.total == m.weights + m.embedding + m.buffers + later, "total is not the peak");
    size_t bytes;
    CHECK(bb_tf_estimate_bytes(&d, &opt, &bytes, err, sizeof err) == 0 && bytes == m.total, "estimate_bytes != total");
    bb_synthetic syn = {.dims = d, .seed = 3};
    bb_weight_source src = bb_synthetic_source(&syn);
#if defined(__SANITIZE_ADDRESS__)
    bb_transformer *t = bb_tf_create(&d, &src, &opt, err, sizeof err);
    CHECK(t != NULL, "%s", err);
    if (t) CHECK(bb_tf_footprint(t) == m.weights + m.embedding + m.kv_cache + m.buffers, "footprint differs from the estimate");
#else
    struct mallinfo2 before = mallinfo2();
    bb_transformer *t = bb_tf_create(&d, &src, &opt, err, sizeof err);
    struct mallinfo2 after = mallinfo2();
    CHECK(t != NULL, "%s", err);
    if (t) {
        size_t grown = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
        size_t counted = m.weights + m.embedding + m.kv_cache + m.buffers;
        CHECK(bb_tf_footprint(t) == counted, "footprint %zu differs from the estimate %zu", bb_tf_footprint(t), counted);
        /* allocator headers, 64-byte rounding and the engine's own structs: a few KiB at most */
        CHECK(grown >= counted && grown <= counted + 16384, "heap grew by %zu bytes, the estimate counts %zu (kv %s, %s)",
              grown, counted, bb_kv_type_name(kv_k), tied ? "tied" : "untied");
    }
#endif
    if (t) weight_buffers_in_decode_order(t, &m);
    bb_tf_free(t);
}

static double need_gib(const char *model, const char *kernel, int context, bb_tf_memory *m)
{
    bb_model_config c;
    char err[2048];
    if (bb_model_load(model, &c, err, sizeof err)) {
        CHECK(0, "%s", err);
        return 0;
    }
    bb_tf_dims d;
    bb_tf_dims_from_config(&c, context, &d);
    bb_tf_options opt = {.kernel = kernel, .out_kernel = "f16", .max_batch = 8};
    if (bb_tf_estimate_memory(&d, &opt, m, err, sizeof err)) {
        CHECK(0, "%s with %s: %s", model, kernel, err);
        return 0;
    }
    return m->total / GIB;
}

int main(void)
{
    estimate_is_allocation(BB_KV_F32, BB_KV_F32, true);
    estimate_is_allocation(BB_KV_F16, BB_KV_F16, false);
    estimate_is_allocation(BB_KV_Q8_0, BB_KV_BF16, false);
    bb_tf_memory m;
    double g = need_gib("bitnet-dummy-70b", "i2_s", 12, &m);
    CHECK(g > 16 && g < 21.6, "70B with i2_s at a 12-token context: %.2f GiB (must fit 90%% of 24 GiB)", g);
    CHECK(m.kv_cache == 2ull * 80 * 12 * 8192 * 4, "70B kv cache at 12 tokens: %zu bytes", m.kv_cache);
    printf("70B i2_s, 12 tokens: %.2f GiB (weights %.2f, embedding %.2f, kv %.4f, buffers %.4f, build scratch %.2f)\n", g,
           m.weights / GIB, m.embedding / GIB, m.kv_cache / GIB, m.buffers / GIB, m.build_scratch / GIB);
    g = need_gib("bitnet-dummy-70b", "i2_s", 2048, &m);
    CHECK(m.kv_cache == 2ull * 80 * 2048 * 8192 * 4, "70B kv cache at 2048 tokens: %zu bytes", m.kv_cache);
    g = need_gib("bitnet-dummy-100b", "i2_s", 12, &m);
    CHECK(g > 24, "100B with i2_s: %.2f GiB, more than a 24 GiB machine", g);
    g = need_gib("bitnet-dummy-70b", "f16", 12, &m);
    CHECK(g > 120, "70B with f16 weights: %.2f GiB", g);
    return check_summary("tf_memory");
}
