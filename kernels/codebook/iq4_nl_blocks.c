/* iq4_nl's blocks, shared by the two layouts that hold them (iq4_nl, iq4_nl_x8) and by every
 * variant: the codebook, the block quantizer, and the reference and unpack over any layout's
 * blocks (bb_iq4_nl_get_block).  A file of its own below the descriptors, so that the SIMD
 * variants take the table from here and no variant calls back into the descriptor that names it
 * (tests/test_callbacks.sh).  Layout and semantics: iq4_nl.h. */
#include "iq4_nl.h"

#include <math.h>
#include <string.h>

#include "../common/fp16.h"
#include "../common/q8_0_act.h"

_Static_assert(sizeof(bb_iq4_nl_block) == 18, "iq4_nl block must be 18 bytes");

const int8_t bb_iq4_nl_kvalues[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

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
