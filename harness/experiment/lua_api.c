/* The `bitbench` table an experiment file sees (documented in README.md, section "Experiments in
 * Lua"):
 *   experiment{...}   declare the experiment (once); returns its table
 *   sweep{...}        mark a table as a sweep, remembering its line; returns the table (a sweep
 *                     with `models` instead of `shapes` is a model sweep: end-to-end points)
 *   kernels([family]) names of the registered kernels (of one family)
 *   kernel(spec)      a kernel's description (the fields of `bitbench describe --json`), or nil and a
 *                     reason when it is not usable here
 *   usable{spec, ...} the specs kernel() would accept here, in their order
 *   models()          names of the model configs in models/
 *   peer_available(name)  true, or false and why: a peer's program is found (harness/peers/peer.h)
 *   model(name)       a model's config, with .shapes (its distinct projection shapes)
 *   machine           this machine: cpu_model, cores, pus, numa_nodes, l1d, l2, l3, mem_total
 *   size              the size the run asked for (--smoke, --full: "smoke", "default", "full")
 *   range(a, b[, s])  {a, a+s, ..., b}
 *   compare(a, b[, threshold])  two runs point by point with 95 % intervals (compare.h, lua_compare.c)
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "archive/compare.h"
#include "experiment/lua_load.h"
#include "kernels/kernel_about.h"
#include "models/model_config.h"
#include "models/model_load.h"
#include "peers/peer_sweep.h"
#include "support/sizes.h"
#include "support/suggest.h"

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

static void push_pair(lua_State *L, const char *key, double iops, double fops)
{
    lua_createtable(L, 0, 2);
    lua_pushnumber(L, iops), lua_setfield(L, -2, "int");
    lua_pushnumber(L, fops), lua_setfield(L, -2, "float");
    lua_setfield(L, -2, key);
}

/* The fields of `bitbench describe --json` beyond those above (harness/cli/cmd_describe.c writes
 * the same from the same functions of kernels/kernel_about.h), into the table on top; v the
 * variant resolved, asked: named in the spec (KERNEL@ISA) rather than picked by dispatch. */
