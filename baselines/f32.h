/* f32 — the full-precision baseline: float32 weights times float32 activations.
 *
 * The "full precision" row of every table in the five papers (docs/papers.md): bitnet.cpp (§4, Table 2,
 * Fig. 7) and the 1-bit AI infra article compare against llama.cpp's Float16 (see f16),
 * T-MAC (§5.1) against llama.cpp with OpenBLAS, i.e. float32 sgemm (see f32_blas), the
 * Intel paper (§IV) against BF16 (see bf16).  f32 is their common reference point: the
 * product of the master weights themselves, with no rounding of weights or activations.
 *
 * Layout: the M x K weights row-major as float32, nothing else (32 bits per weight; the same
 * bytes a BLAS sgemm reads with lda = K, shared with f32_blas).
 * Activations (BB_ACT_F32): the N x K float rows, copied unchanged.
 *
 * Exact semantics (scalar reference): y[n][m] = s after s = 0; s += W[m][k] * X[n][k] for
 * k = 0 .. K-1, each product and each sum rounded to float.
 * The AVX2 / AVX-512 / NEON variants (float_accumulation) keep 8 / 16 / 4 float partial sums per
 * output in vector lanes, updated by FMA in increasing k, then summed in a fixed tree (float_common.h);
 * they differ from the reference only by float rounding of the reordered sum.
 * Any K >= 1 and M >= 1 (ragged K ends are masked loads). */
#ifndef BB_F32_H
#define BB_F32_H

#include "kernels/kernel.h"

size_t bb_f32_packed_size(int m, int k);
int bb_f32_pack(const bb_weights *w, void *dst, char *err, size_t errlen);
void bb_f32_unpack(const void *src, int m, int k, float *dst);
size_t bb_f32_act_size(int n, int k);
void bb_f32_prepare(const float *x, int n, int k, void *act);
/* The scalar reference, also variants[0] of f32_blas. */
void bb_f32_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

void bb_f32_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_f32_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_f32_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
