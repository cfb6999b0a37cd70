#include "archive/results_db.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/json_read.h"
#include "run/results_json.h"
#include "support/input_file.h"

#ifdef BB_HAVE_SQLITE
#include <sqlite3.h>

struct bb_db {
    sqlite3 *h;
    char path[1024];
};

/* A table of rows: its name and row struct (the four of a run). */
typedef struct {
    const char *name;
    const bb_column *cols;
    int ncols;
    size_t row_size;
    long meter_off;  /* -1: none */
} db_table;

static db_table table_of(int which)
{
    switch (which) {
    case 0: return (db_table){"points", bb_result_columns, bb_result_ncolumns, sizeof(bb_result_row),
                              (long)offsetof(bb_result_row, meter)};
    case 1: return (db_table){"e2e_points", bb_e2e_columns, bb_e2e_ncolumns, sizeof(bb_e2e_row),
                              (long)offsetof(bb_e2e_row, meter)};
    case 2: return (db_table){"samples", bb_sample_columns, bb_sample_ncolumns, sizeof(bb_sample_row), -1};
    default: return (db_table){"e2e_samples", bb_e2e_sample_columns, bb_e2e_sample_ncolumns,
                               sizeof(bb_e2e_sample_row), -1};
    }
}

static int fail(bb_db *db, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
    return -1;
}

static int exec(bb_db *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
    snprintf(err, errlen, "%s: %s", db->path, msg ? msg : sqlite3_errmsg(db->h));
    sqlite3_free(msg);
    return -1;
}

/* The texts a run carries (results/run_texts.h): experiment.lua, models/NAME.lua, source.diff. */
#define RUN_FILES_SQL                                                                                              \
    "CREATE TABLE IF NOT EXISTS run_files (run TEXT NOT NULL, name TEXT NOT NULL, sha256 TEXT NOT NULL,"          \
    " text TEXT NOT NULL, PRIMARY KEY (run, name));"

/* CREATE TABLE of a row table: run, seq, then one typed column per bb_column. */
static void create_sql(const db_table *t, char *sql, size_t len)
{
    size_t o = (size_t)snprintf(sql, len, "CREATE TABLE %s (run TEXT NOT NULL, seq INTEGER NOT NULL", t->name);
    for (int i = 0; i < t->ncols && o < len; i++)
        o += (size_t)snprintf(sql + o, len - o, ", \"%s\" %s", t->cols[i].name,
                              t->cols[i].kind == BB_COL_STR ? "TEXT" : t->cols[i].kind == BB_COL_INT ? "INTEGER" : "REAL");
    if (o < len) snprintf(sql + o, len - o, ", PRIMARY KEY (run, seq));");
}

static int create_schema(bb_db *db, char *err, size_t errlen)
{
    char sql[8192];
    snprintf(sql, sizeof sql,
             "BEGIN; PRAGMA application_id = %d;"
             "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (%d);"
             "CREATE TABLE runs (run TEXT PRIMARY KEY, run_id TEXT, experiment TEXT, \"commit\" TEXT, dirty INTEGER,"
             " host TEXT, cpu_model TEXT, cpu_flags TEXT, compiler TEXT, c_flags TEXT, started_at TEXT, ended_at TEXT,"
             " status TEXT, source TEXT, imported_at TEXT, files TEXT, result_meters TEXT, e2e_meters TEXT,"
             " run_json TEXT);"
             "CREATE TABLE meters (run TEXT NOT NULL, tbl TEXT NOT NULL, seq INTEGER NOT NULL, name TEXT NOT NULL,"
             " value REAL, PRIMARY KEY (run, tbl, seq, name));" RUN_FILES_SQL,
             BB_DB_APPLICATION_ID, BB_DB_SCHEMA_VERSION);
    if (exec(db, sql, err, errlen)) return -1;
    for (int w = 0; w < 4; w++) {
        db_table t = table_of(w);
        create_sql(&t, sql, sizeof sql);
        if (exec(db, sql, err, errlen)) return -1;
    }
    return exec(db, "CREATE INDEX points_shape ON points (kernel, m, k, n, threads);"
                    "CREATE INDEX runs_commit ON runs (\"commit\"); COMMIT;",
                err, errlen);
}

/* One integer from a query, or -1 with err. */
static int query_int(bb_db *db, const char *sql, long long *v, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->h, sql, -1, &s, NULL) != SQLITE_OK) return fail(db, "cannot read it", err, errlen);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) *v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : fail(db, "cannot read it", err, errlen);
}

