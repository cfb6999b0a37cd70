/* The paper-table report of a run, for `bitbench report`: the same text that
 * `lua5.4 scripts/reproduce.lua` writes into docs/reproducing.md for the reference runs -- the
 * experiment's module scripts/reproduce/NAME.lua rendering the run's tables beside the paper's
 * figures, with scripts/lib/report.lua as its `util` -- here for any run folder of that experiment.
 *
 * The modules run in bitbench's embedded Lua, in the sandbox experiment files get
 * (support/lua_sandbox.h: bounded instructions, memory and CPU time; io only to read, and only
 * files under the run folder): the module is our code, but the run folder it reads is not, and
 * what a module cannot do in the sandbox (util.compare runs `bitbench compare` through io.popen)
 * makes the report say why it is missing instead of running anything. */
#ifndef BB_PAPER_REPORT_H
#define BB_PAPER_REPORT_H

#include <stddef.h>

/* The module of experiment `name` (scripts_dir/reproduce/NAME.lua) rendered on run_dir.
 * Returns 0 with *markdown (malloc'd) and the module's title in title; 1 when the experiment has
 * no module (or a name that cannot be one: only [A-Za-z0-9_]); -1 with err when the module failed
 * (its error message, naming the file). */
int bb_paper_report(const char *scripts_dir, const char *run_dir, const char *name, char **markdown, char *title,
                    size_t title_len, char *err, size_t errlen);

#endif
