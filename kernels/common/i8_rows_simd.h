/* SIMD versions of bb_quant_i8_rows (act_quant.h): the same bytes (int8 q, scale, qsum, zero
 * padding) for every input, so a kernel variant may use them as its prepare and still match the
 * scalar reference bit for bit.  Why they are identical: the absmax is an exact max; s = 127/amax
 * is the same scalar float division; x*s is one float multiplication per element as in the
 * scalar code; vroundps with "nearest, no exceptions", AVX-512's conversion with that rounding
 * embedded and Arm's FCVTNS are nearbyintf in the default rounding mode (ties to even); the clamp
 * and the integer sum are exact.
 * (The scalar code calls libm's nearbyintf per element, ~6 ns each: 10 us at K = 1600, a
 * sizeable part of a DRAM GEMV of that size.) */
#ifndef BB_I8_ROWS_SIMD_H
#define BB_I8_ROWS_SIMD_H

#include <math.h>
#include <string.h>

#include "act_quant.h"

void bb_quant_i8_rows_avx2(const float *x, int n, int k, void *dst);   /* BB_ISA_AVX2 */
void bb_quant_i8_rows_avx512(const float *x, int n, int k, void *dst); /* BB_ISA_AVX512 */
void bb_quant_i8_rows_neon(const float *x, int n, int k, void *dst);   /* BB_ISA_NEON */

/* The end of one row: codes i..k-1 of x with the scalar formula, the zero padding after the
 * codes, then the head (zeroed, scale s, qsum = the sum of codes 0..i-1 plus those).  row is the
 * row's start (its head).  bb_quant_i8_rows is this from i = 0; the SIMD versions call it after
 * their vector part. */
static inline void bb_i8_row_finish(const float *x, int i, int k, float s, int32_t qsum, char *row)
{
    int8_t *q = (int8_t *)(row + BB_I8_ROW_HEAD);
    for (; i < k; i++) {
        float v = nearbyintf(x[i] * s);
        v = v > 127.0f ? 127.0f : (v < -127.0f ? -127.0f : v);
        q[i] = (int8_t)v;
        qsum += q[i];
    }
    memset(q + k, 0, bb_i8_row_stride(k) - BB_I8_ROW_HEAD - (size_t)k);
    memset(row, 0, BB_I8_ROW_HEAD);
    bb_i8_row_head *h = (bb_i8_row_head *)row;
    h->scale = s;
    h->qsum = qsum;
}

#endif