/* Whether table has column name (PRAGMA table_info); -1 on error. */
static int has_column(bb_db *db, const char *table, const char *name, char *err, size_t errlen)
{
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->h, sql, -1, &s, NULL) != SQLITE_OK) return fail(db, "cannot read it", err, errlen);
    int found = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const unsigned char *c = sqlite3_column_text(s, 1);
        if (c && strcmp((const char *)c, name) == 0) found = 1;
    }
    sqlite3_finalize(s);
    return found;
}

/* The columns added since version 1: 2 (one branch) gave points "verify", 2 (another) gave
 * e2e_points "cpus"; 3 has both; 4 adds the code that ran (kernel.h's bb_variant: points
 * variant_ran and fallback_calls, e2e_points variant_ran_pp, variant_ran_tg and fallback_calls); 5 the
 * context (e2e_points and e2e_samples depth, kv_type_k, kv_type_v; e2e_points kv_bytes_per_token);
 * 6 e2e_points' noise (pp_spread, tg_spread, spread_flag, attempts: harness/results/noise.h);
 * 7 points' working set and settings (rotated_bytes, cache_source: bench/cache_sizing.h; min_reps,
 * min_seconds, seed, delay_s: a sweep's lists; roofline_fraction, roofline_ceiling:
 * bench/roof_ceiling.h); 8 points' and e2e_points' cpu_model, and the table run_files (created
 * when missing); 9 points' read beside every call (read_t_median_s, read_t_min_s, read_gbps,
 * read_ratio_paired: a kernel sweep's `read`); 10 a sweep's `rounds`: e2e_points' rounds, round,
 * rounds_pp_tps, rounds_tg_tps, rounds_tg_of_read, points' rounds, round, rounds_t_median_s,
 * rounds_read_ratio_paired; 11 e2e_points' interleaved (a model sweep's `interleave`); 12 points'
 * and e2e_points' read_streams (the read-alone bound's two reads, support/memory.h); 13 points' and
 * e2e_points' stream_prefetch (kernels/cpu.h).
 * A file of version 1 to 12 gains whichever it lacks, empty in the rows stored before (what ran
 * was not recorded then; attempts reads back 0 there, "not recorded").  Inside one write
 * transaction, with the version read again there: two
 * processes opening the same old file migrate it once. */
static const struct {
    const char *table, *column, *type;
} added_columns[] = {{"points", "verify", "TEXT"},
                     {"e2e_points", "cpus", "TEXT"},
                     {"points", "variant_ran", "TEXT"},
                     {"points", "fallback_calls", "REAL"},
                     {"e2e_points", "variant_ran_pp", "TEXT"},
                     {"e2e_points", "variant_ran_tg", "TEXT"},
                     {"e2e_points", "fallback_calls", "REAL"},
                     {"e2e_points", "depth", "INTEGER"},
                     {"e2e_points", "kv_type_k", "TEXT"},
                     {"e2e_points", "kv_type_v", "TEXT"},
                     {"e2e_points", "kv_bytes_per_token", "REAL"},
                     {"e2e_samples", "depth", "INTEGER"},
                     {"e2e_samples", "kv_type_k", "TEXT"},
                     {"e2e_samples", "kv_type_v", "TEXT"},
                     {"e2e_points", "pp_spread", "REAL"},
                     {"e2e_points", "tg_spread", "REAL"},
                     {"e2e_points", "spread_flag", "INTEGER"},
                     {"e2e_points", "attempts", "INTEGER"},
                     {"points", "rotated_bytes", "REAL"},
                     {"points", "cache_source", "TEXT"},
                     {"points", "min_reps", "INTEGER"},
                     {"points", "min_seconds", "REAL"},
                     {"points", "seed", "TEXT"},
                     {"points", "delay_s", "REAL"},
                     {"points", "roofline_fraction", "REAL"},
                     {"points", "roofline_ceiling", "TEXT"},
                     {"points", "cpu_model", "TEXT"},
                     {"e2e_points", "cpu_model", "TEXT"},
                     {"points", "read_t_median_s", "REAL"},
                     {"points", "read_t_min_s", "REAL"},
                     {"points", "read_gbps", "REAL"},
                     {"points", "read_ratio_paired", "REAL"},
                     {"e2e_points", "rounds", "INTEGER"},
                     {"e2e_points", "round", "INTEGER"},
                     {"e2e_points", "rounds_pp_tps", "TEXT"},
                     {"e2e_points", "rounds_tg_tps", "TEXT"},
                     {"e2e_points", "rounds_tg_of_read", "TEXT"},
                     {"e2e_points", "interleaved", "TEXT"},
                     {"points", "rounds", "INTEGER"},
                     {"points", "round", "INTEGER"},
                     {"points", "rounds_t_median_s", "TEXT"},
                     {"points", "rounds_read_ratio_paired", "TEXT"},
                     {"points", "read_streams", "REAL"},
                     {"e2e_points", "read_streams", "REAL"},
                     {"points", "stream_prefetch", "TEXT"},
                     {"e2e_points", "stream_prefetch", "TEXT"}};

