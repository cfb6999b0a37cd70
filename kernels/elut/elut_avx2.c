/* Element-wise LUT kernels, AVX2: bitnet.cpp's x86 scheme.  32 bytes of an index block masked to
 * their low (high) nibbles are two 128-bit lanes, each the 16 rows of one group, so one vpshufb
 * against two groups' 16-byte tables (one per lane) does 32 lookups.
 *
 * _0: the int8 lookups of the low-nibble and the high-nibble groups (the same 16 rows) are
 * interleaved by vpunpcklbw / vpunpckhbw and added per row into int16 by one vpmaddubsw with ones
 * (two unpacks and two multiplies for 64 lookups, where 0/1 even/odd row selectors took four
 * multiplies and two more adds), and accumulated in int16.  _1: the low-byte and high-byte lookups are
 * interleaved back into int16 entries by vpunpcklbw / vpunpckhbw (the "unpack" of §3.2.1) and
 * accumulated in int16.  Every 8 blocks the int16 sums (at most 32 entries of |x| <= 382 per
 * lane, and the two lanes' sum below 2^15) are folded across lanes and widened to int32.
 * TL2 sign: the 32 sign bits a lookup vector needs are in one 64-bit mask; one vpshufb spreads
 * them to bytes (byte 16L + r takes byte r/2 of the mask), vpand/vpcmpeqb turn them into 0 / -1
 * bytes s.  _0 applies eq. (5) as written, x' = s ^ (s + x), on the int8 entries.  _1 applies it
 * rearranged, x' = (s ^ x) - s: the xor on both bytes of the entry before they are unpacked into
 * int16 (the complement of an int16 is the complement of its two bytes), and the -s (one per
 * negative triple) is counted in bytes and added when the int16 sums are widened.
 * Two row tiles (32 rows) share every table register load. */
#include <immintrin.h>
#include <string.h>

#include "../common/act_quant.h"
#include "../common/prefetch.h"
#include "elut.h"

#define TP ELUT_TP_AVX2 /* row tiles per pass */
_Static_assert(TP <= ELUT_TP_MAX, "elut_matmul_tiled's isum holds ELUT_TP_MAX tiles");
#define WIDEN 8    /* blocks between int16 -> int32 widenings */
/* Prefetch.  A pass reads TP tiles side by side (TP streams of index bytes, TP of signs), each
 * tile a few KiB, so bb_prefetch_stream's fixed distance ran off the end of one tile into the
 * next tile of the same pass, already read, and the next pass started cold: from DRAM the kernel
 * took about twice its time from L3 (tl2_0 at K = 2560 on Zen 3).  bb_prefetch_interleaved sends
 * the far prefetch to the same position in the next pass's tile, and the near one 2 KiB / TP
 * ahead in each tile, 2 KiB for the pass (as in elut_avx512.c). */

static inline __m256i load_bcast64(const uint8_t *p)
{
    int64_t v;
    memcpy(&v, p, sizeof v);
    return _mm256_set1_epi64x(v);
}

/* 0 / -1 bytes for the 32 lookups of half hh (groups 2hh, 2hh+1 of a 4-group mask): byte 16L + r
 * is bit 4r + 2hh + L of the mask = bit 4(r%2) + 2hh + L of its byte r/2. */
static inline __m256i expand_signs(__m256i mask64, __m256i spread, __m256i bits)
{
    __m256i x = _mm256_and_si256(_mm256_shuffle_epi8(mask64, spread), bits);
    return _mm256_cmpeq_epi8(x, bits);
}

