/* bf16, AVX512-BF16: vdpbf16ps multiplies 32 bfloat16 pairs and adds them to 16 float lanes in
 * one instruction (what llama.cpp's ggml_vec_dot_bf16 uses on such CPUs); same tiles as the
 * AVX-512 variant, no widening at all — but half the multiply throughput of two FMAs on Emerald
 * Rapids (bf16.h), hence not the default there. */
#include "bf16.h"
#include "float_common.h"

BB_FL_DEFINE_MATMUL(bb_bf16_matmul_avx512bf16, avx512, BB_FL_BF16DP, 4, 4, 8)
