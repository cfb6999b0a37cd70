#include "q2_k.h"
#include "../common/amx_rule.h"

#include <math.h>
#include <string.h>

static int nearest_int(float v) { return (int)lrintf(v); } /* round half to even, as ggml */

static int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Fit x[i] ~ scale * L[i] + min (min <= 0, L in 0..nmax) for n values, minimising the weighted
 * absolute error: start from the min/max grid, then try nstep+1 inverse scales
 * (rmin + rdelta*is + nmax) / (max - min), solving the weighted least-squares scale and offset
 * for each rounding, and keep the best.  Returns the scale; *the_min = -min (>= 0). */
static float fit_scale_min(int n, int nmax, const float *x, const float *w, uint8_t *L, float *the_min,
                           float rmin, float rdelta, int nstep)
{
    float min = x[0], max = x[0], sum_w = w[0], sum_x = sum_w * x[0];
    for (int i = 1; i < n; i++) {
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (min > 0) min = 0;
    if (max == min) {
        for (int i = 0; i < n; i++) L[i] = 0;
        *the_min = -min;
        return 0.0f;
    }
    float iscale = nmax / (max - min), scale = 1 / iscale, best = 0;
    for (int i = 0; i < n; i++) {
        L[i] = (uint8_t)clamp_int(nearest_int(iscale * (x[i] - min)), 0, nmax);
        float diff = scale * L[i] + min - x[i];
        best += w[i] * fabsf(diff);
    }
    uint8_t trial[16];
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * is + nmax) / (max - min);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; i++) {
            int l = clamp_int(nearest_int(iscale * (x[i] - min)), 0, nmax);
            trial[i] = (uint8_t)l;
            sum_l += w[i] * l;
            sum_l2 += w[i] * l * l;
            sum_xl += w[i] * l * x[i];
        }
        float det = sum_w * sum_l2 - sum_l * sum_l;
        if (det > 0) {
            float this_scale = (sum_w * sum_xl - sum_x * sum_l) / det;
            float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / det;
            if (this_min > 0) {
                this_min = 0;
                this_scale = sum_xl / sum_l2;
            }
            float err = 0;
            for (int i = 0; i < n; i++) {
                float diff = this_scale * trial[i] + this_min - x[i];
                err += w[i] * fabsf(diff);
            }
            if (err < best) {
                memcpy(L, trial, (size_t)n);
                best = err;
                scale = this_scale;
                min = this_min;
            }
        }
    }
    *the_min = -min;
    return scale;
}

void bb_q2_k_quantize_block(const float *x, bb_block_q2_K *y)
{
    uint8_t L[BB_QK_K];
    float wgt[16], mins[16], scales[16], max_scale = 0, max_min = 0;
    for (int j = 0; j < 16; j++) {
        for (int i = 0; i < 16; i++) wgt[i] = fabsf(x[16 * j + i]);
        scales[j] = fit_scale_min(16, 3, x + 16 * j, wgt, L + 16 * j, &mins[j], -0.5f, 0.1f, 15);
        if (scales[j] > max_scale) max_scale = scales[j];
        if (mins[j] > max_min) max_min = mins[j];
    }
    if (max_scale > 0) {
        float iscale = 15.0f / max_scale;
        for (int j = 0; j < 16; j++) y->scales[j] = (uint8_t)nearest_int(iscale * scales[j]);
        y->d = bb_fp32_to_fp16(max_scale / 15.0f);
    } else {
        memset(y->scales, 0, sizeof y->scales);
        y->d = bb_fp32_to_fp16(0.0f);
    }
    if (max_min > 0) {
        float iscale = 15.0f / max_min;
        for (int j = 0; j < 16; j++) y->scales[j] |= (uint8_t)(nearest_int(iscale * mins[j]) << 4);
        y->dmin = bb_fp32_to_fp16(max_min / 15.0f);
    } else {
        y->dmin = bb_fp32_to_fp16(0.0f);
    }
    /* codes against the scales as stored */
    for (int j = 0; j < 16; j++) {
        float d = bb_fp16_to_fp32(y->d) * (y->scales[j] & 0xf);
        if (d == 0) continue;
        float dm = bb_fp16_to_fp32(y->dmin) * (y->scales[j] >> 4);
        for (int i = 0; i < 16; i++) L[16 * j + i] = (uint8_t)clamp_int(nearest_int((x[16 * j + i] + dm) / d), 0, 3);
    }
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 32; i++)
            y->qs[32 * h + i] = (uint8_t)(L[128 * h + i] | L[128 * h + i + 32] << 2 | L[128 * h + i + 64] << 4 |
                                          L[128 * h + i + 96] << 6);
}

static size_t q2_k_packed_size(int m, int k) { return (size_t)m * bb_q2_k_row_bytes(k); }

