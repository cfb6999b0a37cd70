#include "ternary.h"

#include <math.h>

/* If every weight is 0 or ±s for one s, return s (> 0); else 0. */
static float exact_ternary_scale(const float *w, size_t count)
{
    float s = 0.0f;
    for (size_t i = 0; i < count; i++) {
        float a = fabsf(w[i]);
        if (a == 0.0f) continue;
        if (s == 0.0f) s = a;
        else if (a != s) return 0.0f;
    }
    return s;
}

float bb_ternarize(const float *w, size_t count, int8_t *t)
{
    float s = exact_ternary_scale(w, count);
    if (s > 0.0f) {
        for (size_t i = 0; i < count; i++) t[i] = (int8_t)(w[i] > 0.0f ? 1 : (w[i] < 0.0f ? -1 : 0));
        return s;
    }
    double sum = 0.0;
    for (size_t i = 0; i < count; i++) sum += fabs((double)w[i]);
    float scale = count ? (float)(sum / (double)count) : 0.0f;
    if (scale < 1e-5f) scale = 1e-5f;
    for (size_t i = 0; i < count; i++) {
        float v = nearbyintf(w[i] / scale);
        t[i] = (int8_t)(v > 1.0f ? 1 : (v < -1.0f ? -1 : v));
    }
    return scale;
}
