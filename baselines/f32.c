#include "f32.h"

#include "float_common.h"

size_t bb_f32_packed_size(int m, int k) { return (size_t)m * k * sizeof(float); }

int bb_f32_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    bb_fl_pack_weights(BB_FL_F32, w->f32, (size_t)w->m * w->k, dst);
    return 0;
}

void bb_f32_unpack(const void *src, int m, int k, float *dst) { bb_fl_unpack_weights(BB_FL_F32, src, (size_t)m * k, dst); }

size_t bb_f32_act_size(int n, int k) { return (size_t)n * k * sizeof(float); }

void bb_f32_prepare(const float *x, int n, int k, void *act) { bb_fl_prepare_ref(BB_FL_F32, x, (size_t)n * k, act); }

void bb_f32_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_fl_matmul_ref(BB_FL_F32, w, act, y, m, k, n, m0, m1);
}

const bb_kernel bb_kernel_f32 = {
    .name = "f32",
    .family = "float",
    .description = "float32 weights x float32 activations, float accumulation (full-precision baseline)",
    .paper = "FP baseline of the five papers of docs/papers.md; fp32 as in T-MAC §5.1's BLAS baseline",
    .bits_per_weight = 32.0,
    .lossless = true,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_F32,
    .plain_rows = true,
    .gguf_type = "F32",
    .float_accumulation = true,
    .k_multiple = 1,
    .m_multiple = 1,
    .packed_size = bb_f32_packed_size,
    .pack = bb_f32_pack,
    .unpack = bb_f32_unpack,
    .act_size = bb_f32_act_size,
    .prepare = bb_f32_prepare,
    .variants = {
        {"scalar", 0, bb_f32_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_f32_matmul_avx2, NULL},
        {"avx512", BB_ISA_AVX512, bb_f32_matmul_avx512, NULL},
#endif
#if defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_f32_matmul_neon, NULL},
#endif
    },
    .about = {
        .layout_text = "row-major M x K float32, nothing else (the bytes a BLAS sgemm reads with lda = K)",
        .block_weights = 1,
        .block_bytes = 4,
        .outside_blocks = "none",
        .activation = "float32, unchanged",
        .act_bytes = 4.0,
        .int_ops = 0.0,
        .float_ops = 2.0,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .error = "lossless: the master weights and activations as they are; the reference sums in k order, "
            "the SIMD variants in lanes (within float rounding of sum |w x|)",
    },
};
