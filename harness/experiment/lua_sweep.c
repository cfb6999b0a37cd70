/* The fields of one sweep table (README.md, "Experiments in Lua", the sweep field tables): a
 * kernel sweep (kernels x shapes x n x threads x cache, timed by the adaptive repetition rule) or a
 * model sweep (models x kernels x threads x prompt x gen, end-to-end).  Each field is checked for
 * type, range and known names; the first problem stops the load through load_fail. */
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/perplexity_job.h"
#include "experiment/lua_load.h"
#include "models/model_config.h"
#include "models/model_load.h"
#include "peers/peer_sweep.h"
#include "results/results_e2e.h"
#include "support/affinity.h"
#include "support/input_file.h"
#include "support/lua_fields.h"
#include "support/sizes.h"

static const char *const sweep_fields[] = {"name",   "kernels",  "shapes",      "n",       "threads",
                                           "warmup", "reps",     "max_reps",    "min_seconds",
                                           "cache",  "on_unsupported", "spread_limit", "seed",
                                           "verify", "peers",  "peer_paths",  "peer_timeout",
                                           "sd_limit", "remeasure", "delay", "cpus", "read", "rounds"};
static const char *const model_sweep_fields[] = {"name",    "models", "kernels",        "out_kernel",
                                                 "threads", "prompt", "gen",            "reps",
                                                 "kv",      "seed",   "on_unsupported", "distinct_layers",
                                                 "compare_logits", "compare_tokens", "perplexity",
                                                 "depth",   "kv_type_k", "kv_type_v",
                                                 "peers",   "peer_paths", "peer_timeout", "delay", "cpus",
                                                 "spread_limit", "sd_limit", "remeasure", "spread_phases", "rounds",
                                                 "interleave"};
static const char *const perplexity_fields[] = {"file", "ctx", "chunks", "model"};
static const char *const kv_names[] = {"f32", "f16", "bf16", "q8_0"};
static const char *const unsupported_names[] = {"skip", "error"};

static void kernel_error(lua_State *L, load_ctx *c, const bb_sweep *sw, int entry, const char *spec, const char *why)
{
    char name[BB_NAME_MAX];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(spec, "@"), spec);
    if (bb_kernel_by_name(name)) load_fail(L, c, sw, "field 'kernels', entry %d: %s", entry, why);
    char msg[1400];
    load_unknown_kernel(name, msg, sizeof msg);
    load_fail(L, c, sw, "field 'kernels', entry %d: %s", entry, msg);
}

