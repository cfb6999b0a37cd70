/* The engine against an independent implementation: the real tiny model stories260K
 * ($BITBENCH_SHARED_DIR/models/) run greedily in f32 must reproduce llama2.c's run.c token for token and
 * its logits to float rounding ($BITBENCH_SHARED_DIR/golden/stories260K/, 200 positions, two prompts), with
 * the prompt prefilled as one GEMM.  Also: prefill and token-by-token decode agree, and the
 * decoded text equals run.c's output. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "files.h"
#include "models/llama2c.h"
#include "models/sampler.h"
#include "models/tokenizer.h"

static char shared[1024];

/* Logits blocks: "gen J pos P argmax A" then vocab lines. Returns count of blocks read. */
static int read_logits(const char *path, float *out, int vocab, int max_blocks)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    int block = -1, i = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (strncmp(line, "gen ", 4) == 0) {
            block++;
            i = 0;
            if (block >= max_blocks) break;
            continue;
        }
        if (block >= 0 && i < vocab) out[(size_t)block * vocab + i++] = strtof(line, NULL);
    }
    fclose(f);
    return block + (block < max_blocks ? 1 : 0);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void run_prompt(bb_pool *pool, int which, const char *prompt)
{
    char err[512], path[1200], tpath[1200], lpath[1200], rpath[1200];
    snprintf(path, sizeof path, "%s/models/stories260K/stories260K.bin", shared);
    bb_llama2c *ck = bb_llama2c_open(path, err, sizeof err);
    CHECK(ck != NULL, "%s", err);
    if (!ck) return;
    bb_weight_source src = bb_llama2c_source(ck);
    bb_tf_options opt = {.kernel = "f32", .out_kernel = "f32", .max_batch = 16};
    const bb_tf_dims *d = bb_llama2c_dims(ck);
    bb_transformer *tf = bb_tf_create(d, &src, &opt, err, sizeof err);
    CHECK(tf != NULL, "%s", err);
    snprintf(tpath, sizeof tpath, "%s/models/stories260K/tok512.bin", shared);
    bb_tokenizer *tok = bb_tokenizer_load(tpath, d->vocab_size, err, sizeof err);
    CHECK(tok != NULL, "%s", err);
    if (!tf || !tok) goto done;

    int ids[512], want_prompt[64], want_gen[512];
    snprintf(lpath, sizeof lpath, "%s/golden/stories260K/greedy_n200_prompt%d.tokens.txt", shared, which);
    int np = bb_tokenizer_encode(tok, prompt, ids, 512, err, sizeof err);
    int nwp = golden_ids(lpath, "prompt_ids", want_prompt, 64), nwg = golden_ids(lpath, "generated_ids", want_gen, 512);
    CHECK(nwp > 0 && nwg > 0, "cannot read %s", lpath);
    CHECK(np == nwp && memcmp(ids, want_prompt, sizeof(int) * (size_t)np) == 0, "prompt %d encodes differently", which);

    int vocab = d->vocab_size, steps = 200;
    float *want_logits = malloc(sizeof(float) * (size_t)vocab * 200);
    snprintf(lpath, sizeof lpath, "%s/golden/stories260K/greedy_n200_prompt%d.logits.txt", shared, which);
    int nlog = read_logits(lpath, want_logits, vocab, 200);
    /* the file holds the logits of the first generated positions (three, as shipped) */
    CHECK(nlog >= 1 && nlog <= nwg, "%s: %d logit blocks for %d generated ids", lpath, nlog, nwg);

    /* prefill the prompt as one GEMM, then decode */
    const float *logits = bb_tf_forward(tf, pool, ids, np, 0, NULL);
    int n = np, bad_tokens = 0;
    double worst = 0;
    char text[1 << 16];
    size_t tl = 0;
    for (int i = 1; i < np; i++) tl += (size_t)snprintf(text + tl, sizeof text - tl, "%s", bb_tokenizer_decode(tok, ids[i - 1], ids[i]));
    for (int g = 0; n - 1 < steps; g++) { /* positions 0 .. steps-1, as run.c */
        if (g < nlog)
            for (int v = 0; v < vocab; v++) worst = fmax(worst, fabs(logits[v] - want_logits[(size_t)g * vocab + v]));
        int next = bb_argmax(logits, vocab);
        if (g < nwg && next != want_gen[g] && bad_tokens++ < 3)
            CHECK(0, "prompt %d: generated token %d is %d, llama2.c gave %d", which, g, next, want_gen[g]);
        if (next == 1) break;
        tl += (size_t)snprintf(text + tl, sizeof text - tl, "%s", bb_tokenizer_decode(tok, ids[n - 1], next));
        ids[n++] = next;
        if (n - 1 < steps) logits = bb_tf_forward(tf, pool, &next, 1, n - 1, NULL);
    }
    if (!bad_tokens) PASS();
    CHECK(n - np == nwg, "prompt %d: generated %d tokens, llama2.c %d", which, n - np, nwg);
    CHECK(worst <= 1e-4, "prompt %d: max |logit - llama2.c| = %.3g > 1e-4", which, worst);
    printf("prompt %d: %d tokens identical, max |logit difference| %.3g over %d positions\n", which, n - np, worst, nlog);
    snprintf(rpath, sizeof rpath, "%s/golden/stories260K/runc_greedy_n200_prompt%d.txt", shared, which);
    char *want_text = read_text(rpath);
    CHECK(want_text != NULL, "cannot read %s", rpath);
    if (want_text) {
        size_t wl = strlen(want_text);
        while (wl && want_text[wl - 1] == '\n') want_text[--wl] = 0;
        CHECK(strcmp(text, want_text) == 0, "prompt %d: decoded text differs from run.c's:\n%s\n---\n%s", which, text, want_text);
    }

    /* prefill == token by token, on a fresh cache (the cache is overwritten position by position) */
    const float *l1 = bb_tf_forward(tf, pool, ids, np, 0, NULL);
    float *pre = malloc(sizeof(float) * (size_t)vocab);
    memcpy(pre, l1, sizeof(float) * (size_t)vocab);
    const float *l2 = NULL;
    for (int i = 0; i < np; i++) l2 = bb_tf_forward(tf, pool, &ids[i], 1, i, NULL);
    double diff = 0;
    for (int v = 0; v < vocab; v++) diff = fmax(diff, fabs(pre[v] - l2[v]));
    CHECK(diff <= 1e-5, "prompt %d: prefill and token-by-token logits differ by %.3g", which, diff);
    free(pre);
    free(want_logits);
done:
    bb_tokenizer_free(tok);
    bb_tf_free(tf);
    bb_llama2c_close(ck);
}

int main(void)
{
    shared_dir(shared, sizeof shared);
    char err[256];
    bb_pool *pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (!pool) return check_summary("golden");
    run_prompt(pool, 1, "Once upon a time");
    run_prompt(pool, 2, "The little dog");
    bb_pool_destroy(pool);
    return check_summary("golden");
}
