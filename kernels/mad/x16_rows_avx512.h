/* The outer loop of the AVX-512 variants of the 16-row interleaved kernels on q8_K activations
 * (tq1_0_x16_avx512.c, tq2_0_x16_avx512.c; q2_k_x16_avx512.c takes its decode): weight rows
 * [m0, m1) in groups of 16, each group against the activation rows X16_NB_MAX at a time, so that
 * the group's records (16 * K * bits / 8 bytes) stay in L1/L2 while every activation row passes
 * over them.  The including file
 * defines, after the include,
 *     record_terms(rec, a, b, nb, sumf, ahead, pf)
 *         sumf[c] += the 16 rows' block terms of the record at rec against block b of
 *         activation rows a[c], c < nb; with pf the record's lines are prefetched with
 *         bb_prefetch_interleaved(line, ahead, BB_PREFETCH_L1_BYTES), without it not at all
 *         (nb and pf are constants at every call: the prefetches stay where GCC schedules them)
 * and calls x16_matmul with its record size and whether decode reads in lockstep (below).  nb is
 * a constant in each call of record_terms (the switch below), so its accumulators are unrolled
 * into registers.
 *
 * Decode (N = 1) reads the groups of a call as up to four streams in lockstep, record by record
 * (common/lockstep.h; a 32 KiB chunk at K = 2560 is three groups).  A kernel that computes below
 * the DRAM rate (tq1_0_x16) gains nothing by it and walks its groups in order.  Where the CPU
 * leaves one stream to its hardware (kernels/cpu.h, bb_cpu_stream_prefetch() off: Zen 4) every
 * call walks its groups in order, one forward stream, with no software prefetch: on the Zen 4
 * guest tq2_0_x16 then read DRAM at 0.99-1.01x a plain read at one thread against 1.10-1.20x in
 * lockstep, and 1.32-1.35x as one stream with the prefetches (docs/measurements/
 * 2026-12-01-x16-one-stream.md).  The variants that include this file set stream_prefetch. */
#ifndef BB_X16_ROWS_AVX512_H
#define BB_X16_ROWS_AVX512_H

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/act_quant.h"
#include "../common/lockstep.h"
#include "../common/prefetch.h"
#include "../cpu.h"

#define X16_NB_MAX 4 /* activation rows sharing each loaded run of weights (N > 1) */

static inline __attribute__((always_inline)) void record_terms(const uint8_t *rec, const bb_block_q8_K *const *a,
                                                               int b, const int nb, __m512 *sumf, size_t ahead,
                                                               const bool pf);

/* One group of 16 rows (records of record_bytes) against activation rows c0 .. c0+nb-1, with the
 * software prefetch (pf) or without. */
static inline __attribute__((always_inline)) void x16_group_rows(const uint8_t *grp, size_t record_bytes,
                                                                 const void *act, float *y, int m, int nblk, int r,
                                                                 int c0, const int nb, const bool pf)
{
    const bb_block_q8_K *a[X16_NB_MAX];
    __m512 sumf[X16_NB_MAX];
    for (int c = 0; c < nb; c++) {
        a[c] = (const bb_block_q8_K *)act + (size_t)(c0 + c) * nblk;
        sumf[c] = _mm512_setzero_ps();
    }
    for (int b = 0; b < nblk; b++) record_terms(grp + (size_t)b * record_bytes, a, b, nb, sumf, BB_PREFETCH_BYTES, pf);
    for (int c = 0; c < nb; c++) _mm512_storeu_ps(y + (size_t)(c0 + c) * m + r, sumf[c]);
}

/* Decode: the call's groups as streams in lockstep, a record of each in turn. */
static inline __attribute__((always_inline)) void x16_decode_streams(const void *w, size_t record_bytes,
                                                                     const void *act, float *y, int k, int m0, int m1)
{
    const int nblk = k / BB_QK_K, groups = (m1 - m0) / 16;
    const size_t group_bytes = (size_t)nblk * record_bytes, ahead = (size_t)groups * group_bytes;
    const bb_block_q8_K *a[1] = {(const bb_block_q8_K *)act};
    for (int j = 0; j < bb_lockstep_passes(groups); j++) {
        int g[BB_LOCKSTEP_STREAMS];
        int live = bb_lockstep_units(groups, j, g);
        __m512 sumf[BB_LOCKSTEP_STREAMS];
        for (int i = 0; i < live; i++) sumf[i] = _mm512_setzero_ps();
        for (int b = 0; b < nblk; b++)
            for (int i = 0; i < live; i++)
                record_terms((const uint8_t *)w + (size_t)(m0 / 16 + g[i]) * group_bytes + (size_t)b * record_bytes, a,
                             b, 1, &sumf[i], ahead, true);
        for (int i = 0; i < live; i++) _mm512_storeu_ps(y + m0 + 16 * g[i], sumf[i]);
    }
}

/* Rows [m0, m1) group by group, each against the activation rows X16_NB_MAX at a time. */
static inline __attribute__((always_inline)) void x16_groups(const void *w, size_t record_bytes, const void *act,
                                                             float *y, int m, int k, int n, int m0, int m1,
                                                             const bool pf)
{
    int nblk = k / BB_QK_K;
    for (int r = m0; r < m1; r += 16) { /* m0, m1: multiples of 16, the kernels' m_multiple */
        const uint8_t *grp = (const uint8_t *)w + (size_t)(r / 16) * nblk * record_bytes;
        for (int c0 = 0; c0 < n; c0 += X16_NB_MAX) {
            switch (n - c0 < X16_NB_MAX ? n - c0 : X16_NB_MAX) {
            case 1: x16_group_rows(grp, record_bytes, act, y, m, nblk, r, c0, 1, pf); break;
            case 2: x16_group_rows(grp, record_bytes, act, y, m, nblk, r, c0, 2, pf); break;
            case 3: x16_group_rows(grp, record_bytes, act, y, m, nblk, r, c0, 3, pf); break;
            default: x16_group_rows(grp, record_bytes, act, y, m, nblk, r, c0, 4, pf); break;
            }
        }
    }
}

static inline __attribute__((always_inline)) void x16_matmul(const void *w, size_t record_bytes, const void *act,
                                                             float *y, int m, int k, int n, int m0, int m1,
                                                             bool lockstep)
{
    if (!bb_cpu_stream_prefetch()) { /* one stream, left to the hardware (above) */
        x16_groups(w, record_bytes, act, y, m, k, n, m0, m1, false);
        return;
    }
    if (n == 1 && lockstep) {
        x16_decode_streams(w, record_bytes, act, y, k, m0, m1);
        return;
    }
    x16_groups(w, record_bytes, act, y, m, k, n, m0, m1, true);
}

#endif
