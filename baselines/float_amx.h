/* What the float baselines' AMX-BF16 variants (f16_amx.c, bf16_amx.c) share: tile configuration,
 * the check for inputs the tiles would get wrong, and the transposed store of a 16 x 16 block of
 * outputs.  Include only from *_amx.c files (AMX and AVX-512 BF16 flags).
 *
 * TDPBF16PS (Intel SDM vol. 1 ch. 18): C[i][j] += A[i][2p] B[p][2j] + A[i][2p+1] B[p][2j+1] over
 * the 16 pairs p of a 64-byte row, A and B bfloat16, C float, the products exact, denormal inputs
 * and results treated as zero, round to nearest even, MXCSR not consulted. */
#ifndef BB_FLOAT_AMX_H
#define BB_FLOAT_AMX_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kernels/common/amx.h"

/* activation rows below which the AVX-512 variant runs: the @amx variants' documented rule
 * (kernels/common/amx_rule.h); every other fallback to it is counted (bb_kernel_fallback_note) */
#define BB_FL_AMX_MIN_N BB_AMX_MIN_N

/* All eight tiles 16 rows x 64 bytes; ldtilecfg on the whole 64 bytes (kernels/common/
 * tile_gemm_amx.c says why not the intrinsic). */
static inline void bb_fl_amx_configure(void)
{
    struct {
        uint8_t palette_id, start_row, reserved[14];
        uint16_t colsb[16];
        uint8_t rows[16];
    } cfg;
    _Static_assert(sizeof cfg == 64, "ldtilecfg reads 64 bytes");
    memset(&cfg, 0, sizeof cfg);
    cfg.palette_id = 1;
    for (int t = 0; t < 8; t++) {
        cfg.rows[t] = 16;
        cfg.colsb[t] = 64;
    }
    __asm__ volatile("ldtilecfg %0" : : "m"(cfg));
}

/* Lanes that are infinite or NaN (VFPCLASSPS: QNaN 0x01, +inf 0x08, -inf 0x10, SNaN 0x80), and
 * with denormals also denormal (0x20). */
static inline __mmask16 bb_fl_amx_unfit(__m512 v, int denormals)
{
    return denormals ? _mm512_fpclass_ps_mask(v, 0xb9) : _mm512_fpclass_ps_mask(v, 0x99);
}

/* The next strip's 16-bit weight rows [r + strip, r + 2 strip) of the call's [.., m1), prefetched
 * into L2 a few lines per tile step while the tiles work on this strip, so that reading them from
 * memory overlaps the multiplies instead of following them. */
typedef struct {
    const char *at, *end;
    long lines; /* per step */
} bb_fl_amx_prefetch;

static inline bb_fl_amx_prefetch bb_fl_amx_next_strip(const uint16_t *w, int k, int r, int strip, int m1, long steps)
{
    int next = r + strip < m1 ? r + strip : m1, next_end = next + strip < m1 ? next + strip : m1;
    bb_fl_amx_prefetch p = {(const char *)(w + (size_t)next * k), (const char *)(w + (size_t)next_end * k), 0};
    if (p.end > p.at) p.lines = ((p.end - p.at) / 64 + steps - 1) / steps;
    return p;
}

static inline __attribute__((always_inline)) void bb_fl_amx_prefetch_step(bb_fl_amx_prefetch *p)
{
    for (long l = 0; l < p->lines && p->at < p->end; l++, p->at += 64) _mm_prefetch(p->at, _MM_HINT_T1);
}

/* Lanes [0, count) of 16, count clamped to 0..16. */
static inline __mmask16 bb_fl_amx_lanes(int count)
{
    return count >= 16 ? (__mmask16)0xffff : count <= 0 ? 0 : (__mmask16)((1u << count) - 1);
}

/* y[c0 + j][r + i] = a[i][j] (+ b[i][j] when b) for rows i < rows and columns j < cols. */
static inline void bb_fl_amx_store(const float a[16][16], const float b[16][16], float *y, int m, int r, int rows,
                                   int c0, int cols)
{
    __m512i t[16];
    for (int i = 0; i < 16; i++) {
        __m512 v = _mm512_load_ps(a[i]);
        if (b) v = _mm512_add_ps(v, _mm512_load_ps(b[i]));
        t[i] = _mm512_castps_si512(v);
    }
    bb_amx_transpose16(t);
    __mmask16 keep = bb_fl_amx_lanes(rows);
    for (int j = 0; j < cols; j++) _mm512_mask_storeu_ps(y + (size_t)(c0 + j) * m + r, keep, _mm512_castsi512_ps(t[j]));
}

#endif
