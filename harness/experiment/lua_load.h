/* What the parts of the experiment loader share (not a public interface).
 *
 * lua_experiment.c runs the file and converts the declared experiment (its own fields, meters,
 * plots, profile), calling lua_sweep.c to read each sweep table's fields; lua_api.c is the
 * `bitbench` table the file sees; lua_load.c holds the helpers they all use.  Calls go one way:
 * lua_experiment.c -> lua_sweep.c -> lua_load.c, lua_api.c.  Every reader stops at the first
 * problem through load_fail, which records "FILE:LINE: [sweep 'x': ]message" and raises a Lua
 * error that ends the conversion. */
#ifndef BB_LUA_LOAD_H
#define BB_LUA_LOAD_H

#include <lua.h>
#include <stddef.h>

#include "plan/experiment.h"
#include "support/machine.h"

typedef struct {
    const bb_machine *mach;
    const char *file;
    bb_experiment *ex;
    int exp_line;          /* line of bitbench.experiment, 0 before the call */
    const char *size;      /* bitbench.size */
    char err[4096];        /* a conversion error, with its location */
} load_ctx;

/* ---- lua_api.c: the bitbench table and what it records in the registry ---- */

/* Set the global `bitbench` (functions bound to c, machine, size) and the sweep -> line table. */
void load_open_bitbench(lua_State *L, load_ctx *c);
/* Push the table given to bitbench.experiment, or nil when the file never called it. */
void load_push_declared(lua_State *L);
/* The line of the bitbench.sweep call that marked table t, 0 for a plain table. */
int load_sweep_line(lua_State *L, int t);

/* ---- lua_load.c: helpers every reader uses ---- */

/* Stop the conversion with "FILE:LINE: [sweep 'x': ]message" (sw may be NULL); never returns. */
int load_fail(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Add "FILE:LINE: sweep 'x': message" to the experiment's warnings. */
void load_sweep_warning(load_ctx *c, const bb_sweep *sw, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* realloc to count + 1 elements, raising a Lua error when out of memory. */
void *load_grow(lua_State *L, void *p, size_t elem, int count);
/* The length of the string-or-list of strings at the top of the stack (1 for a string). */
int load_string_list_len(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *field);
/* Push entry i (1-based) of the string-or-list at the top, checked to be a string. */
const char *load_string_entry(lua_State *L, load_ctx *c, const bb_sweep *sw, const char *field, int i);
/* Note that the experiment uses model config `name` (a `shapes` or `models` entry; a model file's
 * path is not a config and is not noted): ex->model_configs, each name once. */
void load_note_model_config(lua_State *L, load_ctx *c, const char *name);
/* "unknown kernel 'x' (did you mean 'y'?); valid kernels: ..." for a name not in the registry. */
void load_unknown_kernel(const char *name, char *buf, size_t len);

/* ---- lua_sweep.c ---- */

/* Read sweep table t (entry `index` of the experiment's sweeps) into sw, which is zeroed. */
void load_read_sweep(lua_State *L, load_ctx *c, int t, int index, bb_sweep *sw);

#endif
