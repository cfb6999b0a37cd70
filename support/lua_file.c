/* Loading a Lua text file someone handed us: lua_file.h. */
#include "lua_file.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "input_file.h"

int bb_lua_load_file(lua_State *L, const char *path, const char *what, uint64_t max_bytes)
{
    char err[1024];
    size_t len = 0;
    char *text = bb_input_read_all(path, what, max_bytes, &len, err, sizeof err);
    if (!text) {
        lua_pushstring(L, err);
        return LUA_ERRFILE;
    }
    /* As luaL_loadfilex: skip a UTF-8 byte-order mark, and blank a first line starting with '#'
     * (a "#!" line) while keeping its newline, so line numbers stay right. */
    char *chunk = text;
    if (len >= 3 && memcmp(chunk, "\xEF\xBB\xBF", 3) == 0) {
        chunk += 3;
        len -= 3;
    }
    if (len && chunk[0] == '#')
        for (size_t i = 0; i < len && chunk[i] != '\n'; i++) chunk[i] = ' ';
    lua_pushfstring(L, "@%s", path);
    int rc = luaL_loadbufferx(L, chunk, len, lua_tostring(L, -1), "t");
    lua_remove(L, -2); /* the chunk name */
    free(text);
    return rc;
}
