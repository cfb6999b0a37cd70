/* bb_e2e_bench_interleaved (a model sweep's interleave): the models are built and held together,
 * repetition r runs every model's generation in turn starting at model r mod n, `again` times the
 * whole group again, each result is what bb_e2e_bench alone gives for that spec (the same bytes,
 * tokens and logits), and a model that cannot be built fails the group naming it, with nothing
 * kept. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "harness/bench/e2e_bench.h"

#define REPS 3
#define MAX_EVENTS 64

static int events[MAX_EVENTS][2]; /* (model, repetition) of each generation, in the order they began */
static int nevents;

static void gen_begin(void *ctx, int rep)
{
    if (nevents < MAX_EVENTS) {
        events[nevents][0] = *(const int *)ctx;
        events[nevents][1] = rep;
    }
    nevents++;
}

static int again_calls;
static bool again_once(void *ctx)
{
    (void)ctx;
    return again_calls++ == 0;
}

static bb_model_config small(void)
{
    bb_model_config c = {.style = BB_MODEL_BITNET, .dim = 128, .ffn_dim = 256, .n_layers = 2, .n_heads = 2,
                         .n_kv_heads = 2, .vocab_size = 200, .ffn_act = BB_MODEL_FFN_RELU2, .tied_embedding = true};
    snprintf(c.name, sizeof c.name, "small");
    return c;
}

static bb_e2e_spec spec_for(const bb_model_config *cfg, const char *kernel, const int *id, const int *tokens,
                            float *logits)
{
    return (bb_e2e_spec){.model = cfg, .kernel = kernel, .prompt_len = 4, .gen_len = 3, .reps = REPS, .seed = 7,
                         .kv_k = BB_KV_F32, .kv_v = BB_KV_F32, .gen_begin = gen_begin, .hook_ctx = (void *)id,
                         .logit_tokens = tokens, .n_logit_tokens = 2, .logits_out = logits, .seq_len = 8};
}

static void order_and_results(bb_pool *pool)
{
    bb_model_config cfg = small();
    static const int ids[3] = {0, 1, 2};
    const char *kernels[3] = {"f32", "i2_s", "tq2_0"};
    const int tokens[2] = {5, 9};
    float logits[3][2 * 200], alone[2 * 200];
    bb_e2e_spec specs[3];
    for (int i = 0; i < 3; i++) specs[i] = spec_for(&cfg, kernels[i], &ids[i], tokens, logits[i]);
    bb_e2e_result res[3];
    char failed[3] = {1, 1, 1}, err[1024];
    nevents = again_calls = 0;
    int rc = bb_e2e_bench_interleaved(pool, specs, 3, res, again_once, NULL, failed, err, sizeof err);
    CHECK(rc == 0, "interleaved: %s", err);
    if (rc) return;
    CHECK(again_calls == 2, "again asked %d times, expected 2 (after each attempt)", again_calls);
    CHECK(nevents == 2 * REPS * 3, "%d generations, expected %d (two attempts)", nevents, 2 * REPS * 3);
    /* each attempt: repetition r runs models r, r+1, r+2 (mod 3) */
    for (int e = 0; e < nevents && e < MAX_EVENTS; e++) {
        int within = e % (REPS * 3), rep = within / 3, k = within % 3;
        CHECK(events[e][1] == rep && events[e][0] == (rep + k) % 3, "generation %d: model %d repetition %d, expected "
              "model %d repetition %d", e, events[e][0], events[e][1], (rep + k) % 3, rep);
    }
    for (int i = 0; i < 3; i++) {
        CHECK(failed[i] == 0, "model %d marked failed", i);
        CHECK(res[i].tg_tps_median > 0 && res[i].pp_tps_median > 0 && res[i].read_tps_median > 0 &&
              res[i].tg_of_read > 0, "model %d: tg %g pp %g read %g", i, res[i].tg_tps_median, res[i].pp_tps_median,
              res[i].read_tps_median);
        CHECK(!strcmp(res[i].cpus, res[0].cpus), "model %d ran on %s, model 0 on %s", i, res[i].cpus, res[0].cpus);
        /* alone, the same spec reads the same bytes and gives the same logits */
        bb_e2e_spec one = specs[i];
        one.gen_begin = NULL;
        one.logits_out = alone;
        bb_e2e_result r1;
        CHECK(bb_e2e_bench(pool, &one, &r1, err, sizeof err) == 0, "%s alone: %s", kernels[i], err);
        CHECK(r1.weight_bytes_per_token == res[i].weight_bytes_per_token &&
              r1.kv_bytes_per_token == res[i].kv_bytes_per_token && r1.footprint == res[i].footprint,
              "%s: bytes %zu/%zu kv %zu/%zu alone/interleaved", kernels[i], r1.weight_bytes_per_token,
              res[i].weight_bytes_per_token, r1.kv_bytes_per_token, res[i].kv_bytes_per_token);
        CHECK(!strcmp(r1.tg_variant_ran, res[i].tg_variant_ran) && !strcmp(r1.conversions, res[i].conversions),
              "%s: variant %s/%s", kernels[i], r1.tg_variant_ran, res[i].tg_variant_ran);
        CHECK(memcmp(alone, logits[i], sizeof alone) == 0, "%s: logits differ alone and interleaved", kernels[i]);
    }
}

static void build_failure(bb_pool *pool)
{
    bb_model_config cfg = small();
    static const int ids[2] = {0, 1};
    bb_e2e_spec specs[2] = {spec_for(&cfg, "f32", &ids[0], NULL, NULL), spec_for(&cfg, "f32", &ids[1], NULL, NULL)};
    specs[0].n_logit_tokens = specs[1].n_logit_tokens = 0;
    specs[1].depth = 6; /* 6 + 4 + 3 tokens exceed the context of 8 */
    bb_e2e_result res[2];
    char failed[2] = {0, 0}, err[1024] = "";
    nevents = 0;
    int rc = bb_e2e_bench_interleaved(pool, specs, 2, res, NULL, NULL, failed, err, sizeof err);
    CHECK(rc == -1 && failed[0] == 0 && failed[1] == 1, "rc %d failed %d %d", rc, failed[0], failed[1]);
    CHECK(strstr(err, "exceed the context of 8") != NULL, "error: %s", err);
    CHECK(nevents == 0, "%d generations ran although a model of the group failed", nevents);
}

int main(void)
{
    char err[256];
    bb_pool *pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (!pool) return check_summary("test_e2e_interleaved");
    order_and_results(pool);
    build_failure(pool);
    bb_pool_destroy(pool);
    return check_summary("test_e2e_interleaved");
}
