/* i2_s, AVX-512 VNNI.  One 128-weight block (32 code bytes) is broadcast to both halves of a
 * zmm register; one AND with 0xC0 (low half) / 0x30 (high half) isolates 64*c of plane 0 and
 * 16*c of plane 1 in place, another with 0x0C / 0x03 gives 4*c of plane 2 and c of plane 3 (still
 * unsigned bytes <= 128, no shifts).  Planes 0 and 1 of a block pair with activations
 * k = 128b .. 128b+63, planes 2 and 3 with 128b+64 .. 128b+127: two plain 64-byte loads, so the
 * activation bytes need neither rearranging nor 256-bit inserts.  vpdpbusd (unsigned code x
 * signed activation) accumulates each pair of planes into one int32 register: 2 accumulators per
 * block; with N > 1 two blocks in flight (4 chains) per row.  Every lane of an accumulator only
 * ever sees one plane, so it is an exact multiple of that plane's weight 64/16/4/1 and is
 * divided out lane-wise by an arithmetic shift; four rows are then summed by one transposed
 * reduction and dequantized together (a vector division is the same IEEE division per lane as
 * bb_i8_dequant's).
 * Decode (N = 1) reads a call's rows as four streams in lockstep, line by line, eight dpbusd
 * chains (common/lockstep.h says why; four adjacent rows interleaved are one stream to the
 * prefetchers and were slower from DRAM, docs/measurements/2026-11-22.md).  With N > 1 a pass of
 * four rows, read one after the other, stays in L1 across the activation rows.
 * Exactness: each lane gains at most 4*128*127 per block, |acc| <= 65024*K/128 < 2^31 for
 * K <= 2^18 (shape_error enforces it). */
#include <immintrin.h>

#include "../common/act_quant.h"
#include "../common/lockstep.h"
#include "../common/prefetch.h"
#include "i2_s.h"

#define ROWS 4 /* rows per pass */

typedef struct {
    __m512i m01, m23; /* plane masks: 0xC0 | 0x30 and 0x0C | 0x03 (low | high 256 bits) */
} i2s_masks;

/* acc += codes (u8) . act (s8) with the activations as the memory operand.  Written as one
 * instruction because GCC 12 compiles _mm512_dpbusd_epi32 in this loop with two register copies
 * per accumulator and iteration, and from DRAM fewer instructions per line stream better
 * (`bitbench gemm --read` measures the ratio to a plain read; figures in README.md). */
static inline __m512i dpbusd(__m512i acc, __m512i codes, const int8_t *act)
{
    __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(codes), "m"(*(const __m512i *)act));
    return acc;
}

/* One block: planes 0|1 against activations qb[0..64), planes 2|3 against qb[64..128). */
static inline void block_madd(const uint8_t *wb, const int8_t *qb, const i2s_masks *mk, __m512i *acc01, __m512i *acc23)
{
    __m512i v = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)wb));
    *acc01 = dpbusd(*acc01, _mm512_and_si512(v, mk->m01), qb);
    *acc23 = dpbusd(*acc23, _mm512_and_si512(v, mk->m23), qb + 64);
}

/* acc01 lanes 0-7 hold 64*(plane 0), lanes 8-15 16*(plane 1); acc23 4*(plane 2) and plane 3:
 * one exact lane-wise shift each gives the plane sums, added into one vector per row. */
static inline __m512i planes_sum(__m512i acc01, __m512i acc23)
{
    const __m512i sh01 = _mm512_set_epi32(4, 4, 4, 4, 4, 4, 4, 4, 6, 6, 6, 6, 6, 6, 6, 6);
    const __m512i sh23 = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2);
    return _mm512_add_epi32(_mm512_srav_epi32(acc01, sh01), _mm512_srav_epi32(acc23, sh23));
}

/* The horizontal sums of four vectors, as the four lanes of one (integer adds: any order is exact). */
static inline __m128i reduce4(__m512i x0, __m512i x1, __m512i x2, __m512i x3)
{
    __m512i t0 = _mm512_add_epi32(_mm512_unpacklo_epi32(x0, x1), _mm512_unpackhi_epi32(x0, x1));
    __m512i t1 = _mm512_add_epi32(_mm512_unpacklo_epi32(x2, x3), _mm512_unpackhi_epi32(x2, x3));
    __m512i u = _mm512_add_epi32(_mm512_unpacklo_epi64(t0, t1), _mm512_unpackhi_epi64(t0, t1));
    __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(u), _mm512_extracti64x4_epi64(u, 1));
    return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

/* sum_k code*q of one row as one vector of plane-weighted lanes; two accumulator pairs (even and
 * odd blocks) keep four dpbusd chains in flight, and the next row's are independent of them. */
static inline __m512i dot_row(const uint8_t *w, const int8_t *q, int k, const i2s_masks *mk)
{
    __m512i a01 = _mm512_setzero_si512(), a23 = a01, b01 = a01, b23 = a01;
    int nblk = k / BB_I2S_BLOCK, b = 0;
    for (; b + 2 <= nblk; b += 2) { /* two blocks: one 64-byte line */
        bb_prefetch_stream(w + 32 * b);
        block_madd(w + 32 * b, q + b * BB_I2S_BLOCK, mk, &a01, &a23);
        block_madd(w + 32 * b + 32, q + (b + 1) * BB_I2S_BLOCK, mk, &b01, &b23);
    }
    if (b < nblk) block_madd(w + 32 * b, q + b * BB_I2S_BLOCK, mk, &a01, &a23);
    return planes_sum(_mm512_add_epi32(a01, b01), _mm512_add_epi32(a23, b23));
}

