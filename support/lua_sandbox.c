/* The environment and the bounds of every user Lua file (lua_sandbox.h). */
#include "lua_sandbox.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "input_file.h"

/* VM instructions between two calls of the count hook: small enough that a stopped file stops
 * within microseconds of its bound, large enough that the hook costs nothing measurable. */
#define HOOK_EVERY 10000
/* What the C library does counts against the instruction bound too: string.rep, table.concat or
 * string.format run no VM instruction however large a result they build, so a loop making 4 MB
 * strings ran for minutes under a bound of a million instructions (found by fuzz_lua_experiment).
 * Every this many bytes by which a state's allocations grow count as one instruction. */
#define BYTES_PER_INSTRUCTION 64

static uint64_t set_instructions;
static size_t set_bytes;

/* What one state may use and has used; the allocator's ud, freed after lua_close. */
typedef struct {
    char file[512];
    uint64_t max_instructions, executed;
    size_t max_bytes, used;
    int hit_instructions, hit_memory;
    unsigned flags;
    /* The folders a file may read under (bb_lua_sandbox_check_read), as real paths: the file's
     * own folder and $BITBENCH_SHARED_DIR; an empty one is absent. */
    char roots[2][PATH_MAX];
} sandbox;

void bb_lua_set_limits(uint64_t instructions, size_t bytes)
{
    if (instructions) set_instructions = instructions;
    if (bytes) set_bytes = bytes;
}

static int env_number(const char *name, unsigned long long max, unsigned long long *out, char *err, size_t errlen)
{
    const char *s = getenv(name);
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v == 0 || v > max || *s == '-') {
        snprintf(err, errlen, "%s='%s' is not a whole number from 1 to %llu", name, s, max);
        return -1;
    }
    *out = v;
    return 0;
}

int bb_lua_limits(uint64_t *instructions, size_t *bytes, char *err, size_t errlen)
{
    unsigned long long n = BB_LUA_DEFAULT_INSTRUCTIONS, mb = BB_LUA_DEFAULT_BYTES >> 20;
    if (env_number("BITBENCH_LUA_MAX_INSTRUCTIONS", 1ULL << 62, &n, err, errlen) ||
        env_number("BITBENCH_LUA_MAX_MEMORY_MB", 1ULL << 30, &mb, err, errlen))
        return -1;
    *instructions = set_instructions ? set_instructions : (uint64_t)n;
    *bytes = set_bytes ? set_bytes : (size_t)mb << 20;
    return 0;
}

static void *bounded_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    sandbox *s = ud;
    size_t old = ptr ? osize : 0; /* without ptr, osize is the kind of object, not a size */
    if (nsize == 0) {
        free(ptr);
        s->used -= old;
        return NULL;
    }
    if (nsize > old) {
        if (nsize - old > s->max_bytes - s->used) {
            s->hit_memory = 1;
            return NULL;
        }
        /* past the bound every growth fails, as every instruction does (count_hook) */
        s->executed += (nsize - old) / BYTES_PER_INSTRUCTION;
        if (s->executed >= s->max_instructions || s->hit_instructions) {
            s->hit_instructions = 1;
            return NULL;
        }
    }
    void *p = realloc(ptr, nsize);
    if (p) s->used = s->used - old + nsize;
    return p;
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    void *ud;
    lua_getallocf(L, &ud);
    sandbox *s = ud;
    s->executed += HOOK_EVERY;
    if (s->executed < s->max_instructions && !s->hit_instructions) return;
    s->hit_instructions = 1;
    /* From now on every instruction fails, so a pcall in the file cannot swallow the stop and
     * go on looping: the instruction after the pcall fails again, up to the top. */
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    lua_pushfstring(L, "%s: stopped after %I Lua instructions", s->file, (lua_Integer)s->max_instructions);
    lua_error(L);
}

