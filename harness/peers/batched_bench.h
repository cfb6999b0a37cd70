/* llama.cpp's llama-batched-bench as a peer's measurement of decode at depth, for a peer whose
 * llama-bench has no -d (llama.cpp before 2025, bitnet.cpp's fork).
 *
 * What is asked (examples/batched-bench/README.md of llama.cpp): `-m FILE -c CTX -b B -ub UB
 * -npp D -ntg G -npl 1 -t T --output-format jsonl` (and `-ctk K -ctv V` when the point's KV types
 * are not f16).  With one parallel sequence (-npl 1) and a prompt of D tokens, its tg is G tokens
 * generated after D tokens of context: decode at depth D, what llama-bench's `-d D` measures.
 * batched-bench.cpp decodes 16 tokens as a warm-up once per process, then, per (pp, tg, pl),
 * clears the KV cache, decodes the pp tokens (timed: t_pp) and generates tg tokens (timed: t_tg).
 * It runs each configuration once, so one invocation is one sample; the caller runs it `reps`
 * times.  Its t_pp is the prefill of the D tokens of depth, not a prompt after depth: a row
 * measured this way leaves its pp empty (docs/models.md, "Peers at depth").
 *
 * What is read: the first line that starts with '{' (log lines before it do not matter), a JSON
 * object with pp, tg, pl, n_threads (counts) and t_tg, speed_tg (seconds, tokens/s). */
#ifndef BB_BATCHED_BENCH_H
#define BB_BATCHED_BENCH_H

#include <stddef.h>

typedef struct {
    const char *model;
    int threads, depth, gen;
    const char *kv_k, *kv_v; /* ggml type names ("q8_0"); NULL or "f16": the default, not passed */
} bb_batched_bench_spec;

typedef struct {
    int pp, tg, pl, n_threads;
    double t_tg, speed_tg;
} bb_batched_bench_result;

#define BB_BATCHED_BENCH_MAX_ARGS 26
typedef struct {
    char text[6][16];
} bb_batched_bench_numbers;
/* Fill argv after argv[0] (the caller's); returns the count including argv[0]. */
int bb_batched_bench_argv(const bb_batched_bench_spec *spec, char *argv[], bb_batched_bench_numbers *num);

/* Parse its stdout.  Returns 0, or -1 with err: no JSON line, not JSON, a member missing or out
 * of range. */
int bb_batched_bench_parse(const char *out, bb_batched_bench_result *r, char *err, size_t errlen);

/* The build commit from its `--version` output ("version: 4748 (c392e5094)", on stderr in
 * llama.cpp and bitnet.cpp alike), which its JSON line lacks: the text in parentheses after the
 * first "version: N", when it is 1..40 characters of [0-9A-Za-z._-].  Returns 0 with commit set,
 * or -1 (commit "") when there is none. */
int bb_batched_bench_version_commit(const char *text, char *commit, size_t len);

/* The result is the configuration spec asked for (pp = depth, tg = gen, pl 1, its threads). */
int bb_batched_bench_check(const bb_batched_bench_spec *spec, const bb_batched_bench_result *r, char *err,
                           size_t errlen);

#endif
