/* Where this process may run, and where its threads go.
 *
 * The allowed CPUs are the process's affinity mask as it was at start-up (sched_getaffinity: what
 * taskset, Slurm's task binding and a cgroup cpuset leave it), intersected with hwloc's allowed
 * cpuset when hwloc knows the machine.  The mask is read once, before any thread is bound: the
 * pool binds its calling thread to one CPU, after which sched_getaffinity says only that CPU.
 *
 * Threads are placed one per physical core first, then on the SMT siblings, over the allowed CPUs
 * only; or, with an explicit list (--cpus, a sweep's `cpus`), thread t on the list's t-th CPU. */
#ifndef BB_AFFINITY_H
#define BB_AFFINITY_H

#include <stdbool.h>
#include <stddef.h>

/* The largest CPU number the mask can hold (glibc's cpu_set_t). */
#define BB_AFFINITY_MAX_CPU 1023

/* Read the mask (the first call of any function here does it; main calls it first thing). */
void bb_affinity_init(void);
/* How many CPUs the process may run on (>= 1), and how many physical cores they span (>= 1). */
int bb_affinity_count(void);
int bb_affinity_cores(void);
bool bb_affinity_allows(int cpu);
/* The allowed CPUs as a list: "0-3,8". */
const char *bb_affinity_mask(void);
/* The hwloc core (its logical index) of an OS CPU number; -1 when hwloc does not place it. */
int bb_affinity_core_of(int cpu);

/* --cpus: the CPUs every pool of this process uses from now on, thread t on cpus[t] (the list is
 * copied; n 0 goes back to the default placement).  The caller has checked the list with
 * bb_affinity_check_cpus. */
void bb_affinity_set_cpus(const int *cpus, int n);
/* The list bb_affinity_set_cpus set, or NULL (and *n 0). */
const int *bb_affinity_cpus(int *n);

/* The CPU of thread t of a pool placed on `cpus` (n of them; NULL for the process's --cpus list,
 * else the default placement).  More threads than CPUs wrap around: the pool does not refuse them
 * (tests create small pools anywhere); commands refuse them first with bb_affinity_check_threads. */
int bb_affinity_cpu_for(int t, const int *cpus, int n);

/* 0 when nthreads threads fit on the CPUs a pool would use (`cpus`/n as above), else -1 with err:
 * "this process may run on 1 CPU (affinity mask 1); valid: 1..1" or "--cpus 0,2 names 2 CPUs;
 * valid: 1..2". */
int bb_affinity_check_threads(int nthreads, const int *cpus, int n, char *err, size_t errlen);
/* 0 when every CPU of the list is allowed, else -1 with err naming the first that is not. */
int bb_affinity_check_cpus(const int *cpus, int n, char *err, size_t errlen);

/* CPU numbers as a list: ascending runs collapsed ("0-3,8"), others as written ("3,1"). */
void bb_cpu_list_format(const int *cpus, int n, char *buf, size_t len);

#endif
