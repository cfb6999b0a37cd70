/* bf16, AMX-BF16 (`@amx`): N >= 16 activation rows on TDPBF16PS tiles (bf16.h has the layout and
 * the reference semantics).  The weights and activations are bfloat16 already, so the tiles take
 * them as they are: A = 16 weight rows x 32 k, B = one block of 16 activation rows in pair order
 * (row p, column j: k = 2p and 2p + 1 of activation row j), and each float C tile accumulates all
 * of K.  The products are exact in float, each of the K additions rounded: float accumulation in
 * an order of its own, as the other SIMD variants (float_accumulation), within K u sum |w x|.
 *
 * Tiles (float_amx.h): 0-3 C (weight rows 0-15 / 16-31 x activation blocks 0 / 1), 4 and 5 A, 6
 * and 7 B; per 32 k four tile loads and four TDPBF16PS for 32 x 32 outputs.  Weights are copied
 * once per strip of 32 rows into a buffer padded to a multiple of 32 k, activations once per call
 * into pair order.  TDPBF16PS flushes denormal inputs, which bfloat16 can hold: rows with a
 * denormal, infinite or NaN weight, and calls with such an activation, go to the AVX-512 variant,
 * as do calls that cannot get scratch memory: each such call is counted (bb_kernel_fallback_note,
 * results' fallback_calls).  N < 16 runs it by the documented rule (kernel.h: small_n_isa). */
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "float_amx.h"

#define STRIP 32 /* weight rows per strip: two A tiles */
#define KSTEP 32 /* k per tile step: 16 bfloat16 pairs */

/* The lanes of 32 bfloat16 (one 64-byte row of pairs) that the tiles would get wrong. */
static inline __mmask16 unfit_pairs(__m512i v)
{
    __m512 even = _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
    __m512 odd = _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32((int)0xffff0000u)));
    return bb_fl_amx_unfit(even, 1) | bb_fl_amx_unfit(odd, 1);
}

/* 32 bfloat16 from k0 of a row of k, zero past its end. */
static inline __m512i load32(const uint16_t *row, int k, int k0)
{
    int live = k - k0 < 32 ? k - k0 : 32;
    return _mm512_maskz_loadu_epi16(live >= 32 ? ~0u : (1u << live) - 1, row + k0);
}

/* Activation rows in blocks of 16 (zero rows past N) in pair order: block nb's row p at
 * b + nb * kp * 32 + p * 64.  Returns 0 when an activation is denormal, infinite or NaN. */
static int pair_activations(const uint16_t *x, int n, int k, int kp, int8_t *b)
{
    __mmask16 bad = 0;
    for (int nb = 0; nb < (n + 15) / 16; nb++) {
        int8_t *dst = b + (size_t)nb * kp * 32;
        for (int k0 = 0; k0 < kp; k0 += KSTEP) {
            __m512i t[16];
            for (int j = 0; j < 16; j++) {
                int c = 16 * nb + j;
                t[j] = c < n ? load32(x + (size_t)c * k, k, k0) : _mm512_setzero_si512();
                bad |= unfit_pairs(t[j]);
            }
            bb_amx_transpose16(t);
            for (int p = 0; p < 16; p++) _mm512_store_si512(dst + (size_t)(k0 / 2 + p) * 64, t[p]);
        }
    }
    return !bad;
}

/* Weight rows [r, r + rows) at a + i * 2 kp, zero-padded (zero rows up to STRIP); fit[i] = 0 for
 * a row the tiles would get wrong. */
static void copy_weights(const uint16_t *w, int k, int kp, int r, int rows, int8_t *a, int fit[STRIP])
{
    for (int i = 0; i < STRIP; i++) {
        int8_t *dst = a + (size_t)i * 2 * kp;
        if (i >= rows) {
            memset(dst, 0, (size_t)2 * kp);
            continue;
        }
        const uint16_t *row = w + (size_t)(r + i) * k;
        __mmask16 bad = 0;
        for (int k0 = 0; k0 < kp; k0 += KSTEP) {
            __m512i v = load32(row, k, k0);
            bad |= unfit_pairs(v);
            _mm512_store_si512(dst + 2 * (size_t)k0, v);
        }
        fit[i] = !bad;
    }
}

