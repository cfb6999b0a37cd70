/* up_i2: pack (level-set choice, per-row fit, VNNI4-interleaved placement), unpack, scalar
 * reference reading the packed layout, descriptor.  See up_i2.h. */
#include "up_i2.h"

#include "../common/i8_rows_simd.h"
#include "../common/amx_rule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int8_t LEVELS_TERNARY[4] = {-2, -1, 0, 1};
static const int8_t LEVELS_SEQ[4] = {-3, -1, 1, 3};

static size_t up_i2_packed_size(int m, int k) { return bb_up_packed_size(m, k, 2); }

/* Byte and shift of (row r, column kk) in the packed blocks (up_i2.h). */
static inline size_t code_byte(int k, int r, int kk)
{
    int b = r / BB_UP_MB, rr = r % BB_UP_MB;
    return (size_t)b * BB_UP_MB * (size_t)k / 4 + (size_t)(kk / 4) * BB_UP_I2_GROUP + 4 * (rr % 8) + kk % 4;
}
static inline int code_shift(int r) { return 2 * ((r % BB_UP_MB) / 8); }

/* Is the row exactly {-a, 0, +a}?  Sets a = max |w|. */
static int row_is_ternary(const float *w, int k, float *a)
{
    float amax = 0.0f;
    for (int i = 0; i < k; i++) amax = fmaxf(amax, fabsf(w[i]));
    for (int i = 0; i < k; i++)
        if (w[i] != 0.0f && fabsf(w[i]) != amax) return 0;
    *a = amax;
    return 1;
}

/* SEQ code of w for half-step s: levels -3,-1,1,3 (times s), decision points -2s, 0, 2s. */
static inline int seq_code(double w, double s)
{
    int c = (int)floor(w / (2.0 * s)) + 2;
    return c < 0 ? 0 : (c > 3 ? 3 : c);
}

/* Lloyd iterations on the half-step s from s0 (assign the nearest level, then the least-squares
 * s = sum w*L / sum L^2); returns s and its squared error. */
static float seq_lloyd(const float *w, int k, float s, double *sse)
{
    for (int it = 0; it < 8 && s > 0.0f; it++) {
        double num = 0, den = 0;
        for (int i = 0; i < k; i++) {
            int l = LEVELS_SEQ[seq_code(w[i], s)];
            num += (double)w[i] * l;
            den += (double)l * l;
        }
        float next = (float)(num / den);
        if (!(next > 0.0f) || next == s) break;
        s = next;
    }
    double e = 0;
    for (int i = 0; i < k; i++) {
        double d = w[i] - (s > 0.0f ? (double)s * LEVELS_SEQ[seq_code(w[i], s)] : 0.0);
        e += d * d;
    }
    *sse = e;
    return s;
}

/* Per-row SEQ fit from two starts, keeping the lower squared error: s = max|w| / 3 (the outer
 * level on the largest weight: recovers any row lying on a SEQ grid exactly) and s = 0.62 mean|w|
 * (the optimum for Gaussian rows, where max|w| is an outlier). */
static float seq_fit(const float *w, int k, uint8_t *codes)
{
    double mean = 0, amax = 0;
    for (int i = 0; i < k; i++) {
        mean += fabs((double)w[i]);
        amax = fmax(amax, fabs((double)w[i]));
    }
    double e0, e1;
    float s0 = seq_lloyd(w, k, (float)(amax / 3), &e0);
    float s1 = seq_lloyd(w, k, (float)(0.62 * mean / k), &e1);
    float s = e1 < e0 ? s1 : s0;
    for (int i = 0; i < k; i++) codes[i] = (uint8_t)(s > 0.0f ? seq_code(w[i], s) : 2);
    return s > 0.0f ? s : 0.0f;
}

static int up_i2_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    int m = w->m, k = w->k;
    float *scales = malloc(sizeof(float) * (size_t)m);
    uint8_t *codes = malloc((size_t)k);
    if (!scales || !codes) {
        free(scales);
        free(codes);
        snprintf(err, errlen, "out of memory packing %dx%d", m, k);
        return -1;
    }
    int ternary = 1;
    float a = 0.0f;
    if (!w->ternary)
        for (int r = 0; r < m && ternary; r++) ternary = row_is_ternary(w->f32 + (size_t)r * k, k, &a);
    const int8_t *levels = ternary ? LEVELS_TERNARY : LEVELS_SEQ;

    uint8_t *blocks = (uint8_t *)dst + BB_UP_HEAD + bb_up_scales_bytes(m);
    memset(blocks, 0, (size_t)m * k / 4);
    for (int r = 0; r < m; r++) {
        const float *wr = w->f32 + (size_t)r * k;
        if (w->ternary) {
            const int8_t *t = w->ternary + (size_t)r * k;
            for (int i = 0; i < k; i++) codes[i] = (uint8_t)(t[i] + 2);
            scales[r] = w->ternary_scale;
        } else if (ternary) {
            row_is_ternary(wr, k, &a);
            for (int i = 0; i < k; i++) codes[i] = (uint8_t)(wr[i] == 0.0f ? 2 : (wr[i] > 0.0f ? 3 : 1));
            scales[r] = a;
        } else {
            scales[r] = seq_fit(wr, k, codes);
        }
        for (int i = 0; i < k; i++) blocks[code_byte(k, r, i)] |= (uint8_t)(codes[i] << code_shift(r));
    }
    bb_up_write_head(dst, m, levels, 4, scales);
    /* The shuffle tables (§III-B: "ymm_lut01 considers only the bits 0-1 of each byte", lut23
     * bits 2-3), indexed by a nibble, holding u = level + offset. */
    bb_up_head *h = dst;
    for (int i = 0; i < 16; i++) {
        h->lut[0][i] = (uint8_t)(levels[i & 3] + h->offset);
        h->lut[1][i] = (uint8_t)(levels[(i >> 2) & 3] + h->offset);
    }
    free(scales);
    free(codes);
    return 0;
}