static void read_kernels(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    lua_getfield(L, t, "kernels");
    if (lua_isnil(L, -1)) load_fail(L, c, sw, "missing field 'kernels' (a list of kernel names, e.g. {\"i2_s\"})");
    int n = load_string_list_len(L, c, sw, "kernels");
    for (int i = 1; i <= n; i++) {
        const char *spec = load_string_entry(L, c, sw, "kernels", i);
        bb_kernel_choice kc = {0};
        char err[BB_ERR_MAX];
        if (strlen(spec) >= sizeof kc.spec) load_fail(L, c, sw, "field 'kernels', entry %d: name too long", i);
        if (bb_kernel_resolve(spec, &kc.kernel, &kc.variant, err, sizeof err)) kernel_error(L, c, sw, i, spec, err);
        snprintf(kc.spec, sizeof kc.spec, "%s", spec);
        int dup = -1;
        for (int j = 0; j < sw->nkernels && dup < 0; j++)
            if (sw->kernels[j].kernel == kc.kernel && sw->kernels[j].variant == kc.variant) dup = j;
        if (dup >= 0) {
            load_sweep_warning(c, sw, "kernels '%s' and '%s' are the same variant here (%s@%s); measured once",
                               sw->kernels[dup].spec, spec, kc.kernel->name, kc.variant->isa);
        } else {
            sw->kernels = load_grow(L, sw->kernels, sizeof *sw->kernels, sw->nkernels);
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
            load_sweep_warning(c, sw, "shape M=%d K=%d%s%s%s appears twice; measured once%s%s%s", s->m, s->k,
                               s->model[0] ? " (" : "", s->model, s->model[0] ? ")" : "",
                               sw->shapes[j].model[0] ? " as " : "", sw->shapes[j].model,
                               sw->shapes[j].model[0] ? " shape" : "");
            return;
        }
    sw->shapes = load_grow(L, sw->shapes, sizeof *sw->shapes, sw->nshapes);
    sw->shapes[sw->nshapes++] = *s;
}

#define MAX_DIM (1 << 24)

/* A model name (or file) in 'shapes': every distinct projection shape of that model. */
static void add_model_shapes(lua_State *L, load_ctx *c, bb_sweep *sw, int i, const char *name)
{
    bb_model_config cfg;
    char err[2048];
    if (bb_model_config_resolve(name, &cfg, err, sizeof err)) load_fail(L, c, sw, "field 'shapes', entry %d: %s", i, err);
    load_note_model_config(L, c, name);
    bb_model_shape ms[BB_MODEL_MAX_SHAPES];
    int ns = bb_model_shapes(&cfg, ms);
    for (int j = 0; j < ns; j++) {
        bb_shape x = {.m = ms[j].m, .k = ms[j].k};
        snprintf(x.model, sizeof x.model, "%s", cfg.name);
        snprintf(x.roles, sizeof x.roles, "%s", ms[j].roles);
        add_shape(L, c, sw, &x);
    }
}

/* A table in 'shapes' at stack index e: {M, K} or {m = M, k = K}. */
static void add_table_shape(lua_State *L, load_ctx *c, bb_sweep *sw, int i, int e)
{
    long m = 0, k = 0;
    char err[512], what[96];
    if (bb_lua_is_list(L, e) && lua_rawlen(L, e) == 2) {
        lua_rawgeti(L, e, 1);
        lua_rawgeti(L, e, 2);
        if (bb_lua_value_int(L, -2, 1, MAX_DIM, &m) || bb_lua_value_int(L, -1, 1, MAX_DIM, &k)) {
            bb_lua_describe(L, bb_lua_value_int(L, -2, 1, MAX_DIM, &m) ? -2 : -1, what, sizeof what);
            load_fail(L, c, sw, "field 'shapes', entry %d: {M, K} must be integers in 1..%d, got %s", i, MAX_DIM,
                      what);
        }
        lua_pop(L, 2);
    } else {
        static const char *const shape_fields[] = {"m", "k"};
        if (bb_lua_check_fields(L, e, shape_fields, 2, err, sizeof err))
            load_fail(L, c, sw, "field 'shapes', entry %d: %s", i, err);
        if (bb_lua_get_int(L, e, "m", 1, MAX_DIM, &m, err, sizeof err) < 0 ||
            bb_lua_get_int(L, e, "k", 1, MAX_DIM, &k, err, sizeof err) < 0)
            load_fail(L, c, sw, "field 'shapes', entry %d: %s", i, err);
        if (!m || !k) load_fail(L, c, sw, "field 'shapes', entry %d: a shape needs both m and k", i);
    }
    bb_shape s = {.m = (int)m, .k = (int)k};
    add_shape(L, c, sw, &s);
}

static void read_shapes(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    lua_getfield(L, t, "shapes");
    if (lua_isnil(L, -1))
        load_fail(L, c, sw, "missing field 'shapes' (a list of model names, {m=M, k=K} or {M, K} pairs), or "
                            "'models' for a model sweep");
    char what[96];
    if (lua_type(L, -1) == LUA_TSTRING) {
        /* one model name */
    } else if (!bb_lua_is_list(L, -1) || lua_rawlen(L, -1) == 0) {
        bb_lua_describe(L, -1, what, sizeof what);
        load_fail(L, c, sw, "field 'shapes' must be a non-empty list of model names, {m=M, k=K} or {M, K}, got %s",
                  what);
    }
    int n = lua_type(L, -1) == LUA_TSTRING ? 1 : (int)lua_rawlen(L, -1);
    for (int i = 1; i <= n; i++) {
        if (lua_type(L, -1) == LUA_TSTRING) lua_pushvalue(L, -1);
        else lua_rawgeti(L, -1, i);
        int e = lua_gettop(L);
        if (lua_type(L, e) == LUA_TSTRING) {
            add_model_shapes(L, c, sw, i, lua_tostring(L, e));
        } else if (lua_type(L, e) == LUA_TTABLE) {
            add_table_shape(L, c, sw, i, e);
        } else {
            bb_lua_describe(L, e, what, sizeof what);
            load_fail(L, c, sw, "field 'shapes', entry %d: must be a model name, {m=M, k=K} or {M, K}, got %s", i,
                      what);
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
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc == 0) return;
    free(*out);
    *out = v;
    *count = n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (v[i] == v[j]) load_fail(L, c, sw, "field '%s': %d is listed twice", field, v[i]);
}

static void read_models(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    lua_getfield(L, t, "models");
    int n = load_string_list_len(L, c, sw, "models");
    for (int i = 1; i <= n; i++) {
        const char *name = load_string_entry(L, c, sw, "models", i);
        bb_model_config cfg;
        char err[2048];
        /* a model file (.gguf, llama2.c) runs its own weights; for a config name bb_model_load names
         * the valid models and the nearest one for an unknown name */
        if (bb_model_config_resolve(name, &cfg, err, sizeof err))
            load_fail(L, c, sw, "field 'models', entry %d: %s", i, err);
        load_note_model_config(L, c, name);
        for (int j = 0; j < sw->nmodels; j++)
            if (strcmp(sw->models[j].name, cfg.name) == 0)
                load_fail(L, c, sw, "field 'models': '%s' is listed twice", cfg.name);
        sw->models = load_grow(L, sw->models, sizeof *sw->models, sw->nmodels);
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
    char kerr[BB_ERR_MAX];
    if (!bb_kernel_resolve(spec, &k, &v, kerr, sizeof kerr)) return;
    char name[BB_NAME_MAX];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(spec, "@"), spec);
    if (bb_kernel_by_name(name)) load_fail(L, c, sw, "field '%s': %s", field, kerr); /* a known kernel, no such variant */
    char msg[1400];
    load_unknown_kernel(name, msg, sizeof msg);
    load_fail(L, c, sw, "field '%s': %s", field, msg);
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
        load_fail(L, c, sw, "field 'perplexity': must be a table {file = TEXT, ctx = C, chunks = N, "
                            "model = FILE.bin}, got %s", what);
    }
    if (bb_lua_check_fields(L, p, perplexity_fields, 4, err, sizeof err)) load_fail(L, c, sw, "field 'perplexity': %s", err);
    int got = bb_lua_get_string(L, p, "file", NULL, 0, sw->ppl_file, sizeof sw->ppl_file, err, sizeof err);
    if (got <= 0) load_fail(L, c, sw, "field 'perplexity': %s", got < 0 ? err : "'file' (the text) is required");
    long v;
    int rc = bb_lua_get_int(L, p, "ctx", 4, 1 << 20, &v, err, sizeof err);
    if (rc <= 0) load_fail(L, c, sw, "field 'perplexity': %s", rc < 0 ? err : "'ctx' (tokens per chunk, >= 4) is required");
    sw->ppl_ctx = (int)v;
    rc = bb_lua_get_int(L, p, "chunks", 0, 1 << 30, &v, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "field 'perplexity': %s", err);
    sw->ppl_chunks = rc > 0 ? (int)v : 0;
    if (bb_lua_get_string(L, p, "model", NULL, 0, sw->ppl_model, sizeof sw->ppl_model, err, sizeof err) < 0)
        load_fail(L, c, sw, "field 'perplexity': %s", err);
    const char *files[2] = {sw->ppl_file, sw->ppl_model};
    for (int i = 0; i < 2; i++) {
        /* opened through input_file.h: a FIFO or a device is refused here rather than blocking the
         * run, and a text past the bound before the sweep starts */
        FILE *f = files[i][0] ? bb_input_open(files[i], i ? "model" : "perplexity text",
                                              i ? BB_INPUT_ANY_SIZE : BB_PPL_DEFAULT_MAX_TEXT_BYTES, NULL, err,
                                              sizeof err)
                              : NULL;
        if (files[i][0] && !f) load_fail(L, c, sw, "field 'perplexity', %s: %s", i ? "model" : "file", err);
        if (f) fclose(f);
    }
    lua_pop(L, 1);
}

/* A one-value list holding the field's default, replaced by read_ints when the field is given. */
static void int_list_default(lua_State *L, int **v, int *n, int value)
{
    *v = malloc(sizeof **v);
    if (!*v) luaL_error(L, "out of memory");
    (*v)[0] = value;
    *n = 1;
}

/* cpus: the CPUs of the threads, in order (no default: the pool's placement); then threads:
 * default one per CPU of cpus, else the physical cores this process may use.  Both are checked
 * against the affinity mask when the run is planned (plan.c), after --threads and --cpus. */
static void read_threads(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    read_ints(L, c, t, sw, "cpus", 0, BB_AFFINITY_MAX_CPU, &sw->cpus, &sw->ncpus);
    int_list_default(L, &sw->threads, &sw->nthreads,
                     sw->ncpus ? sw->ncpus : c->mach->allowed_cores > 0 ? c->mach->allowed_cores : 1);
    int *given = sw->threads;
    read_ints(L, c, t, sw, "threads", 1, 1 << 16, &sw->threads, &sw->nthreads);
    sw->threads_default = sw->threads == given;
}

static void read_seed(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    long v;
    int rc = bb_lua_get_int(L, t, "seed", 0, 9007199254740991L, &v, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0) sw->seed = (uint64_t)v;
}

static void read_on_unsupported(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024], s[32] = "skip";
    if (bb_lua_get_string(L, t, "on_unsupported", unsupported_names, 2, s, sizeof s, err, sizeof err) < 0)
        load_fail(L, c, sw, "%s", err);
    sw->on_unsupported = strcmp(s, "error") == 0 ? BB_UNSUPPORTED_ERROR : BB_UNSUPPORTED_SKIP;
}

