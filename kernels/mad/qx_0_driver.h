/* The outer loop of the SIMD variants of the row-major block kernels q8_0 and q4_0, for every
 * ISA (x86: qx_0_rows.h; Arm: qx_0_dotprod.c).  The including file defines
 *     QX_ISA         suffix of the exported functions (avx2, avx512, dotprod)
 *     QX_ROW_GROUP   weight rows its tile computes together (1 when not defined)
 * and, after the include, rows_tile(w, fmt, act, y, m, k, n, m0, m1, c0, nb): weight rows
 * [m0, m1) against activation rows c0 .. c0+nb-1 (nb <= NB_MAX, a constant in each call).  It
 * gets bb_q8_0_matmul_<QX_ISA> and bb_q4_0_matmul_<QX_ISA>: weight rows in chunks of about 16 KiB
 * (whole row groups), which stay in L1 while every group of activation rows passes over them. */
#ifndef BB_QX_0_DRIVER_H
#define BB_QX_0_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "qx_0.h"

#ifndef QX_ROW_GROUP
#define QX_ROW_GROUP 1
#endif

enum { FMT_Q8_0, FMT_Q4_0 };
#define NB_MAX 4 /* activation rows sharing each loaded weight block */

BB_QX_INLINE size_t block_bytes(int fmt) { return fmt == FMT_Q8_0 ? sizeof(bb_block_q8_0) : sizeof(bb_block_q4_0); }

BB_QX_INLINE void rows_tile(const uint8_t *w, int fmt, const void *act, float *y, int m, int k, int n, int m0,
                            int m1, int c0, int nb);

BB_QX_INLINE void rows_matmul(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1,
                              int fmt)
{
    size_t row_bytes = (size_t)(k / BB_QK) * block_bytes(fmt);
    int chunk = (int)(16384 / row_bytes) / QX_ROW_GROUP * QX_ROW_GROUP;
    if (chunk < QX_ROW_GROUP) chunk = QX_ROW_GROUP;
    for (int r0 = m0; r0 < m1; r0 += chunk) {
        int r1 = m1 - r0 > chunk ? r0 + chunk : m1;
        for (int c0 = 0; c0 < n; c0 += NB_MAX) {
            switch (n - c0 < NB_MAX ? n - c0 : NB_MAX) {
            case 1: rows_tile(w, fmt, act, y, m, k, n, r0, r1, c0, 1); break;
            case 2: rows_tile(w, fmt, act, y, m, k, n, r0, r1, c0, 2); break;
            case 3: rows_tile(w, fmt, act, y, m, k, n, r0, r1, c0, 3); break;
            default: rows_tile(w, fmt, act, y, m, k, n, r0, r1, c0, 4); break;
            }
        }
    }
}

#define QX_CAT2(a, b) a##b
#define QX_CAT(a, b) QX_CAT2(a, b)

void QX_CAT(bb_q8_0_matmul_, QX_ISA)(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    rows_matmul(w, act, y, m, k, n, m0, m1, FMT_Q8_0);
}

void QX_CAT(bb_q4_0_matmul_, QX_ISA)(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    rows_matmul(w, act, y, m, k, n, m0, m1, FMT_Q4_0);
}

#endif
