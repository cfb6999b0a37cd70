/* Experiment files: Lua 5.4 through the plain C API (Debian's liblua5.4).
 *
 * The file runs once, in a fresh bounded state with the sandbox's libraries (support/lua_sandbox.h:
 * read-only io, no os.execute; every library with bitbench run --unsafe-lua) and one global table,
 * `bitbench` (lua_api.c).  It declares its experiment with bitbench.experiment{...} (sweeps as
 * plain tables or through bitbench.sweep{...}, which also records the sweep's line for messages),
 * and may compute its lists with ordinary Lua and the table's helpers.  After the file has run,
 * the declared tables are read strictly into a bb_experiment: every field name, type, range,
 * kernel, model and meter is checked there (the sweeps' fields in lua_sweep.c), and the first
 * problem stops the load with FILE:LINE, what was wrong and what is valid.  The state is then
 * closed: Lua never runs during measurements.
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/lua_load.h"
#include "meters/meter.h"
#include "plan/experiment.h"
#include "report/plot_kinds.h"
#include "support/lua_fields.h"
#include "support/lua_file.h"
#include "support/lua_sandbox.h"

static const char *const experiment_fields[] = {"name", "description", "sweeps", "meters", "out", "plots", "profile"};

/* A string-or-list field of names (meters, plots): each checked by `check` (which fails with the
 * valid choices), repeated names kept once, in order. */
typedef void (*name_check)(lua_State *L, load_ctx *c, const char *field, int entry, const char *name);