static inline __attribute__((always_inline)) void blocks(const uint8_t *tile0, size_t tstride, size_t idx_off,
                                                         size_t sign_off, int nb, const uint8_t *lo,
                                                         const uint8_t *hi, const bool q8, const bool sign,
                                                         const int tp, __m256i *acc_a, __m256i *acc_b)
{
    const __m256i nib = _mm256_set1_epi8(0x0f);
    const __m256i ones = _mm256_set1_epi8(1);
    const __m256i spread = _mm256_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7,
                                            0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    const __m256i bits[2] = {_mm256_set_m128i(_mm_set1_epi16(0x2002), _mm_set1_epi16(0x1001)),
                             _mm256_set_m128i(_mm_set1_epi16(0x8008), _mm_set1_epi16(0x4004))};
    const size_t pass = (size_t)tp * tstride, near = BB_PREFETCH_L1_BYTES / tp; /* prefetch.h */
    for (int b0 = 0; b0 < nb; b0 += WIDEN) {
        int b1 = nb - b0 < WIDEN ? nb : b0 + WIDEN;
        __m256i s16a[TP], s16b[TP], neg[TP]; /* neg: _1's count of negative entries, bytes */
        for (int t = 0; t < tp; t++) s16a[t] = s16b[t] = neg[t] = _mm256_setzero_si256();
        for (int b = b0; b < b1; b++)
            for (int hh = 0; hh < 2; hh++) {
                /* tables of groups (2hh, 2hh+1) for the low nibbles, (4+2hh, 5+2hh) for the high */
                size_t to = (size_t)b * 128 + 32 * (size_t)hh;
                const __m256i L0 = _mm256_loadu_si256((const __m256i *)(lo + to));
                const __m256i L1 = _mm256_loadu_si256((const __m256i *)(lo + to + 64));
                __m256i H0 = L0, H1 = L1;
                if (!q8) {
                    H0 = _mm256_loadu_si256((const __m256i *)(hi + to));
                    H1 = _mm256_loadu_si256((const __m256i *)(hi + to + 64));
                }
                for (int t = 0; t < tp; t++) {
                    const uint8_t *tile = tile0 + (size_t)t * tstride;
                    if (hh == 0) bb_prefetch_interleaved(tile + idx_off + (size_t)b * ELUT_BLOCK, pass, near);
                    if (sign && hh == 0 && (b & 3) == 0)
                        bb_prefetch_interleaved(tile + sign_off + (size_t)b * ELUT_SIGNS, pass, near);
                    __m256i v = _mm256_loadu_si256(
                        (const __m256i *)(tile + idx_off + (size_t)b * ELUT_BLOCK + 32 * (size_t)hh));
                    __m256i i0 = _mm256_and_si256(v, nib), i1 = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);
                    __m256i a0 = _mm256_shuffle_epi8(L0, i0), a1 = _mm256_shuffle_epi8(L1, i1);
                    __m256i s0 = _mm256_setzero_si256(), s1 = s0;
                    if (sign) {
                        const uint8_t *s = tile + sign_off + (size_t)b * ELUT_SIGNS;
                        s0 = expand_signs(load_bcast64(s), spread, bits[hh]);
                        s1 = expand_signs(load_bcast64(s + 8), spread, bits[hh]);
                    }
                    if (q8) {
                        if (sign) {
                            a0 = _mm256_xor_si256(s0, _mm256_add_epi8(s0, a0)); /* eq. (5) */
                            a1 = _mm256_xor_si256(s1, _mm256_add_epi8(s1, a1));
                        }
                        /* a0 and a1 hold the same rows (two groups): interleaved, one vpmaddubsw
                         * with ones adds them per row, rows 0-7 from the low halves, 8-15 from
                         * the high */
                        s16a[t] = _mm256_add_epi16(s16a[t], _mm256_maddubs_epi16(ones, _mm256_unpacklo_epi8(a0, a1)));
                        s16b[t] = _mm256_add_epi16(s16b[t], _mm256_maddubs_epi16(ones, _mm256_unpackhi_epi8(a0, a1)));
                    } else {
                        __m256i h0 = _mm256_shuffle_epi8(H0, i0), h1 = _mm256_shuffle_epi8(H1, i1);
                        if (sign) {
                            a0 = _mm256_xor_si256(a0, s0);
                            a1 = _mm256_xor_si256(a1, s1);
                            h0 = _mm256_xor_si256(h0, s0);
                            h1 = _mm256_xor_si256(h1, s1);
                            neg[t] = _mm256_sub_epi8(_mm256_sub_epi8(neg[t], s0), s1);
                        }
                        s16a[t] = _mm256_add_epi16(s16a[t], _mm256_add_epi16(_mm256_unpacklo_epi8(a0, h0),
                                                                             _mm256_unpacklo_epi8(a1, h1)));
                        s16b[t] = _mm256_add_epi16(s16b[t], _mm256_add_epi16(_mm256_unpackhi_epi8(a0, h0),
                                                                             _mm256_unpackhi_epi8(a1, h1)));
                    }
                }
            }
        /* fold the two lanes (two groups, same rows) and widen to int32; _1 adds its counts
         * (at most 32 per byte) to the int16 sums of the same rows first */
        for (int t = 0; t < tp; t++) {
            if (!q8 && sign) {
                s16a[t] = _mm256_add_epi16(s16a[t], _mm256_unpacklo_epi8(neg[t], _mm256_setzero_si256()));
                s16b[t] = _mm256_add_epi16(s16b[t], _mm256_unpackhi_epi8(neg[t], _mm256_setzero_si256()));
            }
            __m128i fa = _mm_add_epi16(_mm256_castsi256_si128(s16a[t]), _mm256_extracti128_si256(s16a[t], 1));
            __m128i fb = _mm_add_epi16(_mm256_castsi256_si128(s16b[t]), _mm256_extracti128_si256(s16b[t], 1));
            acc_a[t] = _mm256_add_epi32(acc_a[t], _mm256_cvtepi16_epi32(fa));
            acc_b[t] = _mm256_add_epi32(acc_b[t], _mm256_cvtepi16_epi32(fb));
        }
    }
}