void bb_bf16_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    int kp = (k + KSTEP - 1) / KSTEP * KSTEP, nblocks = (n + 15) / 16;
    size_t bbytes = (size_t)nblocks * kp * 32, abytes = (size_t)STRIP * kp * 2;
    if (n < BB_FL_AMX_MIN_N || m1 <= m0) { /* the documented rule (an empty slice: nothing to run) */
        bb_bf16_matmul_avx512(w, act, y, m, k, n, m0, m1);
        return;
    }
    int8_t *mem = aligned_alloc(64, bbytes + abytes);
    if (!mem || !pair_activations(act, n, k, kp, mem)) { /* not the rule: counted, so results say so */
        free(mem);
        bb_kernel_fallback_note();
        bb_bf16_matmul_avx512(w, act, y, m, k, n, m0, m1);
        return;
    }
    const int8_t *b = mem;
    int8_t *a = mem + bbytes;
    size_t astride = (size_t)kp * 2;
    bb_fl_amx_configure();
    _Alignas(64) float out[4][16][16];
    int fell_back = 0; /* a row with a denormal, infinity or NaN ran the AVX-512 variant */
    for (int r = m0; r < m1; r += STRIP) {
        int rows = m1 - r < STRIP ? m1 - r : STRIP, fit[STRIP];
        copy_weights(w, k, kp, r, rows, a, fit);
        bb_fl_amx_prefetch pf = bb_fl_amx_next_strip(w, k, r, STRIP, m1, (long)((nblocks + 1) / 2) * (kp / KSTEP));
        int two_a = rows > 16;
        for (int nb = 0; nb < nblocks; nb += 2) {
            int two_b = nb + 1 < nblocks;
            const int8_t *b0 = b + (size_t)nb * kp * 32, *b1 = b0 + (size_t)kp * 32;
            _tile_zero(0);
            _tile_zero(1);
            _tile_zero(2);
            _tile_zero(3);
            for (int k0 = 0; k0 < kp; k0 += KSTEP) {
                _tile_loadd(4, a + 2 * (size_t)k0, astride);
                _tile_loadd(6, b0 + (size_t)k0 * 32, 64);
                _tile_dpbf16ps(0, 4, 6);
                if (two_b) {
                    _tile_loadd(7, b1 + (size_t)k0 * 32, 64);
                    _tile_dpbf16ps(1, 4, 7);
                }
                if (two_a) {
                    _tile_loadd(5, a + 16 * astride + 2 * (size_t)k0, astride);
                    _tile_dpbf16ps(2, 5, 6);
                    if (two_b) _tile_dpbf16ps(3, 5, 7);
                }
                bb_fl_amx_prefetch_step(&pf);
            }
            int c0 = 16 * nb, cols0 = n - c0 < 16 ? n - c0 : 16, cols1 = n - c0 - 16 < 16 ? n - c0 - 16 : 16;
            int rows0 = rows < 16 ? rows : 16;
            _tile_stored(0, out[0], 64);
            bb_fl_amx_store(out[0], NULL, y, m, r, rows0, c0, cols0);
            if (two_b) {
                _tile_stored(1, out[1], 64);
                bb_fl_amx_store(out[1], NULL, y, m, r, rows0, c0 + 16, cols1);
            }
            if (two_a) {
                _tile_stored(2, out[2], 64);
                bb_fl_amx_store(out[2], NULL, y, m, r + 16, rows - 16, c0, cols0);
                if (two_b) {
                    _tile_stored(3, out[3], 64);
                    bb_fl_amx_store(out[3], NULL, y, m, r + 16, rows - 16, c0 + 16, cols1);
                }
            }
        }
        for (int i = 0; i < rows; i++)
            if (!fit[i]) {
                bb_bf16_matmul_avx512(w, act, y, m, k, n, r + i, r + i + 1);
                fell_back = 1;
            }
    }
    _tile_release();
    if (fell_back) bb_kernel_fallback_note(); /* once per call, as the contract counts */
    free(mem);
}