static void read_names(lua_State *L, load_ctx *c, int t, const char *field, name_check check,
                       char (**list)[BB_NAME_MAX], int *n)
{
    lua_getfield(L, t, field);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    int len = load_string_list_len(L, c, NULL, field);
    for (int i = 1; i <= len; i++) {
        const char *name = load_string_entry(L, c, NULL, field, i);
        check(L, c, field, i, name);
        int dup = 0;
        for (int j = 0; j < *n && !dup; j++) dup = strcmp((*list)[j], name) == 0;
        if (!dup) {
            *list = load_grow(L, *list, sizeof **list, *n);
            snprintf((*list)[(*n)++], sizeof **list, "%s", name);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void check_meter(lua_State *L, load_ctx *c, const char *field, int entry, const char *name)
{
    (void)entry;
    if (bb_meter_type_by_name(name)) return;
    char valid[256];
    bb_meter_type_names(valid, sizeof valid);
    load_fail(L, c, NULL, "field '%s': unknown meter '%s'; valid meters: %s", field, name, valid);
}

/* plots = { "tokens", "threads", ... }: kinds of `bitbench plot`, drawn when the run ends. */
static void check_plot_kind(lua_State *L, load_ctx *c, const char *field, int entry, const char *name)
{
    for (int k = 0; k < BB_PLOT_NKINDS; k++)
        if (!strcmp(name, bb_plot_kinds[k])) return;
    load_fail(L, c, NULL, "field '%s', entry %d: unknown plot kind '%s'; valid kinds: roofline, threads, gemv_bw, "
                     "tokens, ebw, e2e_threads, e2e_depth", field, entry, name);
}

static void read_meters(lua_State *L, load_ctx *c, int t)
{
    bb_experiment *ex = c->ex;
    ex->meters = load_grow(L, ex->meters, sizeof *ex->meters, 0);
    snprintf(ex->meters[0], sizeof ex->meters[0], "timer");
    ex->nmeters = 1;
    read_names(L, c, t, "meters", check_meter, &ex->meters, &ex->nmeters);
}

/* profile = true | { kernels = {...}, threads = T }: measure the machine profile in the run. */
static void read_profile(lua_State *L, load_ctx *c, int t)
{
    bb_experiment *ex = c->ex;
    static const char *const profile_fields[] = {"kernels", "threads"};
    char err[1024];
    lua_getfield(L, t, "profile");
    int p = lua_gettop(L);
    if (lua_isnil(L, p) || (lua_isboolean(L, p) && !lua_toboolean(L, p))) {
        lua_pop(L, 1);
        return;
    }
    ex->profile = true;
    if (lua_isboolean(L, p)) {
        lua_pop(L, 1);
        return;
    }
    if (!lua_istable(L, p) || bb_lua_is_list(L, p)) {
        char what[96];
        bb_lua_describe(L, p, what, sizeof what);
        load_fail(L, c, NULL, "field 'profile' must be true or a table { kernels = {...}, threads = T }, got %s", what);
    }
    if (bb_lua_check_fields(L, p, profile_fields, 2, err, sizeof err)) load_fail(L, c, NULL, "field 'profile': %s", err);
    long threads = 0;
    if (bb_lua_get_int(L, p, "threads", 1, c->mach->pus, &threads, err, sizeof err) < 0)
        load_fail(L, c, NULL, "field 'profile': %s", err);
    ex->profile_threads = (int)threads;
    lua_getfield(L, p, "kernels");
    if (!lua_isnil(L, -1)) {
        int n = load_string_list_len(L, c, NULL, "kernels");
        for (int i = 1; i <= n; i++) {
            const char *name = load_string_entry(L, c, NULL, "kernels", i);
            if (!bb_kernel_by_name(name)) {
                char msg[1400];
                load_unknown_kernel(name, msg, sizeof msg);
                load_fail(L, c, NULL, "field 'profile', kernels entry %d: %s", i, msg);
            }
            size_t used = strlen(ex->profile_kernels);
            if (used + strlen(name) + 2 > sizeof ex->profile_kernels)
                load_fail(L, c, NULL, "field 'profile': too many kernels");
            snprintf(ex->profile_kernels + used, sizeof ex->profile_kernels - used, "%s%s", used ? "," : "", name);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    } else
        lua_pop(L, 1);
    lua_pop(L, 1);
}

static bool valid_name(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
              *s == '_' || *s == '.'))
            return false;
    return true;
}

/* Runs under bb_lua_sandbox_pcall: the experiment table is argument 1. */
static int convert(lua_State *L)
{
    load_ctx *c = lua_touserdata(L, 2);
    bb_experiment *ex = c->ex;
    char err[1024];
    int t = 1;
    if (bb_lua_check_fields(L, t, experiment_fields, (int)(sizeof experiment_fields / sizeof *experiment_fields),
                            err, sizeof err))
        load_fail(L, c, NULL, "experiment: %s", err);
    /* default name: the file's base name without .lua */
    const char *base = strrchr(ex->file, '/');
    base = base ? base + 1 : ex->file;
    size_t blen = strlen(base);
    if (blen > 4 && strcmp(base + blen - 4, ".lua") == 0) blen -= 4;
    snprintf(ex->name, sizeof ex->name, "%.*s", (int)blen, base);
    if (bb_lua_get_string(L, t, "name", NULL, 0, ex->name, sizeof ex->name, err, sizeof err) < 0)
        load_fail(L, c, NULL, "experiment: %s", err);
    if (!valid_name(ex->name))
        load_fail(L, c, NULL, "experiment: name '%s' may only use letters, digits, '-', '_' and '.' (it names the "
                         "results directory)", ex->name);
    if (bb_lua_get_string(L, t, "description", NULL, 0, ex->description, sizeof ex->description, err, sizeof err) < 0)
        load_fail(L, c, NULL, "experiment: %s", err);
    snprintf(ex->out, sizeof ex->out, "%s", BB_DEFAULT_OUT);
    if (bb_lua_get_string(L, t, "out", NULL, 0, ex->out, sizeof ex->out, err, sizeof err) < 0)
        load_fail(L, c, NULL, "experiment: %s", err);
    read_meters(L, c, t);
    read_names(L, c, t, "plots", check_plot_kind, &c->ex->plots, &c->ex->nplots);
    read_profile(L, c, t);
    lua_getfield(L, t, "sweeps");
    if (lua_isnil(L, -1)) load_fail(L, c, NULL, "experiment: missing field 'sweeps' (a list of sweep tables)");
    if (!bb_lua_is_list(L, -1) || lua_rawlen(L, -1) == 0) {
        char what[96];
        bb_lua_describe(L, -1, what, sizeof what);
        load_fail(L, c, NULL, "experiment: field 'sweeps' must be a non-empty list of sweep tables, got %s", what);
    }
    int n = (int)lua_rawlen(L, -1);
    int list = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, list, i);
        if (!lua_istable(L, -1)) {
            char what[96];
            bb_lua_describe(L, -1, what, sizeof what);
            load_fail(L, c, NULL, "experiment: sweeps entry %d must be a table, got %s", i, what);
        }
        ex->sweeps = load_grow(L, ex->sweeps, sizeof *ex->sweeps, ex->nsweeps);
        bb_sweep *sw = &ex->sweeps[ex->nsweeps++];
        memset(sw, 0, sizeof *sw);
        load_read_sweep(L, c, lua_gettop(L), i, sw);
        for (int j = 0; j < ex->nsweeps - 1; j++)
            if (strcmp(ex->sweeps[j].name, sw->name) == 0)
                load_fail(L, c, sw, "two sweeps are named '%s'; sweep names must differ (they key the results)",
                     sw->name);
        lua_pop(L, 1);
    }
    return 0;
}