static inline __attribute__((always_inline)) void tiles(const uint8_t *w, const elut_geom *g, const uint8_t *tab,
                                                        int tile, const int tp,
                                                        const bool q8, const bool tl2, int32_t *isum)
{
    __m256i acc_a[TP], acc_b[TP];
    for (int t = 0; t < tp; t++) acc_a[t] = acc_b[t] = _mm256_setzero_si256();
    size_t ng = (size_t)(g->ng3 + g->ng1), t1 = (size_t)g->ng3 * ELUT_ENTRIES;
    const uint8_t *lo = tab, *hi = tab + ng * ELUT_ENTRIES;
    const uint8_t *base = w + (size_t)tile * g->tile_bytes;
    if (tl2) blocks(base, g->tile_bytes, 0, g->sign_off, g->nb3, lo, hi, q8, true, tp, acc_a, acc_b);
    blocks(base, g->tile_bytes, g->idx1_off, 0, g->nb1, lo + t1, hi + t1, q8, false, tp, acc_a, acc_b);
    for (int t = 0; t < tp; t++) {
        int32_t a[8], bb[8], *out = isum + t * ELUT_TILE;
        _mm256_storeu_si256((__m256i *)a, acc_a[t]);
        _mm256_storeu_si256((__m256i *)bb, acc_b[t]);
        for (int i = 0; i < 8; i++) {
            /* a = rows 0-7, b = rows 8-15 */
            out[i] = a[i];
            out[8 + i] = bb[i];
        }
    }
}

/* elut_tiles_fn: TP tiles per pass where there are as many, else 1. */
static int tiles_any(const uint8_t *w, const elut_geom *g, const uint8_t *tab, int tile, int left, elut_kind kind,
                     int32_t *isum)
{
    if (left < TP) {
        ELUT_TILES_KIND(tiles, 1);
        return 1;
    }
    ELUT_TILES_KIND(tiles, TP);
    return TP;
}

void elut_matmul_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1, elut_kind kind)
{
    elut_matmul_tiled(w, act, y, m, k, n, m0, m1, kind, tiles_any);
}

/* A = max over groups of sum |q| (elut_table_amax), 8 groups per step: vpmaskmovd loads their
 * bytes, vpermd + vpshufb move each group to one 32-bit lane (zeros elsewhere), vpmaddubsw and
 * vpmaddwd with ones sum it. */