/* out_kernel and compare_logits: one kernel each.  out_kernel absent ("") leaves the classifier to
 * the rule every command follows (models/kernel_choice.h): a model file's as stored, a config's f16. */
static void read_model_kernels(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    sw->out_kernel[0] = 0;
    int got_out = bb_lua_get_string(L, t, "out_kernel", NULL, 0, sw->out_kernel, sizeof sw->out_kernel, err, sizeof err);
    if (got_out < 0) load_fail(L, c, sw, "%s", err);
    if (got_out > 0) check_single_kernel(L, c, sw, "out_kernel", sw->out_kernel);
    int got = bb_lua_get_string(L, t, "compare_logits", NULL, 0, sw->compare_logits, sizeof sw->compare_logits, err,
                                sizeof err);
    if (got < 0) load_fail(L, c, sw, "%s", err);
    if (got > 0) check_single_kernel(L, c, sw, "compare_logits", sw->compare_logits);
}

/* prompt and gen token counts (defaults 16 and 8); no point may measure nothing. */
static void read_lengths(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    int_list_default(L, &sw->prompt, &sw->nprompt, 16);
    int_list_default(L, &sw->gen, &sw->ngen, 8);
    read_ints(L, c, t, sw, "prompt", 0, 1 << 16, &sw->prompt, &sw->nprompt);
    read_ints(L, c, t, sw, "gen", 0, 1 << 16, &sw->gen, &sw->ngen);
    /* depth: a list like llama-bench's -d (default {0}) */
    int_list_default(L, &sw->depth, &sw->ndepth, 0);
    read_ints(L, c, t, sw, "depth", 0, 1 << 20, &sw->depth, &sw->ndepth);
    for (int i = 0; i < sw->nprompt; i++)
        for (int j = 0; j < sw->ngen; j++)
            if (sw->prompt[i] == 0 && sw->gen[j] == 0)
                load_fail(L, c, sw, "fields 'prompt' and 'gen' are both 0 in one point: nothing to measure (valid: "
                                    "prompt >= 0, gen >= 0, not both 0)");
}

