#include "model_config.h"

#include <dirent.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/lua_fields.h"
#include "support/lua_file.h"
#include "support/lua_sandbox.h"
#include "support/suggest.h"

#ifndef BB_SOURCE_DIR
#define BB_SOURCE_DIR "."
#endif

static const char *const style_names[] = {"llama", "bitnet"};
static const char *const act_names[] = {"silu", "relu2"};

const char *bb_model_style_name(bb_model_style s) { return style_names[s == BB_MODEL_BITNET]; }
const char *bb_model_ffn_act_name(bb_model_ffn_act a) { return act_names[a == BB_MODEL_FFN_RELU2]; }

const char *bb_model_dir(void)
{
    const char *env = getenv("BITBENCH_MODELS");
    return env && *env ? env : BB_SOURCE_DIR "/models";
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int bb_model_names(char ***names)
{
    *names = NULL;
    DIR *d = opendir(bb_model_dir());
    if (!d) return 0;
    int count = 0, cap = 0;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".lua") != 0 || e->d_name[0] == '.') continue;
        if (count == cap) {
            cap = cap ? 2 * cap : 32;
            char **nv = realloc(v, sizeof *v * (size_t)cap);
            if (!nv) break;
            v = nv;
        }
        v[count] = strndup(e->d_name, len - 4);
        if (v[count]) count++;
    }
    closedir(d);
    if (count) qsort(v, (size_t)count, sizeof *v, cmp_str);
    *names = v;
    return count;
}

void bb_model_names_free(char **names, int count)
{
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
}

int bb_model_check(const bb_model_config *c, char *err, size_t errlen)
{
    if (c->dim <= 0 || c->ffn_dim <= 0 || c->n_layers <= 0 || c->n_heads <= 0 || c->n_kv_heads <= 0 ||
        c->head_dim <= 0 || c->vocab_size <= 0) {
        snprintf(err, errlen, "model %s: every dimension must be positive", c->name);
        return -1;
    }
    if (c->n_heads % c->n_kv_heads) {
        snprintf(err, errlen, "model %s: n_heads (%d) must be a multiple of n_kv_heads (%d)", c->name, c->n_heads,
                 c->n_kv_heads);
        return -1;
    }
    if (c->head_dim % 2) {
        snprintf(err, errlen, "model %s: head_dim (%d) must be even (RoPE rotates pairs)", c->name, c->head_dim);
        return -1;
    }
    return 0;
}

static const char *const config_fields[] = {"name", "style", "dim", "ffn_dim", "n_layers", "n_heads",
                                            "n_kv_heads", "head_dim", "vocab_size", "ffn_act",
                                            "tied_embedding", "source"};

/* Read the config table on top of the stack; err gets "field ...: ..." messages. */
static int read_config(lua_State *L, bb_model_config *c, char *err, size_t errlen)
{
    int t = lua_gettop(L);
    if (bb_lua_check_fields(L, t, config_fields, (int)(sizeof config_fields / sizeof *config_fields), err, errlen))
        return -1;
    static const struct { const char *field; size_t off; } dims[] = {
        {"dim", offsetof(bb_model_config, dim)},
        {"ffn_dim", offsetof(bb_model_config, ffn_dim)},
        {"n_layers", offsetof(bb_model_config, n_layers)},
        {"n_heads", offsetof(bb_model_config, n_heads)},
        {"n_kv_heads", offsetof(bb_model_config, n_kv_heads)},
        {"vocab_size", offsetof(bb_model_config, vocab_size)},
    };
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        long v;
        int rc = bb_lua_get_int(L, t, dims[i].field, 1, 1 << 24, &v, err, errlen);
        if (rc < 0) return -1;
        if (rc == 0) {
            snprintf(err, errlen, "missing field '%s' (a positive integer)", dims[i].field);
            return -1;
        }
        *(int *)((char *)c + dims[i].off) = (int)v;
    }
    long hd = 0;
    if (bb_lua_get_int(L, t, "head_dim", 1, 1 << 16, &hd, err, errlen) < 0) return -1;
    if (hd == 0) {
        if (c->dim % c->n_heads) {
            snprintf(err, errlen, "dim (%d) is not a multiple of n_heads (%d): give head_dim", c->dim, c->n_heads);
            return -1;
        }
        hd = c->dim / c->n_heads;
    }
    c->head_dim = (int)hd;
    char s[32];
    int rc = bb_lua_get_string(L, t, "style", style_names, 2, s, sizeof s, err, errlen);
    if (rc < 0) return -1;
    if (rc == 0) {
        snprintf(err, errlen, "missing field 'style' (valid: llama, bitnet)");
        return -1;
    }
    c->style = strcmp(s, "bitnet") == 0 ? BB_MODEL_BITNET : BB_MODEL_LLAMA;
    strcpy(s, "silu");
    if (bb_lua_get_string(L, t, "ffn_act", act_names, 2, s, sizeof s, err, errlen) < 0) return -1;
    c->ffn_act = strcmp(s, "relu2") == 0 ? BB_MODEL_FFN_RELU2 : BB_MODEL_FFN_SILU;
    c->tied_embedding = false;
    if (bb_lua_get_bool(L, t, "tied_embedding", &c->tied_embedding, err, errlen) < 0) return -1;
    rc = bb_lua_get_string(L, t, "source", NULL, 0, c->source, sizeof c->source, err, errlen);
    if (rc < 0) return -1;
    if (rc == 0) {
        snprintf(err, errlen, "missing field 'source' (where the numbers come from)");
        return -1;
    }
    char name[sizeof c->name];
    rc = bb_lua_get_string(L, t, "name", NULL, 0, name, sizeof name, err, errlen);
    if (rc < 0) return -1;
    if (rc == 0) {
        snprintf(err, errlen, "missing field 'name'");
        return -1;
    }
    if (c->name[0] && strcmp(name, c->name) != 0) {
        snprintf(err, errlen, "field 'name' is '%s' but the file is %s.lua; they must agree", name, c->name);
        return -1;
    }
    snprintf(c->name, sizeof c->name, "%s", name);
    return 0;
}

