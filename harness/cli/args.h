/* Strict command-line value parsing: a bad value is one error line naming the option, the value
 * and what is valid. */
#ifndef BB_ARGS_H
#define BB_ARGS_H

#include <stdint.h>

#include "models/kv_type.h"

/* Parse an integer in [lo, hi]; on error print "bitbench: OPTION: ..." and return -1. */
int bb_parse_int(const char *opt, const char *s, long lo, long hi, int *out);
int bb_parse_u64(const char *opt, const char *s, uint64_t *out);
int bb_parse_double(const char *opt, const char *s, double lo, double hi, double *out);
/* A list of integers in [lo, hi]: "1,2,4", ranges "1-4", or both ("1,2,8-10"); duplicates are
 * refused.  *out is malloc'd. */
int bb_parse_int_list(const char *opt, const char *s, long lo, long hi, int **out, int *count);

/* --cpus LIST ("0,2-3"): CPU numbers, each one this process may run on (support/affinity.h), made
 * the CPUs every pool of the process uses, thread t on the t-th.  *out is malloc'd.  On error print
 * "bitbench: --cpus 5: CPU 5 is not one this process may run on (affinity mask 0-1)" and return -1. */
int bb_parse_cpus(const char *s, int **out, int *count);
/* Can the pools place `threads` threads (on --cpus, else on the allowed CPUs)?  If not, print
 * "bitbench: OPTION THREADS: this process may run on 1 CPU (affinity mask 1); valid: 1..1" and
 * return -1. */
int bb_check_threads(const char *opt, int threads);

/* OPT is --kv (keys and values), --kv-type-k or --kv-type-v: parse S into the KV cache type(s) it
 * sets; on error print "bitbench CMD: OPT: ..." and return -1.  e2e, perplexity and generate share it. */
int bb_parse_kv_option(const char *cmd, const char *opt, const char *s, bb_kv_type *keys, bb_kv_type *values);

#endif