static int migrate_old(bb_db *db, char *err, size_t errlen)
{
    long long version;
    if (exec(db, "BEGIN IMMEDIATE", err, errlen)) return -1;
    if (query_int(db, "SELECT max(version) FROM schema_version", &version, err, errlen)) goto fail;
    if (version < BB_DB_SCHEMA_VERSION) {
        for (size_t i = 0; i < sizeof added_columns / sizeof added_columns[0]; i++) {
            int has = has_column(db, added_columns[i].table, added_columns[i].column, err, errlen);
            if (has < 0) goto fail;
            if (has) continue;
            char sql[256];
            snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN \"%s\" %s", added_columns[i].table,
                     added_columns[i].column, added_columns[i].type);
            if (exec(db, sql, err, errlen)) goto fail;
        }
        if (exec(db, RUN_FILES_SQL, err, errlen)) goto fail;
        char sql[128];
        snprintf(sql, sizeof sql, "UPDATE schema_version SET version = %d", BB_DB_SCHEMA_VERSION);
        if (exec(db, sql, err, errlen)) goto fail;
    }
    return exec(db, "COMMIT", err, errlen);
fail:;
    char e2[1400];
    exec(db, "ROLLBACK", e2, sizeof e2);
    return -1;
}

/* Is this file ours, of a schema this build knows?  Creates the schema in an empty file; brings a
 * file of an older schema up to this one. */
/* The file's contents copied into a database in memory, which replaces db->h: a reader brings an
 * older schema up to date there, leaving the file (perhaps someone else's, perhaps read-only) as
 * it was. */
static int copy_to_memory(bb_db *db, char *err, size_t errlen)
{
    sqlite3 *mem = NULL;
    if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot make a copy in memory to read its older schema: out of memory", db->path);
        sqlite3_close(mem);
        return -1;
    }
    sqlite3_backup *b = sqlite3_backup_init(mem, "main", db->h, "main");
    int rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
    if (b) sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s: cannot copy it into memory to read its older schema: %s", db->path,
                 sqlite3_errmsg(mem));
        sqlite3_close(mem);
        return -1;
    }
    sqlite3_close(db->h);
    db->h = mem;
    return 0;
}

static int check_schema(bb_db *db, bool may_write, char *err, size_t errlen)
{
    long long app, ntables, version;
    if (query_int(db, "PRAGMA application_id", &app, err, errlen) ||
        query_int(db, "SELECT count(*) FROM sqlite_master", &ntables, err, errlen))
        return -1;
    if (app == 0 && ntables == 0 && !may_write) {
        snprintf(err, errlen, "%s is empty, not a results database; give a file a `--db` run made", db->path);
        return -1;
    }
    if (app == 0 && ntables == 0) return create_schema(db, err, errlen);
    if (app != BB_DB_APPLICATION_ID) {
        snprintf(err, errlen, "%s is an SQLite database but not a bitbench results database (application_id %lld, "
                 "%lld tables); give a new file or one `--db` made", db->path, app, ntables);
        return -1;
    }
    if (query_int(db, "SELECT max(version) FROM schema_version", &version, err, errlen)) return -1;
    if (version >= 1 && version < BB_DB_SCHEMA_VERSION) {
        if (!may_write && copy_to_memory(db, err, errlen)) return -1;
        if (migrate_old(db, err, errlen)) return -1;
        version = BB_DB_SCHEMA_VERSION;
    }
    if (version != BB_DB_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s has results-database schema version %lld; this bitbench reads version %d",
                 db->path, version, BB_DB_SCHEMA_VERSION);
        return -1;
    }
    return 0;
}

