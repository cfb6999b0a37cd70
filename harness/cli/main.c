/* bitbench: low-bit LLM inference kernels on CPUs, measured.  See README.md. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "models/weights_finite.h"
#include "run/results_json.h"
#include "support/affinity.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bitbench COMMAND [options]   (bitbench --version: version, commit, compiler)\n"
            "commands:\n"
            "  run FILE.lua [--threads LIST] [--reps R] [--min-time S] [--out DIR] [--only KERNEL[,..]]\n"
            "               [--resume] [--shard i/n] [--quiet]\n"
            "                          run the sweeps of a Lua experiment file (see README.md)\n"
            "  list kernels [--json]|models [DIR]|meters|columns [TABLE]   (DIR: also the GGUF files in it)\n"
            "                          the registered kernels, the model configs, the meters, the results schema\n"
            "  describe KERNEL [--json] what a kernel is (layout, bytes and operations per weight, error bound),\n"
            "                          its variants, and the one this machine picks and why\n"
            "  gemm --kernel K ...     time (and --verify) one kernel on one shape\n"
            "  generate --model M ...  generate text with a GGUF or llama2.c model through any kernel\n"
            "  e2e --model NAME ...    prompt and generation tokens/s of a model (a config: synthetic weights; a .gguf/.bin: its own)\n"
            "  gguf FILE.gguf          validate a GGUF file; list its metadata and tensors\n"
            "  perplexity --model M --file TEXT --ctx C ...\n"
            "                          perplexity on a text as llama-perplexity chunks it, through any kernel\n"
            "  export --model M --type T -o FILE.gguf\n"
            "                          write a model (config, llama2.c or GGUF) as a GGUF file of one type\n"
            "  merge DIR... -o OUT     join the shards of a run (run --shard i/n) into one run directory\n"
            "  slurm FILE.lua --shards N [--submit] ...\n"
            "                          a Slurm job array running the shards of an experiment, and its merge job\n"
            "  db import|list|export --db FILE.sqlite ...\n"
            "                          the results database: store run directories, list runs, export one\n"
            "  compare A B [--threshold 5%%]\n"
            "                          two runs (directories, FILE.sqlite:RUN or :COMMIT) point by point, with 95%% CIs\n"
            "  overhead [--threads LIST]\n"
            "                          the harness's own cost per measured call (pool barrier)\n"
            "  roofline [--quick] ...  this machine's bandwidth and instruction ceilings, gamma per kernel\n"
            "  plot RESULTS_DIR ...    gnuplot figures (PNG, SVG) of a results folder into plots/\n"
            "  report RUN_DIR|FILE.sqlite [-o FILE.html]\n"
            "                          one self-contained HTML page of a run, or of a database's history\n"
            "run 'bitbench COMMAND --help' for a command's options; --allow-nonfinite (any command) runs\n"
            "models whose weights hold NaN or Inf, which are refused by default\n");
}

/* --allow-nonfinite, accepted anywhere on any command's line (every command that reads a model
 * file takes it; models/weights_finite.h), is taken out before the command parses its options. */
static int take_global_flags(int argc, char **argv)
{
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--allow-nonfinite") == 0) bb_weights_allow_nonfinite(true);
        else argv[kept++] = argv[i];
    }
    argv[kept] = NULL;
    return kept;
}

int main(int argc, char **argv)
{
    bb_affinity_init(); /* the affinity mask before any thread is bound (support/affinity.h) */
    argc = take_global_flags(argc, argv);
    if (argc == 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0)) {
        bb_version_print(stdout);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
        {"run", bb_cmd_run},
        {"list", bb_cmd_list},
        {"describe", bb_cmd_describe},
        {"gemm", bb_cmd_gemm},
        {"generate", bb_cmd_generate},
        {"e2e", bb_cmd_e2e},
        {"gguf", bb_cmd_gguf},
        {"perplexity", bb_cmd_perplexity},
        {"export", bb_cmd_export},
        {"db", bb_cmd_db},
        {"compare", bb_cmd_compare},
        {"merge", bb_cmd_merge},
        {"slurm", bb_cmd_slurm},
        {"overhead", bb_cmd_overhead}, {"roofline", bb_cmd_roofline}, {"plot", bb_cmd_plot},
        {"report", bb_cmd_report},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(argv[1], cmds[i].name) == 0) return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "bitbench: unknown command '%s'; valid:", argv[1]);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) fprintf(stderr, "%s %s", i ? "," : "", cmds[i].name);
    fputc('\n', stderr);
    return 2;
}