static void push_about(lua_State *L, const bb_kernel *k, const bb_variant *v, bool asked)
{
    const bb_kernel_about *a = &k->about;
    bb_kernel_figures fig;
    bb_kernel_figures_at(k, BB_ABOUT_M, BB_ABOUT_K, &fig);
    lua_pushstring(L, bb_weight_kind_name(k->weights)), lua_setfield(L, -2, "weights");
    lua_pushstring(L, a->layout_text), lua_setfield(L, -2, "layout");
    lua_pushinteger(L, a->block_weights), lua_setfield(L, -2, "block_weights");
    lua_pushinteger(L, a->block_bytes), lua_setfield(L, -2, "block_bytes");
    lua_pushstring(L, a->outside_blocks), lua_setfield(L, -2, "outside_blocks");
    lua_pushstring(L, bb_act_format_name(k->act)), lua_setfield(L, -2, "act_format");
    lua_pushstring(L, a->activation), lua_setfield(L, -2, "activation");
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, BB_ABOUT_M), lua_setfield(L, -2, "at_m");
    lua_pushinteger(L, BB_ABOUT_K), lua_setfield(L, -2, "at_k");
    lua_pushnumber(L, fig.weight_bytes), lua_setfield(L, -2, "weights");
    lua_pushnumber(L, fig.bytes_n1), lua_setfield(L, -2, "n1");
    lua_pushnumber(L, fig.bytes_per_column), lua_setfield(L, -2, "per_extra_column");
    lua_pushnumber(L, fig.touched_per_column), lua_setfield(L, -2, "touched_per_column");
    lua_setfield(L, -2, "bytes_per_weight");
    lua_createtable(L, 0, 7);
    lua_pushstring(L, bb_ops_counted), lua_setfield(L, -2, "counted");
    lua_pushinteger(L, BB_ABOUT_M), lua_setfield(L, -2, "at_m");
    push_pair(L, "n1", fig.int_ops_n1, fig.float_ops_n1);
    push_pair(L, "per_extra_column", fig.int_ops_per_column, fig.float_ops_per_column);
    push_pair(L, "without_column_cost", a->int_ops, a->float_ops);
    push_pair(L, "column_cost_per_k", a->column_int_ops_per_k, a->column_float_ops_per_k);
    lua_pushstring(L, a->column_cost), lua_setfield(L, -2, "column_cost");
    lua_setfield(L, -2, "ops_per_weight");
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, k->k_multiple), lua_setfield(L, -2, "k_multiple");
    lua_pushinteger(L, k->m_multiple), lua_setfield(L, -2, "m_multiple");
    lua_pushstring(L, a->shape_rules), lua_setfield(L, -2, "shape_rules");
    lua_setfield(L, -2, "constraints");
    lua_pushboolean(L, k->float_accumulation), lua_setfield(L, -2, "float_accumulation");
    lua_pushstring(L, a->error), lua_setfield(L, -2, "error");
    lua_pushstring(L, bb_act_format_bound(k->act)), lua_setfield(L, -2, "error_bound");
    lua_createtable(L, bb_variant_count(k), 0);
    for (int i = 0; i < bb_variant_count(k); i++) {
        const bb_variant *vi = &k->variants[i];
        char req[256], why[1024];
        bb_cpu_feature_string(vi->requires, req, sizeof req);
        bb_variant_why(vi, why, sizeof why);
        lua_createtable(L, 0, 6);
        lua_pushstring(L, vi->isa), lua_setfield(L, -2, "isa");
        lua_pushstring(L, req), lua_setfield(L, -2, "requires");
        lua_pushboolean(L, bb_variant_usable(vi)), lua_setfield(L, -2, "usable");
        lua_pushstring(L, why), lua_setfield(L, -2, "why");
        if (vi->small_n_isa) {
            lua_pushstring(L, vi->small_n_isa), lua_setfield(L, -2, "small_n_isa");
            lua_pushinteger(L, vi->min_n), lua_setfield(L, -2, "min_n");
        }
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "all_variants");
    char why[2048];
    bb_variant_choice_why(k, v, why, sizeof why);
    lua_pushstring(L, asked ? "asked for by name (KERNEL@ISA)" : why);
    lua_setfield(L, -2, "variant_why");
    const char *mask = getenv("BITBENCH_CPU_MASK");
    if (mask && *mask) lua_pushstring(L, mask), lua_setfield(L, -2, "cpu_mask");
}

static int l_kernel(lua_State *L)
{
    const char *spec = luaL_checkstring(L, 1);
    const bb_kernel *k;
    const bb_variant *v;
    char err[BB_ERR_MAX];
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
    push_about(L, k, v, strchr(spec, '@') != NULL);
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
        char err[BB_ERR_MAX];
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

void load_open_bitbench(lua_State *L, load_ctx *c)
{
    static const luaL_Reg fns[] = {{"experiment", l_experiment}, {"sweep", l_sweep},   {"kernels", l_kernels},
                                   {"kernel", l_kernel},         {"usable", l_usable}, {"models", l_models},
                                   {"model", l_model},           {"peer_available", bb_lua_peer_available},
                                   {"range", l_range},           {"compare", bb_lua_compare},
                                   {NULL, NULL}};
    lua_newtable(L);
    lua_pushlightuserdata(L, c);
    luaL_setfuncs(L, fns, 1);
    push_machine(L, c->mach);
    lua_setfield(L, -2, "machine");
    lua_pushstring(L, c->size);
    lua_setfield(L, -2, "size");
    /* the file and its folder, so a file can name data beside it without the debug library */
    lua_pushstring(L, c->file);
    lua_setfield(L, -2, "file");
    const char *slash = strrchr(c->file, '/');
    if (slash) lua_pushlstring(L, c->file, (size_t)(slash - c->file) + (slash == c->file));
    else lua_pushliteral(L, ".");
    lua_setfield(L, -2, "dir");
    lua_setglobal(L, "bitbench");
    /* sweep -> line, weak keys so it never keeps a table alive */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushstring(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &LINES_KEY);
}

void load_push_declared(lua_State *L) { lua_rawgetp(L, LUA_REGISTRYINDEX, &EXP_KEY); }

int load_sweep_line(lua_State *L, int t)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &LINES_KEY);
    lua_pushvalue(L, t);
    lua_rawget(L, -2);
    int line = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
    lua_pop(L, 2);
    return line;
}
