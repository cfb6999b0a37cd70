#include "peers/peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "peers/peer_exec.h"

/* Types: those both bitbench and the peer's CPU backend run.  llama.cpp has had TQ1_0 and TQ2_0
 * since 2024-09 (ggml-org/llama.cpp #8151); I2_S exists only in bitnet.cpp's fork, whose other
 * types are the llama.cpp ones of its 2024-10 base. */
static const bb_peer peers[] = {
    {"llama.cpp", "BITBENCH_LLAMA_BENCH", "llama-bench", "f32,f16,bf16,q8_0,q4_0,q2_k,iq4_nl,tq1_0,tq2_0",
     "llama.cpp's llama-bench (ggml-org/llama.cpp)"},
    {"bitnet.cpp", "BITBENCH_BITNET_BENCH", "llama-bench", "i2_s,f32,f16,q8_0,q4_0,tq1_0,tq2_0",
     "bitnet.cpp's llama-bench (microsoft/BitNet, llama.cpp fork with I2_S)"},
};
enum { NPEERS = sizeof peers / sizeof peers[0] };

/* Kernel-level programs, by peer (harness/peers/backend_ops.h).  bitnet.cpp has none: its fork's
 * test-backend-ops has no I2_S case. */
static const bb_peer kernel_tools[] = {
    {"llama.cpp", "BITBENCH_TEST_BACKEND_OPS", "test-backend-ops", "f32,f16,bf16,q8_0,q4_0,q2_k,iq4_nl,tq1_0,tq2_0",
     "llama.cpp's test-backend-ops perf -o MUL_MAT (ggml-org/llama.cpp)"},
};

/* Programs that measure decode at depth for a peer whose llama-bench has no -d
 * (harness/peers/batched_bench.h); their --peer names are their own names. */
static const bb_peer batched_tools[] = {
    {"llama.cpp-batched", "BITBENCH_LLAMA_BATCHED_BENCH", "llama-batched-bench", "f32,f16,bf16,q8_0,q4_0,q2_k,iq4_nl,tq1_0,tq2_0",
     "llama.cpp's llama-batched-bench -npl 1 (ggml-org/llama.cpp): decode at depth without llama-bench's -d"},
    {"bitnet.cpp-batched", "BITBENCH_BITNET_BATCHED_BENCH", "llama-batched-bench", "i2_s,f32,f16,q8_0,q4_0,tq1_0,tq2_0",
     "bitnet.cpp's llama-batched-bench -npl 1 (microsoft/BitNet): decode at depth without llama-bench's -d"},
};
enum { NBATCHED = sizeof batched_tools / sizeof batched_tools[0] };

const bb_peer *bb_peer_batched_tool(const bb_peer *p)
{
    for (int i = 0; p && i < NBATCHED; i++)
        if (!strncmp(batched_tools[i].name, p->name, strlen(p->name)) && batched_tools[i].name[strlen(p->name)] == '-')
            return &batched_tools[i];
    return NULL;
}

const bb_peer *bb_peer_kernel_tool(const bb_peer *p)
{
    for (size_t i = 0; p && i < sizeof kernel_tools / sizeof kernel_tools[0]; i++)
        if (!strcmp(kernel_tools[i].name, p->name)) return &kernel_tools[i];
    return NULL;
}

int bb_peer_count(void) { return NPEERS; }

const bb_peer *bb_peer_at(int i) { return i >= 0 && i < NPEERS ? &peers[i] : NULL; }

const bb_peer *bb_peer_find(const char *name)
{
    for (int i = 0; i < NPEERS; i++)
        if (!strcmp(peers[i].name, name)) return &peers[i];
    return NULL;
}

