/* Meters: what is measured around a point's timed repetitions, besides the per-call wall time
 * the runner always takes.  A meter is a type (name, the result columns it produces, and four
 * functions) registered in one table (meter.c); an experiment names the meters it wants and
 * the runner opens each once per run.
 *
 * Honesty rules (docs/design.md; docs/measurement.md "Meters"): opening a meter probes whether this machine can give its
 * numbers; when it cannot, the meter stays in the run as unavailable with a reason code from a
 * fixed vocabulary (not_built, no_pmu, perf_paranoid, no_permission, not_intel, no_msr,
 * no_uncore, no_powercap, event_missing, no_attach, tool_missing, tool_failed) and a sentence, and
 * its columns are empty cells in CSV and null in JSON, never a made-up 0.  Each code has a remedy:
 * what would make the meter work, in words a user can act on (bb_meter_remedy).  An available
 * meter gives finite values >= 0 and measures at least one column; a meter that would measure
 * nothing on this machine must say so at open() and be unavailable.
 *
 * Protocol per point: begin() just before the first timed repetition, end() just after the
 * last, with the number of timed calls in between; end() writes one value per column (NAN when
 * a value could not be read).  No meter code runs inside a repetition. */
#ifndef BB_METER_H
#define BB_METER_H

#include <stdbool.h>
#include <stddef.h>

#define BB_METER_MAX_COLUMNS 8

typedef struct bb_meter bb_meter;

typedef struct {
    const char *name;        /* as written in experiment files: "timer" */
    const char *description; /* one line for `bitbench list meters` */
    int ncolumns;
    const char *columns[BB_METER_MAX_COLUMNS]; /* result column names, units in the name */
    /* Probe and set up: set m->available, or a reason code and reason.  Returns 0 even when
     * unavailable; -1 only on a hard error (out of memory), with m->reason set. */
    int (*open)(bb_meter *m);
    void (*begin)(bb_meter *m);
    void (*end)(bb_meter *m, int calls, double *values);
    void (*close)(bb_meter *m);
} bb_meter_type;

struct bb_meter {
    const bb_meter_type *type;
    bool available;
    char reason_code[32]; /* "" when available */
    char reason[256];
    void *state;          /* the meter's own */
};

int bb_meter_type_count(void);
const bb_meter_type *bb_meter_type_at(int i);
const bb_meter_type *bb_meter_type_by_name(const char *name);
/* "timer, ..." */
void bb_meter_type_names(char *buf, size_t len);

/* Whether `code` is one of the reason codes above. */
bool bb_meter_reason_known(const char *code);
/* What would make a meter unavailable for `code` work ("" for an unknown code). */
const char *bb_meter_remedy(const char *code);

/* Open a meter of the given type (probing availability). */
int bb_meter_open(bb_meter *m, const bb_meter_type *t);
void bb_meter_close(bb_meter *m);
/* Both do nothing for an unavailable meter; end() then fills NAN. */
void bb_meter_begin(bb_meter *m);
void bb_meter_end(bb_meter *m, int calls, double *values);

/* The meters of this build. */
extern const bb_meter_type bb_meter_timer;
extern const bb_meter_type bb_meter_papi; /* meters/meter_papi.c */
extern const bb_meter_type bb_meter_pcm;  /* meters/meter_pcm.c */
extern const bb_meter_type bb_meter_rapl; /* meters/meter_rapl.c */

#endif
