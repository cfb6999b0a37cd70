/* Fuzz target: the experiment loader (harness/experiment/lua_experiment.c, lua_sweep.c, lua_api.c), Lua
 * files such as experiments/<name>.lua run in the sandbox (support/lua_sandbox.h) with the bounds of
 * fuzz_lua_bounds.h, on the machine this runs on.
 *
 * The input is an experiment file; the first byte picks the size bitbench.size reports (smoke,
 * default or full, as --smoke/--full do) and is not part of the file.  The loader is the part of
 * `bitbench run` that reads the user's file; the plan is built from what it returns.  Seeds:
 * experiments/<name>.lua behind a size byte (run.sh). */
#include <stdint.h>

#include "fuzz_input.h"
#include "fuzz_lua_bounds.h"
#include "plan/experiment.h"
#include "support/machine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const sizes[] = {"smoke", "default", "full"};
    static bb_machine mach;
    static int detected;
    if (!detected) bb_machine_detect(&mach);
    detected = 1;
    fuzz_lua_bounds();
    if (size < 1) return 0;
    bb_experiment ex;
    char err[4096];
    bb_experiment_load_sized(fuzz_input_path(data + 1, size - 1), &mach, sizes[data[0] % 3], &ex, err, sizeof err);
    /* After a refusal ex holds what was read before the problem; freeing it is what a caller
     * that goes on (rather than exiting) must do, and LeakSanitizer checks it is enough. */
    bb_experiment_free(&ex);
    return 0;
}
