/* llama.cpp's test-backend-ops as a kernel-level peer: `test-backend-ops perf -o MUL_MAT -b CPU`
 * and its text output (it has no JSON; later versions add `--output sql|csv`, whose CSV at the
 * time of writing lacks the timings, ggml-org/llama.cpp #27904).
 *
 * What it prints, one line per case (tests/test-backend-ops.cpp, test_case::eval_perf), e.g. at
 * c392e5094:
 *
 *   MUL_MAT(type_a=q4_0,type_b=f32,m=4096,n=1,k=14336,bs=[1,1],nr=[1,1],per=[0,1,2,3]):   69 runs
 *     - 17087.36 us/run - 117.44 MFLOP/run - ESC[1;34m  6.87 GFLOPS ESC[0m
 *
 * (one line; the rate is coloured with ANSI escapes), or "not supported" for a type the backend
 * lacks.  Later versions append " - X GB/s" or print TFLOPS; both are read.
 *
 * What it cannot be told: the shapes.  Its perf cases are compiled in (make_test_cases_perf; at
 * c392e5094 MUL_MAT m=4096, k=14336, n = 1, 2, 3, 4, 5, 8, 512, every type but TQ1_0/TQ2_0) and
 * it has no option to choose m/n/k (later versions filter cases with -p REGEX, not define them).
 * So bitbench runs all its MUL_MAT cases once and keeps those whose type and shape are a sweep
 * point's.  Its threads: the CPU backend is given std::thread::hardware_concurrency() threads,
 * i.e. every online CPU; there is no option for that either. */
#ifndef BB_BACKEND_OPS_H
#define BB_BACKEND_OPS_H

#include <stddef.h>

typedef struct {
    char type_a[16], type_b[16];   /* as printed: q4_0, f32 */
    long m, n, k;
    long runs;
    double us_per_run;
    double gflops;                 /* as printed, in GFLOP/s */
} bb_backend_ops_case;

typedef struct {
    char device[160];              /* its "Device description:" line (the CPU's name) */
    bb_backend_ops_case *cases;    /* malloc'd */
    int ncases;
    int unsupported;               /* cases it printed as "not supported" */
} bb_backend_ops_result;

/* The arguments after argv[0]: perf -o MUL_MAT -b CPU, NULL-terminated. */
extern const char *const bb_backend_ops_args[];

/* Parse the program's stdout.  Every MUL_MAT line with a timing becomes a case; a MUL_MAT line
 * whose timing or parameters cannot be read is an error (its line number and what was wrong), as
 * is an output with no timed MUL_MAT line at all.  Returns 0, or -1 with err (r freed). */
int bb_backend_ops_parse(const char *out, bb_backend_ops_result *r, char *err, size_t errlen);
void bb_backend_ops_result_free(bb_backend_ops_result *r);

/* The case of this type (type_b f32) and shape, or NULL. */
const bb_backend_ops_case *bb_backend_ops_find(const bb_backend_ops_result *r, const char *type_a, long m, long n,
                                               long k);

/* "m=4096 k=14336 n=1,2,3,4,5,8,512" for the cases it ran (for messages about shapes it lacks). */
void bb_backend_ops_shapes(const bb_backend_ops_result *r, char *buf, size_t len);

#endif
