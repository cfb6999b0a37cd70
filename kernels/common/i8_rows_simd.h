/* SIMD versions of bb_quant_i8_rows (act_quant.h): the same bytes (int8 q, scale, qsum, zero
 * padding) for every input, so a kernel variant may use them as its prepare and still match the
 * scalar reference bit for bit.  Why they are identical: the absmax is an exact max; s = 127/amax
 * is the same scalar float division; x*s is one float multiplication per element as in the
 * scalar code; vroundps/vrndscaleps with "nearest, no exceptions" is nearbyintf in the default
 * rounding mode (ties to even); the clamp and the integer sum are exact.
 * (The scalar code calls libm's nearbyintf per element, ~6 ns each: 10 us at K = 1600, a
 * sizeable part of a DRAM GEMV of that size.) */
#ifndef BB_I8_ROWS_SIMD_H
#define BB_I8_ROWS_SIMD_H

void bb_quant_i8_rows_avx2(const float *x, int n, int k, void *dst);   /* BB_ISA_AVX2 */
void bb_quant_i8_rows_avx512(const float *x, int n, int k, void *dst); /* BB_ISA_AVX512 */

#endif
