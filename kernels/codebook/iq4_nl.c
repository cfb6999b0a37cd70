/* iq4_nl: scalar reference, quantizer and descriptor.  See iq4_nl.h. */
#include "iq4_nl.h"

#include <math.h>
#include <string.h>

#include "../common/act_quant.h"
#include "../common/fp16.h"
#include "../common/q8_0_act.h"
#include "../common/amx_rule.h"

_Static_assert(sizeof(bb_iq4_nl_block) == 18, "iq4_nl block must be 18 bytes");

const int8_t bb_iq4_nl_kvalues[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

static size_t iq4_nl_packed_size(int m, int k) { return (size_t)m * (k / BB_QK4_NL) * sizeof(bb_iq4_nl_block); }

/* Midpoints between neighbouring table values. */
static const float kmid[15] = {-115.5f, -93.5f, -74.0f, -57.0f, -42.0f, -28.5f, -16.0f, -4.5f,
                               7.0f,    19.0f,  31.5f,  45.5f,  61.0f,  79.0f,  101.0f};

/* Index of the table value nearest to v (v in table units): binary search over the midpoints
 * (ties go up). */
static inline int nearest_kvalue(float v)
{
    int lo = 0; /* the answer is the number of midpoints <= v */
    for (int step = 8; step; step >>= 1) lo += (v >= kmid[lo + step - 1]) * step; /* branch-free */
    return lo;
}

void bb_iq4_nl_quant_block(const float *x, bb_iq4_nl_block *out)
{
    float amax = 0, max = 0;
    double xx = 0;
    for (int i = 0; i < BB_QK4_NL; i++) {
        if (fabsf(x[i]) > amax) { amax = fabsf(x[i]); max = x[i]; }
        xx += (double)x[i] * x[i];
    }
    memset(out, 0, sizeof *out);
    if (amax == 0) return;
    /* candidate inverse scales: the signed max onto table value -127 + t; each candidate's
     * assignment gets its least-squares scale sum x v / sum v^2, with squared error
     * xx - (sum x v)^2 / sum v^2; the best scale is stored as fp16 and the elements assigned to
     * their nearest value for the stored scale */
    double best_err = INFINITY, best_d = 0;
    for (int t = -7; t <= 7; t++) {
        float id = (float)(t + bb_iq4_nl_kvalues[0]) / max;
        double sxv = 0, svv = 0;
        for (int i = 0; i < BB_QK4_NL; i++) {
            int v = bb_iq4_nl_kvalues[nearest_kvalue(x[i] * id)];
            sxv += (double)x[i] * v;
            svv += (double)v * v;
        }
        double err = xx - sxv * sxv / svv;
        if (err < best_err) { best_err = err; best_d = sxv / svv; }
    }
    float d = bb_fp16_to_fp32(bb_fp32_to_fp16((float)best_d));
    if (d == 0) return;
    out->d = bb_fp32_to_fp16(d);
    float id = 1.0f / d;
    for (int j = 0; j < BB_QK4_NL / 2; j++)
        out->qs[j] = (uint8_t)(nearest_kvalue(x[j] * id) | nearest_kvalue(x[j + 16] * id) << 4);
}

static int iq4_nl_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    bb_iq4_nl_block *out = dst;
    size_t nblk = (size_t)w->m * (w->k / BB_QK4_NL);
    for (size_t b = 0; b < nblk; b++) bb_iq4_nl_quant_block(w->f32 + b * BB_QK4_NL, &out[b]);
    return 0;
}

void bb_iq4_nl_unpack_with(bb_iq4_nl_get_block get, const void *src, int m, int k, float *dst)
{
    for (int r = 0; r < m; r++)
        for (int b = 0; b < k / BB_QK4_NL; b++) {
            bb_iq4_nl_block blk;
            get(src, k, r, b, &blk);
            float d = bb_fp16_to_fp32(blk.d), *out = dst + (size_t)r * k + b * BB_QK4_NL;
            for (int j = 0; j < BB_QK4_NL / 2; j++) {
                out[j] = d * (float)bb_iq4_nl_kvalues[blk.qs[j] & 15];
                out[j + 16] = d * (float)bb_iq4_nl_kvalues[blk.qs[j] >> 4];
            }
        }
}

void bb_iq4_nl_matmul_ref_with(bb_iq4_nl_get_block get, const void *w, const void *act, float *y, int m, int k,
                               int n, int m0, int m1)
{
    int nb = k / BB_QK4_NL;
    for (int c = 0; c < n; c++) {
        const bb_block_q8_0 *a = bb_qx_act_row(act, k, c);
        for (int r = m0; r < m1; r++) {
            float sum = 0.0f;
            for (int b = 0; b < nb; b++) {
                bb_iq4_nl_block x;
                get(w, k, r, b, &x);
                int32_t s1 = 0, s2 = 0;
                for (int j = 0; j < BB_QK4_NL / 2; j++) {
                    s1 += a[b].qs[j] * bb_iq4_nl_kvalues[x.qs[j] & 15];
                    s2 += a[b].qs[j + 16] * bb_iq4_nl_kvalues[x.qs[j] >> 4];
                }
                sum += (bb_fp16_to_fp32(x.d) * bb_fp16_to_fp32(a[b].d)) * (float)(s1 + s2);
            }
            y[(size_t)c * m + r] = sum;
        }
    }
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
    .about = {
        .layout_text = "row-major; each row K/32 blocks of 18 bytes (ggml IQ4_NL): fp16 d, then 16 bytes:\n"
            "byte j = index of weight j (low nibble) and j + 16 (high nibble); weight = d * "
            "kvalues[index] (16 fixed values, Arm paper §6.3)",
        .block_weights = 32,
        .block_bytes = 18,
        .outside_blocks = "none",
        .activation = "q8_0: int8 in blocks of 32 with an fp16 scale d = amax/127 (llama.cpp block_q8_0), plus "
            "per-block float scales and 4-activation sums for the SIMD variants (kernels/mad/qx_0.h)",
        .act_bytes = 34.0 / 32,
        .int_ops = 2.0,
        .float_ops = 3.0 / 32,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .error = "weights: per block of 32 the nearest of the 16 IQ4_NL table values times an fp16 scale, "
            "the best of 15 candidate scales (least squares)",
    },
};