/* delay: seconds of cool-down before each point of the sweep (llama-bench's --delay). */
static void read_delay(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    double d;
    int rc = bb_lua_get_number(L, t, "delay", 0, 3600, &d, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0) sw->delay = d;
}

/* spread_limit, sd_limit, remeasure: when a point's repetitions disagree too much (noise.h) and
 * how often it is measured again; kernel and model sweeps alike, with the same defaults. */
static void read_noise_limits(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    long v;
    double d;
    sw->spread_limit = BB_DEFAULT_SPREAD_LIMIT;
    sw->sd_limit = BB_DEFAULT_SD_LIMIT;
    sw->remeasure = BB_DEFAULT_REMEASURE;
    int rc = bb_lua_get_number(L, t, "spread_limit", 0, 1000, &d, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0) sw->spread_limit = d;
    rc = bb_lua_get_number(L, t, "sd_limit", 0, 1000, &d, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0) sw->sd_limit = d;
    rc = bb_lua_get_int(L, t, "remeasure", 0, 100, &v, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0) sw->remeasure = (int)v;
}

/* spread_phases (model sweeps): "pp+tg" (default), "tg" or "pp": whose repetitions' spread makes a
 * point be measured again and flagged.  A decode experiment's prefill of a few tokens takes
 * milliseconds and is the noisiest phase; "tg" judges it by its decode alone (the row still
 * records both spreads). */
