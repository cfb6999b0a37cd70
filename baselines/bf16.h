/* bf16 — bfloat16 weights and activations, float accumulation: the 16-bit baseline of the Intel
 * up-convert paper (Intel up-convert paper §IV, Fig. 12: PyTorch-TPP with BF16 weights, against which its 2-bit
 * and 1-bit kernels reach up to 7x), computed as llama.cpp's ggml_vec_dot_bf16 does (activations
 * converted to bf16, pairs multiplied by vdpbf16ps where the CPU has AVX512-BF16).
 *
 * Layout: the M x K weights row-major as bfloat16, round to nearest even (common/fp16.h; NaN
 * stays a quiet NaN): 16 bits per weight.
 * Activations (BB_ACT_BF16): N x K bfloat16, rounded the same way (the SIMD prepares do the same
 * integer rounding, so every variant reads the same bytes).
 *
 * Exact semantics (scalar reference): y[n][m] = s after s = 0; s += w * x for k = 0 .. K-1 with
 * w, x the bfloat16 values as float; each product is exact in float (8 x 8 significand bits;
 * barring underflow below 2^-126), each sum rounded to float.
 * Variants (float_accumulation): AVX2 and AVX-512 widen each 32-bit pair to its even element
 * (<< 16) and odd element (& 0xffff0000) and FMA both into 8 / 16 lane partial sums;
 * avx512bf16 uses vdpbf16ps, which adds the odd then the even product of each pair to the lane
 * and treats denormal inputs and results as zero (below 2^-126, far under the error bound).
 * On aarch64 "neon" widens by SHL/AND and FMLAs (bf16_neon.c) and "bf16" uses BFDOT where the
 * core has FEAT_BF16 (bf16_bf16.c: pair sum and accumulation rounded to odd, denormals flushed);
 * BFDOT is listed last (the default): one instruction where NEON needs four.
 *
 * Variant order (the last usable one is the default): on this Emerald Rapids vdpbf16ps zmm
 * issues once per 2 cycles (16 bf16 MACs/cycle, against 32 float MACs/cycle for two FMAs), so the
 * shift/mask FMA variant is as fast for N = 1 (memory-bound: 3.09 vs 3.11 ms, M=6912 K=2560 from
 * DRAM, one thread, cpu time) and faster for N = 16 (9.6 vs 11.3 ms); "avx512" is therefore
 * listed after "avx512bf16", which stays available as bf16@avx512bf16 for comparison.  "amx"
 * (bf16_amx.c, listed last) runs N >= 16 on AMX-BF16 tiles, which take the bfloat16 pairs as they
 * are, and N < 16 (and rows or activations holding denormals, which TDPBF16PS flushes, or
 * infinities or NaNs) as "avx512". */
#ifndef BB_BF16_H
#define BB_BF16_H

#include "kernels/kernel.h"

void bb_bf16_prepare_avx2(const float *x, int n, int k, void *act);

void bb_bf16_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_bf16_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_bf16_matmul_avx512bf16(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

/* AMX-BF16 (bf16_amx.c): N >= 16 on TDPBF16PS tiles */
void bb_bf16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

void bb_bf16_prepare_neon(const float *x, int n, int k, void *act);
void bb_bf16_matmul_neon(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_bf16_matmul_bf16(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
