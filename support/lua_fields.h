/* Strict reading of Lua tables: every experiment and model-config field goes through these, so
 * a misspelt field, a value of the wrong type or out of range is one error line that names the
 * field, what was given and what is valid.
 *
 * Conventions: `idx` is the table's stack index; functions leave the stack as they found it.
 * Getters return 1 when the field was present and read, 0 when absent (the output untouched),
 * -1 on error with the message in err (without location; the caller prefixes file:line). */
#ifndef BB_LUA_FIELDS_H
#define BB_LUA_FIELDS_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

/* 'string "2"', 'number 2.5', 'a table', 'nil', ... for messages. */
void bb_lua_describe(lua_State *L, int idx, char *buf, size_t len);

/* Every key must be a string among `allowed`; else "unknown field 'thread' (did you mean
 * 'threads'?); valid fields: a, b, ..." */
int bb_lua_check_fields(lua_State *L, int idx, const char *const *allowed, int nallowed, char *err,
                        size_t errlen);

/* Is the value at idx a sequence (keys exactly 1..n)?  An empty table is one. */
bool bb_lua_is_list(lua_State *L, int idx);

/* The value at idx as an integer in [lo, hi] (floats with an integral value accepted).
 * Returns 0, -1 when not an integer, -2 when out of range. */
int bb_lua_value_int(lua_State *L, int idx, long lo, long hi, long *out);

int bb_lua_get_int(lua_State *L, int idx, const char *field, long lo, long hi, long *out, char *err, size_t errlen);
int bb_lua_get_number(lua_State *L, int idx, const char *field, double lo, double hi, double *out, char *err,
                      size_t errlen);
int bb_lua_get_bool(lua_State *L, int idx, const char *field, bool *out, char *err, size_t errlen);
/* A string; when choices is not NULL it must be one of them. */
int bb_lua_get_string(lua_State *L, int idx, const char *field, const char *const *choices, int nchoices,
                      char *buf, size_t buflen, char *err, size_t errlen);

/* An integer or a list of integers, each in [lo, hi]; *out is malloc'd (free it). */
int bb_lua_get_int_list(lua_State *L, int idx, const char *field, long lo, long hi, int **out, int *count,
                        char *err, size_t errlen);

#endif
