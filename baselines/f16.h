/* f16 — llama.cpp's Float16 baseline: IEEE binary16 weights, activations rounded to binary16,
 * products summed in float.  The "Float16" row of bitnet.cpp (§4, Table 2 and Fig. 7,
 * up to 6.25x slower than I2_S) and the FP16 baseline of the 1-bit AI infra article.
 * As in llama.cpp's ggml_vec_dot_f16 the activations are converted to binary16 first (its
 * vec_dot_type for F16 weights is F16) and both operands are widened to float to multiply.
 *
 * Layout: the M x K weights row-major as binary16, round to nearest even (common/fp16.h):
 * 16 bits per weight.
 * Activations (BB_ACT_F16): each x rounded to binary16 (nearest even, overflow to inf, NaN to
 * the quiet NaN 0x7e00 with x's sign) and stored back as the float32 it equals (exact), N x K
 * floats: the same numbers as llama.cpp's fp16 activations, but the inner loop widens only the
 * weights.  The SIMD prepares (F16C vcvtps2ph, NaN fixed up) give exactly these bytes.
 *
 * Exact semantics (scalar reference): y[n][m] = s after s = 0; s += w * x for k = 0 .. K-1 with
 * w, x the binary16 values as float; each product is exact in float (11 x 11 significand bits),
 * each sum rounded to float.  AVX2 (vcvtph2ps + FMA, 4 rows x 2) and AVX-512 (vcvtph2ps zmm +
 * FMA, 4 rows x 4) keep 8 / 16 lane partial sums per output (float_accumulation), as NEON does
 * (FCVTL + FMLA, 4 rows x 4, 4 lanes; f16_neon.c); since the products are exact, the FMA changes
 * nothing but the order of the sums.  AMX (N >= 16; f16_amx.c) splits each binary16 exactly into
 * two bfloat16 and sums the four exact partial products on TDPBF16PS tiles in an order of its own
 * too.  Any K, any M. */
#ifndef BB_F16_H
#define BB_F16_H

#include "kernels/kernel.h"

void bb_f16_prepare_avx2(const float *x, int n, int k, void *act);

void bb_f16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_f16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

/* AMX-BF16 (f16_amx.c): N >= 16 on TDPBF16PS tiles, each binary16 split exactly into two bfloat16 */
void bb_f16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

void bb_f16_prepare_neon(const float *x, int n, int k, void *act);
void bb_f16_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
