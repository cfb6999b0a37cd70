#include "archive/run_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/results_db.h"
#include "io/json.h"
#include "run/results_json.h"
#include "support/output_file.h"

#include "bb_git_commit.h" /* generated at build time: BB_GIT_COMMIT */

int bb_run_db_check(const char *who, const char *path)
{
    char err[2048];
    /* before the measurement: the database must be a regular file (or absent) in a folder that
     * takes new files (SQLite's journal goes beside it) */
    bb_db *db = bb_output_check(path, err, sizeof err) ? NULL : bb_db_open(path, err, sizeof err);
    if (!db) {
        fprintf(stderr, "%s: --db: %s\n", who, err);
        return -1;
    }
    bb_db_close(db);
    return 0;
}

int bb_run_db_store_dir(const char *who, const char *path, const char *dir, bool quiet)
{
    char err[2048], run[BB_DB_KEY_MAX];
    bb_db *db = bb_db_open(path, err, sizeof err);
    int rc = db ? bb_db_import_dir(db, dir, run, sizeof run, err, sizeof err) : -1;
    bb_db_close(db);
    if (rc) fprintf(stderr, "%s: --db: %s\n", who, err);
    else if (!quiet) fprintf(stderr, "%s: stored as run %s in %s\n", who, run, path);
    return rc;
}

void bb_single_run_begin(bb_single_run *s, const bb_machine *mach)
{
    snprintf(s->cpu_model, sizeof s->cpu_model, "%s", mach->cpu_model);
    bb_run_id_new(s->run_id, sizeof s->run_id);
    bb_host_name(s->host, sizeof s->host);
    bb_iso_time(s->started_at);
    bb_load_read(&s->load);
    s->threads = 0;
    s->placement[0] = 0;
}

void bb_single_run_provenance(const bb_single_run *s, bb_row_provenance *p)
{
    bb_load_reading now;
    bb_load_around around;
    bb_load_read(&now);
    bb_load_between(&s->load, &now, &around);
    snprintf(p->run_id, sizeof p->run_id, "%s", s->run_id);
    snprintf(p->host, sizeof p->host, "%s", s->host);
    snprintf(p->commit, sizeof p->commit, "%s", BB_GIT_COMMIT);
    snprintf(p->cpu_model, sizeof p->cpu_model, "%s", s->cpu_model);
    p->load_before = around.load_before;
    p->load_after = around.load_after;
    p->other_cpu_share = around.other_cpu_share;
    p->busy = around.busy;
}

/* The sidecar of a single measurement: run.json's identity, command line, tool, build, machine and
 * placement. */
static char *single_json(const bb_single_run *s, const char *experiment, int argc, char **argv,
                         const bb_machine *mach)
{
    char *text = NULL, now[32];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    bb_iso_time(now);
    bb_json j;
    bb_json_init(&j, f);
    bb_json_object_begin(&j, NULL);
    bb_json_int(&j, "schema_version", 1);
    bb_json_string(&j, "run_id", s->run_id);
    bb_json_string(&j, "host", s->host);
    bb_json_write_provenance(&j, mach);
    bb_json_array_begin(&j, "command_line");
    for (int i = 0; i < argc; i++) bb_json_string(&j, NULL, argv[i]);
    bb_json_array_end(&j);
    bb_json_object_begin(&j, "experiment");
    bb_json_string(&j, "name", experiment);
    bb_json_object_end(&j);
    if (s->placement[0]) {
        char key[16];
        snprintf(key, sizeof key, "%d", s->threads);
        bb_json_object_begin(&j, "placement");
        bb_json_string(&j, key, s->placement);
        bb_json_object_end(&j);
    }
    bb_json_string(&j, "status", "complete");
    bb_json_string(&j, "started_at", s->started_at);
    bb_json_string(&j, "ended_at", now);
    bb_json_object_end(&j);
    fputc('\n', f);
    fclose(f);
    return text;
}

int bb_single_run_store(const char *who, const char *path, const bb_single_run *s, int argc, char **argv,
                        const bb_machine *mach, bb_run_tables *t, bool quiet)
{
    char err[2048], run[BB_DB_KEY_MAX];
    const char *experiment = strstr(who, "e2e") ? "e2e" : "gemm";
    free(t->run_json);
    t->run_json = single_json(s, experiment, argc, argv, mach);
    bb_db *db = t->run_json ? bb_db_open(path, err, sizeof err) : NULL;
    if (!t->run_json) snprintf(err, sizeof err, "out of memory");
    int rc = db ? bb_db_put_run(db, t, s->run_id, who, run, sizeof run, err, sizeof err) : -1;
    bb_db_close(db);
    if (rc) fprintf(stderr, "%s: --db: %s\n", who, err);
    else if (!quiet) fprintf(stderr, "%s: stored as run %s in %s\n", who, run, path);
    return rc;
}
