/* A run's paper-table report through the embedded Lua (paper_report.h). */
#include "report/paper_report.h"

#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/input_file.h"
#include "support/lua_sandbox.h"

/* What scripts/reproduce.lua does for one run folder (its `run` table), minus the plots list
 * (the HTML report shows the plots itself) and minus the results folder's shared machine profile
 * (a run folder given alone has none beside it). */
static const char glue[] =
    "local util, mod, dir, name = ...\n"
    "local json = util.read_json(dir .. '/run.json') or {}\n"
    "local size = 'default'\n"
    "for _, a in ipairs(json.command_line or {}) do\n"
    "  if a == '--smoke' then size = 'smoke' elseif a == '--full' then size = 'full' end\n"
    "end\n"
    "local run = { name = name, dir = dir, size = size, json = json, plots = {},\n"
    "  csv = util.read_csv(dir .. '/results.csv') or {},\n"
    "  e2e = util.read_csv(dir .. '/e2e.csv') or {},\n"
    "  profile = util.read_json(dir .. '/machine-profile.json') }\n"
    "return tostring(mod.render(run, util) or ''), tostring(mod.title or name)\n";

/* Loads the Lua text of our file path as chunk `chunkname` and runs it; its first result on the
 * stack.  0, or -1 with err. */
static int run_file(lua_State *L, const char *path, const char *chunkname, char *err, size_t errlen)
{
    size_t n;
    char *text = bb_input_read_all(path, "report module", BB_LUA_MAX_READ_BYTES, &n, err, errlen);
    if (!text) return -1;
    int rc = luaL_loadbufferx(L, text, n, chunkname, "t");
    free(text);
    if (rc != LUA_OK || bb_lua_sandbox_pcall(L, 0, 1) != LUA_OK) {
        bb_lua_sandbox_error(L, err, errlen);
        return -1;
    }
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "%s does not return a table", path);
        return -1;
    }
    return 0;
}

int bb_paper_report(const char *scripts_dir, const char *run_dir, const char *name, char **markdown, char *title,
                    size_t title_len, char *err, size_t errlen)
{
    *markdown = NULL;
    size_t len = strlen(name);
    if (len == 0 || len > 64 || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != len)
        return 1;
    char module[PATH_MAX], lib[PATH_MAX], anchor[PATH_MAX], chunk[128];
    snprintf(module, sizeof module, "%.3800s/reproduce/%s.lua", scripts_dir, name);
    snprintf(lib, sizeof lib, "%.3800s/lib/report.lua", scripts_dir);
    if (access(module, F_OK) != 0) return 1;
    /* The state is made for a file in the run folder, so that its io reads that folder only. */
    snprintf(anchor, sizeof anchor, "%.4000s/run.json", run_dir);
    lua_State *L = bb_lua_sandbox_new(anchor, BB_LUA_READ_IO, err, errlen);
    if (!L) return -1;
    int rc = -1;
    if (run_file(L, lib, "@scripts/lib/report.lua", err, errlen)) goto done;
    snprintf(chunk, sizeof chunk, "@scripts/reproduce/%s.lua", name);
    if (run_file(L, module, chunk, err, errlen)) goto done;
    if (luaL_loadbufferx(L, glue, sizeof glue - 1, "=bitbench report", "t") != LUA_OK) {
        bb_lua_sandbox_error(L, err, errlen);
        goto done;
    }
    lua_insert(L, -3); /* glue, util, mod */
    lua_pushstring(L, run_dir);
    lua_pushstring(L, name);
    if (bb_lua_sandbox_pcall(L, 4, 2) != LUA_OK) {
        bb_lua_sandbox_error(L, err, errlen);
        goto done;
    }
    size_t n;
    const char *md = lua_tolstring(L, -2, &n), *t = lua_tostring(L, -1);
    if (!md || !(*markdown = malloc(n + 1))) {
        snprintf(err, errlen, "%s: no text", module);
        goto done;
    }
    memcpy(*markdown, md, n);
    (*markdown)[n] = 0;
    snprintf(title, title_len, "%s", t ? t : name);
    rc = 0;
done:
    bb_lua_sandbox_close(L);
    return rc;
}
