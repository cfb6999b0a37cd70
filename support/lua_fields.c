#include "lua_fields.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"

void bb_lua_describe(lua_State *L, int idx, char *buf, size_t len)
{
    switch (lua_type(L, idx)) {
    case LUA_TNIL: snprintf(buf, len, "nil"); break;
    case LUA_TBOOLEAN: snprintf(buf, len, "boolean %s", lua_toboolean(L, idx) ? "true" : "false"); break;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) snprintf(buf, len, "number %lld", (long long)lua_tointeger(L, idx));
        else snprintf(buf, len, "number %.17g", lua_tonumber(L, idx));
        break;
    case LUA_TSTRING: snprintf(buf, len, "string \"%.60s\"", lua_tostring(L, idx)); break;
    case LUA_TTABLE: snprintf(buf, len, "a table"); break;
    case LUA_TFUNCTION: snprintf(buf, len, "a function"); break;
    default: snprintf(buf, len, "a %s", luaL_typename(L, idx)); break;
    }
}

int bb_lua_check_fields(lua_State *L, int idx, const char *const *allowed, int nallowed, char *err, size_t errlen)
{
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1); /* value */
        char valid[512] = "";
        bb_join_names(valid, sizeof valid, allowed, nallowed);
        if (lua_type(L, -1) != LUA_TSTRING) {
            char what[96];
            bb_lua_describe(L, -1, what, sizeof what);
            snprintf(err, errlen, "unexpected entry with key %s (a list where named fields were expected?); "
                     "valid fields: %s", what, valid);
            lua_pop(L, 1);
            return -1;
        }
        const char *key = lua_tostring(L, -1);
        int ok = 0;
        for (int i = 0; i < nallowed && !ok; i++) ok = strcmp(key, allowed[i]) == 0;
        if (!ok) {
            bb_suggest_message("field", key, allowed, nallowed, err, errlen);
            lua_pop(L, 1);
            return -1;
        }
    }
    return 0;
}

bool bb_lua_is_list(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE) return false;
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx), keys = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n) {
            lua_pop(L, 1);
            return false;
        }
        keys++;
    }
    return keys == n;
}

int bb_lua_value_int(lua_State *L, int idx, long lo, long hi, long *out)
{
    if (lua_type(L, idx) != LUA_TNUMBER) return -1;
    lua_Integer v;
    if (lua_isinteger(L, idx)) {
        v = lua_tointeger(L, idx);
    } else {
        double d = lua_tonumber(L, idx);
        if (d != floor(d) || fabs(d) > 9e15) return -1;
        v = (lua_Integer)d;
    }
    if (v < lo || v > hi) return -2;
    *out = (long)v;
    return 0;
}

/* Push t[field] for the table at absolute index idx; returns the value's Lua type. */
static int push_field(lua_State *L, int idx, const char *field)
{
    lua_pushstring(L, field);
    return lua_rawget(L, idx);
}

