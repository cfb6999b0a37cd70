/* Peers: other implementations a user has installed, run on the same model file and the same
 * threads, lengths and repetitions as bitbench's own points, their tokens/s written into e2e.csv
 * beside bitbench's (README.md, "Peers side by side").
 *
 *   llama.cpp    llama-bench of ggml-org/llama.cpp      $BITBENCH_LLAMA_BENCH
 *   bitnet.cpp   llama-bench of microsoft/BitNet        $BITBENCH_BITNET_BENCH
 *                (its llama.cpp fork, which adds I2_S)
 *
 * Where the program is found, first that applies: the command line (`bitbench run --peer
 * llama.cpp=PATH`, bb_peer_set_program), the environment variable, then the program's name on
 * PATH.  Never the experiment file: a file from elsewhere names a peer, the person running it
 * chooses what runs (a sweep's old field peer_paths is refused, harness/peers/peer_sweep.c).
 * A peer that is not found, fails, hangs
 * past its time limit or prints something that is not its JSON is a reason (one line), never an
 * error that ends the run: bitbench measures itself either way. */
#ifndef BB_PEER_H
#define BB_PEER_H

#include <stdbool.h>
#include <stddef.h>

#include "peers/batched_bench.h"
#include "peers/llama_bench.h"

typedef struct {
    const char *name;     /* as in a sweep's `peers` and in e2e.csv's kernel ("llama.cpp:tq2_0") */
    const char *env;      /* the environment variable naming its program */
    const char *program;  /* the program's name on PATH */
    const char *types;    /* the GGUF tensor types it runs, lower case, comma separated */
    const char *about;
} bb_peer;

int bb_peer_count(void);
const bb_peer *bb_peer_at(int i);
/* NULL for an unknown name. */
const bb_peer *bb_peer_find(const char *name);
/* The peer's kernel-level program as a bb_peer of the same name whose env and program are that
 * tool's (llama.cpp: test-backend-ops, $BITBENCH_TEST_BACKEND_OPS), or NULL for a peer without
 * one (bitnet.cpp). */
const bb_peer *bb_peer_kernel_tool(const bb_peer *p);
/* The peer's program for decode at depth when its llama-bench has no -d (llama-batched-bench,
 * harness/peers/batched_bench.h) as a bb_peer named "PEER-batched" (its --peer name, and the
 * peer column of the rows it measures) with its own env ($BITBENCH_LLAMA_BATCHED_BENCH,
 * $BITBENCH_BITNET_BATCHED_BENCH) and program (llama-batched-bench on PATH); NULL for none. */
const bb_peer *bb_peer_batched_tool(const bb_peer *p);
/* Run the batched-bench at path once on spec (one sample), as bb_peer_bench runs llama-bench. */
int bb_peer_batched_bench(const char *path, const bb_batched_bench_spec *spec, double timeout_s, const int *cpus,
                          int ncpus, bb_batched_bench_result *r, char *why, size_t whylen);
/* The build commit of the batched-bench at path, from its --version (its JSON line has none);
 * "unknown" when it prints none. */
void bb_peer_batched_commit(const char *path, double timeout_s, char *commit, size_t len);
/* The peer names, comma separated (for error messages). */
const char *bb_peer_names(void);
/* Whether the peer runs weights of this GGUF type ("tq2_0", lower case). */
bool bb_peer_runs_type(const bb_peer *p, const char *type);

/* --peer NAME=PATH: the program for NAME, a peer's name (llama.cpp, bitnet.cpp: its
 * llama-bench, for model sweeps) or a kernel-level program's (test-backend-ops, for kernel
 * sweeps), for the rest of the process; a later one for the same NAME replaces it.  Returns 0,
 * or -1 with one line naming the argument and what is valid.  Whether PATH is an executable is
 * checked where it is used (bb_peer_locate), so a run whose sweeps use no peer is not refused. */
int bb_peer_set_program(const char *arg, char *err, size_t errlen);
/* The --peer names, comma separated (for messages): "llama.cpp, bitnet.cpp, test-backend-ops,
 * llama.cpp-batched, bitnet.cpp-batched". */
const char *bb_peer_program_names(void);

/* Find the peer's program: the --peer given for p (bb_peer_set_program), else $env, else program
 * on PATH.  Returns 0 with path, or -1 with why ("BITBENCH_LLAMA_BENCH=/x: not an executable
 * file", "llama-bench is not on PATH and BITBENCH_LLAMA_BENCH is not set"). */
int bb_peer_locate(const bb_peer *p, char *path, size_t len, char *why, size_t whylen);

/* bitbench.peer_available(name): the peer is known and its program is found (not run). */
bool bb_peer_available(const char *name, char *why, size_t whylen);

/* Run the peer's llama-bench at path on spec, at most timeout_s seconds, on the CPUs cpus[0..ncpus)
 * (ncpus 0: those this process may use; peer_exec.h), and read its result.  Returns 0, or -1
 * with why: how it ended and what it said last, or what was wrong with its output. */
int bb_peer_bench(const char *path, const bb_llama_bench_spec *spec, double timeout_s, const int *cpus, int ncpus,
                  bb_llama_bench_result *r, char *why, size_t whylen);
/* Does the llama-bench at path take -d (bb_llama_bench_help_has_depth on what `path --help`
 * prints)?  1 or 0; -1 with why when it could not be asked. */
int bb_peer_bench_has_depth(const char *path, double timeout_s, char *why, size_t whylen);

#endif