static bb_db *db_open(const char *path, bool may_write, char *err, size_t errlen)
{
    bb_db *db = calloc(1, sizeof *db);
    if (!db) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(db->path, sizeof db->path, "%s", path);
    struct stat sb;
    /* a FIFO or a device would block SQLite's first read (or be written into): only a regular file */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "%s is %s, not a results database file (a regular file)", path,
                 bb_file_kind((unsigned)sb.st_mode));
        free(db);
        return NULL;
    }
    if (!may_write && stat(path, &sb) != 0) {
        snprintf(err, errlen, "%s: cannot read it: %s", path, strerror(errno));
        free(db);
        return NULL;
    }
    int flags = may_write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open it: %s", path, db->h ? sqlite3_errmsg(db->h) : "out of memory");
        bb_db_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db->h, 10000); /* several runs may store into one file */
    if (check_schema(db, may_write, err, errlen)) {
        bb_db_close(db);
        return NULL;
    }
    return db;
}

void bb_db_close(bb_db *db)
{
    if (!db) return;
    sqlite3_close(db->h);
    free(db);
}

/* ---- storing ---- */

static void bind_column(sqlite3_stmt *s, int idx, const bb_column *c, const char *row)
{
    const char *p = row + c->offset;
    if (c->kind == BB_COL_STR) sqlite3_bind_text(s, idx, p, -1, SQLITE_TRANSIENT);
    else if (c->kind == BB_COL_INT) sqlite3_bind_int(s, idx, *(const int *)p);
    else if (isfinite(*(const double *)p)) sqlite3_bind_double(s, idx, *(const double *)p);
    else sqlite3_bind_null(s, idx);
}

static int insert_meters(bb_db *db, const char *run, const char *tbl, int seq, const bb_meter_names *mn,
                         const double *v, sqlite3_stmt *s)
{
    for (int m = 0; m < mn->n; m++) {
        sqlite3_reset(s);
        sqlite3_bind_text(s, 1, run, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 2, tbl, -1, SQLITE_STATIC);
        sqlite3_bind_int(s, 3, seq);
        sqlite3_bind_text(s, 4, mn->names[m], -1, SQLITE_TRANSIENT);
        if (isfinite(v[m])) sqlite3_bind_double(s, 5, v[m]);
        else sqlite3_bind_null(s, 5);
        if (sqlite3_step(s) != SQLITE_DONE) return -1;
    }
    (void)db;
    return 0;
}

static int insert_rows(bb_db *db, const char *run, const db_table *t, const void *rows, int n,
                       const bb_meter_names *mn, char *err, size_t errlen)
{
    char sql[8192];
    size_t o = (size_t)snprintf(sql, sizeof sql, "INSERT INTO %s (run, seq", t->name);
    for (int i = 0; i < t->ncols; i++) o += (size_t)snprintf(sql + o, sizeof sql - o, ", \"%s\"", t->cols[i].name);
    o += (size_t)snprintf(sql + o, sizeof sql - o, ") VALUES (?, ?");
    for (int i = 0; i < t->ncols; i++) o += (size_t)snprintf(sql + o, sizeof sql - o, ", ?");
    snprintf(sql + o, sizeof sql - o, ")");
    sqlite3_stmt *s = NULL, *ms = NULL;
    if (sqlite3_prepare_v2(db->h, sql, -1, &s, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db->h, "INSERT INTO meters VALUES (?, ?, ?, ?, ?)", -1, &ms, NULL) != SQLITE_OK) {
        sqlite3_finalize(s);
        return fail(db, t->name, err, errlen);
    }
    int rc = 0;
    for (int r = 0; r < n && rc == 0; r++) {
        const char *row = (const char *)rows + t->row_size * (size_t)r;
        sqlite3_reset(s);
        sqlite3_bind_text(s, 1, run, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(s, 2, r);
        for (int i = 0; i < t->ncols; i++) bind_column(s, i + 3, &t->cols[i], row);
        if (sqlite3_step(s) != SQLITE_DONE) rc = -1;
        else if (t->meter_off >= 0) rc = insert_meters(db, run, t->name, r, mn, (const double *)(row + t->meter_off), ms);
    }
    if (rc) fail(db, t->name, err, errlen);
    sqlite3_finalize(s);
    sqlite3_finalize(ms);
    return rc;
}

static int insert_texts(bb_db *db, const char *run, const bb_run_tables *t, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->h, "INSERT INTO run_files VALUES (?, ?, ?, ?)", -1, &s, NULL) != SQLITE_OK)
        return fail(db, "run_files", err, errlen);
    int rc = 0;
    for (int i = 0; i < t->ntexts && rc == 0; i++) {
        sqlite3_reset(s);
        sqlite3_bind_text(s, 1, run, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 2, t->texts[i].name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 3, t->texts[i].sha256, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 4, t->texts[i].text, (int)t->texts[i].len, SQLITE_TRANSIENT);
        if (sqlite3_step(s) != SQLITE_DONE) rc = -1;
    }
    if (rc) fail(db, "run_files", err, errlen);
    sqlite3_finalize(s);
    return rc;
}

