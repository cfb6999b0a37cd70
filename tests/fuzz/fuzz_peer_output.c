/* Fuzz target: the readers of a peer program's stdout (harness/peers/llama_bench.c,
 * harness/peers/batched_bench.c), text a program the person named printed, parsed with no trust.
 *
 * The first byte chooses the reader: even, llama-bench's `-o json` array (bb_llama_bench_parse,
 * then bb_llama_bench_check against a spec); odd, llama-batched-bench's `--output-format jsonl`
 * line (bb_batched_bench_parse, then bb_batched_bench_check), and its --version text
 * (bb_batched_bench_version_commit).  The rest is the output.  A parse that succeeds must give
 * what its header promises: rates that are not negative, at most BB_PEER_MAX_SAMPLES samples, a
 * commit of 1..40 characters of [0-9A-Za-z._-].  Seeds: tests/data/peers (run.sh). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "peers/batched_bench.h"
#include "peers/llama_bench.h"

static void llama_bench(const char *text)
{
    char err[512];
    bb_llama_bench_result r;
    if (bb_llama_bench_parse(text, &r, err, sizeof err)) return;
    const bb_llama_bench_test *t[] = {&r.pp, &r.tg};
    for (int i = 0; i < 2; i++) {
        if (t[i]->present && (t[i]->nsamples < 1 || t[i]->nsamples > BB_PEER_MAX_SAMPLES || !(t[i]->avg_ts >= 0)))
            abort();
        for (int k = 0; k < t[i]->nsamples; k++)
            if (!(t[i]->samples_ts[k] >= 0)) abort();
    }
    bb_llama_bench_spec spec = {.model = "m.gguf", .threads = 4, .prompt = 512, .gen = 128, .reps = 5};
    (void)bb_llama_bench_check(&spec, &r, err, sizeof err);
}

static void batched_bench(const char *text)
{
    char err[512];
    bb_batched_bench_result r;
    if (bb_batched_bench_parse(text, &r, err, sizeof err)) return;
    if (!(r.speed_tg > 0) || !isfinite(r.speed_tg) || !(r.t_tg > 0) || r.pp < 0 || r.tg < 0 || r.pl < 0 ||
        r.n_threads < 0)
        abort();
    bb_batched_bench_spec spec = {.model = "m.gguf", .threads = 2, .depth = 4096, .gen = 16};
    (void)bb_batched_bench_check(&spec, &r, err, sizeof err);
}

static void version_commit(const char *text)
{
    char commit[48];
    int rc = bb_batched_bench_version_commit(text, commit, sizeof commit);
    size_t n = strlen(commit);
    if (rc == 0 ? (n < 1 || n > 40 ||
                   strspn(commit, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._-") != n)
                : n != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    char *text = fuzz_input_string(data + 1, size - 1);
    if (!text) return 0;
    if (data[0] & 1) {
        batched_bench(text);
        version_commit(text);
    } else {
        llama_bench(text);
    }
    free(text);
    return 0;
}