int bb_lua_get_int(lua_State *L, int idx, const char *field, long lo, long hi, long *out, char *err, size_t errlen)
{
    idx = lua_absindex(L, idx);
    if (push_field(L, idx, field) == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    int rc = bb_lua_value_int(L, -1, lo, hi, out);
    if (rc) {
        char what[96];
        bb_lua_describe(L, -1, what, sizeof what);
        snprintf(err, errlen, "field '%s' must be an integer in %ld..%ld, got %s", field, lo, hi, what);
    }
    lua_pop(L, 1);
    return rc ? -1 : 1;
}

int bb_lua_get_number(lua_State *L, int idx, const char *field, double lo, double hi, double *out, char *err,
                      size_t errlen)
{
    idx = lua_absindex(L, idx);
    if (push_field(L, idx, field) == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    double v = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(v >= lo && v <= hi)) {
        char what[96];
        bb_lua_describe(L, -1, what, sizeof what);
        snprintf(err, errlen, "field '%s' must be a number in %g..%g, got %s", field, lo, hi, what);
        lua_pop(L, 1);
        return -1;
    }
    *out = v;
    lua_pop(L, 1);
    return 1;
}

int bb_lua_get_bool(lua_State *L, int idx, const char *field, bool *out, char *err, size_t errlen)
{
    idx = lua_absindex(L, idx);
    int t = push_field(L, idx, field);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    if (t != LUA_TBOOLEAN) {
        char what[96];
        bb_lua_describe(L, -1, what, sizeof what);
        snprintf(err, errlen, "field '%s' must be true or false, got %s", field, what);
        lua_pop(L, 1);
        return -1;
    }
    *out = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return 1;
}

int bb_lua_get_string(lua_State *L, int idx, const char *field, const char *const *choices, int nchoices,
                      char *buf, size_t buflen, char *err, size_t errlen)
{
    idx = lua_absindex(L, idx);
    int t = push_field(L, idx, field);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    char valid[256] = "";
    if (choices) bb_join_names(valid, sizeof valid, choices, nchoices);
    if (t != LUA_TSTRING) {
        char what[96];
        bb_lua_describe(L, -1, what, sizeof what);
        if (choices) snprintf(err, errlen, "field '%s' must be one of %s, got %s", field, valid, what);
        else snprintf(err, errlen, "field '%s' must be a string, got %s", field, what);
        lua_pop(L, 1);
        return -1;
    }
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    if (choices) {
        int ok = 0;
        for (int i = 0; i < nchoices && !ok; i++) ok = strcmp(s, choices[i]) == 0;
        if (!ok) {
            snprintf(err, errlen, "field '%s': '%.60s' is not valid; valid: %s", field, s, valid);
            lua_pop(L, 1);
            return -1;
        }
    }
    if (len >= buflen) {
        snprintf(err, errlen, "field '%s' is too long (%zu characters; at most %zu)", field, len, buflen - 1);
        lua_pop(L, 1);
        return -1;
    }
    memcpy(buf, s, len + 1);
    lua_pop(L, 1);
    return 1;
}

int bb_lua_get_int_list(lua_State *L, int idx, const char *field, long lo, long hi, int **out, int *count,
                        char *err, size_t errlen)
{
    idx = lua_absindex(L, idx);
    int t = push_field(L, idx, field);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    char what[96];
    if (t == LUA_TNUMBER) {
        long v;
        int rc = bb_lua_value_int(L, -1, lo, hi, &v);
        if (rc) {
            bb_lua_describe(L, -1, what, sizeof what);
            snprintf(err, errlen, "field '%s' must be integers in %ld..%ld, got %s", field, lo, hi, what);
            lua_pop(L, 1);
            return -1;
        }
        *out = malloc(sizeof **out);
        if (!*out) {
            snprintf(err, errlen, "out of memory");
            lua_pop(L, 1);
            return -1;
        }
        (*out)[0] = (int)v;
        *count = 1;
        lua_pop(L, 1);
        return 1;
    }
    if (!bb_lua_is_list(L, -1) || lua_rawlen(L, -1) == 0) {
        bb_lua_describe(L, -1, what, sizeof what);
        snprintf(err, errlen, "field '%s' must be an integer or a non-empty list of integers in %ld..%ld, got %s%s",
                 field, lo, hi, what, t == LUA_TTABLE ? (lua_rawlen(L, -1) ? " with non-list keys" : " that is empty") : "");
        lua_pop(L, 1);
        return -1;
    }
    int n = (int)lua_rawlen(L, -1);
    int *v = malloc(sizeof *v * (size_t)n);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        lua_pop(L, 1);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, -1, i + 1);
        long x;
        if (bb_lua_value_int(L, -1, lo, hi, &x)) {
            bb_lua_describe(L, -1, what, sizeof what);
            snprintf(err, errlen, "field '%s', entry %d: must be an integer in %ld..%ld, got %s", field, i + 1, lo, hi, what);
            lua_pop(L, 2);
            free(v);
            return -1;
        }
        v[i] = (int)x;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    *out = v;
    *count = n;
    return 1;
}
