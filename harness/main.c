/* bitbench: low-bit LLM inference kernels on CPUs, measured.  See README.md. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bitbench COMMAND [options]\n"
            "commands:\n"
            "  list kernels            the registered kernels, their variants and constraints\n"
            "  gemm --kernel K ...     time (and --verify) one kernel on one shape\n"
            "  generate --model M ...  generate text with a llama2.c model through any kernel\n"
            "run 'bitbench COMMAND --help' for a command's options\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
        {"list", bb_cmd_list},
        {"gemm", bb_cmd_gemm},
        {"generate", bb_cmd_generate},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(argv[1], cmds[i].name) == 0) return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "bitbench: unknown command '%s'; valid:", argv[1]);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) fprintf(stderr, "%s %s", i ? "," : "", cmds[i].name);
    fputc('\n', stderr);
    return 2;
}