const char *bb_peer_names(void)
{
    static char names[128];
    if (!names[0])
        for (int i = 0; i < NPEERS; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", peers[i].name);
    return names;
}

bool bb_peer_runs_type(const bb_peer *p, const char *type)
{
    size_t n = strlen(type);
    for (const char *s = p->types; *s;) {
        size_t len = strcspn(s, ",");
        if (len == n && !strncmp(s, type, n)) return true;
        s += len + (s[len] == ',');
    }
    return false;
}

static bool executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int on_path(const char *program, char *path, size_t len)
{
    const char *env = getenv("PATH");
    if (!env) return -1;
    for (const char *d = env; *d;) {
        size_t n = strcspn(d, ":");
        if (n) {
            snprintf(path, len, "%.*s/%s", (int)n, d, program);
            if (executable_file(path)) return 0;
        }
        d += n + (d[n] == ':');
    }
    return -1;
}

/* The --peer programs, by the bb_peer entry they are for (peers[] or kernel_tools[]). */
static struct {
    const bb_peer *p;
    char path[1024];
} given[NPEERS + sizeof kernel_tools / sizeof kernel_tools[0] + NBATCHED];
static int ngiven;

/* The name --peer knows p by: a peer's own, a kernel tool's program. */
static const char *option_name(const bb_peer *p)
{
    return p >= kernel_tools && p < kernel_tools + sizeof kernel_tools / sizeof kernel_tools[0] ? p->program : p->name;
}

const char *bb_peer_program_names(void)
{
    static char names[256];
    if (!names[0]) {
        snprintf(names, sizeof names, "%s", bb_peer_names());
        for (size_t i = 0; i < sizeof kernel_tools / sizeof kernel_tools[0]; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), ", %s", option_name(&kernel_tools[i]));
        for (int i = 0; i < NBATCHED; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), ", %s", option_name(&batched_tools[i]));
    }
    return names;
}

int bb_peer_set_program(const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    const bb_peer *p = NULL;
    size_t n = eq ? (size_t)(eq - arg) : 0;
    for (int i = 0; eq && !p && i < NPEERS; i++)
        if (strlen(peers[i].name) == n && !strncmp(peers[i].name, arg, n)) p = &peers[i];
    for (size_t i = 0; eq && !p && i < sizeof kernel_tools / sizeof kernel_tools[0]; i++)
        if (strlen(option_name(&kernel_tools[i])) == n && !strncmp(option_name(&kernel_tools[i]), arg, n))
            p = &kernel_tools[i];
    for (int i = 0; eq && !p && i < NBATCHED; i++)
        if (strlen(batched_tools[i].name) == n && !strncmp(batched_tools[i].name, arg, n)) p = &batched_tools[i];
    if (!eq || !p || !eq[1]) {
        snprintf(err, errlen, "--peer '%s': expected NAME=PATH with NAME one of %s (e.g. --peer "
                 "llama.cpp=/opt/llama.cpp/build/bin/llama-bench)", arg, bb_peer_program_names());
        return -1;
    }
    if (strlen(eq + 1) >= sizeof given[0].path) {
        snprintf(err, errlen, "--peer '%.*s': the path is longer than %zu bytes", (int)n, arg, sizeof given[0].path - 1);
        return -1;
    }
    int at = 0;
    while (at < ngiven && given[at].p != p) at++;
    if (at == ngiven) ngiven++;
    given[at].p = p;
    snprintf(given[at].path, sizeof given[at].path, "%s", eq + 1);
    return 0;
}

int bb_peer_locate(const bb_peer *p, char *path, size_t len, char *why, size_t whylen)
{
    const char *option = NULL;
    for (int i = 0; i < ngiven && !option; i++)
        if (given[i].p == p) option = given[i].path;
    const char *env = getenv(p->env);
    const char *named = option ? option : env && env[0] ? env : NULL;
    if (named) {
        snprintf(path, len, "%s", named);
        if (executable_file(path)) return 0;
        if (named == option)
            snprintf(why, whylen, "%s: --peer %s=%s is not an executable file", p->name, option_name(p), named);
        else
            snprintf(why, whylen, "%s: %s=%s is not an executable file", p->name, p->env, named);
        return -1;
    }
    if (on_path(p->program, path, len) == 0) return 0;
    snprintf(why, whylen, "%s: %s is not on PATH, %s is not set and no --peer %s=PATH was given", p->name,
             p->program, p->env, option_name(p));
    return -1;
}

bool bb_peer_available(const char *name, char *why, size_t whylen)
{
    const bb_peer *p = bb_peer_find(name);
    if (!p) {
        snprintf(why, whylen, "unknown peer '%s' (peers: %s)", name, bb_peer_names());
        return false;
    }
    char path[1024];
    return bb_peer_locate(p, path, sizeof path, why, whylen) == 0;
}