/* load() for text chunks only: the mode argument is forced to "t". */
static int text_load(lua_State *L)
{
    int n = lua_gettop(L);
    if (n < 3) lua_settop(L, 3);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n < 3 ? 3 : n, LUA_MULTRET);
    return lua_gettop(L);
}

/* string.rep with an empty string and separator returns "" at once: Lua's own loops n times
 * building it, allocating nothing, so neither bound stopped string.rep("", 5 << 40) (found by
 * fuzz_model_config).  With a byte to repeat, its loop is no longer than the result, which the
 * allocator bounds and charges first. */
static int bounded_rep(lua_State *L)
{
    size_t l, lsep;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n > 0 && l == 0 && lsep == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static sandbox *sandbox_of(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

/* Whether real path `path` is `dir` or under it. */
static int is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return 1;
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

int bb_lua_sandbox_check_read(lua_State *L, const char *path, char *resolved, char *why, size_t whylen)
{
    const sandbox *s = sandbox_of(L);
    if (s->flags & BB_LUA_UNSAFE) {
        snprintf(resolved, PATH_MAX, "%s", path);
        return 0;
    }
    if (!realpath(path, resolved)) {
        int e = errno;
        snprintf(why, whylen, "%s: %s", path, strerror(e));
        errno = e;
        return 1;
    }
    /* Kernel and device files are never data: /proc/self/environ holds the environment,
     * /dev/zero never ends, a terminal or FIFO blocks. */
    static const char *const system_dirs[] = {"/proc", "/sys", "/dev"};
    for (size_t i = 0; i < sizeof system_dirs / sizeof *system_dirs; i++)
        if (is_under(resolved, system_dirs[i])) {
            snprintf(why, whylen, "%s is %s, under %s; an experiment reads only its own folder's files "
                                  "(bitbench's Lua sandbox)", path, resolved, system_dirs[i]);
            return -1;
        }
    const char *root = NULL;
    for (int i = 0; i < 2 && !root; i++)
        if (s->roots[i][0] && is_under(resolved, s->roots[i])) root = s->roots[i];
    if (!root) {
        snprintf(why, whylen, "%s%s%s is outside the folders an experiment may read: its own (%s)%s%s "
                              "(bitbench's Lua sandbox)", path, strcmp(path, resolved) ? " -> " : "",
                 strcmp(path, resolved) ? resolved : "", s->roots[0][0] ? s->roots[0] : "none",
                 s->roots[1][0] ? " and $BITBENCH_SHARED_DIR " : "", s->roots[1]);
        return -1;
    }
    /* Inside the folder, hidden names stay out: an experiment beside one's home folder must not
     * reach ~/.ssh or ~/.netrc, nor a repository's .git. */
    for (const char *c = resolved + (strcmp(root, "/") ? strlen(root) : 0); *c; c++)
        if (c[0] == '/' && c[1] == '.') {
            snprintf(why, whylen, "%s is %s, a hidden file or folder ('%.*s'); an experiment reads none "
                                  "(bitbench's Lua sandbox)", path, resolved, (int)strcspn(c + 1, "/"), c + 1);
            return -1;
        }
    return 0;
}

static int stream_close(lua_State *L)
{
    luaL_Stream *p = luaL_checkudata(L, 1, LUA_FILEHANDLE);
    int ok = fclose(p->f) == 0;
    return luaL_fileresult(L, ok, NULL);
}

/* Opens path for reading as an io file handle on the stack, or raises the refusal.  Returns 1
 * with the handle, or 3 (nil, message, errno) when the file does not exist, as io.open does. */
static int open_checked(lua_State *L, const char *fn, const char *path)
{
    char resolved[PATH_MAX], why[PATH_MAX * 2 + 256];
    int rc = bb_lua_sandbox_check_read(L, path, resolved, why, sizeof why);
    if (rc > 0) {
        int e = errno;
        lua_pushnil(L);
        lua_pushstring(L, why);
        lua_pushinteger(L, e);
        return 3;
    }
    if (rc < 0) return luaL_error(L, "%s: %s", fn, why);
    luaL_Stream *p = lua_newuserdatauv(L, sizeof *p, 0);
    p->closef = NULL; /* a handle not yet open is never closed */
    luaL_setmetatable(L, LUA_FILEHANDLE);
    p->f = bb_input_open(resolved, "file an experiment reads", BB_LUA_MAX_READ_BYTES, NULL, why, sizeof why);
    if (!p->f) return luaL_error(L, "%s: %s (bitbench's Lua sandbox)", fn, why);
    p->closef = stream_close;
    return 1;
}

/* io.open for reading only, of the files bb_lua_sandbox_check_read allows. */
static int read_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    if (strcmp(mode, "r") != 0 && strcmp(mode, "rb") != 0)
        return luaL_error(L, "io.open mode '%s' is not allowed: experiment files may only read (\"r\" or \"rb\"); "
                             "bitbench run --unsafe-lua allows writing", mode);
    return open_checked(L, "io.open", path);
}

/* io.lines(path, ...): the file's lines (or what the formats read), closed when the loop ends.
 * Without a path io.lines would read standard input, which is not the file's to read. */
static int read_lines(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int nformats = lua_gettop(L) - 1;
    if (open_checked(L, "io.lines", path) != 1) return luaL_error(L, "io.lines: %s", lua_tostring(L, -2));
    int handle = lua_gettop(L);
    lua_getfield(L, handle, "lines");
    lua_pushvalue(L, handle);
    for (int i = 0; i < nformats; i++) lua_pushvalue(L, 2 + i);
    lua_call(L, 1 + nformats, 1);
    /* iterator, nil, nil, handle: a generic for closes the handle (to-be-closed) when it ends */
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushvalue(L, handle);
    return 4;
}

/* os.getenv of the variables meant for experiments only: an experiment from elsewhere must not
 * read tokens, keys or paths from the person's environment into its fields (and so into results
 * the person shares). */
static int prefixed_getenv(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (strncmp(name, BB_LUA_ENV_PREFIX, strlen(BB_LUA_ENV_PREFIX)) != 0)
        return luaL_error(L, "os.getenv('%s'): an experiment reads only " BB_LUA_ENV_PREFIX "* variables "
                             "(bitbench's Lua sandbox)", name);
    lua_pushstring(L, getenv(name));
    return 1;
}

/* __index of a sandboxed table: a name the sandbox took out is an error that says so (a plain
 * "attempt to call a nil value" would look like a typo); any other name is nil as usual.
 * Upvalues: the removed names (a set), the table's name, what allows them. */
static int removed_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TNIL) return 1;
    const char *table = lua_tostring(L, lua_upvalueindex(2)), *key = lua_tostring(L, 2);
    return luaL_error(L, "%s%s%s is not available to this file (bitbench's Lua sandbox: README, \"Experiments in "
                         "Lua\")%s", table, *table ? "." : "", key ? key : "?", lua_tostring(L, lua_upvalueindex(3)));
}

