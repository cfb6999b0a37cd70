/* Experiment files: Lua 5.4 through the plain C API (Debian's liblua5.4).
 *
 * The file runs once, in a fresh state with the standard libraries and one global table,
 * `bitbench`.  It declares its experiment with bitbench.experiment{...} (sweeps as plain tables
 * or through bitbench.sweep{...}, which also records the sweep's line for messages), and may
 * compute its lists with ordinary Lua and the helpers below.  After the file has run, the
 * declared tables are read strictly into a bb_experiment: every field name, type, range, kernel,
 * model and meter is checked there, and the first problem stops the load with FILE:LINE, what
 * was wrong and what is valid.  The state is then closed: Lua never runs during measurements.
 *
 * The bitbench table (documented in README.md, section "Experiments in Lua"):
 *   experiment{...}   declare the experiment (once); returns its table
 *   sweep{...}        mark a table as a sweep, remembering its line; returns the table (a sweep
 *                     with `models` instead of `shapes` is a model sweep: end-to-end points)
 *   kernels([family]) names of the registered kernels (of one family)
 *   kernel(spec)      a kernel's description, or nil and a reason when it is not usable here
 *   models()          names of the model configs in models/
 *   peer_available(name)  true, or false and why: a peer's program is found (harness/peers/peer.h)
 *   model(name)       a model's config, with .shapes (its distinct projection shapes)
 *   machine           this machine: cpu_model, cores, pus, numa_nodes, l1d, l2, l3, mem_total
 *   range(a, b[, s])  {a, a+s, ..., b}
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "experiment.h"
#include "meter.h"
#include "models/model_config.h"
#include "models/model_load.h"
#include "peers/peer_sweep.h"
#include "support/lua_fields.h"
#include "support/suggest.h"

typedef struct {
    const bb_machine *mach;
    const char *file;
    bb_experiment *ex;
    int exp_line;          /* line of bitbench.experiment, 0 before the call */
    const char *size;      /* bitbench.size */
    char err[4096];        /* a conversion error, with its location */
} load_ctx;

/* Registry keys of the experiment table and of the weak table sweep -> line. */
static const char EXP_KEY = 0, LINES_KEY = 0;

static load_ctx *ctx_of(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

/* The line of the Lua code that called the running C function. */
static int caller_line(lua_State *L)
{
    lua_Debug ar;
    if (!lua_getstack(L, 1, &ar) || !lua_getinfo(L, "l", &ar)) return 0;
    return ar.currentline > 0 ? ar.currentline : 0;
}

/* ---------------------------------------------------------------- the bitbench table ---- */

static int l_experiment(lua_State *L)
{
    load_ctx *c = ctx_of(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    if (c->exp_line)
        return luaL_error(L, "bitbench.experiment is called a second time (first at line %d); "
                             "one file declares one experiment, with several sweeps", c->exp_line);
    c->exp_line = caller_line(L);
    if (!c->exp_line) c->exp_line = -1;
    lua_pushvalue(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &EXP_KEY);
    lua_settop(L, 1);
    return 1;
}

static int l_sweep(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &LINES_KEY);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, caller_line(L));
    lua_rawset(L, -3);
    lua_settop(L, 1);
    return 1;
}

