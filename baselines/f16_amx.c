/* f16, AMX-BF16 (`@amx`): N >= 16 activation rows on TDPBF16PS tiles (f16.h has the layout and
 * the reference semantics).
 *
 * A binary16 value has 11 significant bits, a bfloat16 8, so every weight and every activation is
 * split exactly into two bfloat16: v = hi + lo, hi = v with the low 16 bits of its float cleared,
 * lo = v - hi (at most 3 significant bits: exact in bfloat16; a normal float, since a nonzero
 * binary16 is at least 2^-24).  Then
 *     w x = w_hi x_hi + (w_lo x_hi + w_hi x_lo + w_lo x_lo),
 * each product exact in float (8 x 8 significant bits).  TDPBF16PS accumulates the first term into
 * one float tile ("big") and the three others, together at most 2^-7 |w x|, into a second
 * ("small"); y = big + small.  So this is float accumulation in an order of its own
 * (float_accumulation): the big sum rounds K times over K exact products as any reordered sum
 * does, the small one 3K times over terms 2^-7 smaller, the error within (K + 3K/128 + 1) u
 * sum |w x| (u = 2^-24).  TDPBF16PS treats denormal inputs and results as zero (Intel SDM vol. 1
 * ch. 18): no split part is a float denormal, and a flushed partial sum is off by under 2^-126.
 * The split is the "bf16x3" idea of emulating float GEMMs on bfloat16 units, made exact here by
 * keeping all four products (binary16 needs only two bfloat16 halves).
 *
 * Tiles (all 16 rows x 64 bytes): 0-3 C (big and small of activation blocks 0 and 1), 4 and 5 A
 * (w_hi, w_lo of 16 weight rows: 32 k), 6 and 7 B (x_hi, x_lo of one block of 16 activation rows
 * in pair order: row p, column j holds k = 2p and 2p + 1 of activation row j).  Per 32 k: six tile
 * loads, eight TDPBF16PS, 16 x 32 outputs.  Activations are split once per call, weights once
 * per strip of 16 rows.
 *
 * Rows whose weights hold an infinity or NaN, and calls whose activations do, go to the AVX-512
 * variant (hi - hi of an infinity is NaN, not the reference's infinity), and so do calls that
 * cannot get scratch memory: each such call is counted (bb_kernel_fallback_note, results'
 * fallback_calls).  N < 16 runs it by the documented rule (kernel.h: small_n_isa). */
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "f16.h"
#include "float_amx.h"

#define STRIP 16 /* weight rows per strip: one A tile */
#define KSTEP 32 /* k per tile step: 16 bfloat16 pairs */

/* 32 floats a (k 0-15), b (k 16-31) as the bfloat16 of their hi and lo parts, in k order. */
static inline void split32(__m512 a, __m512 b, __m512i *hi, __m512i *lo)
{
    const __m512 top = _mm512_castsi512_ps(_mm512_set1_epi32((int)0xffff0000u));
    __m512 ah = _mm512_and_ps(a, top), bh = _mm512_and_ps(b, top);
    /* both exact in bfloat16, so the conversion's rounding never acts */
    *hi = (__m512i)_mm512_cvtne2ps_pbh(bh, ah);
    *lo = (__m512i)_mm512_cvtne2ps_pbh(_mm512_sub_ps(b, bh), _mm512_sub_ps(a, ah));
}

/* Activation rows in blocks of 16 (zero rows past N), as x_hi and x_lo B data: block nb's rows p
 * at bhi/blo + nb * kp * 32 + p * 64.  Returns 0 when an activation is not finite. */
static int split_activations(const float *x, int n, int k, int kp, int8_t *bhi, int8_t *blo)
{
    int bad = 0;
    for (int nb = 0; nb < (n + 15) / 16; nb++) {
        int8_t *dh = bhi + (size_t)nb * kp * 32, *dl = blo + (size_t)nb * kp * 32;
        for (int k0 = 0; k0 < kp; k0 += KSTEP) {
            __mmask16 ma = bb_fl_amx_lanes(k - k0), mb = bb_fl_amx_lanes(k - k0 - 16);
            __m512i h[16], l[16];
            for (int j = 0; j < 16; j++) {
                int c = 16 * nb + j;
                __m512 a = _mm512_setzero_ps(), b = _mm512_setzero_ps();
                if (c < n) {
                    a = _mm512_maskz_loadu_ps(ma, x + (size_t)c * k + k0);
                    b = _mm512_maskz_loadu_ps(mb, x + (size_t)c * k + k0 + 16);
                    bad |= bb_fl_amx_unfit(a, 0) | bb_fl_amx_unfit(b, 0);
                }
                split32(a, b, &h[j], &l[j]);
            }
            bb_amx_transpose16(h);
            bb_amx_transpose16(l);
            for (int p = 0; p < 16; p++) {
                _mm512_store_si512(dh + (size_t)(k0 / 2 + p) * 64, h[p]);
                _mm512_store_si512(dl + (size_t)(k0 / 2 + p) * 64, l[p]);
            }
        }
    }
    return !bad;
}

/* Weight rows [r, r + rows) as w_hi and w_lo A data (row i at ahi/alo + i * 2 kp, zero rows up to
 * STRIP); finite[i] = 0 for a row holding an infinity or NaN. */
