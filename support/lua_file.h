/* Loading a Lua text file someone handed us (an experiment, a model config) through input_file.h,
 * so that a FIFO, a device or a directory is refused with one line instead of blocking Lua's own
 * fopen, and a file past its bound is refused before it is read. */
#ifndef BB_LUA_FILE_H
#define BB_LUA_FILE_H

#include <lua.h>
#include <stdint.h>

/* What luaL_loadfilex(L, path, "t") does (a leading '#' line and a UTF-8 byte-order mark skipped,
 * messages located as "path:LINE:"), reading the file with bb_input_read_all(path, what,
 * max_bytes).  Returns LUA_OK with the chunk pushed, or an error status with the one-line message
 * pushed (LUA_ERRFILE for a file refused or unreadable). */
int bb_lua_load_file(lua_State *L, const char *path, const char *what, uint64_t max_bytes);

#endif
