#include "test_kernels.h"

#include <stdatomic.h>
#include <stdio.h>

#include "kernels/kernel.h"
#include "support/timer.h"

static const bb_kernel *f32;
static double slow_seconds, noisy_seconds;
static atomic_int noisy_calls; /* test_noisy's calls so far (the pool's threads call it at once) */

static void wrong_matmul(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    f32->variants[0].matmul(w, act, y, m, k, n, m0, m1);
    for (int c = 0; c < n; c++)
        for (int r = m0; r < m1; r++) y[(size_t)c * (size_t)m + (size_t)r] *= 2.0f;
}

static void slow_matmul(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    f32->variants[0].matmul(w, act, y, m, k, n, m0, m1);
    double end = bb_now() + slow_seconds;
    while (bb_now() < end) {
    }
}

static void noisy_matmul(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    f32->variants[0].matmul(w, act, y, m, k, n, m0, m1);
    if (atomic_fetch_add(&noisy_calls, 1) != 0) return;
    double end = bb_now() + noisy_seconds;
    while (bb_now() < end) {
    }
}

static bb_kernel test_wrong, test_slow, test_noisy;

int bb_test_kernels_register(double seconds, double noisy)
{
    f32 = bb_kernel_by_name("f32");
    if (!f32) {
        fprintf(stderr, "bitbench_hooks: no kernel f32 to build the test kernels on\n");
        return -1;
    }
    slow_seconds = seconds;
    noisy_seconds = noisy;
    test_wrong = *f32;
    test_wrong.name = "test_wrong";
    test_wrong.description = "test only: f32 whose default variant doubles its output";
    test_wrong.paper = "tests/hooks/test_kernels.h";
    test_wrong.variants[1] = (bb_variant){.isa = "wrong", .matmul = wrong_matmul};
    for (int i = 2; i < BB_MAX_VARIANTS; i++) test_wrong.variants[i] = (bb_variant){0};
    test_slow = *f32;
    test_slow.name = "test_slow";
    test_slow.description = "test only: f32's scalar kernel, slowed on purpose";
    test_slow.paper = "tests/hooks/test_kernels.h";
    test_slow.variants[0].matmul = slow_matmul;
    for (int i = 1; i < BB_MAX_VARIANTS; i++) test_slow.variants[i] = (bb_variant){0};
    test_noisy = test_slow;
    test_noisy.name = "test_noisy";
    test_noisy.description = "test only: f32's scalar kernel whose first call is slowed on purpose";
    test_noisy.variants[0].matmul = noisy_matmul;
    if (bb_kernel_register_for_tests(&test_wrong) || bb_kernel_register_for_tests(&test_slow) ||
        bb_kernel_register_for_tests(&test_noisy)) {
        fprintf(stderr, "bitbench_hooks: the test kernels could not be registered\n");
        return -1;
    }
    return 0;
}