static void join_names(const bb_meter_names *mn, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < mn->n && o < len; i++) o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "", mn->names[i]);
}

/* The runs row: what run.json says of the run, machine and build. */
static int insert_run(bb_db *db, const char *run, const bb_run_tables *t, const char *source, char *err,
                      size_t errlen)
{
    char why[256], rmeters[2200], emeters[2200], files[128], now[32];
    bb_jv *j = t->run_json ? bb_json_parse(t->run_json, why, sizeof why) : NULL;
    const bb_jv *tool = bb_jv_get(j, "tool"), *build = bb_jv_get(j, "build"), *mach = bb_jv_get(j, "machine");
    const char *commit = bb_jv_str(tool, "git_commit");
    char base[64] = "";
    snprintf(base, sizeof base, "%s", commit ? commit : "");
    size_t bl = strlen(base);
    int dirty = bl > 6 && !strcmp(base + bl - 6, "-dirty");
    if (dirty) base[bl - 6] = 0;
    join_names(&t->row_meters, rmeters, sizeof rmeters);
    join_names(&t->e2e_meters, emeters, sizeof emeters);
    snprintf(files, sizeof files, "%s%s%s%s%s", t->has_results ? "results.csv " : "", t->has_e2e ? "e2e.csv " : "",
             t->has_samples ? "samples.csv " : "", t->has_e2e_samples ? "e2e_samples.csv " : "",
             t->run_json ? "run.json" : "");
    bb_iso_time(now);
    const char *vals[] = {run, bb_jv_str(j, "run_id"), bb_jv_str(bb_jv_get(j, "experiment"), "name"),
                          commit ? base : NULL, NULL, bb_jv_str(j, "host"), bb_jv_str(mach, "cpu_model"),
                          bb_jv_str(mach, "flags"), bb_jv_str(build, "compiler"), bb_jv_str(build, "c_flags"),
                          bb_jv_str(j, "started_at"), bb_jv_str(j, "ended_at"), bb_jv_str(j, "status"), source,
                          now, files, rmeters, emeters, t->run_json};
    sqlite3_stmt *s;
    int rc = -1;
    if (sqlite3_prepare_v2(db->h, "INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &s, NULL) ==
        SQLITE_OK) {
        for (int i = 0; i < 19; i++) {
            if (i == 4) {
                if (commit) sqlite3_bind_int(s, 5, dirty);
                else sqlite3_bind_null(s, 5);
            } else if (vals[i]) sqlite3_bind_text(s, i + 1, vals[i], -1, SQLITE_TRANSIENT);
            else sqlite3_bind_null(s, i + 1);
        }
        rc = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
        sqlite3_finalize(s);
    }
    bb_jv_free(j);
    return rc ? fail(db, "runs", err, errlen) : 0;
}

static int delete_run(bb_db *db, const char *run)
{
    static const char *const tables[] = {"runs", "points", "e2e_points", "meters", "samples", "e2e_samples", "run_files"};
    for (int i = 0; i < 7; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE run = ?", tables[i]);
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(db->h, sql, -1, &s, NULL) != SQLITE_OK) return -1;
        sqlite3_bind_text(s, 1, run, -1, SQLITE_TRANSIENT);
        int rc = sqlite3_step(s);
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE) return -1;
    }
    return 0;
}

int bb_db_put_run(bb_db *db, const bb_run_tables *t, const char *fallback_key, const char *source, char *run_out,
                  size_t run_len, char *err, size_t errlen)
{
    char run[BB_DB_KEY_MAX] = "", why[256];
    bb_jv *j = t->run_json ? bb_json_parse(t->run_json, why, sizeof why) : NULL;
    const char *id = bb_jv_str(j, "run_id");
    snprintf(run, sizeof run, "%s", id && *id ? id : fallback_key);
    bb_jv_free(j);
    if (exec(db, "BEGIN IMMEDIATE", err, errlen)) return -1;
    int rc = delete_run(db, run) ? fail(db, "replacing the run", err, errlen) : 0;
    if (rc == 0) rc = insert_run(db, run, t, source, err, errlen);
    db_table k[4] = {table_of(0), table_of(1), table_of(2), table_of(3)};
    if (rc == 0) rc = insert_rows(db, run, &k[0], t->rows, t->nrows, &t->row_meters, err, errlen);
    if (rc == 0) rc = insert_rows(db, run, &k[1], t->e2e, t->ne2e, &t->e2e_meters, err, errlen);
    if (rc == 0) rc = insert_rows(db, run, &k[2], t->samples, t->nsamples, NULL, err, errlen);
    if (rc == 0) rc = insert_rows(db, run, &k[3], t->e2e_samples, t->ne2e_samples, NULL, err, errlen);
    if (rc == 0) rc = insert_texts(db, run, t, err, errlen);
    char e2[1400];
    if (rc == 0) rc = exec(db, "COMMIT", err, errlen);
    else exec(db, "ROLLBACK", e2, sizeof e2);
    if (rc == 0 && run_out) snprintf(run_out, run_len, "%s", run);
    return rc;
}