static void read_spread_phases(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    static const char *const names[] = {"pp+tg", "tg", "pp"};
    static const unsigned masks[] = {BB_PHASES_BOTH, BB_PHASE_TG, BB_PHASE_PP};
    char err[1024], s[16];
    sw->spread_phases = BB_PHASES_BOTH;
    int rc = bb_lua_get_string(L, t, "spread_phases", names, 3, s, sizeof s, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0)
        for (int i = 0; i < 3; i++)
            if (!strcmp(s, names[i])) sw->spread_phases = masks[i];
}

/* reps (fixed: end-to-end points repeat a set number of times), distinct_layers, compare_tokens. */
static void read_model_counts(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    long v;
    int rc = bb_lua_get_int(L, t, "reps", 1, 1000000, &v, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0) sw->min_reps = (int)v;
    sw->max_reps = sw->min_reps;
    rc = bb_lua_get_int(L, t, "distinct_layers", 0, 1 << 16, &v, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0) sw->distinct_layers = (int)v;
    /* at most 1024: the logits of every compared position are held, twice (point and reference) */
    rc = bb_lua_get_int(L, t, "compare_tokens", 1, 1024, &v, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0 && !sw->compare_logits[0])
        load_fail(L, c, sw, "field 'compare_tokens' is set but 'compare_logits' is not (the reference kernel whose "
                            "logits the points are compared with, e.g. compare_logits = \"f32\")");
    if (rc > 0) sw->compare_tokens = (int)v;
    read_noise_limits(L, c, t, sw);
    read_spread_phases(L, c, t, sw);
    read_delay(L, c, t, sw);
}

/* rounds (kernel and model sweeps), read after the peers: a model sweep's peer points run in every
 * round (sweep_model.c), a kernel sweep's once, beside its bitbench point, so there rounds would
 * compare R of bitbench's measurements with one of the peer's. */
static void read_rounds(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    long v;
    sw->rounds = 1;
    int rc = bb_lua_get_int(L, t, "rounds", 1, BB_SWEEP_MAX_ROUNDS, &v, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0) sw->rounds = (int)v;
    if (sw->rounds > 1 && sw->npeers && !sw->is_model)
        load_fail(L, c, sw, "field 'rounds' = %d with 'peers': a peer point is measured once, beside its bitbench "
                            "point, so a kernel sweep with peers has one round (leave 'rounds' out, or the peers)",
                  sw->rounds);
}

/* interleave (model sweeps), read after the peers and kernels: a peer point runs beside its own
 * bitbench point, not in a group; the kernels' names must fit the row's interleaved column. */
