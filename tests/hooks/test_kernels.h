/* Kernels only the test program bitbench_hooks has (tests/hooks/bitbench_hooks.c), registered
 * through bb_kernel_register_for_tests; no bitbench release build contains them.
 *
 *   test_wrong  f32's packing, activations and reference semantics, with two variants: "scalar",
 *               f32's own (right), and "wrong" (the default, as the best variant is), whose output
 *               is twice the product: a variant pointing at the wrong code, which a `verify`
 *               must fail.
 *   test_slow   f32's scalar kernel, each call made `slow_seconds` longer by spinning on the clock
 *               inside the matmul: a kernel that really is slower, so that bitbench compare must
 *               find a regression, and a run takes long enough for a test to interrupt it.
 *   test_noisy  f32's scalar kernel whose first call in the process takes `noisy_seconds` longer:
 *               a point disturbed once.  The first repetition of the first point that runs it is
 *               that much slower than the others, so its repetitions disagree and it must be
 *               measured again; the next attempt is quiet. */
#ifndef BB_TEST_KERNELS_H
#define BB_TEST_KERNELS_H

/* Register them; slow_seconds is test_slow's extra time per call, noisy_seconds test_noisy's
 * extra time in its first call.  Returns 0, or -1 after saying why on stderr. */
int bb_test_kernels_register(double slow_seconds, double noisy_seconds);

#endif