int bb_db_import_dir(bb_db *db, const char *dir, char *run_out, size_t run_len, char *err, size_t errlen)
{
    bb_run_tables t;
    if (bb_run_tables_read(dir, &t, err, errlen)) return -1;
    char base[BB_DB_KEY_MAX];
    const char *slash = strrchr(dir, '/');
    while (slash && slash[1] == 0 && slash > dir) { /* "runs/x/" names x */
        const char *p = slash - 1;
        while (p > dir && *p != '/') p--;
        slash = *p == '/' ? p : NULL;
    }
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : dir);
    base[strcspn(base, "/")] = 0;
    int rc = bb_db_put_run(db, &t, base, dir, run_out, run_len, err, errlen);
    bb_run_tables_free(&t);
    return rc;
}

/* ---- reading ---- */

static void read_column(sqlite3_stmt *s, int idx, const bb_column *c, char *row)
{
    char *p = row + c->offset;
    int null = sqlite3_column_type(s, idx) == SQLITE_NULL;
    if (c->kind == BB_COL_STR) snprintf(p, c->size, "%s", null ? "" : (const char *)sqlite3_column_text(s, idx));
    else if (c->kind == BB_COL_INT) *(int *)p = sqlite3_column_int(s, idx);
    else *(double *)p = null ? NAN : sqlite3_column_double(s, idx);
}

static void split_names(const char *list, bb_meter_names *mn)
{
    mn->n = 0;
    while (list && *list && mn->n < BB_MAX_METER_VALUES) {
        size_t l = strcspn(list, ",");
        snprintf(mn->names[mn->n++], BB_METER_NAME_MAX, "%.*s", (int)l, list);
        list += l + (list[l] == ',');
    }
}

/* The meter cells of a table's rows, by name into their place in mn. */
static int read_meters(bb_db *db, const char *run, const db_table *t, char *rows, int n, const bb_meter_names *mn)
{
    for (int r = 0; r < n; r++) {
        double *v = (double *)(rows + t->row_size * (size_t)r + t->meter_off);
        for (int m = 0; m < mn->n; m++) v[m] = NAN;
        *(int *)(rows + t->row_size * (size_t)r + (t->meter_off == (long)offsetof(bb_result_row, meter)
                                                       ? (long)offsetof(bb_result_row, nmeter)
                                                       : (long)offsetof(bb_e2e_row, nmeter))) = mn->n;
    }
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->h, "SELECT seq, name, value FROM meters WHERE run = ? AND tbl = ?", -1, &s, NULL) !=
        SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, run, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, t->name, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int seq = sqlite3_column_int(s, 0);
        const char *name = (const char *)sqlite3_column_text(s, 1);
        for (int m = 0; m < mn->n && seq >= 0 && seq < n && name; m++)
            if (!strcmp(mn->names[m], name) && sqlite3_column_type(s, 2) != SQLITE_NULL)
                ((double *)(rows + t->row_size * (size_t)seq + t->meter_off))[m] = sqlite3_column_double(s, 2);
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int read_rows(bb_db *db, const char *run, const db_table *t, void **rows, int *n, const bb_meter_names *mn)
{
    char sql[8192];
    size_t o = (size_t)snprintf(sql, sizeof sql, "SELECT seq");
    for (int i = 0; i < t->ncols; i++) o += (size_t)snprintf(sql + o, sizeof sql - o, ", \"%s\"", t->cols[i].name);
    snprintf(sql + o, sizeof sql - o, " FROM %s WHERE run = ? ORDER BY seq", t->name);
    sqlite3_stmt *s;
    *rows = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db->h, sql, -1, &s, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(s, 1, run, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        char *row = bb_run_tables_grow(rows, n, t->row_size);
        if (!row) break;
        for (int i = 0; i < t->ncols; i++) read_column(s, i + 1, &t->cols[i], row);
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) return -1;
    return t->meter_off >= 0 ? read_meters(db, run, t, *rows, *n, mn) : 0;
}