static int q2_k_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    size_t nblk = (size_t)w->m * (w->k / BB_QK_K);
    for (size_t b = 0; b < nblk; b++) bb_q2_k_quantize_block(w->f32 + b * BB_QK_K, (bb_block_q2_K *)dst + b);
    return 0;
}

static inline int q2_k_code(const bb_block_q2_K *blk, int i)
{
    return (blk->qs[32 * (i / 128) + i % 32] >> (2 * ((i % 128) / 32))) & 3;
}

void bb_q2_k_unpack_block(const bb_block_q2_K *blk, float *dst)
{
    double d = bb_fp16_to_fp32(blk->d), dmin = bb_fp16_to_fp32(blk->dmin);
    for (int i = 0; i < BB_QK_K; i++) {
        uint8_t sc = blk->scales[i / 16];
        dst[i] = (float)(d * (sc & 0xf) * q2_k_code(blk, i) - dmin * (sc >> 4));
    }
}

static void q2_k_unpack(const void *src, int m, int k, float *dst)
{
    const bb_block_q2_K *blk = src;
    size_t nblk = (size_t)m * (k / BB_QK_K);
    for (size_t b = 0; b < nblk; b++) bb_q2_k_unpack_block(&blk[b], dst + b * BB_QK_K);
}

float bb_q2_k_block_term(const bb_block_q2_K *x, const bb_block_q8_K *a)
{
    int32_t isum = 0, summs = 0;
    for (int j = 0; j < 16; j++) {
        int32_t s = 0;
        for (int i = 16 * j; i < 16 * j + 16; i++) s += q2_k_code(x, i) * a->qs[i];
        isum += (x->scales[j] & 0xf) * s;
        summs += (x->scales[j] >> 4) * a->bsums[j];
    }
    float dall = a->d * bb_fp16_to_fp32(x->d), dmin = a->d * bb_fp16_to_fp32(x->dmin);
    float p = dall * (float)isum, q = dmin * (float)summs;
    return p - q;
}

static void q2_k_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int nblk = k / BB_QK_K;
    for (int c = 0; c < n; c++) {
        const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nblk;
        for (int r = m0; r < m1; r++) {
            const bb_block_q2_K *x = (const bb_block_q2_K *)w + (size_t)r * nblk;
            float sumf = 0.0f;
            for (int b = 0; b < nblk; b++) sumf += bb_q2_k_block_term(&x[b], &a[b]);
            y[(size_t)c * m + r] = sumf;
        }
    }
}

const bb_kernel bb_kernel_q2_k = {
    .name = "q2_k",
    .family = "mad",
    .description = "llama.cpp Q2_K: 2-bit codes, 4-bit scale and min per 16, fp16 d/dmin per 256, q8_K activations",
    .paper = "bitnet.cpp §2, bit-wise MAD; Arm paper §5; GGUF Q2_K",
    .bits_per_weight = 84 * 8 / 256.0,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK256,
    .plain_rows = false,
    .gguf_type = "Q2_K",
    .k_multiple = BB_QK_K,
    .m_multiple = 1,
    .shape_error = bb_gk_shape_error,
    .packed_size = q2_k_packed_size,
    .pack = q2_k_pack,
    .unpack = q2_k_unpack,
    .act_size = bb_q8_K_rows_size,
    .prepare = bb_quant_q8_K_rows,
    .variants = {
        {"scalar", 0, q2_k_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_q2_k_matmul_avx2, NULL},
        {"avx512", BB_ISA_AVX512, bb_q2_k_matmul_avx512, bb_quant_q8_K_rows_avx512},
        {"amx", BB_ISA_AMX, bb_q2_k_matmul_amx, bb_quant_q8_K_rows_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#endif
#if defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_q2_k_matmul_dotprod, bb_quant_q8_K_rows_neon},
#endif
    },
    .about = {
        .layout_text = "row-major; each row K/256 super-blocks of 84 bytes (ggml Q2_K):\n"
            "uint8 scales[16] (per 16 values: 4-bit scale sc, 4-bit min m), uint8 qs[64] (2-bit "
            "codes, tq2_0's planes), fp16 d, fp16 dmin;\n"
            "weight = d * sc * q - dmin * m",
        .block_weights = 256,
        .block_bytes = 84,
        .outside_blocks = "none",
        .activation = "q8_K: int8 in blocks of 256 with a float scale and int16 sums of each 16 (llama.cpp "
            "block_q8_K)",
        .act_bytes = 1.0 + 4.0 / 256 + 2.0 / 16,
        .int_ops = 2.0 + 2.0 / 16 + 2.0 / 16,
        .float_ops = 6.0 / 256,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .shape_rules = "K at most 131072 (512 blocks of 256: the int32 block sums stay exact)",
        .error = "weights rounded per 16 to 2-bit codes with a fitted scale and min (make_qkx2_quants), "
            "the 16 scales and mins to 4 bits against fp16 d and dmin (quantize_row_q2_K_ref)",
    },
};
