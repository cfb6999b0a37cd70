/* The peer adapter (harness/peers/): llama-bench's JSON read from a real recorded output and from
 * llama.cpp's documented example, bad outputs refused with a reason, the command line it is given,
 * where the program is found (sweep path, environment, PATH), and the runner on fake peers that
 * succeed, fail, hang (ended at the time limit with its child) and print garbage
 * (tests/data/peers/README.md). */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "peers/batched_bench.h"
#include "peers/llama_bench.h"
#include "peers/peer.h"
#include "peers/peer_exec.h"

static char srcdir[1024];

static void data_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/tests/data/peers/%s", srcdir, name);
}

static void test_parse_recorded(void)
{
    char path[1200], err[300];
    data_path(path, sizeof path, "llama_bench_c392e50_tq2_0.json");
    char *text = slurp(path);
    CHECK(text != NULL, "%s", path);
    if (!text) return;
    bb_llama_bench_result r;
    CHECK(bb_llama_bench_parse(text, &r, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(r.build_commit, "c392e5094"), "commit %s", r.build_commit);
    CHECK(!strcmp(r.cpu_info, "Intel(R) Xeon(R) Processor"), "cpu %s", r.cpu_info);
    CHECK(strstr(r.model_type, "TQ2_0") != NULL, "type %s", r.model_type);
    CHECK(r.pp.present && r.pp.n_prompt == 16 && r.pp.n_gen == 0 && r.pp.n_threads == 1, "pp test");
    CHECK(r.tg.present && r.tg.n_prompt == 0 && r.tg.n_gen == 8, "tg test");
    CHECK(r.pp.nsamples == 3 && r.tg.nsamples == 3, "samples %d %d", r.pp.nsamples, r.tg.nsamples);
    /* avg_ts is the mean of samples_ts (llama-bench prints the samples with 6 digits) */
    double sum = 0;
    for (int i = 0; i < r.tg.nsamples; i++) sum += r.tg.samples_ts[i];
    CHECK(fabs(sum / r.tg.nsamples - r.tg.avg_ts) < 1e-3 * r.tg.avg_ts, "tg avg %g vs samples %g", r.tg.avg_ts,
          sum / r.tg.nsamples);
    CHECK(r.tg.stddev_ts > 0, "stddev");
    bb_llama_bench_spec want = {.model = "m", .threads = 1, .prompt = 16, .gen = 8, .reps = 3};
    CHECK(bb_llama_bench_check(&want, &r, err, sizeof err) == 0, "%s", err);
    want.threads = 2;
    CHECK(bb_llama_bench_check(&want, &r, err, sizeof err) == -1 && strstr(err, "at 1 threads, asked pp 16 at 2"),
          "%s", err);
    want.threads = 1;
    want.gen = 128;
    CHECK(bb_llama_bench_check(&want, &r, err, sizeof err) == -1 && strstr(err, "tg"), "%s", err);
    free(text);
}

static void test_parse_documented(void)
{
    char path[1200], err[300];
    data_path(path, sizeof path, "llama_bench_readme_example.json");
    char *text = slurp(path);
    CHECK(text != NULL, "%s", path);
    if (!text) return;
    bb_llama_bench_result r;
    CHECK(bb_llama_bench_parse(text, &r, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(r.build_commit, "3469684"), "commit %s", r.build_commit);
    CHECK(r.pp.n_prompt == 512 && r.pp.n_threads == 16 && r.pp.nsamples == 5, "pp");
    CHECK(r.tg.n_gen == 128 && r.tg.nsamples == 5 && r.tg.samples_ts[4] == 132.293, "tg");
    CHECK(r.tg.avg_ts == 130.965708 && r.tg.stddev_ts == 1.238924, "tg avg");
    free(text);
}

static void expect_parse_error(const char *text, const char *want)
{
    char err[300] = "";
    bb_llama_bench_result r;
    CHECK(bb_llama_bench_parse(text, &r, err, sizeof err) == -1 && strstr(err, want), "'%s': got '%s', want '%s'",
          text, err, want);
}

static void test_parse_bad(void)
{
    expect_parse_error("| model | t/s |\n", "no JSON array in its output (first line: \"| model | t/s |\")");
    expect_parse_error("", "no JSON array");
    expect_parse_error("[ { \"avg_ts\": 1.5, \"samples_ts\": [ 1,\n", "not JSON");
    expect_parse_error("[ 3 ]\n", "test 1 is not an object");
    expect_parse_error("[ {\"n_prompt\": 0, \"n_gen\": 8, \"n_threads\": 1, \"samples_ts\": [1]} ]", "'avg_ts'");
    expect_parse_error("[ {\"n_prompt\": 0, \"n_gen\": 8, \"n_threads\": 1, \"avg_ts\": 1} ]", "'samples_ts'");
    expect_parse_error("[ {\"n_prompt\": 0, \"n_gen\": 8, \"n_threads\": 1, \"avg_ts\": 1, \"samples_ts\": [\"x\"]} ]",
                       "samples_ts[0]");
    expect_parse_error("[ {\"n_prompt\": -1, \"n_gen\": 8, \"n_threads\": 1, \"avg_ts\": 1, \"samples_ts\": [1]} ]",
                       "'n_prompt'");
    /* log lines before the array do not matter */
    bb_llama_bench_result r;
    char err[300];
    CHECK(bb_llama_bench_parse("build: c392e5094\n[ {\"n_prompt\": 0, \"n_gen\": 8, \"n_threads\": 1, \"avg_ts\": 2, "
                               "\"samples_ts\": [2]} ]\n",
                               &r, err, sizeof err) == 0 &&
              r.tg.present && r.tg.avg_ts == 2,
          "%s", err);
}

static void test_argv(void)
{
    char *argv[BB_LLAMA_BENCH_MAX_ARGS];
    bb_llama_bench_numbers num;
    argv[0] = "llama-bench";
    bb_llama_bench_spec s = {.model = "/x/m.gguf", .threads = 2, .prompt = 64, .gen = 32, .reps = 5};
    int n = bb_llama_bench_argv(&s, argv, &num);
    char line[512] = "";
    for (int i = 0; i < n; i++) snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s", i ? " " : "", argv[i]);
    CHECK(!strcmp(line, "llama-bench -m /x/m.gguf -t 2 -p 64 -n 32 -r 5 -o json") && argv[n] == NULL, "%s", line);
    /* a depth is passed as llama-bench's -d */
    s.depth = 4096;
    n = bb_llama_bench_argv(&s, argv, &num);
    line[0] = 0;
    for (int i = 0; i < n; i++) snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s", i ? " " : "", argv[i]);
    CHECK(!strcmp(line, "llama-bench -m /x/m.gguf -t 2 -p 64 -n 32 -r 5 -d 4096 -o json") && argv[n] == NULL, "%s",
          line);
    /* which llama-bench takes -d: llama.cpp's --help line, and an older one's help without it */
    CHECK(bb_llama_bench_help_has_depth("  -d, --n-depth <n>                         (default: 0)\n"), "--n-depth");
    CHECK(!bb_llama_bench_help_has_depth("  -p, --n-prompt <n>\n  -n, --n-gen <n>\n  -pg <pp,tg>\n"), "no --n-depth");
    CHECK(!bb_llama_bench_help_has_depth(NULL), "no help text");
}

static void test_registry(void)
{
    const bb_peer *l = bb_peer_find("llama.cpp"), *b = bb_peer_find("bitnet.cpp");
    CHECK(l && b && !bb_peer_find("llama") && bb_peer_count() == 2, "find");
    CHECK(l && bb_peer_runs_type(l, "tq2_0") && bb_peer_runs_type(l, "f32") && !bb_peer_runs_type(l, "i2_s") &&
              !bb_peer_runs_type(l, "tq2"),
          "llama.cpp types");
    CHECK(b && bb_peer_runs_type(b, "i2_s"), "bitnet.cpp types");
    CHECK(!strcmp(bb_peer_names(), "llama.cpp, bitnet.cpp"), "%s", bb_peer_names());
}

static void test_locate(const char *tmp)
{
    const bb_peer *l = bb_peer_find("llama.cpp");
    char path[1200], why[400], fake[1200], dir[1100];
    data_path(fake, sizeof fake, "fake_llama_bench.sh");
    unsetenv("BITBENCH_LLAMA_BENCH");
    setenv("PATH", "/nonexistent", 1);
    CHECK(bb_peer_locate(l, path, sizeof path, why, sizeof why) == -1 &&
              !strcmp(why, "llama.cpp: llama-bench is not on PATH, BITBENCH_LLAMA_BENCH is not set and no --peer "
                          "llama.cpp=PATH was given"),
          "%s", why);
    CHECK(!bb_peer_available("llama.cpp", why, sizeof why) && strstr(why, "not on PATH"), "%s", why);
    CHECK(!bb_peer_available("llama", why, sizeof why) && strstr(why, "unknown peer 'llama' (peers: llama.cpp"),
          "%s", why);
    /* on PATH: a directory holding an executable named llama-bench (a directory of that name is not) */
    snprintf(dir, sizeof dir, "%s/bin", tmp);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/llama-bench", dir);
    CHECK(symlink(fake, path) == 0, "symlink");
    char pathvar[2400];
    snprintf(pathvar, sizeof pathvar, "/nonexistent::%s", dir);
    setenv("PATH", pathvar, 1);
    CHECK(bb_peer_locate(l, path, sizeof path, why, sizeof why) == 0 && strstr(path, "/bin/llama-bench"), "%s",
          why);
    CHECK(bb_peer_available("llama.cpp", why, sizeof why), "%s", why);
    /* the environment variable comes before PATH and must name an executable file */
    setenv("BITBENCH_LLAMA_BENCH", tmp, 1);
    CHECK(bb_peer_locate(l, path, sizeof path, why, sizeof why) == -1 && strstr(why, "BITBENCH_LLAMA_BENCH=") &&
              strstr(why, "not an executable file"),
          "%s", why);
    /* the command line (--peer NAME=PATH) comes before both; a later one replaces an earlier */
    char arg[1300];
    snprintf(arg, sizeof arg, "llama.cpp=%s", fake);
    CHECK(bb_peer_set_program("llama.cpp=/nonexistent/llama-bench", why, sizeof why) == 0, "%s", why);
    CHECK(bb_peer_locate(l, path, sizeof path, why, sizeof why) == -1 &&
              strstr(why, "llama.cpp: --peer llama.cpp=/nonexistent/llama-bench is not an executable file"),
          "%s", why);
    CHECK(bb_peer_set_program(arg, why, sizeof why) == 0, "%s", why);
    CHECK(bb_peer_locate(l, path, sizeof path, why, sizeof why) == 0 && !strcmp(path, fake), "%s", why);
    /* test-backend-ops is llama.cpp's kernel-level program: its own --peer name, its own path */
    const bb_peer *ops = bb_peer_kernel_tool(l);
    unsetenv("BITBENCH_TEST_BACKEND_OPS");
    CHECK(bb_peer_locate(ops, path, sizeof path, why, sizeof why) == -1 &&
              strstr(why, "no --peer test-backend-ops=PATH was given"), "%s", why);
    snprintf(arg, sizeof arg, "test-backend-ops=%s", fake);
    CHECK(bb_peer_set_program(arg, why, sizeof why) == 0 && bb_peer_locate(ops, path, sizeof path, why, sizeof why) == 0 &&
              !strcmp(path, fake), "%s", why);
    /* bad arguments: one line with what is valid */
    const char *bad[] = {"llama.cpp", "llama=/x", "llama.cpp=", "=/x", "bitnet.cpp:i2_s=/x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(bb_peer_set_program(bad[i], why, sizeof why) == -1 && strstr(why, bad[i]) &&
                  strstr(why, "expected NAME=PATH with NAME one of llama.cpp, bitnet.cpp, test-backend-ops"),
              "%s: %s", bad[i], why);
    unsetenv("BITBENCH_LLAMA_BENCH");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_run(const char *model)
{
    char tool[1200], why[1600];
    bb_llama_bench_result r;
    bb_llama_bench_spec s = {.model = model, .threads = 2, .prompt = 32, .gen = 16, .reps = 3};

    data_path(tool, sizeof tool, "fake_llama_bench.sh");
    CHECK(bb_peer_bench(tool, &s, 10, NULL, 0, &r, why, sizeof why) == 0, "%s", why);
    CHECK(r.pp.n_prompt == 32 && r.tg.n_gen == 16 && r.tg.n_threads == 2 && r.tg.nsamples == 3 &&
              !strcmp(r.build_commit, "c392e5094"),
          "fake result");

    s.model = "/nonexistent.gguf";
    CHECK(bb_peer_bench(tool, &s, 10, NULL, 0, &r, why, sizeof why) == -1 &&
              strstr(why, "exited with status 1: \"main: error: failed to load model '/nonexistent.gguf'\""),
          "%s", why);
    s.model = model;

    data_path(tool, sizeof tool, "fake_peer_fail.sh");
    CHECK(bb_peer_bench(tool, &s, 10, NULL, 0, &r, why, sizeof why) == -1 && strstr(why, "exited with status 1") &&
              strstr(why, "failed to load model"),
          "%s", why);

    data_path(tool, sizeof tool, "fake_peer_hang.sh");
    double t0 = now_s();
    CHECK(bb_peer_bench(tool, &s, 0.5, NULL, 0, &r, why, sizeof why) == -1 &&
              strstr(why, "timed out after 0.5 s: \"llama-bench: loading...\""),
          "%s", why);
    double took = now_s() - t0;
    CHECK(took >= 0.5 && took < 3, "hang ended after %.2f s", took);

    data_path(tool, sizeof tool, "fake_peer_garbage.sh");
    CHECK(bb_peer_bench(tool, &s, 10, NULL, 0, &r, why, sizeof why) == -1 && strstr(why, "its output is not JSON: offset 42: unexpected end"),
          "%s", why);

    CHECK(bb_peer_bench("/nonexistent/llama-bench", &s, 10, NULL, 0, &r, why, sizeof why) == -1 &&
              strstr(why, "cannot run /nonexistent/llama-bench: No such file or directory"),
          "%s", why);
}

/* The runner keeps what a program printed and says how it ended. */
static void test_exec(void)
{
    char *argv[] = {"/bin/sh", "-c", "echo out; echo err1 >&2; echo err2 >&2; exit 3", NULL};
    bb_exec_result x;
    char err[300], why[300];
    CHECK(bb_exec_capture(argv, 5, NULL, 0, &x, err, sizeof err) == 0, "%s", err);
    CHECK(x.exited && x.exit_code == 3 && !x.timed_out && !strcmp(x.out, "out\n") && !strcmp(x.err, "err1\nerr2\n"),
          "exec result");
    bb_exec_describe(&x, 5, why, sizeof why);
    CHECK(!strcmp(why, "exited with status 3: \"err2\""), "%s", why);
    bb_exec_result_free(&x);
    char *big[] = {"/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x; kill -9 $$", NULL};
    CHECK(bb_exec_capture(big, 5, NULL, 0, &x, err, sizeof err) == 0 && x.out_len == 300000 && !x.exited && x.signal == 9,
          "big output, signal");
    bb_exec_describe(&x, 5, why, sizeof why);
    CHECK(!strncmp(why, "killed by signal 9", 18), "%s", why);
    bb_exec_result_free(&x);
    /* a peer may use every CPU the process may, even when the thread that starts it is pinned
     * to one (the sweep's caller is bound by its pool) */
    cpu_set_t mine, one;
    sched_getaffinity(0, sizeof mine, &mine);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine)) {
            CPU_SET(c, &one);
            break;
        }
    char *count[] = {"/bin/sh", "-c", "nproc", NULL};
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "pin this thread to one CPU");
    CHECK(bb_exec_capture(count, 5, NULL, 0, &x, err, sizeof err) == 0 && atoi(x.out) == CPU_COUNT(&mine),
          "the child may use all %d CPUs, not the caller's one: nproc says %s", CPU_COUNT(&mine), x.out);
    bb_exec_result_free(&x);
    /* given CPUs (a sweep's cpus), the child runs on those only, and they are written as a row's
     * cpus cell */
    int first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
        if (CPU_ISSET(c, &mine)) first = c;
    char *allowed[] = {"/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status", NULL};
    char want[64], text[64];
    snprintf(want, sizeof want, "\t%d\n", first);
    CHECK(bb_exec_capture(allowed, 5, &first, 1, &x, err, sizeof err) == 0 && strstr(x.out, want),
          "the child on CPU %d only: %s", first, x.out);
    bb_exec_result_free(&x);
    bb_exec_cpus_text(&first, 1, text, sizeof text);
    snprintf(want, sizeof want, "%d", first);
    CHECK(!strcmp(text, want), "cpus text '%s'", text);
    sched_setaffinity(0, sizeof mine, &mine);
}