/* The run's texts, each checked against its stored sha256 (a text changed in the file is refused,
 * not handed on as the run's). */
static int read_texts(bb_db *db, const char *run, bb_run_tables *t, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->h, "SELECT name, sha256, text FROM run_files WHERE run = ? ORDER BY name", -1, &s,
                           NULL) != SQLITE_OK)
        return fail(db, "run_files", err, errlen);
    sqlite3_bind_text(s, 1, run, -1, SQLITE_TRANSIENT);
    int rc, bad = 0;
    while (!bad && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(s, 0), *sha = (const char *)sqlite3_column_text(s, 1);
        const char *text = (const char *)sqlite3_column_text(s, 2);
        size_t len = (size_t)sqlite3_column_bytes(s, 2);
        if (!name || !sha || !text || len > BB_RUN_TEXT_MAX_BYTES) {
            snprintf(err, errlen, "%s: run %s: a stored text is empty or larger than %llu bytes", db->path, run,
                     (unsigned long long)BB_RUN_TEXT_MAX_BYTES);
            bad = 1;
        } else if (bb_run_texts_add(&t->texts, &t->ntexts, name, text, len, err, errlen)) {
            bad = 1;
        } else if (strcmp(t->texts[t->ntexts - 1].sha256, sha)) {
            snprintf(err, errlen, "%s: run %s: the stored %s does not match its stored sha256 %s", db->path, run, name,
                     sha);
            bad = 1;
        }
    }
    sqlite3_finalize(s);
    if (bad) return -1;
    return rc == SQLITE_DONE ? 0 : fail(db, "run_files", err, errlen);
}

int bb_db_load_run(bb_db *db, const char *run, bb_run_tables *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->h, "SELECT files, result_meters, e2e_meters, run_json FROM runs WHERE run = ?", -1, &s,
                           NULL) != SQLITE_OK)
        return fail(db, "runs", err, errlen);
    sqlite3_bind_text(s, 1, run, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) != SQLITE_ROW) {
        sqlite3_finalize(s);
        snprintf(err, errlen, "%s has no run '%s' (bitbench db list shows the runs)", db->path, run);
        return -1;
    }
    const char *files = (const char *)sqlite3_column_text(s, 0);
    files = files ? files : "";
    t->has_results = strstr(files, "results.csv") != NULL;
    t->has_e2e = strstr(files, " e2e.csv") != NULL || !strncmp(files, "e2e.csv", 7);
    t->has_samples = strstr(files, " samples.csv") != NULL || !strncmp(files, "samples.csv", 11);
    t->has_e2e_samples = strstr(files, "e2e_samples.csv") != NULL;
    split_names((const char *)sqlite3_column_text(s, 1), &t->row_meters);
    split_names((const char *)sqlite3_column_text(s, 2), &t->e2e_meters);
    if (sqlite3_column_type(s, 3) != SQLITE_NULL) t->run_json = strdup((const char *)sqlite3_column_text(s, 3));
    sqlite3_finalize(s);
    db_table k[4] = {table_of(0), table_of(1), table_of(2), table_of(3)};
    if (read_rows(db, run, &k[0], (void **)&t->rows, &t->nrows, &t->row_meters) ||
        read_rows(db, run, &k[1], (void **)&t->e2e, &t->ne2e, &t->e2e_meters) ||
        read_rows(db, run, &k[2], (void **)&t->samples, &t->nsamples, NULL) ||
        read_rows(db, run, &k[3], (void **)&t->e2e_samples, &t->ne2e_samples, NULL)) {
        bb_run_tables_free(t);
        return fail(db, "reading a run", err, errlen);
    }
    if (read_texts(db, run, t, err, errlen)) {
        bb_run_tables_free(t);
        return -1;
    }
    return 0;
}