/* A model config is a table of a dozen numbers; a mebibyte is thousands of times any real one. */
#define BB_MODEL_CONFIG_MAX_BYTES ((uint64_t)1 << 20)

static int load_path(const char *path, const char *expect_name, bb_model_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    if (expect_name) snprintf(cfg->name, sizeof cfg->name, "%s", expect_name);
    /* Configs are data: an experiment's environment without io, bounded the same (lua_sandbox.h). */
    lua_State *L = bb_lua_sandbox_new(path, 0, err, errlen);
    if (!L) return -1;
    int rc = -1;
    /* Text only: Lua does not verify a precompiled (binary) chunk, and a damaged one crashes it. */
    if (bb_lua_load_file(L, path, "model config", BB_MODEL_CONFIG_MAX_BYTES) != LUA_OK || bb_lua_sandbox_pcall(L, 0, 1) != LUA_OK) {
        bb_lua_sandbox_error(L, err, errlen);
    } else if (lua_type(L, -1) != LUA_TTABLE) {
        char what[96];
        bb_lua_describe(L, -1, what, sizeof what);
        snprintf(err, errlen, "%s: a model config must return a table, got %s", path, what);
    } else {
        char why[512];
        if (read_config(L, cfg, why, sizeof why)) snprintf(err, errlen, "%s: %s", path, why);
        else if (bb_model_check(cfg, why, sizeof why)) snprintf(err, errlen, "%s: %s", path, why);
        else rc = 0;
    }
    bb_lua_sandbox_close(L);
    return rc;
}

int bb_model_load_file(const char *path, bb_model_config *cfg, char *err, size_t errlen)
{
    return load_path(path, NULL, cfg, err, errlen);
}

int bb_model_load(const char *name, bb_model_config *cfg, char *err, size_t errlen)
{
    char **names;
    int count = bb_model_names(&names);
    int found = 0;
    for (int i = 0; i < count && !found; i++) found = strcmp(names[i], name) == 0;
    if (!found) {
        if (count) bb_suggest_message("model", name, (const char *const *)names, count, err, errlen);
        else snprintf(err, errlen, "unknown model '%s': no model configs in %s (set BITBENCH_MODELS)", name, bb_model_dir());
        bb_model_names_free(names, count);
        return -1;
    }
    bb_model_names_free(names, count);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.lua", bb_model_dir(), name);
    return load_path(path, name, cfg, err, errlen);
}

int bb_model_shapes(const bb_model_config *c, bb_model_shape out[BB_MODEL_MAX_SHAPES])
{
    int q = c->n_heads * c->head_dim, kv = c->n_kv_heads * c->head_dim;
    const struct { const char *role; int m, k; } all[7] = {
        {"q", q, c->dim},          {"k", kv, c->dim},         {"v", kv, c->dim},  {"o", c->dim, q},
        {"gate", c->ffn_dim, c->dim}, {"up", c->ffn_dim, c->dim}, {"down", c->dim, c->ffn_dim},
    };
    int n = 0;
    for (int i = 0; i < 7; i++) {
        int j = 0;
        while (j < n && !(out[j].m == all[i].m && out[j].k == all[i].k)) j++;
        if (j == n) {
            out[n].m = all[i].m;
            out[n].k = all[i].k;
            out[n].per_layer = 0;
            out[n].roles[0] = 0;
            n++;
        }
        size_t used = strlen(out[j].roles);
        snprintf(out[j].roles + used, sizeof out[j].roles - used, "%s%s", used ? "+" : "", all[i].role);
        out[j].per_layer++;
    }
    return n;
}

uint64_t bb_model_param_count(const bb_model_config *c)
{
    uint64_t q = (uint64_t)c->n_heads * c->head_dim, kv = (uint64_t)c->n_kv_heads * c->head_dim;
    uint64_t d = (uint64_t)c->dim, f = (uint64_t)c->ffn_dim;
    uint64_t layer = q * d + 2 * kv * d + d * q + 3 * f * d + 2 * d; /* projections + 2 RMSNorms */
    if (c->style == BB_MODEL_BITNET) layer += q + f;                   /* sub-norms before o, down */
    uint64_t total = layer * (uint64_t)c->n_layers + (uint64_t)c->vocab_size * d + d;
    if (!c->tied_embedding) total += (uint64_t)c->vocab_size * d;
    return total;
}