static bool unsafe_lua;

void bb_experiment_set_unsafe_lua(bool on) { unsafe_lua = on; }

int bb_experiment_load(const char *file, const bb_machine *mach, bb_experiment *ex, char *err, size_t errlen)
{
    return bb_experiment_load_sized(file, mach, NULL, ex, err, errlen);
}

int bb_experiment_load_sized(const char *file, const bb_machine *mach, const char *size, bb_experiment *ex,
                             char *err, size_t errlen)
{
    memset(ex, 0, sizeof *ex);
    snprintf(ex->size, sizeof ex->size, "%s", size ? size : "default");
    if (strlen(file) >= sizeof ex->file) {
        snprintf(err, errlen, "%s: path too long", file);
        return -1;
    }
    snprintf(ex->file, sizeof ex->file, "%s", file);
    load_ctx c = {.mach = mach, .file = file, .ex = ex, .size = ex->size};
    lua_State *L = bb_lua_sandbox_new(file, BB_LUA_READ_IO | (unsafe_lua ? BB_LUA_UNSAFE : 0), err, errlen);
    if (!L) return -1;
    ex->unsafe_lua = unsafe_lua;
    load_open_bitbench(L, &c);
    int rc = -1;
    /* Text only: Lua does not verify a precompiled (binary) chunk, and a damaged one crashes it. */
    if (bb_lua_load_file(L, file, "Lua experiment", BB_EXPERIMENT_MAX_BYTES) != LUA_OK) {
        /* syntax errors already read "FILE:LINE: message near 'token'"; a missing file does not */
        bb_lua_sandbox_error(L, err, errlen);
        goto done;
    }
    if (bb_lua_sandbox_pcall(L, 0, 1) != LUA_OK) {
        bb_lua_sandbox_error(L, err, errlen);
        goto done;
    }
    load_push_declared(L);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        if (!lua_istable(L, -1)) {
            snprintf(err, errlen, "%s: declares no experiment: call bitbench.experiment{ sweeps = {...} } "
                                  "(see README.md, \"Experiments in Lua\")", file);
            goto done;
        }
        c.exp_line = 0; /* the file returned a plain table */
    }
    ex->line = c.exp_line > 0 ? c.exp_line : 0;
    lua_pushcfunction(L, convert);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, &c);
    if (bb_lua_sandbox_pcall(L, 2, 0) != LUA_OK) {
        if (c.err[0]) snprintf(err, errlen, "%s", c.err);
        else bb_lua_sandbox_error(L, err, errlen);
        goto done;
    }
    rc = 0;
done:
    bb_lua_sandbox_close(L);
    if (rc) bb_experiment_free(ex);
    return rc;
}
