/* f32_blas — the f32 product through OpenBLAS: the "llama.cpp (BLAS)" baseline of T-MAC
 * (T-MAC §5.1: llama.cpp built with OpenBLAS on x86, faster than llama.cpp's own kernels for
 * mpGEMM, slower for mpGEMV), and a check that our own f32 kernel is a fair baseline.
 *
 * Layout, activations and reference semantics: exactly f32's (f32.h), the same packed bytes
 * (row-major float32 M x K, 32 bits per weight) and the same unchanged float activations.
 * variants[0] is f32's scalar reference; variants[1] "openblas" computes fixed chunks of rows
 * (64 for N = 1, 128 for N > 1, on a grid from row 0; activation rows in blocks of 64):
 *   N = 1: cblas_sgemv(RowMajor, NoTrans, rows, K, 1, W + g*K, K, x, 1, 0, tile, 1)
 *   N > 1: cblas_sgemm(RowMajor, NoTrans, Trans, nc, rows, K, 1, X + c0*K, K, W + g*K, K, 0, tile, rows)
 * and copies the rows of [m0, m1) out.  OpenBLAS orders its float sums its own way
 * (float_accumulation), and that order depends on the call's shape: calling it on the slice
 * itself would make the bits depend on how M is split; the fixed grid makes every row's call
 * independent of the split (tests/test_float_baselines.c checks shifted and uneven slices).
 * Its price, measured at M=6912 K=2560 (one thread, cpu time, OPENBLAS_CORETYPE=SkylakeX): none
 * for N = 1, about 10% for N = 16 (OpenBLAS repacks the activations for every 128-row chunk).
 * OpenBLAS runs single-threaded inside each slice (see f32_blas.c), and uses whatever kernels it
 * selected for this CPU at load time: OpenBLAS 0.3.21 does not recognise Emerald/Sapphire Rapids
 * and falls back to its SSE3 "Prescott" kernels unless OPENBLAS_CORETYPE (e.g. SkylakeX, Haswell)
 * is set in the environment before the program starts; bb_f32_blas_backend() names the choice,
 * and the first call warns on stderr when a generic core was chosen on an AVX2 machine. */
#ifndef BB_F32_BLAS_H
#define BB_F32_BLAS_H

/* "OpenBLAS 0.3.21 ... (core SkylakeX)": what f32_blas runs on, for results metadata. */
const char *bb_f32_blas_backend(void);

#endif