/* Give table t (an absolute index) a metatable that reports the removed names. */
static void mark_removed(lua_State *L, int t, const char *table, const char *const *removed, const char *hint)
{
    lua_newtable(L);
    lua_newtable(L);
    for (; *removed; removed++) {
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, *removed);
    }
    lua_pushstring(L, table);
    lua_pushstring(L, hint);
    lua_pushcclosure(L, removed_index, 3);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, t);
}

/* Open library `name` without making it global, and set global `name` to a table of only the
 * listed fields of it, reporting the removed ones. */
static void open_subset(lua_State *L, const char *name, lua_CFunction open, const char *const *keep,
                        const char *const *removed, const char *hint)
{
    luaL_requiref(L, name, open, 0);
    lua_newtable(L);
    for (; *keep; keep++) {
        lua_getfield(L, -2, *keep);
        lua_setfield(L, -2, *keep);
    }
    mark_removed(L, lua_gettop(L), name, removed, hint);
    lua_setglobal(L, name);
    lua_pop(L, 1);
}

static void open_safe(lua_State *L, unsigned flags)
{
    static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},       {LUA_COLIBNAME, luaopen_coroutine},
                                    {LUA_MATHLIBNAME, luaopen_math}, {LUA_STRLIBNAME, luaopen_string},
                                    {LUA_TABLIBNAME, luaopen_table}, {LUA_UTF8LIBNAME, luaopen_utf8}};
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        luaL_requiref(L, libs[i].name, libs[i].func, 1);
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_getglobal(L, "load");
    lua_pushcclosure(L, text_load, 1);
    lua_setglobal(L, "load");
    lua_getglobal(L, LUA_STRLIBNAME); /* also the strings' metatable's __index: ("").rep is this one */
    lua_getfield(L, -1, "rep");
    lua_pushcclosure(L, bounded_rep, 1);
    lua_setfield(L, -2, "rep");
    lua_pop(L, 1);
    const char *hint = flags & BB_LUA_READ_IO ? "; bitbench run --unsafe-lua gives every library" : "";
    static const char *const globals_removed[] = {"dofile", "loadfile", "require", "package", "debug", NULL};
    static const char *const globals_removed_io[] = {"dofile", "loadfile", "require", "package", "debug", "io", NULL};
    lua_pushglobaltable(L);
    mark_removed(L, lua_gettop(L), "", flags & BB_LUA_READ_IO ? globals_removed : globals_removed_io, hint);
    lua_pop(L, 1);
    static const char *const os_keep[] = {"clock", "date", "difftime", "getenv", "time", NULL};
    static const char *const os_removed[] = {"execute", "exit", "remove", "rename", "tmpname", "setlocale", NULL};
    open_subset(L, LUA_OSLIBNAME, luaopen_os, os_keep, os_removed, hint);
    lua_getglobal(L, LUA_OSLIBNAME);
    lua_pushcfunction(L, prefixed_getenv);
    lua_setfield(L, -2, "getenv");
    lua_pop(L, 1);
    if (flags & BB_LUA_READ_IO) {
        /* io.open and io.lines are bitbench's own (read_open, read_lines); the library is opened
         * only for its file handles' metatable and io.type */
        static const char *const io_keep[] = {"type", NULL};
        static const char *const io_removed[] = {"popen", "write", "output", "input", "read", "close", "tmpfile",
                                                 "stdout", "stderr", "stdin", NULL};
        open_subset(L, LUA_IOLIBNAME, luaopen_io, io_keep, io_removed, hint);
        lua_getglobal(L, LUA_IOLIBNAME);
        lua_pushcfunction(L, read_open);
        lua_setfield(L, -2, "open");
        lua_pushcfunction(L, read_lines);
        lua_setfield(L, -2, "lines");
        lua_pop(L, 1);
    }
}