static int table_amax(const int8_t *q, const elut_geom *g)
{
    const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    __m256i mx = _mm256_setzero_si256();
    for (int tl2 = 0; tl2 < 2; tl2++) {
        int n = tl2 ? g->ng3 : g->ng1, len = tl2 ? 3 : 2;
        const int8_t *qp = tl2 ? q : q + g->k3;
        /* dwords of groups 0-3 to the low lane, 4-7 to the high one */
        const __m256i dw = tl2 ? _mm256_setr_epi32(0, 1, 2, 0, 3, 4, 5, 0) : _mm256_setr_epi32(0, 1, 0, 0, 2, 3, 0, 0);
        uint8_t sh[32];
        for (int i = 0; i < 32; i++) sh[i] = i % 4 < len ? (uint8_t)(len * (i % 16 / 4) + i % 4) : 0x80;
        const __m256i spread = _mm256_loadu_si256((const __m256i *)sh);
        for (int j = 0; j < n; j += 8) {
            int cnt = n - j < 8 ? n - j : 8, bytes = cnt * len, words = bytes / 4;
            /* whole dwords by vpmaskmovd; a partial last dword (never more than the part) by hand */
            __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32(words), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            __m256i v = _mm256_maskload_epi32((const int *)(const void *)(qp + (size_t)len * j), lanes);
            if (bytes % 4) {
                int32_t tail = 0;
                memcpy(&tail, qp + (size_t)len * j + 4 * words, (size_t)(bytes % 4));
                v = _mm256_blendv_epi8(v, _mm256_set1_epi32(tail),
                                       _mm256_cmpeq_epi32(_mm256_set1_epi32(words), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
            }
            v = _mm256_abs_epi8(_mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(v, dw), spread));
            /* groups past cnt read zeros */
            __m256i sum = _mm256_madd_epi16(_mm256_maddubs_epi16(v, ones8), ones16);
            mx = _mm256_max_epi32(mx, sum);
        }
    }
    __m128i m4 = _mm_max_epi32(_mm256_castsi256_si128(mx), _mm256_extracti128_si256(mx, 1));
    m4 = _mm_max_epi32(m4, _mm_shuffle_epi32(m4, 0x4e));
    m4 = _mm_max_epi32(m4, _mm_shuffle_epi32(m4, 0xb1));
    return _mm_cvtsi128_si32(m4);
}

/* The tables of one activation row (elut_tables_ref's bytes): entry i of a group is
 * sum_e d[i][e] q[e] by vpmaddubsw (q + 128 unsigned x digits) and vpmaddwd, less
 * 128 * sum_e d[i][e]; the two halves hold entries {0-3, 8-11} and {4-7, 12-15} so that one
 * vpackssdw puts the 16 sums in entry order. */
void elut_tables_avx2(const int8_t *q, const elut_geom *g, bool q8, uint8_t *tab, float *d)
{
    size_t ng = (size_t)(g->ng3 + g->ng1);
    const __m256i bias = _mm256_set1_epi8((char)0x80), ones = _mm256_set1_epi16(1);
    const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
                                           0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    float inv = 0;
    if (q8) *d = elut_table_step(table_amax(q, g), &inv);
    const __m256 vinv = _mm256_set1_ps(inv);
    for (int tl2 = 1; tl2 >= 0; tl2--) {
        int n = tl2 ? g->ng3 : g->ng1, len = tl2 ? 3 : 2;
        const int8_t *qp = tl2 ? q : q + g->k3;
        uint8_t *out = tab + (tl2 ? 0 : (size_t)g->ng3 * ELUT_ENTRIES);
        const __m256i e07 = _mm256_loadu_si256((const __m256i *)elut_digits[tl2][0]);
        const __m256i e8f = _mm256_loadu_si256((const __m256i *)elut_digits[tl2][8]);
        const __m256i d0 = _mm256_permute2x128_si256(e07, e8f, 0x20), d1 = _mm256_permute2x128_si256(e07, e8f, 0x31);
        const __m256i c0 = _mm256_madd_epi16(_mm256_maddubs_epi16(bias, d0), ones);
        const __m256i c1 = _mm256_madd_epi16(_mm256_maddubs_epi16(bias, d1), ones);
        for (int j = 0; j < n; j++) {
            __m256i a = _mm256_xor_si256(_mm256_set1_epi32(elut_group_bytes(qp + len * j, j + 1 == n, len)), bias);
            __m256i s0 = _mm256_sub_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(a, d0), ones), c0);
            __m256i s1 = _mm256_sub_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(a, d1), ones), c1);
            uint8_t *o = out + (size_t)j * ELUT_ENTRIES;
            if (!q8) {
                /* per lane: 8 low bytes then 8 high bytes; qwords reordered to lo 0-15, hi 0-15 */
                __m256i b = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(_mm256_packs_epi32(s0, s1), split), 0xd8);
                _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(b));
                _mm_storeu_si128((__m128i *)(o + ng * ELUT_ENTRIES), _mm256_extracti128_si256(b, 1));
            } else {
                /* the rounding mode must be a literal constant: at -O0 a const variable is not one */
                __m256 f0 = _mm256_round_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(s0), vinv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                __m256 f1 = _mm256_round_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(s1), vinv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                __m256i w = _mm256_packs_epi32(_mm256_cvtps_epi32(f0), _mm256_cvtps_epi32(f1));
                __m256i b = _mm256_permute4x64_epi64(_mm256_packs_epi16(w, w), 0x08);
                _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(b));
            }
        }
    }
}

/* ---- the four kernels' avx2 prepares and matmuls (elut.h): the code above, per kernel ---- */
void bb_tl1_0_prepare_avx2(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl1_0, bb_quant_i8_rows_avx2, elut_tables_avx2);
}
void bb_tl1_1_prepare_avx2(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl1_1, bb_quant_i8_rows_avx2, elut_tables_avx2);
}
void bb_tl2_0_prepare_avx2(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl2_0, bb_quant_i8_rows_avx2, elut_tables_avx2);
}
void bb_tl2_1_prepare_avx2(const float *x, int n, int k, void *act)
{
    elut_prepare_with(x, n, k, act, elut_tl2_1, bb_quant_i8_rows_avx2, elut_tables_avx2);
}
void bb_tl1_0_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_avx2(w, act, y, m, k, n, m0, m1, elut_tl1_0);
}
void bb_tl1_1_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_avx2(w, act, y, m, k, n, m0, m1, elut_tl1_1);
}
void bb_tl2_0_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_avx2(w, act, y, m, k, n, m0, m1, elut_tl2_0);
}
void bb_tl2_1_avx2(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    elut_matmul_avx2(w, act, y, m, k, n, m0, m1, elut_tl2_1);
}
