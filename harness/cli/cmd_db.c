/* bitbench db: the results database (results_db.h) from the command line.
 *
 *   bitbench db import --db FILE.sqlite RUN_DIR...   store run directories (replacing earlier copies)
 *   bitbench db list   --db FILE.sqlite              one line per stored run
 *   bitbench db export --db FILE.sqlite RUN OUT_DIR  a stored run back into CSV files and run.json
 *
 * --db defaults to $BITBENCH_DB. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archive/results_db.h"
#include "cli/commands.h"
#include "results/run_tables.h"
#include "support/output_dir.h"
#include "support/term_text.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench db import --db FILE.sqlite RUN_DIR...\n"
               "       bitbench db list --db FILE.sqlite\n"
               "       bitbench db export --db FILE.sqlite RUN OUT_DIR\n"
               "(--db defaults to $BITBENCH_DB)\n");
}

static int import_dirs(bb_db *db, char **dirs, int n)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char err[2048], run[BB_DB_KEY_MAX];
        if (bb_db_import_dir(db, dirs[i], run, sizeof run, err, sizeof err)) {
            fprintf(stderr, "bitbench db import: %s\n", err);
            rc = 1;
        } else {
            printf("%s -> run %s\n", dirs[i], run);
        }
    }
    return rc;
}

static int export_run(bb_db *db, const char *run, const char *dir)
{
    char err[2048];
    bb_run_tables t;
    /* the folder (created when missing, as before) and every file it will hold, before anything
     * is written: a device, FIFO or folder in a file's place is refused, not written into */
    if (bb_output_dir_check(dir, true, bb_run_tables_files, err, sizeof err)) {
        fprintf(stderr, "bitbench db export: %s\n", err);
        return 1;
    }
    if (bb_db_load_run(db, run, &t, err, sizeof err) || bb_run_tables_write(dir, &t, err, sizeof err)) {
        fprintf(stderr, "bitbench db export: %s\n", err);
        bb_run_tables_free(&t);
        return 1;
    }
    bb_run_tables_free(&t);
    return 0;
}

int bb_cmd_db(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1], *path = getenv("BITBENCH_DB");
    char *args[256];
    int nargs = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc) path = argv[++i];
        else if (!strncmp(argv[i], "--db=", 5)) path = argv[i] + 5;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "bitbench db: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (nargs < 256) args[nargs++] = argv[i];
    }
    int want = !strcmp(sub, "list") ? 0 : !strcmp(sub, "export") ? 2 : !strcmp(sub, "import") ? -1 : -2;
    if (want == -2) {
        fprintf(stderr, "bitbench db: unknown sub-command '%s'; valid: import, list, export\n", sub);
        return 2;
    }
    if (!path || !*path || (want >= 0 && nargs != want) || (want < 0 && nargs == 0)) {
        usage(stderr);
        return 2;
    }
    char err[2048];
    bb_db *db = bb_db_open(path, err, sizeof err);
    if (!db) {
        fprintf(stderr, "bitbench db %s: %s\n", sub, err);
        return 1;
    }
    int rc;
    if (want < 0) rc = import_dirs(db, args, nargs);
    else if (want == 2) rc = export_run(db, args[0], args[1]);
    else { /* the list names runs, hosts and CPUs of a database from anywhere: for a terminal */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        rc = !m || bb_db_list(db, m, err, sizeof err) ? 1 : 0;
        if (m && fclose(m) == 0) bb_term_fputs_lines(text, stdout);
        free(text);
        if (rc) fprintf(stderr, "bitbench db list: %s\n", m ? err : "out of memory");
    }
    bb_db_close(db);
    return rc;
}