/* The file's folder and $BITBENCH_SHARED_DIR, as real paths (a folder that does not resolve is
 * left out: nothing is under it). */
static void set_roots(sandbox *s, const char *file)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(file, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash == file ? 1 : slash - file), file);
    if (!realpath(dir, s->roots[0])) s->roots[0][0] = 0;
    const char *shared = getenv("BITBENCH_SHARED_DIR");
    if (!shared || !*shared || !realpath(shared, s->roots[1])) s->roots[1][0] = 0;
}

lua_State *bb_lua_sandbox_new(const char *file, unsigned flags, char *err, size_t errlen)
{
    sandbox *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "%s: out of memory", file);
        return NULL;
    }
    char why[256];
    if (bb_lua_limits(&s->max_instructions, &s->max_bytes, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", file, why);
        free(s);
        return NULL;
    }
    snprintf(s->file, sizeof s->file, "%s", file);
    s->flags = flags;
    set_roots(s, file);
    lua_State *L = lua_newstate(bounded_alloc, s);
    if (!L) {
        snprintf(err, errlen, "%s: cannot create a Lua state (out of memory)", file);
        free(s);
        return NULL;
    }
    if (flags & BB_LUA_UNSAFE) luaL_openlibs(L);
    else open_safe(L, flags);
    lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_EVERY);
    return L;
}

