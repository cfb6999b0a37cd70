/* The @amx variants' documented dispatch rule (kernel.h, bb_variant's small_n_isa and min_n):
 * fewer than BB_AMX_MIN_N activation rows run the kernel's AVX-512 variant.  One header, without
 * AMX code, so that the registry entries (compiled without AMX flags) and the tile drivers
 * (tile_gemm_amx.c, baselines/float_amx.h) state the same rule. */
#ifndef BB_AMX_RULE_H
#define BB_AMX_RULE_H

#define BB_AMX_MIN_N 16             /* activation rows below which the AVX-512 variant runs */
#define BB_AMX_SMALL_N_ISA "avx512" /* that variant's isa */

#endif
