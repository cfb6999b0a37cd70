/* llama.cpp's test-backend-ops perf output as a kernel-level peer (harness/peers/backend_ops.h):
 * a real recorded output read case by case (ANSI colours stripped), cases found by type and
 * shape, the shapes it ran listed, later versions' line format, and bad outputs refused with the
 * line and what was wrong (tests/data/peers/README.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "files.h"
#include "peers/backend_ops.h"

static void test_recorded(const char *srcdir)
{
    char path[1200], err[300];
    snprintf(path, sizeof path, "%s/tests/data/peers/test_backend_ops_c392e50.txt", srcdir);
    char *text = slurp(path);
    CHECK(text != NULL, "%s", path);
    if (!text) return;
    bb_backend_ops_result r;
    CHECK(bb_backend_ops_parse(text, &r, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(r.device, "Intel(R) Xeon(R) Processor"), "device '%s'", r.device);
    /* 22 types (TQ1_0 and TQ2_0 are not among its perf cases at c392e5094) x 7 batch sizes */
    CHECK(r.ncases == 154 && r.unsupported == 0, "%d cases, %d not supported", r.ncases, r.unsupported);
    const bb_backend_ops_case *c = bb_backend_ops_find(&r, "q4_0", 4096, 1, 14336);
    CHECK(c && c->runs == 69 && c->us_per_run == 17087.36 && c->gflops == 6.87, "q4_0 n=1");
    c = bb_backend_ops_find(&r, "Q2_K", 4096, 1, 14336);
    CHECK(c && !strcmp(c->type_a, "q2_K") && c->runs == 138, "q2_K found by any case");
    CHECK(bb_backend_ops_find(&r, "f16", 4096, 512, 14336) != NULL, "prefill case n=512");
    CHECK(!bb_backend_ops_find(&r, "tq2_0", 4096, 1, 14336) && !bb_backend_ops_find(&r, "q4_0", 2560, 1, 2560),
          "no tq2_0 case, no 2560x2560 case");
    for (int i = 0; i < r.ncases; i++) {
        const bb_backend_ops_case *d = &r.cases[i];
        /* its GFLOPS is 2*m*n*k per run over the time per run, printed to 2 decimals */
        double g = 2.0 * d->m * d->n * d->k / (d->us_per_run * 1e3);
        if (fabs(g - d->gflops) > 0.006 + 1e-3 * g) {
            CHECK(0, "case %d: %g GFLOPS printed, %g from its time", i, d->gflops, g);
            break;
        }
    }
    char shapes[256];
    bb_backend_ops_shapes(&r, shapes, sizeof shapes);
    CHECK(!strcmp(shapes, "m=4096 k=14336 n=1,2,3,4,5,8,512"), "shapes '%s'", shapes);
    bb_backend_ops_result_free(&r);
    free(text);
}

static void test_other_versions(void)
{
    char err[300];
    bb_backend_ops_result r;
    const char *text = "  MUL_MAT(type_a=tq2_0,type_b=f32,m=2560,n=64,k=6912,bs=[1,1],nr=[1,1],per=[0,1,2,3],v=0,o=1):"
                       "        12 runs - 83841.25 us/run -   2.26 GFLOP/run -  26.99 GFLOPS\n"
                       "  MUL_MAT(type_a=i2_s,type_b=f32,m=2560,n=1,k=2560,bs=[1,1],nr=[1,1]): not supported\n"
                       "  MUL_MAT(type_a=f16,type_b=f32,m=4096,n=512,k=4096,bs=[1,1],nr=[1,1]):   3 runs - "
                       "  1000.00 us/run - 17.18 GFLOP/run - \033[1;34m 17.18 TFLOPS\033[0m - 1.2 GB/s\n";
    CHECK(bb_backend_ops_parse(text, &r, err, sizeof err) == 0, "%s", err);
    CHECK(r.ncases == 2 && r.unsupported == 1, "%d cases %d unsupported", r.ncases, r.unsupported);
    const bb_backend_ops_case *c = bb_backend_ops_find(&r, "tq2_0", 2560, 64, 6912);
    CHECK(c && c->runs == 12 && c->us_per_run == 83841.25 && c->gflops == 26.99, "tq2_0 case");
    c = bb_backend_ops_find(&r, "f16", 4096, 512, 4096);
    CHECK(c && fabs(c->gflops - 17180) < 1e-6, "TFLOPS read as %g GFLOPS", c ? c->gflops : -1);
    bb_backend_ops_result_free(&r);
}

static void expect_error(const char *text, const char *want)
{
    char err[300] = "";
    bb_backend_ops_result r;
    CHECK(bb_backend_ops_parse(text, &r, err, sizeof err) == -1 && strstr(err, want), "'%s': got '%s', want '%s'",
          text, err, want);
    CHECK(r.cases == NULL && r.ncases == 0, "freed on error");
}

static void test_bad(void)
{
    expect_error("", "no timed MUL_MAT line (0 lines");
    expect_error("Testing 1 devices\nBackend 1/1: CPU\n  Skipping CPU backend\n", "not the output of test-backend-ops");
    expect_error("  MUL_MAT(type_a=q4_0,type_b=f32,m=4096,n=1,k=14336): not supported\n", "1 \"not supported\"");
    expect_error("x\n  MUL_MAT(type_a=q4_0,type_b=f32,m=4096,n=1,k=14336):   69 runs - fast\n",
                 "line 2: no \"N runs - T us/run - ... R GFLOPS\"");
    expect_error("  MUL_MAT(type_a=q4_0,type_b=f32,m=4096,k=14336):   69 runs - 1.0 us/run - 1 GFLOPS\n",
                 "line 1: parameters without type_a, type_b, m, n and k");
    expect_error("  MUL_MAT(type_a=q4_0,type_b=f32,m=-1,n=1,k=14336):   69 runs - 1.0 us/run - 1 GFLOPS\n",
                 "parameters without");
    expect_error("  MUL_MAT(type_a=q4_0,type_b=f32 69 runs\n", "line 1: no \"(parameters):\"");
    expect_error("  MUL_MAT(type_a=q4_0,type_b=f32,m=4,n=1,k=4):   0 runs - 1.0 us/run - 1 GFLOPS\n", "no \"N runs");
    expect_error("  MUL_MAT(type_a=q4_0,type_b=f32,m=4,n=1,k=4):   3 runs - 1.0 us/run - 1 XFLOPS\n", "no \"N runs");
}

int main(void)
{
    const char *s = getenv("BITBENCH_SOURCE_DIR");
    test_recorded(s ? s : ".");
    test_other_versions();
    test_bad();
    return check_summary("test_backend_ops");
}