int bb_peer_bench_has_depth(const char *path, double timeout_s, char *why, size_t whylen)
{
    char *argv[] = {(char *)path, "--help", NULL};
    bb_exec_result x;
    char e[1200];
    if (bb_exec_capture(argv, timeout_s, NULL, 0, &x, e, sizeof e)) {
        snprintf(why, whylen, "%s", e);
        return -1;
    }
    /* llama-bench prints its usage to stdout and exits 0 on --help; either stream is read */
    int has = bb_llama_bench_help_has_depth(x.out) || bb_llama_bench_help_has_depth(x.err);
    if (!has && x.timed_out) {
        bb_exec_describe(&x, timeout_s, e, sizeof e);
        snprintf(why, whylen, "%s --help %s", path, e);
        has = -1;
    }
    bb_exec_result_free(&x);
    return has;
}

/* Runs argv (argv[0] the program) on cpus with its output kept in *x: 0 when it ran and exited 0,
 * else -1 with why (and nothing left to free). */
static int run_peer(char **argv, double timeout_s, const int *cpus, int ncpus, bb_exec_result *x, char *why,
                    size_t whylen)
{
    char e[1200];
    if (bb_exec_capture(argv, timeout_s, cpus, ncpus, x, e, sizeof e)) {
        snprintf(why, whylen, "%s", e);
        return -1;
    }
    if (!x->exited || x->exit_code != 0) {
        bb_exec_describe(x, timeout_s, e, sizeof e);
        snprintf(why, whylen, "%s %s", argv[0], e);
        bb_exec_result_free(x);
        return -1;
    }
    return 0;
}

int bb_peer_bench(const char *path, const bb_llama_bench_spec *spec, double timeout_s, const int *cpus, int ncpus,
                  bb_llama_bench_result *r, char *why, size_t whylen)
{
    char *argv[BB_LLAMA_BENCH_MAX_ARGS];
    bb_llama_bench_numbers num;
    argv[0] = (char *)path;
    bb_llama_bench_argv(spec, argv, &num);
    bb_exec_result x;
    if (run_peer(argv, timeout_s, cpus, ncpus, &x, why, whylen)) return -1;
    char e[1200];
    int rc = 0;
    if (bb_llama_bench_parse(x.out, r, e, sizeof e) || bb_llama_bench_check(spec, r, e, sizeof e)) {
        snprintf(why, whylen, "%s: %s", path, e);
        rc = -1;
    }
    bb_exec_result_free(&x);
    return rc;
}

void bb_peer_batched_commit(const char *path, double timeout_s, char *commit, size_t len)
{
    char *argv[] = {(char *)path, "--version", NULL};
    bb_exec_result x;
    char e[1200];
    snprintf(commit, len, "unknown");
    if (bb_exec_capture(argv, timeout_s, NULL, 0, &x, e, sizeof e)) return;
    char found[48];
    if (bb_batched_bench_version_commit(x.err, found, sizeof found) == 0 ||
        bb_batched_bench_version_commit(x.out, found, sizeof found) == 0)
        snprintf(commit, len, "%s", found);
    bb_exec_result_free(&x);
}

int bb_peer_batched_bench(const char *path, const bb_batched_bench_spec *spec, double timeout_s, const int *cpus,
                          int ncpus, bb_batched_bench_result *r, char *why, size_t whylen)
{
    char *argv[BB_BATCHED_BENCH_MAX_ARGS];
    bb_batched_bench_numbers num;
    argv[0] = (char *)path;
    bb_batched_bench_argv(spec, argv, &num);
    bb_exec_result x;
    if (run_peer(argv, timeout_s, cpus, ncpus, &x, why, whylen)) return -1;
    char e[1200];
    int rc = 0;
    if (bb_batched_bench_parse(x.out, r, e, sizeof e) || bb_batched_bench_check(spec, r, e, sizeof e)) {
        snprintf(why, whylen, "%s: %s", path, e);
        rc = -1;
    }
    bb_exec_result_free(&x);
    return rc;
}