/* llama-batched-bench (harness/peers/batched_bench.h): its argument vector for a depth point, its
 * JSONL line as batched-bench.cpp prints it (after log lines), and the refusals. */
static void test_batched_bench(void)
{
    bb_batched_bench_spec spec = {.model = "m.gguf", .threads = 2, .depth = 4096, .gen = 16, .kv_k = "f16",
                                  .kv_v = "q8_0"};
    char *argv[BB_BATCHED_BENCH_MAX_ARGS];
    bb_batched_bench_numbers num;
    argv[0] = "llama-batched-bench";
    int n = bb_batched_bench_argv(&spec, argv, &num);
    char joined[512] = "";
    for (int i = 1; i < n; i++) snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", i > 1 ? " " : "", argv[i]);
    CHECK(!strcmp(joined, "-m m.gguf -c 4112 -b 4096 -ub 512 -npp 4096 -ntg 16 -npl 1 -t 2 -ctv q8_0 --output-format jsonl")
              && argv[n] == NULL, "argv: %s", joined);
    const char *out = "main: n_kv_max = 4112, n_batch = 4096\n"
                      "{\"n_kv_max\": 4112, \"n_threads\": 2, \"n_threads_batch\": 2, \"pp\": 4096, \"tg\": 16, \"pl\": 1, "
                      "\"n_kv\": 4112, \"t_pp\": 60.5, \"speed_pp\": 67.7, \"t_tg\": 0.8, \"speed_tg\": 20.0}\n";
    bb_batched_bench_result r;
    char err[256];
    CHECK(bb_batched_bench_parse(out, &r, err, sizeof err) == 0 && r.pp == 4096 && r.tg == 16 && r.pl == 1 &&
              r.n_threads == 2 && r.speed_tg == 20.0 && r.t_tg == 0.8, "%s", err);
    CHECK(bb_batched_bench_check(&spec, &r, err, sizeof err) == 0, "%s", err);
    spec.threads = 4;
    CHECK(bb_batched_bench_check(&spec, &r, err, sizeof err) == -1 &&
              strstr(err, "it ran pp 4096 tg 16 pl 1 at 2 threads, asked pp 4096 tg 16 pl 1 at 4"), "%s", err);
    CHECK(bb_batched_bench_parse("|    PP |     TG |\n", &r, err, sizeof err) == -1 && strstr(err, "no JSON line"),
          "%s", err);
    CHECK(bb_batched_bench_parse("{\"pp\": 1, \"tg\": 1, \"pl\": 1, \"n_threads\": 1, \"t_tg\": 0, \"speed_tg\": 5}",
                                 &r, err, sizeof err) == -1 && strstr(err, "'t_tg' missing or not a positive number"),
          "%s", err);
    /* the build commit from --version, which the JSON line lacks */
    char commit[48];
    CHECK(bb_batched_bench_version_commit("version: 4748 (c392e5094)\nbuilt with cc 12.2.0\n", commit, sizeof commit) == 0 &&
              !strcmp(commit, "c392e5094"), "%s", commit);
    CHECK(bb_batched_bench_version_commit("load\nversion: 3947 (406a5036)\n", commit, sizeof commit) == 0 &&
              !strcmp(commit, "406a5036"), "%s", commit);
    CHECK(bb_batched_bench_version_commit("version: 1 ($(rm -rf x))\n", commit, sizeof commit) == -1 && !commit[0],
          "a commit of other characters: '%s'", commit);
    CHECK(bb_batched_bench_version_commit("version: x (abc)\n", commit, sizeof commit) == -1, "no build number");
    CHECK(bb_batched_bench_version_commit("version: 1 (0123456789012345678901234567890123456789a)", commit,
                                          sizeof commit) == -1, "a commit past 40 characters");
    CHECK(bb_batched_bench_version_commit("usage: ...", commit, sizeof commit) == -1 && !commit[0], "no version line");
}

int main(void)
{
    const char *s = getenv("BITBENCH_SOURCE_DIR");
    if (!realpath(s ? s : ".", srcdir)) snprintf(srcdir, sizeof srcdir, "%s", s ? s : ".");
    char tmp[] = "/tmp/bb_peers_XXXXXX";
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    char model[1100];
    snprintf(model, sizeof model, "%s/model.gguf", tmp);
    write_text(model, "not read by the fakes\n");
    const char *old_path = getenv("PATH");
    char *saved = strdup(old_path ? old_path : "/usr/bin:/bin");

    test_parse_recorded();
    test_batched_bench();
    test_parse_documented();
    test_parse_bad();
    test_argv();
    test_registry();
    test_exec();
    test_run(model);
    test_locate(tmp);

    setenv("PATH", saved, 1);
    free(saved);
    remove_tree(tmp);
    return check_summary("test_peers");
}