void bb_lua_sandbox_close(lua_State *L)
{
    if (!L) return;
    void *ud;
    lua_getallocf(L, &ud);
    lua_close(L);
    free(ud);
}

void bb_lua_sandbox_error(lua_State *L, char *err, size_t errlen)
{
    void *ud;
    lua_getallocf(L, &ud);
    const sandbox *s = ud;
    if (s->hit_instructions)
        snprintf(err, errlen, "%s: stopped after %llu Lua instructions, the bound (an endless loop?); raise it with "
                              "BITBENCH_LUA_MAX_INSTRUCTIONS=N or bitbench run --lua-max-instructions N",
                 s->file, (unsigned long long)s->max_instructions);
    else if (s->hit_memory && lua_tostring(L, -1) && strstr(lua_tostring(L, -1), "not enough memory"))
        snprintf(err, errlen, "%s: stopped at %zu MiB of Lua memory, the bound; raise it with "
                              "BITBENCH_LUA_MAX_MEMORY_MB=N or bitbench run --lua-max-memory N (MiB)",
                 s->file, s->max_bytes >> 20);
    else if (lua_tostring(L, -1) && strncmp(lua_tostring(L, -1), "attempt to load a binary chunk", 30) == 0)
        /* Lua's message for a refused precompiled file (luaL_loadfilex mode "t") has no location */
        snprintf(err, errlen, "%s: a precompiled (binary) Lua chunk; only Lua text is loaded", s->file);
    else {
        const char *m = lua_tostring(L, -1);
        snprintf(err, errlen, "%s", m ? m : "error in the Lua file (a non-string error value)");
    }
}

/* ---- the CPU-time watchdog (bb_lua_sandbox_pcall) ---- */
static char watchdog_line[768];
static size_t watchdog_len;

/* Async-signal-safe: one write and _exit; the C library call that is running cannot be left
 * safely any other way. */
static void watchdog_fire(int sig)
{
    (void)sig;
    ssize_t w = write(STDERR_FILENO, watchdog_line, watchdog_len);
    (void)w;
    _exit(2);
}

int bb_lua_sandbox_pcall(lua_State *L, int nargs, int nresults)
{
    unsigned long long seconds = BB_LUA_DEFAULT_SECONDS;
    char why[256];
    void *ud;
    lua_getallocf(L, &ud);
    const sandbox *s = ud;
    if (env_number("BITBENCH_LUA_MAX_SECONDS", 1ULL << 30, &seconds, why, sizeof why)) {
        lua_pushfstring(L, "%s: %s", s->file, why);
        return LUA_ERRRUN;
    }
    int n = snprintf(watchdog_line, sizeof watchdog_line,
                     "bitbench: %s: stopped after %llu s of CPU time, the bound (a call into Lua's library "
                     "that does not end, such as a backtracking string pattern?); raise it with "
                     "BITBENCH_LUA_MAX_SECONDS=N\n",
                     s->file, seconds);
    watchdog_len = n > 0 && (size_t)n < sizeof watchdog_line ? (size_t)n : sizeof watchdog_line - 1;
    struct sigaction act, old_act;
    memset(&act, 0, sizeof act);
    act.sa_handler = watchdog_fire;
    sigemptyset(&act.sa_mask);
    struct itimerval arm = {{0, 0}, {(time_t)seconds, 0}}, old_timer;
    sigaction(SIGPROF, &act, &old_act);
    setitimer(ITIMER_PROF, &arm, &old_timer);
    int rc = lua_pcall(L, nargs, nresults, 0);
    setitimer(ITIMER_PROF, &old_timer, NULL);
    sigaction(SIGPROF, &old_act, NULL);
    return rc;
}
