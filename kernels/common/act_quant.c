#include "act_quant.h"

#include <math.h>
#include <string.h>

#include "fp16.h"
#include "i8_rows_simd.h" /* bb_i8_row_finish: the codes, padding and head */

size_t bb_i8_rows_size(int n, int k) { return (size_t)n * bb_i8_row_stride(k); }

void bb_quant_i8_rows(const float *x, int n, int k, void *dst)
{
    for (int r = 0; r < n; r++) {
        const float *xr = x + (size_t)r * k;
        char *row = (char *)dst + (size_t)r * bb_i8_row_stride(k);
        float amax = 0.0f;
        for (int i = 0; i < k; i++) amax = fmaxf(amax, fabsf(xr[i]));
        bb_i8_row_finish(xr, 0, k, amax > 0.0f ? 127.0f / amax : 0.0f, 0, row);
    }
}

void bb_quant_q8_0(const float *x, int k, bb_block_q8_0 *dst)
{
    for (int b = 0; b < k / BB_QK8_0; b++) {
        const float *xb = x + b * BB_QK8_0;
        float amax = 0.0f;
        for (int i = 0; i < BB_QK8_0; i++) amax = fmaxf(amax, fabsf(xb[i]));
        float d = amax / 127.0f;
        float id = d != 0.0f ? 1.0f / d : 0.0f;
        dst[b].d = bb_fp32_to_fp16(d);
        for (int i = 0; i < BB_QK8_0; i++) dst[b].qs[i] = (int8_t)roundf(xb[i] * id);
    }
}

size_t bb_q8_0_rows_size(int n, int k) { return (size_t)n * (k / BB_QK8_0) * sizeof(bb_block_q8_0); }

void bb_quant_q8_0_rows(const float *x, int n, int k, void *dst)
{
    for (int r = 0; r < n; r++)
        bb_quant_q8_0(x + (size_t)r * k, k, (bb_block_q8_0 *)dst + (size_t)r * (k / BB_QK8_0));
}

static int nearest_int(float v) { return (int)lrintf(v); }

void bb_quant_q8_K(const float *x, int k, bb_block_q8_K *dst)
{
    for (int b = 0; b < k / BB_QK_K; b++) {
        const float *xb = x + b * BB_QK_K;
        float max = 0.0f, amax = 0.0f;
        for (int i = 0; i < BB_QK_K; i++) {
            float a = fabsf(xb[i]);
            if (a > amax) { amax = a; max = xb[i]; }
        }
        if (amax == 0.0f) {
            memset(&dst[b], 0, sizeof dst[b]);
            continue;
        }
        float iscale = -127.0f / max; /* ggml quantize_row_q8_K_ref: -127, not -128, since IQ2_XXS */
        for (int i = 0; i < BB_QK_K; i++) {
            int v = nearest_int(iscale * xb[i]);
            dst[b].qs[i] = (int8_t)(v < 127 ? v : 127);
        }
        for (int j = 0; j < BB_QK_K / 16; j++) {
            int s = 0;
            for (int i = 0; i < 16; i++) s += dst[b].qs[j * 16 + i];
            dst[b].bsums[j] = (int16_t)s;
        }
        dst[b].d = 1.0f / iscale;
    }
}

size_t bb_q8_K_rows_size(int n, int k) { return (size_t)n * (k / BB_QK_K) * sizeof(bb_block_q8_K); }

void bb_quant_q8_K_rows(const float *x, int n, int k, void *dst)
{
    for (int r = 0; r < n; r++)
        bb_quant_q8_K(x + (size_t)r * k, k, (bb_block_q8_K *)dst + (size_t)r * (k / BB_QK_K));
}
