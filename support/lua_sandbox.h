/* The Lua state every user file runs in: experiment files (harness/experiment/lua_experiment.c) and model
 * configs (models/model_config.c) get it from here, so the two loaders cannot disagree.
 *
 * Environment (README, "Experiments in Lua"):
 *   - base without dofile and loadfile (they read files the loader did not name), and with
 *     `load` restricted to text chunks: a binary chunk is not verified by Lua and can crash it;
 *     `load(s, name, mode, env)` keeps its env argument (it only reaches what the file already has);
 *   - coroutine, math, string, table, utf8;
 *   - os with only clock, date, difftime, getenv and time (nothing that runs, removes, renames or
 *     ends anything), getenv only of BB_LUA_ENV_PREFIX* variables (the rest of the environment,
 *     tokens and keys among it, is the person's, not the file's);
 *   - with BB_LUA_READ_IO (experiments, not model configs): io with only open (modes "r" and "rb";
 *     a file opened so cannot be written), lines and type, and open and lines only of the files
 *     bb_lua_sandbox_check_read allows;
 *   - no require/package (nothing loads C libraries) and no debug (it reaches other functions'
 *     locals and the registry).
 * BB_LUA_UNSAFE gives every standard library instead (`bitbench run --unsafe-lua`).
 *
 * Bounds, in both modes: a count hook stops the file after a number of VM instructions (the
 * allocator counts every 64 bytes a state grows by as one more, so the C library's work on large
 * strings and tables is bounded too) and the allocator refuses to grow the state past a number of
 * bytes; the file is then stopped with an error that names it and the setting that raises the
 * bound.  Defaults (generous: the largest
 * shipped file uses far less) are BB_LUA_DEFAULT_INSTRUCTIONS and BB_LUA_DEFAULT_BYTES, changed by
 * the environment variables BITBENCH_LUA_MAX_INSTRUCTIONS and BITBENCH_LUA_MAX_MEMORY_MB or by
 * bb_lua_set_limits (`bitbench run --lua-max-instructions / --lua-max-memory`). */
#ifndef BB_LUA_SANDBOX_H
#define BB_LUA_SANDBOX_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#define BB_LUA_DEFAULT_INSTRUCTIONS 1000000000ULL
#define BB_LUA_DEFAULT_SECONDS 60
#define BB_LUA_DEFAULT_BYTES ((size_t)1 << 30)
/* The largest file a sandboxed file may read (io.open, io.lines), and the largest Lua file
 * loaded: far above any data an experiment reads beside it, far below what would exhaust memory. */
#define BB_LUA_MAX_READ_BYTES ((uint64_t)64 << 20)
/* The environment variables os.getenv gives a sandboxed file (BITBENCH_SHARED_DIR,
 * BITBENCH_PPL_TEXT, ...); any other name is an error. */
#define BB_LUA_ENV_PREFIX "BITBENCH_"

enum { BB_LUA_READ_IO = 1, BB_LUA_UNSAFE = 2 };

/* Override the bounds for states made from now on (0 keeps a bound as it is). */
void bb_lua_set_limits(uint64_t instructions, size_t bytes);
/* The bounds in force: the last bb_lua_set_limits, else the environment, else the defaults.
 * Returns 0, or -1 with one line when an environment variable holds no valid number. */
int bb_lua_limits(uint64_t *instructions, size_t *bytes, char *err, size_t errlen);

/* A new state for `file` with the environment above (flags: BB_LUA_READ_IO, BB_LUA_UNSAFE);
 * NULL with one line naming the file.  Close it with bb_lua_sandbox_close. */
lua_State *bb_lua_sandbox_new(const char *file, unsigned flags, char *err, size_t errlen);
void bb_lua_sandbox_close(lua_State *L);

/* Whether the file running in L may read `path` (io.open, io.lines, bitbench.compare): its real
 * path (symbolic links resolved, so a link out of the folder is out) must lie under the folder of
 * the file L was made for or under $BITBENCH_SHARED_DIR, not under /proc, /sys or /dev, with no
 * hidden name ('.x') below that folder.  Under BB_LUA_UNSAFE everything is allowed.  resolved
 * (PATH_MAX bytes) gets the real path.  Returns 0; 1 when path does not resolve (why says so,
 * errno is kept: "no such file" is an answer a file may act on); -1 when the rule refuses it,
 * with why naming path and the rule. */
int bb_lua_sandbox_check_read(lua_State *L, const char *path, char *resolved, char *why, size_t whylen);
/* lua_pcall (no message handler) under a bound of CPU time, the last resort for work that runs
 * no VM instruction and allocates nothing: a backtracking pattern such as
 * string.find(("a"):rep(22), ("a*"):rep(22) .. "b") runs for hours inside string.find, where
 * neither the count hook nor the allocator is called.  Past BITBENCH_LUA_MAX_SECONDS (default
 * BB_LUA_DEFAULT_SECONDS) of the process's CPU time a SIGPROF timer ends the process with one
 * line naming the file and exit status 2: a C library call cannot be left safely and resumed.
 * The timer and the SIGPROF handler in force before are restored after the call. */
int bb_lua_sandbox_pcall(lua_State *L, int nargs, int nresults);

/* After a failed load or call: the message for err, naming the file, with the bound that stopped
 * it when one did ("FILE: stopped after 2000000000 Lua instructions (...)"). */
void bb_lua_sandbox_error(lua_State *L, char *err, size_t errlen);

#endif
