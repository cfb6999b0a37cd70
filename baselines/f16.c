#include "f16.h"

#include "float_common.h"
#include "kernels/common/amx_rule.h"

static size_t f16_packed_size(int m, int k) { return (size_t)m * k * sizeof(uint16_t); }

static int f16_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    bb_fl_pack_weights(BB_FL_F16, w->f32, (size_t)w->m * w->k, dst);
    return 0;
}

static void f16_unpack(const void *src, int m, int k, float *dst) { bb_fl_unpack_weights(BB_FL_F16, src, (size_t)m * k, dst); }

static size_t f16_act_size(int n, int k) { return (size_t)n * k * sizeof(float); }

static void f16_prepare(const float *x, int n, int k, void *act) { bb_fl_prepare_ref(BB_FL_F16, x, (size_t)n * k, act); }

static void f16_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_fl_matmul_ref(BB_FL_F16, w, act, y, m, k, n, m0, m1);
}

const bb_kernel bb_kernel_f16 = {
    .name = "f16",
    .family = "float",
    .description = "IEEE fp16 weights x fp16-rounded activations, float accumulation (llama.cpp F16)",
    .paper = "bitnet.cpp §4 Float16 baseline, Table 2, Fig. 7",
    .bits_per_weight = 16.0,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_F16,
    .plain_rows = true,
    .gguf_type = "F16",
    .float_accumulation = true,
    .k_multiple = 1,
    .m_multiple = 1,
    .packed_size = f16_packed_size,
    .pack = f16_pack,
    .unpack = f16_unpack,
    .act_size = f16_act_size,
    .prepare = f16_prepare,
    .variants = {
        {"scalar", 0, f16_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_f16_matmul_avx2, bb_f16_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_f16_matmul_avx512, bb_f16_prepare_avx2},
        {"amx", BB_ISA_AMX | BB_CPU_AMX_BF16 | BB_CPU_AVX512BF16, bb_f16_matmul_amx, bb_f16_prepare_avx2,
         BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#endif
#if defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_f16_matmul_neon, bb_f16_prepare_neon},
#endif
    },
    .about = {
        .layout_text = "row-major M x K IEEE binary16, rounded to nearest even",
        .block_weights = 1,
        .block_bytes = 2,
        .outside_blocks = "none",
        .activation = "each x rounded to binary16 (nearest even) and kept as the float32 it equals",
        .act_bytes = 4.0,
        .int_ops = 0.0,
        .float_ops = 2.0,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .error = "weights and activations rounded to binary16 (nearest even); each product exact in float, "
            "the sums rounded to float",
    },
};
