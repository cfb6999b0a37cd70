/* The bounds the Lua fuzz targets run each input under.  The loaders' own bounds (support/
 * lua_sandbox.h: an instruction-count hook and an allocator limit) default to what a real
 * experiment may need, a billion instructions and 1 GiB, far more than one fuzz input should
 * take; a `while true do end` would stall the fuzzer for minutes.  These are set once before the
 * first input, through the same interface `bitbench run --lua-max-instructions` uses, so the
 * fuzzer also exercises the bounds' own error paths. */
#ifndef BB_FUZZ_LUA_BOUNDS_H
#define BB_FUZZ_LUA_BOUNDS_H

#include "support/lua_sandbox.h"

enum { FUZZ_LUA_INSTRUCTIONS = 1000000 };
#define FUZZ_LUA_BYTES ((size_t)64 << 20)

static inline void fuzz_lua_bounds(void)
{
    static int set;
    if (!set) bb_lua_set_limits(FUZZ_LUA_INSTRUCTIONS, FUZZ_LUA_BYTES);
    set = 1;
}

#endif
