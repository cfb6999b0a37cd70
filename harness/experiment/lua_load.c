/* The helpers every part of the experiment loader uses (lua_load.h): lua_experiment.c, which runs
 * the file and converts the experiment, calls lua_sweep.c for each sweep table, and both call
 * these; nothing here calls back into either. */
#include "experiment/lua_load.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel.h"
#include "models/model_load.h"
#include "support/lua_fields.h"
#include "support/suggest.h"

int load_fail(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *fmt, ...)
{
    char msg[1600], where[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bb_experiment_where(c->ex, sw && sw->line ? sw->line : c->ex->line, where, sizeof where);
    if (sw) snprintf(c->err, sizeof c->err, "%ssweep '%s': %s", where, sw->name, msg);
    else snprintf(c->err, sizeof c->err, "%s%s", where, msg);
    return luaL_error(L, "%s", c->err);
}

void load_sweep_warning(load_ctx *c, const bb_sweep *sw, const char *fmt, ...)
{
    bb_experiment *ex = c->ex;
    char **w = realloc(ex->warnings, sizeof *w * (size_t)(ex->nwarnings + 1));
    if (!w) return;
    ex->warnings = w;
    char msg[1024], where[1100], buf[2200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bb_experiment_where(ex, sw->line ? sw->line : ex->line, where, sizeof where);
    snprintf(buf, sizeof buf, "%ssweep '%s': %s", where, sw->name, msg);
    w[ex->nwarnings] = strdup(buf);
    if (w[ex->nwarnings]) ex->nwarnings++;
}

void *load_grow(lua_State *L, void *p, size_t elem, int count)
{
    void *q = realloc(p, elem * (size_t)(count + 1));
    if (!q) luaL_error(L, "out of memory");
    return q;
}

/* The list (or single string) at the top of the stack, as strings. */
int load_string_list_len(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *field)
{
    if (lua_type(L, -1) == LUA_TSTRING) return 1;
    char what[96];
    bb_lua_describe(L, -1, what, sizeof what);
    if (!bb_lua_is_list(L, -1) || lua_rawlen(L, -1) == 0)
        return load_fail(L, c, sw, "field '%s' must be a string or a non-empty list of strings, got %s%s", field,
                         what, lua_type(L, -1) == LUA_TTABLE && lua_rawlen(L, -1) == 0 ? " that is empty or not a list" : "");
    return (int)lua_rawlen(L, -1);
}

/* Push entry i (1-based) of the string-or-list at the top; check it is a string. */
const char *load_string_entry(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *field, int i)
{
    if (lua_type(L, -1) == LUA_TSTRING) {
        lua_pushvalue(L, -1);
    } else {
        lua_rawgeti(L, -1, i);
        if (lua_type(L, -1) != LUA_TSTRING) {
            char what[96];
            bb_lua_describe(L, -1, what, sizeof what);
            load_fail(L, c, sw, "field '%s', entry %d: must be a string, got %s", field, i, what);
        }
    }
    return lua_tostring(L, -1);
}

/* "unknown kernel 'x' (did you mean 'y'?); valid kernels: ..." for a name not in the registry. */
void load_unknown_kernel(const char *name, char *buf, size_t len)
{
    const char *names[256];
    int n = 0;
    for (int i = 0; i < bb_kernel_count() && n < 256; i++) names[n++] = bb_kernel_at(i)->name;
    bb_suggest_message("kernel", name, names, n, buf, len);
}

void load_note_model_config(lua_State *L, load_ctx *c, const char *name)
{
    bb_experiment *ex = c->ex;
    if (bb_model_is_path(name)) return;
    for (int i = 0; i < ex->nmodel_configs; i++)
        if (!strcmp(ex->model_configs[i], name)) return;
    ex->model_configs = load_grow(L, ex->model_configs, sizeof *ex->model_configs, ex->nmodel_configs);
    snprintf(ex->model_configs[ex->nmodel_configs++], sizeof *ex->model_configs, "%s", name);
}
