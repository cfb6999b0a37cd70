#include "error_bound.h"

#include <math.h>

static double block_amax(const float *x, int k, int i, int block)
{
    int b0 = i / block * block, b1 = b0 + block < k ? b0 + block : k;
    double a = 0;
    for (int j = b0; j < b1; j++) a = fmax(a, fabs((double)x[j]));
    return a;
}

double bb_error_bound(const bb_kernel *kern, const float *w, const float *x, int k)
{
    if (kern->act == BB_ACT_CUSTOM && kern->error_bound) return kern->error_bound(w, x, k);
    double sum_abs = 0, act_err = 0, row_amax = 0;
    for (int i = 0; i < k; i++) {
        sum_abs += fabs((double)w[i] * x[i]);
        row_amax = fmax(row_amax, fabs((double)x[i]));
    }
    for (int i = 0; i < k; i++) {
        double ax = fabs((double)x[i]), e = 0;
        switch (kern->act) {
        case BB_ACT_F32: case BB_ACT_CUSTOM: e = 0; break;
        case BB_ACT_F16: e = ax * 0x1p-11 + 0x1p-25; break;
        case BB_ACT_BF16: e = ax * 0x1p-8; break;
        case BB_ACT_I8_ROW: e = row_amax / 254.0 * (1 + 0x1p-20); break;
        case BB_ACT_I8_BLOCK32: {
            double a = block_amax(x, k, i, 32);
            e = a / 254.0 + a * 0x1p-11 * 1.01; /* rounding to the grid + the fp16 scale */
            break;
        }
        case BB_ACT_I8_BLOCK256: e = block_amax(x, k, i, 256) / 256.0 * (1 + 0x1p-20); break;
        }
        act_err += fabs((double)w[i]) * e;
    }
    return act_err + (k + 16) * 0x1p-23 * sum_abs + 1e-30;
}
