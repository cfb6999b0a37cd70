/* bitbench.compare(a, b [, threshold [, {by_variant = true}]]) for Lua (experiment files; report
 * modules reach the same through scripts/lib/report.lua's compare, which runs `bitbench compare
 * --csv`): compare.h's
 * comparison as a table
 *   { rows = { {key, kind, model, kernel, variant, variant_b, host_a, host_b, m, k, n, threads,
 *               cache, tokens, median_a, median_b, ratio, ci_lo, ci_hi, samples_a, samples_b,
 *               significant, change}, ... },
 *     regressions, improvements, only_a, only_b, threshold }
 * (change: "slower", "faster" or "none"; ci_lo/ci_hi nil without an interval), or nil and the
 * reason.  variant is A's variant; points match across variants unless by_variant (compare.h).
 * Each side must be one the file may read (bb_lua_sandbox_check_read): a run directory, or the
 * database of FILE.sqlite:RUN, in the file's folder or $BITBENCH_SHARED_DIR. */
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "archive/compare.h"
#include "support/lua_sandbox.h"

static void set_num(lua_State *L, const char *k, double v)
{
    if (isfinite(v)) lua_pushnumber(L, v);
    else lua_pushnil(L);
    lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, int v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static void set_str(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

static void push_row(lua_State *L, const bb_compare_row *r)
{
    lua_createtable(L, 0, 20);
    set_str(L, "key", r->key);
    set_str(L, "kind", r->kind);
    set_str(L, "model", r->model);
    set_str(L, "kernel", r->kernel);
    set_str(L, "variant", r->variant);
    set_str(L, "variant_b", r->variant_b);
    set_str(L, "host_a", r->host_a);
    set_str(L, "host_b", r->host_b);
    set_str(L, "cache", r->cache);
    set_int(L, "m", r->m);
    set_int(L, "k", r->k);
    set_int(L, "n", r->n);
    set_int(L, "threads", r->threads);
    set_int(L, "tokens", r->tokens);
    set_num(L, "median_a", r->ci.median_a);
    set_num(L, "median_b", r->ci.median_b);
    set_num(L, "ratio", r->ci.ratio);
    set_num(L, "ci_lo", r->ci.lo);
    set_num(L, "ci_hi", r->ci.hi);
    set_int(L, "samples_a", r->ci.na);
    set_int(L, "samples_b", r->ci.nb);
    lua_pushboolean(L, r->significant);
    lua_setfield(L, -2, "significant");
    set_str(L, "change", r->change == BB_CHANGE_SLOWER ? "slower" : r->change == BB_CHANGE_FASTER ? "faster" : "none");
}

/* Raises the sandbox's refusal of side src (a directory, else FILE.sqlite:ID's file); a side that
 * names nothing that exists is left to bb_compare to describe. */
static void check_side(lua_State *L, const char *src)
{
    char path[PATH_MAX], resolved[PATH_MAX], why[PATH_MAX * 2 + 256];
    struct stat sb;
    snprintf(path, sizeof path, "%s", src);
    if (stat(path, &sb) != 0) {
        char *colon = strrchr(path, ':');
        if (!colon) return;
        *colon = 0;
    }
    if (bb_lua_sandbox_check_read(L, path, resolved, why, sizeof why) < 0)
        luaL_error(L, "bitbench.compare: %s", why);
}

int bb_lua_compare(lua_State *L)
{
    const char *a = luaL_checkstring(L, 1), *b = luaL_checkstring(L, 2);
    check_side(L, a);
    check_side(L, b);
    double threshold = luaL_optnumber(L, 3, 0);
    if (threshold < 0 || threshold >= 10) return luaL_error(L, "bitbench.compare: threshold %f is not a fraction "
                                                               "(0.05 for 5 %%)", threshold);
    bool by_variant = false;
    if (!lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        lua_getfield(L, 4, "by_variant");
        by_variant = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    char err[4096];
    bb_comparison c;
    if (bb_compare(a, b, threshold, by_variant, &c, err, sizeof err)) {
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_createtable(L, 0, 6);
    lua_createtable(L, c.n, 0);
    for (int i = 0; i < c.n; i++) {
        push_row(L, &c.rows[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "rows");
    set_int(L, "regressions", c.regressions);
    set_int(L, "improvements", c.improvements);
    set_int(L, "only_a", c.only_a);
    set_int(L, "only_b", c.only_b);
    set_num(L, "threshold", threshold);
    bb_comparison_free(&c);
    return 1;
}
