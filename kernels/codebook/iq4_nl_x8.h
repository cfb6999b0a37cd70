/* iq4_nl_x8 — iq4_nl (the GGUF IQ4_NL codebook, iq4_nl.h) with the Arm paper's SIMD-aware
 * packing (Arm paper §4.1.1), as q4_0x8 packs Q4_0 and as llama.cpp's CPU_REPACK buffers repack
 * IQ4_NL: the blocks of 8 consecutive output rows are interleaved, so one pass over contiguous
 * memory produces 8 rows, one SIMD lane pair per row, with no horizontal reduction per row.
 * `iq4_nl` keeps the GGUF byte layout, so the two can be set side by side.
 *
 * Layout: q4_0x8's (q4_0x8.h, mad/q4_0_interleaved.h with R = 8 rows and C = 8-byte chunks): M/8
 * row groups, group g K/32 records of 144 bytes, record b holding block b of the 8 rows - their
 * 8 fp16 d, then byte 8*(c/8)+t of row (c%8)'s qs at qs[8c+t] - where a row's block is its
 * iq4_nl block: byte j holds the index of weight j (low nibble) and j+16 (high nibble).  The
 * indices are stored as they are (no XOR: they index the table).  4.5 bits per weight, M a
 * multiple of 8.  A GGUF IQ4_NL tensor becomes these records at load by row_interleave.h's
 * bb_il_repack (kernel.h gguf_repack_type): its blocks moved, not changed.
 *
 * Numbers: exactly iq4_nl's - the same quantizer per block (bb_iq4_nl_quant_block), the same
 * weights, the same q8_0 activations and the same reference, y = 0; for b in order:
 * y = y + (d_w * d_a) * (float)isum_b (bb_iq4_nl_matmul_ref_with).  Every variant gives its bits
 * (float_accumulation = false): avx2 runs q4_0x8's AVX2 record walk (mad/q4_0x8_avx2.c) on
 * vpshufb-decoded weights, multiplying |w| by sign(q, w) (kvalues reach -127: vpmaddubsw's int16
 * pairs stay exact only so), one int32 per row and block, then this reference's float steps, one
 * float lane per row; avx512 looks the indices up with one vpshufb per nibble plane (kvalue + 128,
 * unsigned) and runs q4_0x8's tile (mad/x8_tile_avx512.h) with the correction -128 * sum(a) and
 * this reference's float steps, one float lane per row; amx (N >= 16, iq4_nl_amx.c) decodes the
 * records to int8 kvalues for the shared AMX driver; dotprod and i8mm (Arm) run q4_0x8's SDOT /
 * SMMLA loop (mad/chunk8_records_neon.h) on TBL-decoded weights. */
#ifndef BB_IQ4_NL_X8_H
#define BB_IQ4_NL_X8_H

#include "../common/nibble_records.h"
#include "iq4_nl.h"

void bb_iq4_nl_x8_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_iq4_nl_x8_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_iq4_nl_x8_matmul_amx(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_iq4_nl_x8_matmul_dotprod(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);
void bb_iq4_nl_x8_matmul_i8mm(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1);

#endif
