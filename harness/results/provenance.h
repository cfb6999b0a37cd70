/* Where and under what conditions a result was measured, recorded with every row so that rows
 * from many runs, commits and machines can sit in one table (samples.csv, the results database)
 * and still say where they came from.
 *
 * Run id: unique per run (a resumed run keeps its own), "<UTC time>-<host>-<8 hex digits>", in
 * run.json and in every row of results.csv, e2e.csv and the samples files.
 *
 * Load around a point: the 1-minute load average (/proc/loadavg) before and after it, and the
 * share of all CPUs' time that other processes took while it ran: from /proc/stat, the busy
 * jiffies (user, nice, system, irq, softirq, steal) of the whole machine minus this process's own
 * (utime + stime of /proc/self/stat, all its threads), over the machine's total jiffies in the
 * interval.  A point is flagged busy when that share exceeds BB_BUSY_SHARE: a neighbour then had
 * more than a tenth of the machine, enough to move a memory-bound kernel's time by more than its
 * usual spread.  Where /proc cannot be read the numbers are NAN (empty cells) and nothing is
 * flagged. */
#ifndef BB_PROVENANCE_H
#define BB_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#define BB_RUN_ID_MAX 48
#define BB_BUSY_SHARE 0.10

/* A new run id into buf (BB_RUN_ID_MAX bytes). */
void bb_run_id_new(char *buf, size_t len);
/* This machine's host name (the part before the first '.'), "unknown" when it has none. */
void bb_host_name(char *buf, size_t len);

/* One reading of the machine's load. */
typedef struct {
    double loadavg1;                 /* NAN when unreadable */
    unsigned long long total, busy;  /* /proc/stat "cpu" line, jiffies; 0 when unreadable */
    unsigned long long self;         /* utime + stime of this process and its waited-for children, jiffies */
} bb_load_reading;

/* The load around one point. */
typedef struct {
    double load_before, load_after;  /* 1-minute load averages */
    double other_cpu_share;          /* 0..1; NAN when unknown */
    int busy;                        /* 1 when other_cpu_share > BB_BUSY_SHARE */
} bb_load_around;

/* The provenance columns of every results.csv and e2e.csv row: the run, where it ran (host and CPU
 * model), which build, and the load around the point.  The rest of the provenance (compiler and
 * flags, CPU flags, caches, placement) is the run's, in run.json and the database's runs table,
 * found by run_id. */
typedef struct {
    char run_id[BB_RUN_ID_MAX], host[64], commit[48];
    char cpu_model[128];             /* bb_machine's cpu_model; its own column, last (BB_CPU_MODEL_COLUMN) */
    double load_before, load_after, other_cpu_share;
    int busy;
} bb_row_provenance;

/* Its columns in a row type T with a bb_row_provenance member named prov (for the column tables
 * of csv.h). */
#define BB_PROVENANCE_COLUMNS(T)                                                                                   \
    BB_COLUMN(T, "run_id", BB_COL_STR, prov.run_id,                                                                \
              "the run: run.json's run_id (UTC start, host, 32 random bits; a resumed run keeps its id)"),         \
    BB_COLUMN(T, "host", BB_COL_STR, prov.host, "host name of the machine"),                                        \
    BB_COLUMN(T, "commit", BB_COL_STR, prov.commit, "bitbench's build commit, -dirty when built from changed files"), \
    BB_COLUMN(T, "load_before", BB_COL_NUM, prov.load_before,                                          \
                  "1-minute load average (/proc/loadavg) before the point"),                                       \
    BB_COLUMN(T, "load_after", BB_COL_NUM, prov.load_after, "1-minute load average after the point"),    \
    BB_COLUMN(T, "other_cpu_share", BB_COL_NUM, prov.other_cpu_share,                                  \
                  "share of all CPUs' time other processes took while the point ran: /proc/stat's busy jiffies "   \
                  "of the machine minus this process's own (utime + stime of all its threads), over the "          \
                  "machine's jiffies; coarse on points shorter than a few hundred ms (a jiffy is 10 ms), empty "    \
                  "where /proc cannot be read"),                                                                   \
    BB_COLUMN(T, "busy", BB_COL_INT, prov.busy,                                                                    \
              "1 when other_cpu_share exceeded 0.10 (a neighbour had more than a tenth of the machine); the point " \
              "then has a line in run.json's warnings")

/* The CPU model's column, after a table's other fixed columns (added after them, so that the
 * columns before keep their places): a row read alone says which processor measured it. */
#define BB_CPU_MODEL_COLUMN(T)                                                                                     \
    BB_COLUMN(T, "cpu_model", BB_COL_STR, prov.cpu_model,                                                          \
              "the processor's model name (/proc/cpuinfo, as run.json's machine.cpu_model); empty in rows written " \
              "before this column")

void bb_load_read(bb_load_reading *r);
/* What happened between two readings. */
void bb_load_between(const bb_load_reading *before, const bb_load_reading *after, bb_load_around *out);

#endif