static void split_weights(const uint16_t *w, int k, int kp, int r, int rows, int8_t *ahi, int8_t *alo,
                          int finite[STRIP])
{
    for (int i = 0; i < STRIP; i++) {
        int8_t *dh = ahi + (size_t)i * 2 * kp, *dl = alo + (size_t)i * 2 * kp;
        if (i >= rows) {
            memset(dh, 0, (size_t)2 * kp);
            memset(dl, 0, (size_t)2 * kp);
            continue;
        }
        const uint16_t *row = w + (size_t)(r + i) * k;
        __mmask16 bad = 0;
        for (int k0 = 0; k0 < kp; k0 += KSTEP) {
            __m512 a = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(bb_fl_amx_lanes(k - k0), row + k0));
            __m512 b = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(bb_fl_amx_lanes(k - k0 - 16), row + k0 + 16));
            bad |= bb_fl_amx_unfit(a, 0) | bb_fl_amx_unfit(b, 0);
            __m512i h, l;
            split32(a, b, &h, &l);
            _mm512_store_si512(dh + 2 * (size_t)k0, h);
            _mm512_store_si512(dl + 2 * (size_t)k0, l);
        }
        finite[i] = !bad;
    }
}

void bb_f16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int kp = (k + KSTEP - 1) / KSTEP * KSTEP, nblocks = (n + 15) / 16;
    size_t bbytes = (size_t)nblocks * kp * 32, abytes = (size_t)STRIP * kp * 2;
    if (n < BB_FL_AMX_MIN_N || m1 <= m0) { /* the documented rule (an empty slice: nothing to run) */
        bb_f16_matmul_avx512(w, act, y, m, k, n, m0, m1);
        return;
    }
    int8_t *mem = aligned_alloc(64, 2 * bbytes + 2 * abytes);
    if (!mem || !split_activations(act, n, k, kp, mem, mem + bbytes)) { /* not the rule: counted, so results say so */
        free(mem);
        bb_kernel_fallback_note();
        bb_f16_matmul_avx512(w, act, y, m, k, n, m0, m1);
        return;
    }
    const int8_t *bhi = mem, *blo = mem + bbytes;
    int8_t *ahi = mem + 2 * bbytes, *alo = ahi + abytes;
    size_t astride = (size_t)kp * 2;
    bb_fl_amx_configure();
    _Alignas(64) float out[4][16][16];
    int fell_back = 0; /* a row with an infinity or NaN ran the AVX-512 variant */
    for (int r = m0; r < m1; r += STRIP) {
        int rows = m1 - r < STRIP ? m1 - r : STRIP, finite[STRIP];
        split_weights(w, k, kp, r, rows, ahi, alo, finite);
        bb_fl_amx_prefetch pf = bb_fl_amx_next_strip(w, k, r, STRIP, m1, (long)((nblocks + 1) / 2) * (kp / KSTEP));
        for (int nb = 0; nb < nblocks; nb += 2) {
            int two = nb + 1 < nblocks;
            const int8_t *bh0 = bhi + (size_t)nb * kp * 32, *bl0 = blo + (size_t)nb * kp * 32;
            const int8_t *bh1 = bh0 + (size_t)kp * 32, *bl1 = bl0 + (size_t)kp * 32;
            _tile_zero(0);
            _tile_zero(1);
            _tile_zero(2);
            _tile_zero(3);
            for (int k0 = 0; k0 < kp; k0 += KSTEP) {
                _tile_loadd(4, ahi + 2 * (size_t)k0, astride);
                _tile_loadd(5, alo + 2 * (size_t)k0, astride);
                _tile_loadd(6, bh0 + (size_t)k0 * 32, 64);
                _tile_loadd(7, bl0 + (size_t)k0 * 32, 64);
                _tile_dpbf16ps(0, 4, 6); /* w_hi x_hi */
                _tile_dpbf16ps(1, 5, 6); /* w_lo x_hi */
                _tile_dpbf16ps(1, 4, 7); /* w_hi x_lo */
                _tile_dpbf16ps(1, 5, 7); /* w_lo x_lo */
                if (two) {
                    _tile_loadd(6, bh1 + (size_t)k0 * 32, 64);
                    _tile_loadd(7, bl1 + (size_t)k0 * 32, 64);
                    _tile_dpbf16ps(2, 4, 6);
                    _tile_dpbf16ps(3, 5, 6);
                    _tile_dpbf16ps(3, 4, 7);
                    _tile_dpbf16ps(3, 5, 7);
                }
                bb_fl_amx_prefetch_step(&pf);
            }
            _tile_stored(0, out[0], 64);
            _tile_stored(1, out[1], 64);
            int c0 = 16 * nb;
            bb_fl_amx_store(out[0], out[1], y, m, r, rows, c0, n - c0 < 16 ? n - c0 : 16);
            if (two) {
                _tile_stored(2, out[2], 64);
                _tile_stored(3, out[3], 64);
                bb_fl_amx_store(out[2], out[3], y, m, r, rows, c0 + 16, n - c0 - 16 < 16 ? n - c0 - 16 : 16);
            }
        }
        for (int i = 0; i < rows; i++)
            if (!finite[i]) {
                bb_f16_matmul_avx512(w, act, y, m, k, n, r + i, r + i + 1);
                fell_back = 1;
            }
    }
    _tile_release();
    if (fell_back) bb_kernel_fallback_note(); /* once per call, as the contract counts */
    free(mem);
}