int bb_db_find_runs(bb_db *db, const char *id, char ***runs, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    *runs = NULL;
    if (sqlite3_prepare_v2(db->h,
                           "SELECT run FROM runs WHERE run = ?1 UNION ALL SELECT run FROM (SELECT run FROM runs "
                           "WHERE NOT EXISTS (SELECT 1 FROM runs WHERE run = ?1) AND substr(\"commit\", 1, length(?1)) "
                           "= ?1 AND length(?1) >= 4 ORDER BY started_at DESC)",
                           -1, &s, NULL) != SQLITE_OK)
        return fail(db, "runs", err, errlen);
    sqlite3_bind_text(s, 1, id, -1, SQLITE_TRANSIENT);
    int n = 0, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        char **slot = bb_run_tables_grow((void **)runs, &n, sizeof **runs);
        if (!slot || !(*slot = strdup((const char *)sqlite3_column_text(s, 0)))) break;
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? n : fail(db, "runs", err, errlen);
}

int bb_db_runs(bb_db *db, char ***runs, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    *runs = NULL;
    if (sqlite3_prepare_v2(db->h, "SELECT run FROM runs ORDER BY started_at, run", -1, &s, NULL) != SQLITE_OK)
        return fail(db, "runs", err, errlen);
    int n = 0, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        char **slot = bb_run_tables_grow((void **)runs, &n, sizeof **runs);
        if (!slot || !(*slot = strdup((const char *)sqlite3_column_text(s, 0)))) break;
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? n : fail(db, "runs", err, errlen);
}

int bb_db_list(bb_db *db, FILE *f, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->h,
                           "SELECT run, \"commit\", dirty, host, experiment, started_at, (SELECT count(*) FROM points p "
                           "WHERE p.run = r.run), (SELECT count(*) FROM e2e_points e WHERE e.run = r.run) FROM runs r "
                           "ORDER BY started_at, run",
                           -1, &s, NULL) != SQLITE_OK)
        return fail(db, "runs", err, errlen);
    fprintf(f, "run\tcommit\thost\texperiment\tstarted_at\tpoints\te2e_points\n");
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *c[6];
        for (int i = 0; i < 6; i++) c[i] = sqlite3_column_type(s, i) == SQLITE_NULL ? "" : (const char *)sqlite3_column_text(s, i);
        fprintf(f, "%s\t%s%s\t%s\t%s\t%s\t%d\t%d\n", c[0], c[1], !strcmp(c[2], "1") ? "-dirty" : "", c[3], c[4], c[5],
                sqlite3_column_int(s, 6), sqlite3_column_int(s, 7));
    }
    sqlite3_finalize(s);
    return 0;
}

#else /* built without SQLite */

static const char *no_sqlite = "this bitbench was built without SQLite (install libsqlite3-dev, e.g. with "
                               "scripts/bootstrap, and rebuild) so it has no results database";

static bb_db *db_open(const char *path, bool may_write, char *err, size_t errlen)
{
    (void)may_write;
    snprintf(err, errlen, "%s: %s", path, no_sqlite);
    return NULL;
}
void bb_db_close(bb_db *db) { (void)db; }
int bb_db_put_run(bb_db *db, const bb_run_tables *t, const char *fallback_key, const char *source, char *run_out,
                  size_t run_len, char *err, size_t errlen)
{
    (void)db, (void)t, (void)fallback_key, (void)source, (void)run_out, (void)run_len;
    snprintf(err, errlen, "%s", no_sqlite);
    return -1;
}
int bb_db_import_dir(bb_db *db, const char *dir, char *run_out, size_t run_len, char *err, size_t errlen)
{
    (void)db, (void)dir, (void)run_out, (void)run_len;
    snprintf(err, errlen, "%s", no_sqlite);
    return -1;
}
int bb_db_load_run(bb_db *db, const char *run, bb_run_tables *t, char *err, size_t errlen)
{
    (void)db, (void)run, (void)t;
    snprintf(err, errlen, "%s", no_sqlite);
    return -1;
}
int bb_db_find_runs(bb_db *db, const char *id, char ***runs, char *err, size_t errlen)
{
    (void)db, (void)id, (void)runs;
    snprintf(err, errlen, "%s", no_sqlite);
    return -1;
}
int bb_db_runs(bb_db *db, char ***runs, char *err, size_t errlen)
{
    (void)db;
    *runs = NULL;
    snprintf(err, errlen, "%s", no_sqlite);
    return -1;
}
int bb_db_list(bb_db *db, FILE *f, char *err, size_t errlen)
{
    (void)db, (void)f;
    snprintf(err, errlen, "%s", no_sqlite);
    return -1;
}
#endif

bb_db *bb_db_open(const char *path, char *err, size_t errlen)
{
    return db_open(path, true, err, errlen);
}

bb_db *bb_db_open_read(const char *path, char *err, size_t errlen)
{
    return db_open(path, false, err, errlen);
}