static void read_interleave(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    bool on = false;
    int rc = bb_lua_get_bool(L, t, "interleave", &on, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    sw->interleave = rc > 0 && on;
    if (!sw->interleave) return;
    if (sw->npeers)
        load_fail(L, c, sw, "field 'interleave' with 'peers': a peer point is measured alone, just before its "
                            "bitbench point, so a sweep with peers does not interleave (leave out 'interleave', or the "
                            "peers)");
    size_t len = 0;
    for (int k = 0; k < sw->nkernels; k++) len += strlen(sw->kernels[k].spec) + 1;
    if (len > BB_INTERLEAVED_MAX)
        load_fail(L, c, sw, "field 'interleave': the %d kernels' names take %zu bytes, more than the %d the "
                            "interleaved column holds (interleave fewer kernels per sweep)",
                  sw->nkernels, len, BB_INTERLEAVED_MAX - 1);
}

/* kv (keys and values), kv_type_k, kv_type_v: the KV cache types (llama.cpp's -ctk, -ctv), f32 by
 * default; the two specific fields override kv. */
static void read_kv_types(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    static const char *const fields[] = {"kv", "kv_type_k", "kv_type_v"};
    bb_kv_type *into[][2] = {{&sw->kv_k, &sw->kv_v}, {&sw->kv_k, NULL}, {&sw->kv_v, NULL}};
    char err[1024];
    for (int f = 0; f < 3; f++) {
        char s[32] = "";
        int rc = bb_lua_get_string(L, t, fields[f], kv_names, 4, s, sizeof s, err, sizeof err);
        if (rc < 0) load_fail(L, c, sw, "%s", err);
        if (rc == 0) continue;
        bb_kv_type k;
        if (bb_kv_type_parse(s, &k, err, sizeof err)) load_fail(L, c, sw, "field '%s': %s", fields[f], err);
        for (int i = 0; i < 2; i++)
            if (into[f][i]) *into[f][i] = k;
    }
}

/* A model sweep's reps, seed and delay are one value each (a point is one generation, repeated
 * reps times, from one seed), while a kernel sweep's are lists (read_scalar_list).  A list here
 * is refused by name rather than as "must be an integer, got a table", which does not say what
 * to write instead. */
static void refuse_model_lists(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    static const char *const single[] = {"reps", "seed", "delay"};
    for (size_t i = 0; i < sizeof single / sizeof *single; i++) {
        lua_pushstring(L, single[i]);
        int type = lua_rawget(L, t);
        lua_pop(L, 1);
        if (type == LUA_TTABLE)
            load_fail(L, c, sw, "field '%s' of a model sweep is one value, got a list (lists are for kernel sweeps; "
                                "write one model sweep per value)", single[i]);
    }
}

/* The fields of a model sweep (sw->name and sw->line are set). */
static void read_model_sweep(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    sw->is_model = true;
    if (bb_lua_check_fields(L, t, model_sweep_fields, (int)(sizeof model_sweep_fields / sizeof *model_sweep_fields),
                            err, sizeof err))
        load_fail(L, c, sw, "%s (a sweep with 'models' is a model sweep)", err);
    t = lua_absindex(L, t);
    refuse_model_lists(L, c, t, sw);
    sw->min_reps = BB_DEFAULT_E2E_REPS;
    sw->seed = BB_DEFAULT_SEED;
    sw->distinct_layers = BB_DEFAULT_DISTINCT_LAYERS;
    sw->compare_tokens = BB_DEFAULT_COMPARE_TOKENS;
    read_models(L, c, t, sw);
    read_kernels(L, c, t, sw);
    read_model_kernels(L, c, t, sw);
    read_threads(L, c, t, sw);
    read_lengths(L, c, t, sw);
    read_model_counts(L, c, t, sw);
    read_perplexity(L, c, t, sw);
    read_kv_types(L, c, t, sw);
    if (bb_peer_read_fields(L, t, sw, err, sizeof err)) load_fail(L, c, sw, "%s", err);
    read_rounds(L, c, t, sw);
    read_interleave(L, c, t, sw);
    read_seed(L, c, t, sw);
    read_on_unsupported(L, c, t, sw);
}

/* A kernel sweep's scalar setting: a number or a non-empty list of distinct numbers in [lo, hi]
 * (integers when integral), into out[0..*n); absent: *n unchanged.  llama-bench takes every
 * parameter as a list; so does a sweep (experiment.h). */
static void read_scalar_list(lua_State *L, load_ctx *c, int t, bb_sweep *sw, const char *field, double lo, double hi,
                             bool integral, double *out, int *n)
{
    char what[96], range[64];
    /* integers as integers ("0..1000000"), numbers as %g */
    if (integral) snprintf(range, sizeof range, "%.0f..%.0f", lo, hi);
    else snprintf(range, sizeof range, "%g..%g", lo, hi);
    lua_getfield(L, t, field);
    int e = lua_gettop(L);
    if (lua_isnil(L, e)) {
        lua_pop(L, 1);
        return;
    }
    bool list = lua_type(L, e) == LUA_TTABLE;
    int count = list ? (int)lua_rawlen(L, e) : 1;
    const char *kind = integral ? "an integer" : "a number";
    if (list && (!bb_lua_is_list(L, e) || count == 0)) {
        bb_lua_describe(L, e, what, sizeof what);
        load_fail(L, c, sw, "field '%s' must be %s in %s or a non-empty list of them, got %s", field, kind, range,
                  what);
    }
    if (count > BB_SWEEP_MAX_LIST)
        load_fail(L, c, sw, "field '%s': %d entries, at most %d", field, count, BB_SWEEP_MAX_LIST);
    for (int i = 0; i < count; i++) {
        if (list) lua_rawgeti(L, e, i + 1);
        else lua_pushvalue(L, e);
        double v = lua_tonumber(L, -1);
        if (lua_type(L, -1) != LUA_TNUMBER || !(v >= lo && v <= hi) || (integral && v != (double)(long long)v)) {
            bb_lua_describe(L, -1, what, sizeof what);
            if (list) load_fail(L, c, sw, "field '%s', entry %d: must be %s in %s, got %s", field, i + 1, kind, range,
                                what);
            load_fail(L, c, sw, "field '%s' must be %s in %s or a list of them, got %s", field, kind, range, what);
        }
        for (int j = 0; j < i; j++)
            if (out[j] == v) load_fail(L, c, sw, "field '%s': %g is listed twice", field, v);
        out[i] = v;
        lua_pop(L, 1);
    }
    *n = count;
    lua_pop(L, 1);
}

/* A kernel sweep's repetition rule: warmup, reps .. max_reps, min_seconds (each a value or a list),
 * spread_limit, sd_limit, remeasure, delay (a value or a list), seed (a value or a list). */
static void read_timing(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    long v;
    double d[BB_SWEEP_MAX_LIST];
    int n = 0;
    read_scalar_list(L, c, t, sw, "warmup", 0, 1000000, true, d, &n);
    sw->nwarmups = n ? n : 1;
    for (int i = 0; i < sw->nwarmups; i++) sw->warmups[i] = n ? (int)d[i] : sw->warmup;
    sw->warmup = sw->warmups[0];
    n = 0;
    read_scalar_list(L, c, t, sw, "reps", 1, 10000000, true, d, &n);
    sw->nreps_list = n ? n : 1;
    int most = 0;
    for (int i = 0; i < sw->nreps_list; i++) {
        sw->reps_list[i] = n ? (int)d[i] : sw->min_reps;
        if (sw->reps_list[i] > most) most = sw->reps_list[i];
    }
    sw->min_reps = sw->reps_list[0];
    int rc = bb_lua_get_int(L, t, "max_reps", 1, 100000000, &v, err, sizeof err);
    if (rc < 0) load_fail(L, c, sw, "%s", err);
    if (rc > 0) sw->max_reps = (int)v;
    if (sw->max_reps < most)
        load_fail(L, c, sw, "field 'max_reps' (%d) is below 'reps' (%d); valid: max_reps >= reps", sw->max_reps, most);
    n = 0;
    read_scalar_list(L, c, t, sw, "min_seconds", 0, 3600, false, d, &n);
    sw->nmin_seconds_list = n ? n : 1;
    for (int i = 0; i < sw->nmin_seconds_list; i++) sw->min_seconds_list[i] = n ? d[i] : sw->min_seconds;
    sw->min_seconds = sw->min_seconds_list[0];
    read_noise_limits(L, c, t, sw);
    n = 0;
    read_scalar_list(L, c, t, sw, "delay", 0, 3600, false, d, &n);
    sw->ndelays = n ? n : 1;
    for (int i = 0; i < sw->ndelays; i++) sw->delays[i] = n ? d[i] : sw->delay;
    sw->delay = sw->delays[0];
    n = 0;
    read_scalar_list(L, c, t, sw, "seed", 0, 9007199254740991.0, true, d, &n);
    sw->nseeds = n ? n : 1;
    for (int i = 0; i < sw->nseeds; i++) sw->seeds[i] = n ? (uint64_t)d[i] : sw->seed;
    sw->seed = sw->seeds[0];
}

/* cache: one mode or a list of modes to sweep (default resident): bench/cache_sizing.h. */
static void read_cache(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    sw->cache[0] = BB_CACHE_RESIDENT;
    sw->ncache = 1;
    lua_getfield(L, t, "cache");
    if (!lua_isnil(L, -1)) {
        int n = load_string_list_len(L, c, sw, "cache");
        if (n > BB_CACHE_NMODES)
            load_fail(L, c, sw, "field 'cache': at most %d modes (" BB_CACHE_MODE_NAMES ")", BB_CACHE_NMODES);
        sw->ncache = 0;
        for (int i = 1; i <= n; i++) {
            const char *mode = load_string_entry(L, c, sw, "cache", i);
            bb_cache_mode cm;
            if (bb_cache_mode_parse(mode, &cm))
                load_fail(L, c, sw, "field 'cache': unknown mode '%s'; valid: " BB_CACHE_MODE_NAMES, mode);
            for (int j = 0; j < sw->ncache; j++)
                if (sw->cache[j] == cm) load_fail(L, c, sw, "field 'cache': '%s' is listed twice", mode);
            sw->cache[sw->ncache++] = cm;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* The fields of a kernel sweep (sw->name and sw->line are set). */
static void read_kernel_sweep(lua_State *L, load_ctx *c, int t, bb_sweep *sw)
{
    char err[1024];
    if (bb_lua_check_fields(L, t, sweep_fields, (int)(sizeof sweep_fields / sizeof *sweep_fields), err, sizeof err))
        load_fail(L, c, sw, "%s", err);
    sw->warmup = BB_DEFAULT_WARMUP;
    sw->min_reps = BB_DEFAULT_MIN_REPS;
    sw->max_reps = BB_DEFAULT_MAX_REPS;
    sw->min_seconds = BB_DEFAULT_MIN_SECONDS;
    sw->seed = BB_DEFAULT_SEED;
    read_kernels(L, c, t, sw);
    read_shapes(L, c, t, sw);
    int_list_default(L, &sw->n, &sw->nn, 1);
    read_ints(L, c, t, sw, "n", 1, 1 << 16, &sw->n, &sw->nn);
    read_threads(L, c, t, sw);
    read_timing(L, c, t, sw);
    if (bb_lua_get_bool(L, t, "verify", &sw->verify, err, sizeof err) < 0) load_fail(L, c, sw, "%s", err);
    if (bb_lua_get_bool(L, t, "read", &sw->read, err, sizeof err) < 0) load_fail(L, c, sw, "%s", err);
    read_on_unsupported(L, c, t, sw);
    read_cache(L, c, t, sw);
    if (bb_peer_read_kernel_fields(L, t, sw, err, sizeof err)) load_fail(L, c, sw, "%s", err);
    read_rounds(L, c, t, sw);
}

void load_read_sweep(lua_State *L, load_ctx *c, int t, int index, bb_sweep *sw)
{
    char err[1024];
    /* the line first, so that every message can say where */
    sw->line = load_sweep_line(L, t);
    snprintf(sw->name, sizeof sw->name, "sweep%d", index);
    if (bb_lua_get_string(L, t, "name", NULL, 0, sw->name, sizeof sw->name, err, sizeof err) < 0)
        load_fail(L, c, sw, "%s", err);
    for (int i = 0; sw->name[i]; i++)
        if (sw->name[i] == ',' || sw->name[i] == '"' || sw->name[i] == '\n' || sw->name[i] == '|')
            load_fail(L, c, sw, "field 'name': a sweep name may not contain ',', '\"', '|' or a newline");
    lua_getfield(L, t, "models");
    bool is_model = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!is_model) {
        read_kernel_sweep(L, c, t, sw);
        return;
    }
    lua_getfield(L, t, "shapes");
    if (!lua_isnil(L, -1))
        load_fail(L, c, sw, "has both 'models' (a model sweep) and 'shapes' (a kernel sweep); use one of them");
    lua_pop(L, 1);
    read_model_sweep(L, c, t, sw);
}
