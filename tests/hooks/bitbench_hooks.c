/* bitbench_hooks: `bitbench run`, `gemm` and `list` with the test-only kernels of test_kernels.h,
 * for the shell tests (ctest gives them its path in BITBENCH_HOOKS_BIN).  It is built beside the
 * tests and never installed: the bitbench program has no such kernels, and no variable of the
 * environment changes what it measures or how long a kernel takes.
 *
 * BITBENCH_TEST_SLOW=SECONDS (0 to 10) sets test_slow's extra time per call (default 0);
 * BITBENCH_TEST_NOISY=SECONDS (0 to 10) test_noisy's extra time in its first call (default 0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "test_kernels.h"

int main(int argc, char **argv)
{
    const char *slow = getenv("BITBENCH_TEST_SLOW");
    double seconds = slow && *slow ? strtod(slow, NULL) : 0;
    if (!(seconds >= 0 && seconds <= 10)) {
        fprintf(stderr, "bitbench_hooks: BITBENCH_TEST_SLOW '%s' must be seconds from 0 to 10\n", slow);
        return 2;
    }
    const char *noisy_text = getenv("BITBENCH_TEST_NOISY");
    double noisy = noisy_text && *noisy_text ? strtod(noisy_text, NULL) : 0;
    if (!(noisy >= 0 && noisy <= 10)) {
        fprintf(stderr, "bitbench_hooks: BITBENCH_TEST_NOISY '%s' must be seconds from 0 to 10\n", noisy_text);
        return 2;
    }
    if (bb_test_kernels_register(seconds, noisy)) return 2;
    static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
        {"run", bb_cmd_run}, {"gemm", bb_cmd_gemm}, {"list", bb_cmd_list}};
    for (size_t i = 0; argc >= 2 && i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name)) return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "usage: bitbench_hooks run|gemm|list ... (bitbench with test-only kernels)\n");
    return 2;
}
