/* --db FILE.sqlite on run, gemm and e2e: what each stores into the results database
 * (results_db.h).  `run` stores its run directory when the run ends (interrupted runs too: they
 * say "incomplete"); `gemm` and `e2e` have no run directory, so their one row, its samples and a
 * sidecar of their own (run_id, host, command line, tool, build, machine) are stored as a run of
 * experiment "gemm" or "e2e". */
#ifndef BB_RUN_DB_H
#define BB_RUN_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "results/provenance.h"
#include "results/run_tables.h"
#include "support/machine.h"

/* Open and check the database before any work (a foreign or corrupt file is refused then, not
 * after the measurement).  Returns 0, or -1 after one line on stderr prefixed by `who`. */
int bb_run_db_check(const char *who, const char *path);
/* Store a run directory.  Returns 0, or -1 after one line on stderr. */
int bb_run_db_store_dir(const char *who, const char *path, const char *dir, bool quiet);

/* A single measurement of gemm or e2e, as a run. */
typedef struct {
    char run_id[BB_RUN_ID_MAX], host[64], started_at[32];
    char cpu_model[128];       /* the machine's, for its row's cpu_model column */
    bb_load_reading load;
    int threads;               /* the pool's size and bb_pool_placement (run.json's placement), */
    char placement[1024];      /* set by the command before storing; "" leaves placement out */
} bb_single_run;

/* Its id, start and CPU model, and a load reading before the measurement. */
void bb_single_run_begin(bb_single_run *s, const bb_machine *mach);
/* The provenance columns of its row: the run and the load since bb_single_run_begin. */
void bb_single_run_provenance(const bb_single_run *s, bb_row_provenance *p);
/* Store t (its rows filled by the command) with a sidecar made here.  Returns 0, or -1 after one
 * line on stderr. */
int bb_single_run_store(const char *who, const char *path, const bb_single_run *s, int argc, char **argv,
                        const bb_machine *mach, bb_run_tables *t, bool quiet);

#endif