/* Four rows one after the other (w[3] may repeat a row when fewer are left), reduced together. */
static __m128i dot_4rows(const uint8_t *const w[ROWS], const int8_t *q, int k, const i2s_masks *mk)
{
    return reduce4(dot_row(w[0], q, k, mk), dot_row(w[1], q, k, mk), dot_row(w[2], q, k, mk), dot_row(w[3], q, k, mk));
}

/* Decode: four rows from four streams, line by line; each row keeps one accumulator pair. */
static __m128i dot_4streams(const uint8_t *const w[ROWS], const int8_t *q, int k, const i2s_masks *mk, size_t ahead)
{
    __m512i a01[ROWS], a23[ROWS];
    for (int i = 0; i < ROWS; i++) a01[i] = a23[i] = _mm512_setzero_si512();
    int nblk = k / BB_I2S_BLOCK, b = 0;
    for (; b + 2 <= nblk; b += 2)
        for (int i = 0; i < ROWS; i++) {
            bb_prefetch_interleaved(w[i] + 32 * b, ahead, BB_PREFETCH_L1_BYTES / ROWS);
            block_madd(w[i] + 32 * b, q + b * BB_I2S_BLOCK, mk, &a01[i], &a23[i]);
            block_madd(w[i] + 32 * b + 32, q + (b + 1) * BB_I2S_BLOCK, mk, &a01[i], &a23[i]);
        }
    if (b < nblk)
        for (int i = 0; i < ROWS; i++) block_madd(w[i] + 32 * b, q + b * BB_I2S_BLOCK, mk, &a01[i], &a23[i]);
    return reduce4(planes_sum(a01[0], a23[0]), planes_sum(a01[1], a23[1]), planes_sum(a01[2], a23[2]),
                   planes_sum(a01[3], a23[3]));
}

/* bb_i8_dequant lane-wise: (float)isum / act_scale * w_scale, 0 for an all-zero row */
static inline __m128 dequant4(__m128i isum, const bb_i8_row_head *h, float ws)
{
    isum = _mm_sub_epi32(isum, _mm_set1_epi32(h->qsum));
    if (h->scale == 0.0f) return _mm_setzero_ps();
    return _mm_mul_ps(_mm_div_ps(_mm_cvtepi32_ps(isum), _mm_set1_ps(h->scale)), _mm_set1_ps(ws));
}

/* Rows [m0, m1) against one activation row, four streams in lockstep (common/lockstep.h); a pass
 * with fewer live rows repeats one and does not store its lanes. */
static void decode_streams(const void *w, const void *act, float *y, int k, int m0, int m1, float ws,
                           const i2s_masks *mk)
{
    _Static_assert(ROWS == BB_LOCKSTEP_STREAMS, "one row of each stream per pass");
    const size_t row_bytes = (size_t)k / 4, ahead = (size_t)(m1 - m0) * row_bytes;
    const bb_i8_row_head *h = bb_i8_row(act, k, 0);
    const int8_t *q = bb_i8_row_q(act, k, 0);
    for (int j = 0; j < bb_lockstep_passes(m1 - m0); j++) {
        int row[ROWS] = {0};
        int live = bb_lockstep_units(m1 - m0, j, row);
        const uint8_t *wr[ROWS];
        for (int i = 0; i < ROWS; i++) wr[i] = (const uint8_t *)w + (size_t)(m0 + row[i < live ? i : 0]) * row_bytes;
        float out[ROWS];
        _mm_storeu_ps(out, dequant4(dot_4streams(wr, q, k, mk, ahead), h, ws));
        for (int i = 0; i < live; i++) y[m0 + row[i]] = out[i];
    }
}

void bb_i2_s_matmul_avx512(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    const float ws = bb_i2_s_scale(w, m, k);
    const size_t row_bytes = (size_t)k / 4;
    i2s_masks mk;
    mk.m01 = _mm512_inserti64x4(_mm512_set1_epi8((char)0xC0), _mm256_set1_epi8(0x30), 1);
    mk.m23 = _mm512_inserti64x4(_mm512_set1_epi8(0x0C), _mm256_set1_epi8(0x03), 1);
    if (n == 1) {
        decode_streams(w, act, y, k, m0, m1, ws, &mk);
        return;
    }
    for (int r = m0; r < m1; r += ROWS) {
        int live = m1 - r < ROWS ? m1 - r : ROWS;
        const uint8_t *wr[ROWS];
        for (int i = 0; i < ROWS; i++) wr[i] = (const uint8_t *)w + (size_t)(r + (i < live ? i : live - 1)) * row_bytes;
        __mmask8 store = (__mmask8)((1u << live) - 1);
        /* The rows' weights (4*K/4 bytes) stay in L1 across the activation rows of a GEMM. */
        for (int c = 0; c < n; c++) {
            const bb_i8_row_head *h = bb_i8_row(act, k, c);
            __m128 out = dequant4(dot_4rows(wr, bb_i8_row_q(act, k, c), k, &mk), h, ws);
            _mm_mask_storeu_ps(y + (size_t)c * m + r, store, out);
        }
    }
}
