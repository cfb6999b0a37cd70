/* llama.cpp q8_K activation rows (act_quant.h's bb_quant_q8_K_rows) with SIMD: the same bytes,
 * faster.  The prepare of the SIMD variants of every kernel that takes q8_K activations: mad's
 * tq1_0, tq2_0, q2_k and their _x16 records, codebook's cb2. */
#ifndef BB_Q8_K_ROWS_H
#define BB_Q8_K_ROWS_H

#include "act_quant.h"

/* AVX-512 (q8_k_rows_avx512.c). */
void bb_quant_q8_K_rows_avx512(const float *x, int n, int k, void *dst);
/* NEON (q8_k_rows_neon.c, Armv8.0). */
void bb_quant_q8_K_rows_neon(const float *x, int n, int k, void *dst);

#endif