static void push_string_list(lua_State *L, const char *const *v, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushstring(L, v[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

static int l_kernels(lua_State *L)
{
    const char *family = luaL_optstring(L, 1, NULL);
    if (family) {
        const char *families[32];
        int nf = 0, ok = 0;
        for (const char *f; nf < (int)(sizeof families / sizeof families[0]) && (f = bb_family_at(nf)); nf++) {
            families[nf] = f;
            ok |= strcmp(family, f) == 0;
        }
        if (!ok) {
            char valid[128] = "";
            bb_join_names(valid, sizeof valid, families, nf);
            return luaL_error(L, "bitbench.kernels: unknown family '%s'; valid: %s", family, valid);
        }
    }
    lua_newtable(L);
    int n = 0;
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *k = bb_kernel_at(i);
        if (family && strcmp(k->family, family) != 0) continue;
        lua_pushstring(L, k->name);
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

static int l_kernel(lua_State *L)
{
    const char *spec = luaL_checkstring(L, 1);
    const bb_kernel *k;
    const bb_variant *v;
    char err[1536];
    if (bb_kernel_resolve(spec, &k, &v, err, sizeof err)) {
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_newtable(L);
    lua_pushstring(L, k->name), lua_setfield(L, -2, "name");
    lua_pushstring(L, k->family), lua_setfield(L, -2, "family");
    lua_pushstring(L, k->description), lua_setfield(L, -2, "description");
    lua_pushstring(L, k->paper), lua_setfield(L, -2, "paper");
    lua_pushnumber(L, k->bits_per_weight), lua_setfield(L, -2, "bits_per_weight");
    lua_pushboolean(L, k->lossless), lua_setfield(L, -2, "lossless");
    lua_pushinteger(L, k->k_multiple), lua_setfield(L, -2, "k_multiple");
    lua_pushinteger(L, k->m_multiple), lua_setfield(L, -2, "m_multiple");
    lua_pushstring(L, v->isa), lua_setfield(L, -2, "variant");
    lua_newtable(L);
    int n = 0;
    for (int i = 0; i < bb_variant_count(k); i++)
        if (bb_variant_usable(&k->variants[i])) {
            lua_pushstring(L, k->variants[i].isa);
            lua_rawseti(L, -2, ++n);
        }
    lua_setfield(L, -2, "variants");
    return 1;
}

/* bitbench.usable{spec, ...}: the specs bitbench.kernel would accept here, in their order, so an
 * experiment names every kernel it compares and runs those this build and CPU have. */
static int l_usable(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_newtable(L);
    int n = 0;
    lua_Integer len = luaL_len(L, 1);
    for (lua_Integer i = 1; i <= len; i++) {
        lua_geti(L, 1, i);
        const char *spec = lua_tostring(L, -1);
        if (!spec) return luaL_error(L, "bitbench.usable: entry %d is not a kernel name", (int)i);
        const bb_kernel *k;
        const bb_variant *v;
        char err[1536];
        if (bb_kernel_resolve(spec, &k, &v, err, sizeof err) == 0) {
            lua_pushvalue(L, -1);
            lua_rawseti(L, -3, ++n);
        }
        lua_pop(L, 1);
    }
    return 1;
}

static int l_models(lua_State *L)
{
    char **names;
    int n = bb_model_names(&names);
    push_string_list(L, (const char *const *)names, n);
    bb_model_names_free(names, n);
    return 1;
}

static void push_shape_list(lua_State *L, const bb_model_config *cfg)
{
    bb_model_shape sh[BB_MODEL_MAX_SHAPES];
    int n = bb_model_shapes(cfg, sh);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 5);
        lua_pushinteger(L, sh[i].m), lua_setfield(L, -2, "m");
        lua_pushinteger(L, sh[i].k), lua_setfield(L, -2, "k");
        lua_pushstring(L, cfg->name), lua_setfield(L, -2, "model");
        lua_pushstring(L, sh[i].roles), lua_setfield(L, -2, "roles");
        lua_pushinteger(L, sh[i].per_layer), lua_setfield(L, -2, "per_layer");
        lua_rawseti(L, -2, i + 1);
    }
}

static int l_model(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    bb_model_config cfg;
    char err[2048];
    if (bb_model_load(name, &cfg, err, sizeof err)) return luaL_error(L, "bitbench.model: %s", err);
    lua_newtable(L);
    lua_pushstring(L, cfg.name), lua_setfield(L, -2, "name");
    lua_pushstring(L, bb_model_style_name(cfg.style)), lua_setfield(L, -2, "style");
    static const struct { const char *f; size_t off; } ints[] = {
        {"dim", offsetof(bb_model_config, dim)},           {"ffn_dim", offsetof(bb_model_config, ffn_dim)},
        {"n_layers", offsetof(bb_model_config, n_layers)}, {"n_heads", offsetof(bb_model_config, n_heads)},
        {"n_kv_heads", offsetof(bb_model_config, n_kv_heads)},
        {"head_dim", offsetof(bb_model_config, head_dim)}, {"vocab_size", offsetof(bb_model_config, vocab_size)},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        lua_pushinteger(L, *(const int *)((const char *)&cfg + ints[i].off));
        lua_setfield(L, -2, ints[i].f);
    }
    lua_pushstring(L, bb_model_ffn_act_name(cfg.ffn_act)), lua_setfield(L, -2, "ffn_act");
    lua_pushboolean(L, cfg.tied_embedding), lua_setfield(L, -2, "tied_embedding");
    lua_pushstring(L, cfg.source), lua_setfield(L, -2, "source");
    lua_pushinteger(L, (lua_Integer)bb_model_param_count(&cfg)), lua_setfield(L, -2, "params");
    push_shape_list(L, &cfg);
    lua_setfield(L, -2, "shapes");
    return 1;
}

static int l_range(lua_State *L)
{
    lua_Integer a = luaL_checkinteger(L, 1), b = luaL_checkinteger(L, 2), s = luaL_optinteger(L, 3, 1);
    if (s <= 0) return luaL_error(L, "bitbench.range: step must be positive, got %d", (int)s);
    if (b >= a && (b - a) / s > 1000000) return luaL_error(L, "bitbench.range: more than a million values");
    lua_newtable(L);
    int n = 0;
    for (lua_Integer x = a; x <= b; x += s) {
        lua_pushinteger(L, x);
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

static void push_machine(lua_State *L, const bb_machine *m)
{
    lua_newtable(L);
    lua_pushstring(L, m->cpu_model), lua_setfield(L, -2, "cpu_model");
    lua_pushstring(L, m->cpu_flags), lua_setfield(L, -2, "cpu_flags");
    lua_pushinteger(L, m->cores), lua_setfield(L, -2, "cores");
    lua_pushinteger(L, m->pus), lua_setfield(L, -2, "pus");
    lua_pushinteger(L, m->numa_nodes), lua_setfield(L, -2, "numa_nodes");
    lua_pushinteger(L, (lua_Integer)m->l1d), lua_setfield(L, -2, "l1d");
    lua_pushinteger(L, (lua_Integer)m->l2), lua_setfield(L, -2, "l2");
    lua_pushinteger(L, (lua_Integer)m->l3), lua_setfield(L, -2, "l3");
    lua_pushinteger(L, (lua_Integer)m->mem_total), lua_setfield(L, -2, "mem_total");
}

static void open_bitbench(lua_State *L, load_ctx *c)
{
    static const luaL_Reg fns[] = {{"experiment", l_experiment}, {"sweep", l_sweep},   {"kernels", l_kernels},
                                   {"kernel", l_kernel},         {"usable", l_usable}, {"models", l_models},
                                   {"model", l_model},           {"peer_available", bb_lua_peer_available},
                                   {"range", l_range},           {NULL, NULL}};
    lua_newtable(L);
    lua_pushlightuserdata(L, c);
    luaL_setfuncs(L, fns, 1);
    push_machine(L, c->mach);
    lua_setfield(L, -2, "machine");
    lua_pushstring(L, c->size);
    lua_setfield(L, -2, "size");
    lua_setglobal(L, "bitbench");
    /* sweep -> line, weak keys so it never keeps a table alive */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushstring(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &LINES_KEY);
}

/* ---------------------------------------------------------------- reading the tables ---- */

/* Stop the conversion with "FILE:LINE: [sweep 'x': ]message". */
static int fail(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *fmt, ...)
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

static void add_warning(bb_experiment *ex, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warning(bb_experiment *ex, const char *fmt, ...)
{
    char **w = realloc(ex->warnings, sizeof *w * (size_t)(ex->nwarnings + 1));
    if (!w) return;
    ex->warnings = w;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    w[ex->nwarnings] = strdup(buf);
    if (w[ex->nwarnings]) ex->nwarnings++;
}

static void *grow(lua_State *L, void *p, size_t elem, int count)
{
    void *q = realloc(p, elem * (size_t)(count + 1));
    if (!q) luaL_error(L, "out of memory");
    return q;
}

static const char *const sweep_fields[] = {"name",   "kernels",  "shapes",      "n",       "threads",
                                           "warmup", "reps",     "max_reps",    "min_seconds",
                                           "cache",  "on_unsupported", "spread_limit", "seed",
                                           "verify"};
static const char *const model_sweep_fields[] = {"name",    "models", "kernels",        "out_kernel",
                                                 "threads", "prompt", "gen",            "reps",
                                                 "kv",      "seed",   "on_unsupported", "distinct_layers",
                                                 "compare_logits", "compare_tokens", "perplexity",
                                                 "peers",   "peer_paths", "peer_timeout"};
static const char *const perplexity_fields[] = {"file", "ctx", "chunks", "model"};
static const char *const kv_names[] = {"f32", "f16"};
static const char *const experiment_fields[] = {"name", "description", "sweeps", "meters", "out", "plots", "profile"};
static const char *const unsupported_names[] = {"skip", "error"};

/* The list (or single string) at the top of the stack, as strings. */
static int string_list_len(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *field)
{
    if (lua_type(L, -1) == LUA_TSTRING) return 1;
    char what[96];
    bb_lua_describe(L, -1, what, sizeof what);
    if (!bb_lua_is_list(L, -1) || lua_rawlen(L, -1) == 0)
        return fail(L, c, sw, "field '%s' must be a string or a non-empty list of strings, got %s%s", field, what,
                    lua_type(L, -1) == LUA_TTABLE && lua_rawlen(L, -1) == 0 ? " that is empty or not a list" : "");
    return (int)lua_rawlen(L, -1);
}

/* Push entry i (1-based) of the string-or-list at the top; check it is a string. */
static const char *string_entry(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *field, int i)
{
    if (lua_type(L, -1) == LUA_TSTRING) {
        lua_pushvalue(L, -1);
    } else {
        lua_rawgeti(L, -1, i);
        if (lua_type(L, -1) != LUA_TSTRING) {
            char what[96];
            bb_lua_describe(L, -1, what, sizeof what);
            fail(L, c, sw, "field '%s', entry %d: must be a string, got %s", field, i, what);
        }
    }
    return lua_tostring(L, -1);
}

/* "unknown kernel 'x' (did you mean 'y'?); valid kernels: ..." for a name not in the registry. */
static void unknown_kernel(const char *name, char *buf, size_t len)
{
    const char *names[256];
    int n = 0;
    for (int i = 0; i < bb_kernel_count() && n < 256; i++) names[n++] = bb_kernel_at(i)->name;
    bb_suggest_message("kernel", name, names, n, buf, len);
}

static void kernel_error(lua_State *L, load_ctx *c, const bb_sweep *sw, int entry, const char *spec, const char *why)
{
    char name[BB_NAME_MAX];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(spec, "@"), spec);
    if (bb_kernel_by_name(name)) fail(L, c, sw, "field 'kernels', entry %d: %s", entry, why);
    char msg[1400];
    unknown_kernel(name, msg, sizeof msg);
    fail(L, c, sw, "field 'kernels', entry %d: %s", entry, msg);
}

static void read_kernels(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    lua_getfield(L, t, "kernels");
    if (lua_isnil(L, -1)) fail(L, c, sw, "missing field 'kernels' (a list of kernel names, e.g. {\"i2_s\"})");
    int n = string_list_len(L, c, sw, "kernels");
    for (int i = 1; i <= n; i++) {
        const char *spec = string_entry(L, c, sw, "kernels", i);
        bb_kernel_choice kc = {0};
        char err[1536];
        if (strlen(spec) >= sizeof kc.spec) fail(L, c, sw, "field 'kernels', entry %d: name too long", i);
        if (bb_kernel_resolve(spec, &kc.kernel, &kc.variant, err, sizeof err)) kernel_error(L, c, sw, i, spec, err);
        snprintf(kc.spec, sizeof kc.spec, "%s", spec);
        int dup = -1;
        for (int j = 0; j < sw->nkernels && dup < 0; j++)
            if (sw->kernels[j].kernel == kc.kernel && sw->kernels[j].variant == kc.variant) dup = j;
        if (dup >= 0) {
            char where[1100];
            bb_experiment_where(c->ex, sw->line ? sw->line : c->ex->line, where, sizeof where);
            add_warning(c->ex, "%ssweep '%s': kernels '%s' and '%s' are the same variant here (%s@%s); measured once",
                        where, sw->name, sw->kernels[dup].spec, spec, kc.kernel->name, kc.variant->isa);
        } else {
            sw->kernels = grow(L, sw->kernels, sizeof *sw->kernels, sw->nkernels);
            sw->kernels[sw->nkernels++] = kc;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void add_shape(lua_State *L, load_ctx *c, bb_sweep *sw, const bb_shape *s)
{
    for (int j = 0; j < sw->nshapes; j++)
        if (sw->shapes[j].m == s->m && sw->shapes[j].k == s->k) {
            char where[1100];
            bb_experiment_where(c->ex, sw->line ? sw->line : c->ex->line, where, sizeof where);
            add_warning(c->ex, "%ssweep '%s': shape M=%d K=%d%s%s%s appears twice; measured once%s%s%s", where,
                        sw->name, s->m, s->k, s->model[0] ? " (" : "", s->model, s->model[0] ? ")" : "",
                        sw->shapes[j].model[0] ? " as " : "", sw->shapes[j].model,
                        sw->shapes[j].model[0] ? " shape" : "");
            return;
        }
    sw->shapes = grow(L, sw->shapes, sizeof *sw->shapes, sw->nshapes);
    sw->shapes[sw->nshapes++] = *s;
}

#define MAX_DIM (1 << 24)

static void read_shapes(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    lua_getfield(L, t, "shapes");
    if (lua_isnil(L, -1))
        fail(L, c, sw, "missing field 'shapes' (a list of model names, {m=M, k=K} or {M, K} pairs), or "
                       "'models' for a model sweep");
    char what[96];
    if (lua_type(L, -1) == LUA_TSTRING) {
        /* one model name */
    } else if (!bb_lua_is_list(L, -1) || lua_rawlen(L, -1) == 0) {
        bb_lua_describe(L, -1, what, sizeof what);
        fail(L, c, sw, "field 'shapes' must be a non-empty list of model names, {m=M, k=K} or {M, K}, got %s", what);
    }
    int n = lua_type(L, -1) == LUA_TSTRING ? 1 : (int)lua_rawlen(L, -1);
    for (int i = 1; i <= n; i++) {
        if (lua_type(L, -1) == LUA_TSTRING) lua_pushvalue(L, -1);
        else lua_rawgeti(L, -1, i);
        int e = lua_gettop(L);
        bb_shape s = {0};
        if (lua_type(L, e) == LUA_TSTRING) {
            bb_model_config cfg;
            char err[2048];
            if (bb_model_config_resolve(lua_tostring(L, e), &cfg, err, sizeof err))
                fail(L, c, sw, "field 'shapes', entry %d: %s", i, err);
            bb_model_shape ms[BB_MODEL_MAX_SHAPES];
            int ns = bb_model_shapes(&cfg, ms);
            for (int j = 0; j < ns; j++) {
                bb_shape x = {.m = ms[j].m, .k = ms[j].k};
                snprintf(x.model, sizeof x.model, "%s", cfg.name);
                snprintf(x.roles, sizeof x.roles, "%s", ms[j].roles);
                add_shape(L, c, sw, &x);
            }
        } else if (lua_type(L, e) == LUA_TTABLE) {
            long m = 0, k = 0;
            char err[512];
            if (bb_lua_is_list(L, e) && lua_rawlen(L, e) == 2) {
                lua_rawgeti(L, e, 1);
                lua_rawgeti(L, e, 2);
                if (bb_lua_value_int(L, -2, 1, MAX_DIM, &m) || bb_lua_value_int(L, -1, 1, MAX_DIM, &k)) {
                    bb_lua_describe(L, bb_lua_value_int(L, -2, 1, MAX_DIM, &m) ? -2 : -1, what, sizeof what);
                    fail(L, c, sw, "field 'shapes', entry %d: {M, K} must be integers in 1..%d, got %s", i, MAX_DIM,
                         what);
                }
                lua_pop(L, 2);
            } else {
                static const char *const shape_fields[] = {"m", "k"};
                if (bb_lua_check_fields(L, e, shape_fields, 2, err, sizeof err))
                    fail(L, c, sw, "field 'shapes', entry %d: %s", i, err);
                if (bb_lua_get_int(L, e, "m", 1, MAX_DIM, &m, err, sizeof err) < 0 ||
                    bb_lua_get_int(L, e, "k", 1, MAX_DIM, &k, err, sizeof err) < 0)
                    fail(L, c, sw, "field 'shapes', entry %d: %s", i, err);
                if (!m || !k) fail(L, c, sw, "field 'shapes', entry %d: a shape needs both m and k", i);
            }
            s.m = (int)m;
            s.k = (int)k;
            add_shape(L, c, sw, &s);
        } else {
            bb_lua_describe(L, e, what, sizeof what);
            fail(L, c, sw, "field 'shapes', entry %d: must be a model name, {m=M, k=K} or {M, K}, got %s", i, what);
        }
        lua_settop(L, e - 1);
    }
    lua_pop(L, 1);
}

static void read_ints(lua_State *L, load_ctx *c, int t, bb_sweep *sw, const char *field, long lo, long hi,
                      int **out, int *count)
{
    char err[512];
    int *v = NULL, n = 0;
    int rc = bb_lua_get_int_list(L, t, field, lo, hi, &v, &n, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc == 0) return;
    free(*out);
    *out = v;
    *count = n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (v[i] == v[j]) fail(L, c, sw, "field '%s': %d is listed twice", field, v[i]);
}

static void read_models(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    lua_getfield(L, t, "models");
    int n = string_list_len(L, c, sw, "models");
    for (int i = 1; i <= n; i++) {
        const char *name = string_entry(L, c, sw, "models", i);
        bb_model_config cfg;
        char err[2048];
        /* a model file (.gguf, llama2.c) runs its own weights; for a config name bb_model_load names
         * the valid models and the nearest one for an unknown name */
        if (bb_model_config_resolve(name, &cfg, err, sizeof err))
            fail(L, c, sw, "field 'models', entry %d: %s", i, err);
        for (int j = 0; j < sw->nmodels; j++)
            if (strcmp(sw->models[j].name, cfg.name) == 0)
                fail(L, c, sw, "field 'models': '%s' is listed twice", cfg.name);
        sw->models = grow(L, sw->models, sizeof *sw->models, sw->nmodels);
        sw->models[sw->nmodels++] = cfg;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* A model sweep's field naming one kernel (out_kernel, compare_logits): "name" or "name@isa". */
static void check_single_kernel(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *field, const char *spec)
{
    const bb_kernel *k;
    const bb_variant *v;
    char kerr[1536];
    if (!bb_kernel_resolve(spec, &k, &v, kerr, sizeof kerr)) return;
    char name[BB_NAME_MAX];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(spec, "@"), spec);
    if (bb_kernel_by_name(name)) fail(L, c, sw, "field '%s': %s", field, kerr); /* a known kernel, no such variant */
    char msg[1400];
    unknown_kernel(name, msg, sizeof msg);
    fail(L, c, sw, "field '%s': %s", field, msg);
}

/* A model sweep's `perplexity` table: file (readable), ctx (4..), chunks (0 = all), model (a llama2.c
 * checkpoint, readable; absent = the point's synthetic model). */
static void read_perplexity(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    lua_getfield(L, t, "perplexity");
    int p = lua_gettop(L);
    if (lua_isnil(L, p)) {
        lua_pop(L, 1);
        return;
    }
    char err[1024], what[64];
    if (!lua_istable(L, p)) {
        bb_lua_describe(L, p, what, sizeof what);
        fail(L, c, sw, "field 'perplexity': must be a table {file = TEXT, ctx = C, chunks = N, model = FILE.bin}, "
                       "got %s", what);
    }
    if (bb_lua_check_fields(L, p, perplexity_fields, 4, err, sizeof err)) fail(L, c, sw, "field 'perplexity': %s", err);
    int got = bb_lua_get_string(L, p, "file", NULL, 0, sw->ppl_file, sizeof sw->ppl_file, err, sizeof err);
    if (got <= 0) fail(L, c, sw, "field 'perplexity': %s", got < 0 ? err : "'file' (the text) is required");
    long v;
    int rc = bb_lua_get_int(L, p, "ctx", 4, 1 << 20, &v, err, sizeof err);
    if (rc <= 0) fail(L, c, sw, "field 'perplexity': %s", rc < 0 ? err : "'ctx' (tokens per chunk, >= 4) is required");
    sw->ppl_ctx = (int)v;
    rc = bb_lua_get_int(L, p, "chunks", 0, 1 << 30, &v, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "field 'perplexity': %s", err);
    sw->ppl_chunks = rc > 0 ? (int)v : 0;
    if (bb_lua_get_string(L, p, "model", NULL, 0, sw->ppl_model, sizeof sw->ppl_model, err, sizeof err) < 0)
        fail(L, c, sw, "field 'perplexity': %s", err);
    const char *files[2] = {sw->ppl_file, sw->ppl_model};
    for (int i = 0; i < 2; i++) {
        FILE *f = files[i][0] ? fopen(files[i], "rb") : NULL;
        if (files[i][0] && !f)
            fail(L, c, sw, "field 'perplexity': %s '%s' cannot be opened", i ? "model" : "file", files[i]);
        if (f) fclose(f);
    }
    lua_pop(L, 1);
}

/* The fields of a model sweep (sw->name and sw->line are set). */
static void read_model_sweep(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    sw->is_model = true;
    if (bb_lua_check_fields(L, t, model_sweep_fields, (int)(sizeof model_sweep_fields / sizeof *model_sweep_fields),
                            err, sizeof err))
        fail(L, c, sw, "%s (a sweep with 'models' is a model sweep)", err);
    sw->min_reps = BB_DEFAULT_E2E_REPS;
    sw->seed = BB_DEFAULT_SEED;
    sw->distinct_layers = BB_DEFAULT_DISTINCT_LAYERS;
    read_models(L, c, t, sw);
    read_kernels(L, c, t, sw);
    snprintf(sw->out_kernel, sizeof sw->out_kernel, "f16");
    if (bb_lua_get_string(L, t, "out_kernel", NULL, 0, sw->out_kernel, sizeof sw->out_kernel, err, sizeof err) < 0)
        fail(L, c, sw, "%s", err);
    check_single_kernel(L, c, sw, "out_kernel", sw->out_kernel);
    int got = bb_lua_get_string(L, t, "compare_logits", NULL, 0, sw->compare_logits, sizeof sw->compare_logits, err,
                                sizeof err);
    if (got < 0) fail(L, c, sw, "%s", err);
    if (got > 0) check_single_kernel(L, c, sw, "compare_logits", sw->compare_logits);
    sw->compare_tokens = BB_DEFAULT_COMPARE_TOKENS;
    sw->threads = malloc(sizeof *sw->threads);
    sw->prompt = malloc(sizeof *sw->prompt);
    sw->gen = malloc(sizeof *sw->gen);
    if (!sw->threads || !sw->prompt || !sw->gen) luaL_error(L, "out of memory");
    sw->threads[0] = c->mach->cores > 0 ? c->mach->cores : 1;
    sw->nthreads = 1;
    sw->prompt[0] = 16;
    sw->nprompt = 1;
    sw->gen[0] = 8;
    sw->ngen = 1;
    read_ints(L, c, t, sw, "threads", 1, 1 << 16, &sw->threads, &sw->nthreads);
    for (int i = 0; i < sw->nthreads; i++)
        if (sw->threads[i] > c->mach->pus)
            fail(L, c, sw, "field 'threads': %d threads, but this machine has %d processing units (valid: 1..%d)",
                 sw->threads[i], c->mach->pus, c->mach->pus);
    read_ints(L, c, t, sw, "prompt", 0, 1 << 16, &sw->prompt, &sw->nprompt);
    read_ints(L, c, t, sw, "gen", 0, 1 << 16, &sw->gen, &sw->ngen);
    for (int i = 0; i < sw->nprompt; i++)
        for (int j = 0; j < sw->ngen; j++)
            if (sw->prompt[i] == 0 && sw->gen[j] == 0)
                fail(L, c, sw, "fields 'prompt' and 'gen' are both 0 in one point: nothing to measure (valid: "
                               "prompt >= 0, gen >= 0, not both 0)");
    long v;
    int rc = bb_lua_get_int(L, t, "reps", 1, 1000000, &v, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc > 0) sw->min_reps = (int)v;
    sw->max_reps = sw->min_reps;
    rc = bb_lua_get_int(L, t, "distinct_layers", 0, 1 << 16, &v, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc > 0) sw->distinct_layers = (int)v;
    /* at most 1024: the logits of every compared position are held, twice (point and reference) */
    rc = bb_lua_get_int(L, t, "compare_tokens", 1, 1024, &v, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc > 0 && !sw->compare_logits[0])
        fail(L, c, sw, "field 'compare_tokens' is set but 'compare_logits' is not (the reference kernel whose "
                       "logits the points are compared with, e.g. compare_logits = \"f32\")");
    if (rc > 0) sw->compare_tokens = (int)v;
    read_perplexity(L, c, t, sw);
    if (bb_peer_read_fields(L, t, sw, err, sizeof err)) fail(L, c, sw, "%s", err);
    rc = bb_lua_get_int(L, t, "seed", 0, 9007199254740991L, &v, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc > 0) sw->seed = (uint64_t)v;
    char s[32] = "f32";
    if (bb_lua_get_string(L, t, "kv", kv_names, 2, s, sizeof s, err, sizeof err) < 0) fail(L, c, sw, "%s", err);
    sw->kv_f16 = strcmp(s, "f16") == 0;
    snprintf(s, sizeof s, "skip");
    if (bb_lua_get_string(L, t, "on_unsupported", unsupported_names, 2, s, sizeof s, err, sizeof err) < 0)
        fail(L, c, sw, "%s", err);
    sw->on_unsupported = strcmp(s, "error") == 0 ? BB_UNSUPPORTED_ERROR : BB_UNSUPPORTED_SKIP;
}

static void read_sweep(lua_State *L, load_ctx *c, int t, int index, bb_sweep *sw)
{
    char err[1024];
    /* the line first, so that every message can say where */
    lua_rawgetp(L, LUA_REGISTRYINDEX, &LINES_KEY);
    lua_pushvalue(L, t);
    lua_rawget(L, -2);
    sw->line = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
    lua_pop(L, 2);
    snprintf(sw->name, sizeof sw->name, "sweep%d", index);
    if (bb_lua_get_string(L, t, "name", NULL, 0, sw->name, sizeof sw->name, err, sizeof err) < 0)
        fail(L, c, sw, "%s", err);
    for (int i = 0; sw->name[i]; i++)
        if (sw->name[i] == ',' || sw->name[i] == '"' || sw->name[i] == '\n' || sw->name[i] == '|')
            fail(L, c, sw, "field 'name': a sweep name may not contain ',', '\"', '|' or a newline");
    lua_getfield(L, t, "models");
    bool is_model = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (is_model) {
        lua_getfield(L, t, "shapes");
        if (!lua_isnil(L, -1))
            fail(L, c, sw, "has both 'models' (a model sweep) and 'shapes' (a kernel sweep); use one of them");
        lua_pop(L, 1);
        read_model_sweep(L, c, t, sw);
        return;
    }
    if (bb_lua_check_fields(L, t, sweep_fields, (int)(sizeof sweep_fields / sizeof *sweep_fields), err, sizeof err))
        fail(L, c, sw, "%s", err);
    sw->warmup = BB_DEFAULT_WARMUP;
    sw->min_reps = BB_DEFAULT_MIN_REPS;
    sw->max_reps = BB_DEFAULT_MAX_REPS;
    sw->min_seconds = BB_DEFAULT_MIN_SECONDS;
    sw->spread_limit = BB_DEFAULT_SPREAD_LIMIT;
    sw->seed = BB_DEFAULT_SEED;
    read_kernels(L, c, t, sw);
    read_shapes(L, c, t, sw);
    sw->n = malloc(sizeof *sw->n);
    sw->threads = malloc(sizeof *sw->threads);
    if (!sw->n || !sw->threads) luaL_error(L, "out of memory");
    sw->n[0] = 1;
    sw->nn = 1;
    sw->threads[0] = c->mach->cores > 0 ? c->mach->cores : 1;
    sw->nthreads = 1;
    read_ints(L, c, t, sw, "n", 1, 1 << 16, &sw->n, &sw->nn);
    read_ints(L, c, t, sw, "threads", 1, 1 << 16, &sw->threads, &sw->nthreads);
    for (int i = 0; i < sw->nthreads; i++)
        if (sw->threads[i] > c->mach->pus)
            fail(L, c, sw, "field 'threads': %d threads, but this machine has %d processing units (valid: 1..%d)",
                 sw->threads[i], c->mach->pus, c->mach->pus);
    long v;
    double d;
    int rc = bb_lua_get_int(L, t, "warmup", 0, 1000000, &v, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc > 0) sw->warmup = (int)v;
    rc = bb_lua_get_int(L, t, "reps", 1, 10000000, &v, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc > 0) sw->min_reps = (int)v;
    rc = bb_lua_get_int(L, t, "max_reps", 1, 100000000, &v, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc > 0) sw->max_reps = (int)v;
    if (sw->max_reps < sw->min_reps)
        fail(L, c, sw, "field 'max_reps' (%d) is below 'reps' (%d); valid: max_reps >= reps", sw->max_reps,
             sw->min_reps);
    rc = bb_lua_get_number(L, t, "min_seconds", 0, 3600, &d, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc > 0) sw->min_seconds = d;
    rc = bb_lua_get_number(L, t, "spread_limit", 0, 1000, &d, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc > 0) sw->spread_limit = d;
    rc = bb_lua_get_int(L, t, "seed", 0, 9007199254740991L, &v, err, sizeof err);
    if (rc < 0) fail(L, c, sw, "%s", err);
    if (rc > 0) sw->seed = (uint64_t)v;
    if (bb_lua_get_bool(L, t, "verify", &sw->verify, err, sizeof err) < 0) fail(L, c, sw, "%s", err);
    char s[32] = "skip";
    if (bb_lua_get_string(L, t, "on_unsupported", unsupported_names, 2, s, sizeof s, err, sizeof err) < 0)
        fail(L, c, sw, "%s", err);
    sw->on_unsupported = strcmp(s, "error") == 0 ? BB_UNSUPPORTED_ERROR : BB_UNSUPPORTED_SKIP;
    /* cache: one mode or a list of modes to sweep */
    sw->cache[0] = BB_CACHE_RESIDENT;
    sw->ncache = 1;
    lua_getfield(L, t, "cache");
    if (!lua_isnil(L, -1)) {
        int n = string_list_len(L, c, sw, "cache");
        if (n > 2) fail(L, c, sw, "field 'cache': at most two modes (resident, dram)");
        sw->ncache = 0;
        for (int i = 1; i <= n; i++) {
            const char *mode = string_entry(L, c, sw, "cache", i);
            bb_cache_mode cm;
            if (bb_cache_mode_parse(mode, &cm))
                fail(L, c, sw, "field 'cache': unknown mode '%s'; valid: resident, dram", mode);
            if (sw->ncache && sw->cache[0] == cm) fail(L, c, sw, "field 'cache': '%s' is listed twice", mode);
            sw->cache[sw->ncache++] = cm;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

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
    int len = string_list_len(L, c, NULL, field);
    for (int i = 1; i <= len; i++) {
        const char *name = string_entry(L, c, NULL, field, i);
        check(L, c, field, i, name);
        int dup = 0;
        for (int j = 0; j < *n && !dup; j++) dup = strcmp((*list)[j], name) == 0;
        if (!dup) {
            *list = grow(L, *list, sizeof **list, *n);
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
    fail(L, c, NULL, "field '%s': unknown meter '%s'; valid meters: %s", field, name, valid);
}

/* plots = { "tokens", "threads", ... }: kinds of `bitbench plot`, drawn when the run ends. */
static void check_plot_kind(lua_State *L, load_ctx *c, const char *field, int entry, const char *name)
{
    for (int k = 0; k < BB_PLOT_NKINDS; k++)
        if (!strcmp(name, bb_plot_kinds[k])) return;
    fail(L, c, NULL, "field '%s', entry %d: unknown plot kind '%s'; valid kinds: roofline, threads, gemv_bw, "
                     "tokens, ebw, e2e_threads", field, entry, name);
}

static void read_meters(lua_State *L, load_ctx *c, int t)
{
    bb_experiment *ex = c->ex;
    ex->meters = grow(L, ex->meters, sizeof *ex->meters, 0);
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
        fail(L, c, NULL, "field 'profile' must be true or a table { kernels = {...}, threads = T }, got %s", what);
    }
    if (bb_lua_check_fields(L, p, profile_fields, 2, err, sizeof err)) fail(L, c, NULL, "field 'profile': %s", err);
    long threads = 0;
    if (bb_lua_get_int(L, p, "threads", 1, c->mach->pus, &threads, err, sizeof err) < 0)
        fail(L, c, NULL, "field 'profile': %s", err);
    ex->profile_threads = (int)threads;
    lua_getfield(L, p, "kernels");
    if (!lua_isnil(L, -1)) {
        int n = string_list_len(L, c, NULL, "kernels");
        for (int i = 1; i <= n; i++) {
            const char *name = string_entry(L, c, NULL, "kernels", i);
            if (!bb_kernel_by_name(name)) {
                char msg[1400];
                unknown_kernel(name, msg, sizeof msg);
                fail(L, c, NULL, "field 'profile', kernels entry %d: %s", i, msg);
            }
            size_t used = strlen(ex->profile_kernels);
            if (used + strlen(name) + 2 > sizeof ex->profile_kernels)
                fail(L, c, NULL, "field 'profile': too many kernels");
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

/* Runs under lua_pcall: the experiment table is argument 1. */
static int convert(lua_State *L)
{
    load_ctx *c = lua_touserdata(L, 2);
    bb_experiment *ex = c->ex;
    char err[1024];
    int t = 1;
    if (bb_lua_check_fields(L, t, experiment_fields, (int)(sizeof experiment_fields / sizeof *experiment_fields),
                            err, sizeof err))
        fail(L, c, NULL, "experiment: %s", err);
    /* default name: the file's base name without .lua */
    const char *base = strrchr(ex->file, '/');
    base = base ? base + 1 : ex->file;
    size_t blen = strlen(base);
    if (blen > 4 && strcmp(base + blen - 4, ".lua") == 0) blen -= 4;
    snprintf(ex->name, sizeof ex->name, "%.*s", (int)blen, base);
    if (bb_lua_get_string(L, t, "name", NULL, 0, ex->name, sizeof ex->name, err, sizeof err) < 0)
        fail(L, c, NULL, "experiment: %s", err);
    if (!valid_name(ex->name))
        fail(L, c, NULL, "experiment: name '%s' may only use letters, digits, '-', '_' and '.' (it names the "
                         "results directory)", ex->name);
    if (bb_lua_get_string(L, t, "description", NULL, 0, ex->description, sizeof ex->description, err, sizeof err) < 0)
        fail(L, c, NULL, "experiment: %s", err);
    snprintf(ex->out, sizeof ex->out, "%s", BB_DEFAULT_OUT);
    if (bb_lua_get_string(L, t, "out", NULL, 0, ex->out, sizeof ex->out, err, sizeof err) < 0)
        fail(L, c, NULL, "experiment: %s", err);
    read_meters(L, c, t);
    read_names(L, c, t, "plots", check_plot_kind, &c->ex->plots, &c->ex->nplots);
    read_profile(L, c, t);
    lua_getfield(L, t, "sweeps");
    if (lua_isnil(L, -1)) fail(L, c, NULL, "experiment: missing field 'sweeps' (a list of sweep tables)");
    if (!bb_lua_is_list(L, -1) || lua_rawlen(L, -1) == 0) {
        char what[96];
        bb_lua_describe(L, -1, what, sizeof what);
        fail(L, c, NULL, "experiment: field 'sweeps' must be a non-empty list of sweep tables, got %s", what);
    }
    int n = (int)lua_rawlen(L, -1);
    int list = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, list, i);
        if (!lua_istable(L, -1)) {
            char what[96];
            bb_lua_describe(L, -1, what, sizeof what);
            fail(L, c, NULL, "experiment: sweeps entry %d must be a table, got %s", i, what);
        }
        ex->sweeps = grow(L, ex->sweeps, sizeof *ex->sweeps, ex->nsweeps);
        bb_sweep *sw = &ex->sweeps[ex->nsweeps++];
        memset(sw, 0, sizeof *sw);
        read_sweep(L, c, lua_gettop(L), i, sw);
        for (int j = 0; j < ex->nsweeps - 1; j++)
            if (strcmp(ex->sweeps[j].name, sw->name) == 0)
                fail(L, c, sw, "two sweeps are named '%s'; sweep names must differ (they key the results)",
                     sw->name);
        lua_pop(L, 1);
    }
    return 0;
}

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
    lua_State *L = luaL_newstate();
    if (!L) {
        snprintf(err, errlen, "%s: cannot create a Lua state (out of memory)", file);
        return -1;
    }
    luaL_openlibs(L);
    open_bitbench(L, &c);
    int rc = -1;
    if (luaL_loadfile(L, file) != LUA_OK) {
        /* syntax errors already read "FILE:LINE: message near 'token'"; a missing file does not */
        const char *m = lua_tostring(L, -1);
        snprintf(err, errlen, "%s", m ? m : "cannot load the file");
        goto done;
    }
    if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
        snprintf(err, errlen, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "error in the experiment file");
        goto done;
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, &EXP_KEY);
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
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        snprintf(err, errlen, "%s", c.err[0] ? c.err : lua_tostring(L, -1));
        goto done;
    }
    rc = 0;
done:
    lua_close(L);
    if (rc) bb_experiment_free(ex);
    return rc;
}
