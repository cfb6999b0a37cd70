/* iq4_nl: packing, the reference and the descriptor, over the GGUF layout.  The codebook, the block
 * quantizer and the reference over any layout's blocks are in iq4_nl_blocks.c.  See iq4_nl.h. */
#include "iq4_nl.h"

#include "../common/act_quant.h"
#include "../common/q8_0_act.h"
#include "../common/amx_rule.h"

static size_t iq4_nl_packed_size(int m, int k) { return (size_t)m * (k / BB_QK4_NL) * sizeof(bb_iq4_nl_block); }

static int iq4_nl_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    bb_iq4_nl_block *out = dst;
    size_t nblk = (size_t)w->m * (w->k / BB_QK4_NL);
    for (size_t b = 0; b < nblk; b++) bb_iq4_nl_quant_block(w->f32 + b * BB_QK4_NL, &out[b]);
    return 0;
}

/* Rows of K/32 blocks one after another: the GGUF layout. */
static void iq4_nl_get(const void *w, int k, int r, int b, bb_iq4_nl_block *out)
{
    *out = ((const bb_iq4_nl_block *)w)[(size_t)r * (k / BB_QK4_NL) + b];
}

static void iq4_nl_unpack(const void *src, int m, int k, float *dst) { bb_iq4_nl_unpack_with(iq4_nl_get, src, m, k, dst); }

static void iq4_nl_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    bb_iq4_nl_matmul_ref_with(iq4_nl_get, w, act, y, m, k, n, m0, m1);
}

const bb_kernel bb_kernel_iq4_nl = {
    .name = "iq4_nl",
    .family = "codebook",
    .description = "GGUF IQ4_NL: one 16-entry non-uniform int8 codebook, 4-bit indices, fp16 scale per 32",
    .paper = "Arm paper §6.3; llama.cpp IQ4_NL format",
    .bits_per_weight = 4.5,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK32,
    .plain_rows = false,
    .gguf_type = "IQ4_NL",
    .float_accumulation = true,
    .k_multiple = BB_QK4_NL,
    .m_multiple = 1,
    .packed_size = iq4_nl_packed_size,
    .pack = iq4_nl_pack,
    .unpack = iq4_nl_unpack,
    .act_size = bb_qx_act_size,
    .prepare = bb_qx_prepare,
    .variants = {
        {"scalar", 0, iq4_nl_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_iq4_nl_matmul_avx2, bb_qx_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_iq4_nl_matmul_avx512, bb_qx_prepare_avx512},
        {"amx", BB_ISA_AMX, bb_iq4_nl_matmul_amx, bb_qx_prepare_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_iq4_nl_matmul_neon, bb_qx_prepare_neon},
        {"dotprod", BB_ISA_DOTPROD, bb_iq4_nl_matmul_dotprod, bb_qx_prepare_neon},
#endif
    },
};
