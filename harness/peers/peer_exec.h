/* Running a peer's program (llama.cpp's llama-bench, test-backend-ops) to completion with a time
 * limit, its stdout and stderr captured.
 *
 * The program runs in a process group of its own, stdin from /dev/null.  When the limit passes,
 * the whole group gets SIGTERM and, 1 s later, SIGKILL: a peer that hangs (or left a child holding
 * the pipes open) costs the sweep the limit, never the rest of the run. */
#ifndef BB_PEER_EXEC_H
#define BB_PEER_EXEC_H

#include <stdbool.h>
#include <stddef.h>

/* Each stream keeps its first BB_EXEC_MAX_OUTPUT bytes; the rest is read and dropped. */
#define BB_EXEC_MAX_OUTPUT (16u << 20)

typedef struct {
    char *out, *err;       /* stdout and stderr, NUL-terminated (never NULL after a 0 return) */
    size_t out_len, err_len;
    bool timed_out;        /* killed because the limit passed */
    bool exited;           /* exited by itself; exit_code is its status */
    int exit_code;
    int signal;            /* the signal that ended it, when not exited */
    double seconds;        /* wall time from start to end */
} bb_exec_result;

/* Runs argv[0] (a path; no PATH search) with argv, NULL-terminated, on the CPUs cpus[0..ncpus)
 * (its affinity mask, set in the child before exec), or, with ncpus 0, on every CPU this process
 * was allowed at start-up (support/affinity.h: taskset, Slurm, a cgroup cpuset): a peer runs
 * where bitbench's own points may, never on CPUs the job does not own.  Returns 0 once the program
 * has ended, however it ended (see the result), or -1 with err when it could not be started (not
 * executable, fork or pipe failed).  timeout_s <= 0 means no limit. */
int bb_exec_capture(char *const argv[], double timeout_s, const int *cpus, int ncpus, bb_exec_result *r, char *err,
                    size_t errlen);

/* Those CPUs (as bb_exec_capture reads cpus and ncpus), ';'-separated in ascending order as the
 * cpus column of results.csv and e2e.csv writes them: "0;1". */
void bb_exec_cpus_text(const int *cpus, int ncpus, char *buf, size_t len);
void bb_exec_result_free(bb_exec_result *r);

/* One line saying how a program that did not succeed ended: "timed out after 5 s", "exited with
 * status 3", "killed by signal 11"; then its last non-empty stderr line (else stdout's), quoted. */
void bb_exec_describe(const bb_exec_result *r, double timeout_s, char *buf, size_t len);

#endif
