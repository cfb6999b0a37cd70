/* llama.cpp's llama-bench as a peer: its command line and its JSON output (`-o json`).
 *
 * bitnet.cpp ships the same tool (its llama.cpp fork, Eddie-Wang1120/llama.cpp), with the same
 * options and JSON, so one adapter serves both peers.
 *
 * What is asked (examples/llama-bench/README.md of llama.cpp): `-m FILE -t T -p P -n G -r R
 * -o json`; llama-bench runs prompt processing (pp P: n_prompt P, n_gen 0) and text generation
 * (tg G: n_prompt 0, n_gen G) as two tests, each repeated R times after one warm-up run.  Its KV
 * cache is f16 (llama-bench's -ctk/-ctv take f16, bf16 and quantized types, never f32:
 * ggml_type_from_name in llama-bench.cpp), so sweeps with peers must use kv = "f16".
 *
 * Note one difference from bitbench's own tg: llama-bench's tg test generates G tokens from an
 * empty KV cache (its pp test is separate), bitbench's generates after the prompt.  With the
 * short prompts of the sweeps this changes the attention work per token little.
 *
 * What is read: a JSON array with one object per test (llama-bench.cpp, json_printer and
 * test::get_fields): n_prompt, n_gen, n_threads, avg_ts, stddev_ts (tokens/s over the
 * repetitions), samples_ts (tokens/s of each repetition), build_commit, cpu_info, model_type,
 * model_filename.  Members are found by name, so fields that other versions add or reorder do not
 * matter; avg_ts and samples_ts must be there. */
#ifndef BB_LLAMA_BENCH_H
#define BB_LLAMA_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#define BB_PEER_MAX_SAMPLES 100

typedef struct {
    bool present;
    int n_prompt, n_gen, n_threads;
    double avg_ts, stddev_ts;
    double samples_ts[BB_PEER_MAX_SAMPLES];
    int nsamples;
} bb_llama_bench_test;

typedef struct {
    char build_commit[48];
    char cpu_info[160];
    char model_type[128];
    bb_llama_bench_test pp, tg; /* the prompt-processing test (n_gen 0) and the generation test */
} bb_llama_bench_result;

/* What to run: a GGUF file, threads, prompt and generation lengths (either may be 0, not both),
 * repetitions. */
typedef struct {
    const char *model;
    int threads, prompt, gen, reps;
    int depth; /* tokens in the KV cache before each test: `-d D` when not 0 (llama-bench's --n-depth) */
} bb_llama_bench_spec;

/* Fill argv (after argv[0], which the caller sets) with the options for spec; num holds the
 * numbers as text (so argv points into it).  Returns the argument count including argv[0]; argv
 * must hold BB_LLAMA_BENCH_MAX_ARGS pointers. */
#define BB_LLAMA_BENCH_MAX_ARGS 16
typedef struct {
    char text[5][16];
} bb_llama_bench_numbers;
int bb_llama_bench_argv(const bb_llama_bench_spec *spec, char *argv[], bb_llama_bench_numbers *num);

/* Does this llama-bench take -d?  From its --help text: llama.cpp's lists "-d, --n-depth" (added
 * in 2025); older builds, such as bitnet.cpp's fork, have no such line. */
bool bb_llama_bench_help_has_depth(const char *help);

/* Parse llama-bench's stdout: the JSON array that starts at the first line beginning with '['
 * (so log lines printed before it do not matter).  Returns 0, or -1 with err: no JSON array, not
 * JSON (with the offset), a test without avg_ts or samples_ts, more samples than
 * BB_PEER_MAX_SAMPLES. */
int bb_llama_bench_parse(const char *out, bb_llama_bench_result *r, char *err, size_t errlen);

/* Checks that the parsed result holds the tests spec asked for, with its threads.  Returns 0, or
 * -1 with err. */
int bb_llama_bench_check(const bb_llama_bench_spec *spec, const bb_llama_bench_result *r, char *err, size_t errlen);

#endif
