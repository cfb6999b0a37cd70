/* For the tests only: BITBENCH_TEST_DELAY_KERNEL=NAME:SECONDS makes every timed call of kernel NAME
 * (all its variants) in bb_gemm_measure take SECONDS longer, spinning on the clock inside the
 * timed region, so that tests/test_compare.sh can make a run that is slower on purpose and check
 * that bitbench compare finds the regression.  Unset (always, outside the tests) it costs one
 * getenv per measured point and nothing per call. */
#ifndef BB_TEST_DELAY_H
#define BB_TEST_DELAY_H

/* The delay for this kernel: SECONDS when the variable names it, else 0. */
double bb_test_delay_for(const char *kernel);
/* Spin for that long. */
void bb_test_delay_spin(double seconds);

#endif