static inline int code_at(const void *src, int m, int k, int r, int kk)
{
    const uint8_t *blocks = bb_up_block(src, m, k, 2, 0);
    return (blocks[code_byte(k, r, kk)] >> code_shift(r)) & 3;
}

static void up_i2_unpack(const void *src, int m, int k, float *dst)
{
    const int8_t *levels = bb_up_head_of(src)->levels;
    const float *scale = bb_up_scales(src);
    for (int r = 0; r < m; r++)
        for (int i = 0; i < k; i++)
            dst[(size_t)r * k + i] = (float)levels[code_at(src, m, k, r, i)] * scale[r];
}

/* The reference: plain signed levels times int8 activations, walking the packed tiles. */
static void up_i2_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    const int8_t *levels = bb_up_head_of(w)->levels;
    const float *scale = bb_up_scales(w);
    for (int b = m0 / BB_UP_MB; b < (m1 + BB_UP_MB - 1) / BB_UP_MB; b++) {
        const uint8_t *blk = bb_up_block(w, m, k, 2, b);
        for (int c = 0; c < n; c++) {
            const int8_t *q = bb_i8_row_q(act, k, c);
            int32_t isum[BB_UP_MB] = {0};
            for (int g = 0; g < k / 4; g++)
                for (int j = 0; j < BB_UP_I2_GROUP; j++) {
                    int byte = blk[(size_t)g * BB_UP_I2_GROUP + j], qv = q[4 * g + j % 4];
                    for (int m4 = 0; m4 < 4; m4++) isum[8 * m4 + j / 4] += levels[(byte >> (2 * m4)) & 3] * qv;
                }
            float as = bb_i8_row(act, k, c)->scale;
            for (int i = 0; i < BB_UP_MB; i++)
                y[(size_t)c * m + b * BB_UP_MB + i] = bb_i8_dequant(isum[i], as, scale[b * BB_UP_MB + i]);
        }
    }
}

const bb_kernel bb_kernel_up_i2 = {
    .name = "up_i2",
    .family = "upconvert",
    .description = "2-bit VNNI4-interleaved blocked codes, per-row scale, shuffle up-convert + int8 dot",
    .paper = "Intel up-convert paper §III-B/C, Fig. 1",
    .bits_per_weight = 2.0,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_ROW,
    .plain_rows = false,
    .k_multiple = 4,
    .m_multiple = BB_UP_MB,
    .shape_error = bb_up_shape_error,
    .packed_size = up_i2_packed_size,
    .pack = up_i2_pack,
    .unpack = up_i2_unpack,
    .act_size = bb_i8_rows_size,
    .prepare = bb_quant_i8_rows,
    .variants = {
        {"scalar", 0, up_i2_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_up_i2_matmul_avx2, bb_quant_i8_rows_avx2},
        {"avxvnni", BB_ISA_AVX2 | BB_CPU_AVXVNNI, bb_up_i2_matmul_avxvnni, bb_quant_i8_rows_avx2},
        {"avx512", BB_ISA_AVX512, bb_up_i2_matmul_avx512, bb_quant_i8_rows_avx512},
        {"amx", BB_ISA_AMX, bb_up_i2_matmul_amx, bb_quant_i8_rows_avx512, BB_AMX_SMALL_N_ISA, BB_AMX_MIN_N},
#elif defined(__aarch64__)
        {"dotprod", BB_ISA_DOTPROD, bb_up_i2_matmul_dotprod, bb_quant_i8_rows_neon},
#endif
    },
    .about = {
        .layout_text = "VNNI4-interleaved blocks [M/32][K/4][M8][k4][m4] of 2-bit codes (Intel up-convert paper "
            "§III-B/C, Fig. 1):\n"
            "a 32-byte group = 32 rows x 4 columns, byte 4*M8 + k4 holding the codes of rows 8*m4 + "
            "M8, m4 = 0..3, in bits 2*m4..2*m4+1;\n"
            "code c means the int8 level levels[c] of the head: {-2,-1,0,+1} (ternary rows) or "
            "{-3,-1,+1,+3} (SEQ, real weights)",
        .block_weights = 128,
        .block_bytes = 32,
        .outside_blocks = "a 64-byte head (the int8 level of each code and the SIMD offset), then one float scale "
            "per row, padded to 64 bytes (32 bits per row)",
        .activation = "per-row int8 absmax: s = 127 / max|x|, q = round(x s) (common/act_quant.h, the same q as "
            "i2_s)",
        .act_bytes = 1.0,
        .int_ops = 2.0,
        .float_ops = 0.0,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .shape_rules = "K at most 1048576 (the int32 dot products stay exact)",
        .error = "rows that are exactly {-a, 0, +a} stored exactly (scale a per row); real weights rounded "
            "to the SEQ grid {-3,-1,+1,+3} * step/2 per row (Lloyd-fitted); the int32 sums exact, y = "
            "isum / s_a * scale[m]",
    },
};
