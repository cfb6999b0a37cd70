/* T-MAC, AVX-512 (F/BW/VNNI/VBMI) variant of tmac_w1 .. tmac_w4 and their _fa/_exact forms.
 *
 * Which of the paper's options this variant uses (T-MAC):
 *   LUT-centric layout (§3.2): the four 16-entry tables of a 16-activation chunk live in ONE zmm
 *     and are looked up with vpermb (VBMI: 64-entry byte table, index = nibble | K-group << 4).
 *     vpshufb zmm cannot serve this layout: its 4 lookups of one row (one dword) come from 2 or 4
 *     tables, which do not fit one 128-bit lane; vpermb reaches all 64 bytes at the same cost, so
 *     one vpermb + one vpdpbusd handle 64 lookups of 16 rows.  Each table register is reused by a
 *     tile of 4 row blocks (128 rows; 2 blocks for _exact and _fa, which hold more registers);
 *     the loop order is rows (tile) → K, and the weights are read in the packed order (one 64-byte
 *     load gives the patterns of 2 x 16 rows for one dword pattern, lo/hi nibble).
 *   mirror consolidation (§3.3): the 8 stored entries per table are expanded in registers: one
 *     vpermb places entries 0..7 and 7..0, a masked subtract negates the upper half (for _exact,
 *     vpermt2b picks the low and high bytes of the int16 entries and of their negations).
 *   table quantization (§3.3): int8 tables (tmac_wB, tmac_wB_fa) — the lookups feed vpdpbusd
 *     directly (constant plane weights 2^i as the unsigned operand), 4 lookups of one row per dword.
 *   fast aggregation (§4, tmac_wB_fa): vpavgb over the same slot of 4 consecutive chunks before
 *     one vpdpbusd (biased lookups as the unsigned operand, plane weights signed).
 *   _exact: two byte tables (low byte unsigned, high byte signed), two accumulators, recombined
 *     as lo + 256 hi at the group end.
 * Results are bit-identical to the scalar reference (integer sums, then the same float order). */
#include <immintrin.h>
#include <string.h>

#include "tmac.h"

#define AI static inline __attribute__((always_inline))


typedef struct {
    __m512i sel[4], c[4]; /* per vector u: (K-group << 4) per byte, and 2^plane per byte */
    __m512i x16lo, x16hi; /* vpermt2b indices of expand16 */
} consts_t;

AI void make_consts(int b, consts_t *cs)
{
    uint8_t il[64], ih[64];
    for (int s = 0; s < 4; s++)
        for (int e = 0; e < 16; e++) { /* entry e of table s: stored e, or the negation of 15 - e */
            int src = e < 8 ? 16 * s + 2 * e : 64 + 16 * s + 2 * (15 - e);
            il[16 * s + e] = (uint8_t)src;
            ih[16 * s + e] = (uint8_t)(src + 1);
        }
    cs->x16lo = _mm512_loadu_si512(il);
    cs->x16hi = _mm512_loadu_si512(ih);
    for (int u = 0; u < b; u++) {
        uint8_t s[64], c[64];
        for (int e = 0; e < 64; e++) {
            int sel, plane;
            tmac_slot(b, u, e % 4, &sel, &plane);
            s[e] = (uint8_t)(sel << 4);
            c[e] = (uint8_t)(1 << plane);
        }
        cs->sel[u] = _mm512_loadu_si512(s);
        cs->c[u] = _mm512_loadu_si512(c);
    }
}

/* 4 mirror-consolidated int8 tables (32 bytes) → 4 full tables, table s in bytes 16s..16s+15. */
AI __m512i expand8(const int8_t *t)
{
    /* byte 16s + e: e < 8 → stored 8s + e, e >= 8 → -stored 8s + 15 - e */
    const __m512i mirror = _mm512_set_epi8(
        24, 25, 26, 27, 28, 29, 30, 31, 31, 30, 29, 28, 27, 26, 25, 24,
        16, 17, 18, 19, 20, 21, 22, 23, 23, 22, 21, 20, 19, 18, 17, 16,
        8, 9, 10, 11, 12, 13, 14, 15, 15, 14, 13, 12, 11, 10, 9, 8,
        0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2, 1, 0);
    __m512i v = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)t));
    v = _mm512_permutexvar_epi8(mirror, v);
    return _mm512_mask_sub_epi8(v, (__mmask64)0xFF00FF00FF00FF00ull, _mm512_setzero_si512(), v);
}

/* 4 mirror-consolidated int16 tables (64 bytes) → low bytes (unsigned) and high bytes (signed)
 * of the 4 full tables, table s in bytes 16s..16s+15 of each. */
AI void expand16(const int16_t *t, const consts_t *cs, __m512i *lo, __m512i *hi)
{
    __m512i v = _mm512_loadu_si512(t), neg = _mm512_sub_epi16(_mm512_setzero_si512(), v);
    *lo = _mm512_permutex2var_epi8(v, cs->x16lo, neg);
    *hi = _mm512_permutex2var_epi8(v, cs->x16hi, neg);
}

/* Index vectors of one 64-byte load: rows 0..15 (low nibbles) and 16..31 (high nibbles). */
AI void indices(const uint8_t *p, __m512i sel, __m512i *lo, __m512i *hi)
{
    const __m512i m = _mm512_set1_epi8(0x0F);
    __m512i v = _mm512_loadu_si512(p);
    *lo = _mm512_ternarylogic_epi32(v, m, sel, 0xEA); /* (v & m) | sel */
    *hi = _mm512_ternarylogic_epi32(_mm512_srli_epi16(v, 4), m, sel, 0xEA);
}

#define TB_MAX 4

/* One tile of tb blocks (32 rows each) against one activation row: y for those rows. */
AI void tile(const void *w, const void *act, float *y, int m, int k, int n, int col, int blk0, const int tb,
             const int b, const tmac_mode mode, const consts_t *cs)
{
    const int G = k / TMAC_QG, L = (1 << b) - 1;
    const size_t cstride = (size_t)64 * b; /* bytes per (block, chunk) */
    const size_t tile_bytes = (size_t)tb * tmac_block_wbytes(k, b);
    const tmac_ghead *head = tmac_col_head(act, n, k, mode, col);
    const uint8_t *tabs = tmac_col_tables(act, n, k, mode, col);
    const uint8_t *wb[TB_MAX];
    const float *hb[TB_MAX];
    const int8_t *ob[TB_MAX];
    for (int i = 0; i < tb; i++) {
        wb[i] = tmac_block_w(w, k, b, blk0 + i);
        hb[i] = tmac_block_h(w, m, k, b, blk0 + i);
        ob[i] = tmac_block_o(w, m, k, b, blk0 + i);
    }
    __m512 facc[TB_MAX][2];
    for (int i = 0; i < tb; i++) facc[i][0] = facc[i][1] = _mm512_setzero_ps();
    for (int g = 0; g < G; g++) {
        __m512i acc[TB_MAX][2], acch[TB_MAX][2];
        for (int i = 0; i < tb; i++) acc[i][0] = acc[i][1] = acch[i][0] = acch[i][1] = _mm512_setzero_si512();
        if (mode == TMAC_FA) {
            for (int qd = 0; qd < TMAC_QG / TMAC_CHUNK / 4; qd++) {
                __m512i t[4];
                for (int cc = 0; cc < 4; cc++) t[cc] = expand8((const int8_t *)tabs + (size_t)(8 * g + 4 * qd + cc) * 32);
                for (int i = 0; i < tb; i++) {
                    const uint8_t *p = wb[i] + (size_t)(8 * g + 4 * qd) * cstride;
                    for (int u = 0; u < b; u++) {
                        __m512i l[4][2];
                        for (int cc = 0; cc < 4; cc++) {
                            bb_prefetch_interleaved(p + cc * cstride + 64 * u, tile_bytes, BB_PREFETCH_L1_BYTES / tb);
                            indices(p + cc * cstride + 64 * u, cs->sel[u], &l[cc][0], &l[cc][1]);
                        }
                        for (int hh = 0; hh < 2; hh++) {
                            __m512i a0 = _mm512_avg_epu8(_mm512_permutexvar_epi8(l[0][hh], t[0]),
                                                         _mm512_permutexvar_epi8(l[1][hh], t[1]));
                            __m512i a1 = _mm512_avg_epu8(_mm512_permutexvar_epi8(l[2][hh], t[2]),
                                                         _mm512_permutexvar_epi8(l[3][hh], t[3]));
                            acc[i][hh] = _mm512_dpbusd_epi32(acc[i][hh], _mm512_avg_epu8(a0, a1), cs->c[u]);
                        }
                    }
                }
            }
        } else {
            for (int ch = 0; ch < TMAC_QG / TMAC_CHUNK; ch++) {
                size_t chunk = (size_t)8 * g + ch;
                __m512i t, th = _mm512_setzero_si512();
                if (mode == TMAC_EXACT) expand16((const int16_t *)tabs + chunk * 32, cs, &t, &th);
                else t = expand8((const int8_t *)tabs + chunk * 32);
                for (int i = 0; i < tb; i++) {
                    const uint8_t *p = wb[i] + chunk * cstride;
                    for (int u = 0; u < b; u++) {
                        __m512i lo, hi;
                        bb_prefetch_interleaved(p + 64 * u, tile_bytes, BB_PREFETCH_L1_BYTES / tb);
                        indices(p + 64 * u, cs->sel[u], &lo, &hi);
                        if (mode == TMAC_EXACT) {
                            acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], _mm512_permutexvar_epi8(lo, t), cs->c[u]);
                            acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], _mm512_permutexvar_epi8(hi, t), cs->c[u]);
                            acch[i][0] = _mm512_dpbusd_epi32(acch[i][0], cs->c[u], _mm512_permutexvar_epi8(lo, th));
                            acch[i][1] = _mm512_dpbusd_epi32(acch[i][1], cs->c[u], _mm512_permutexvar_epi8(hi, th));
                        } else {
                            acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], cs->c[u], _mm512_permutexvar_epi8(lo, t));
                            acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], cs->c[u], _mm512_permutexvar_epi8(hi, t));
                        }
                    }
                }
            }
        }
        /* The scales and offsets are streams of their own beside the codes (tmac.h): the next
         * tile's, for this group, into L2, one tile's time ahead like the codes' far prefetch. */
        const size_t next = (size_t)tb * G * TMAC_RB + (size_t)g * TMAC_RB;
        for (int i = 0; i < tb; i++) {
            __builtin_prefetch(hb[i] + next, 0, 2);
            __builtin_prefetch(hb[i] + next + 16, 0, 2);
            __builtin_prefetch(ob[i] + next, 0, 2);
        }
        /* group end: isum (exact int32) → float, in the reference's order */
        const __m512i sq = _mm512_set1_epi32(head[g].sq & 0xFFFF); /* |sq| < 2^15: vpdpwssd low half */
        const __m512 d = _mm512_set1_ps(head[g].d);
        for (int i = 0; i < tb; i++)
            for (int hh = 0; hh < 2; hh++) {
                __m512i s = acc[i][hh];
                if (mode == TMAC_FA) s = _mm512_add_epi32(_mm512_slli_epi32(s, 2), _mm512_set1_epi32(-514 * 8 * L));
                if (mode == TMAC_EXACT) s = _mm512_add_epi32(s, _mm512_slli_epi32(acch[i][hh], 8));
                __m512i o = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(ob[i] + g * TMAC_RB + 16 * hh)));
                s = _mm512_dpwssd_epi32(s, o, sq); /* o * sq: o's low int16 times sq, sq's high half 0 */
                __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(s), _mm512_loadu_ps(hb[i] + g * TMAC_RB + 16 * hh));
                facc[i][hh] = _mm512_add_ps(facc[i][hh], _mm512_mul_ps(f, d));
            }
    }
    for (int i = 0; i < tb; i++)
        for (int hh = 0; hh < 2; hh++)
            _mm512_storeu_ps(y + (size_t)col * m + (size_t)(blk0 + i) * TMAC_RB + 16 * hh, facc[i][hh]);
}

AI void run(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1, const int b,
            const tmac_mode mode)
{
    /* 4 blocks share each table register (the most that keeps 8 int32 + 8 float accumulators,
     * the table and the b selector/weight constants in 32 zmm); _exact and _fa hold two or four
     * tables and twice the accumulators, so 2 */
    const int tbf = mode == TMAC_LUT8 ? TMAC_TB : TMAC_TB_AVX512_WIDE;
    consts_t cs;
    make_consts(b, &cs);
    int blk = m0 / TMAC_RB, blk1 = (m1 + TMAC_RB - 1) / TMAC_RB;
    for (; blk + tbf <= blk1; blk += tbf)
        for (int c = 0; c < n; c++) tile(w, act, y, m, k, n, c, blk, tbf, b, mode, &cs);
    for (; blk < blk1; blk++)
        for (int c = 0; c < n; c++) tile(w, act, y, m, k, n, c, blk, 1, b, mode, &cs);
}

/* ---- the twelve kernels' avx512 matmuls (tmac.h): run() for each constant b and mode ---- */
void bb_tmac_w1_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 1, TMAC_LUT8);
}
void bb_tmac_w1_fa_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 1, TMAC_FA);
}
void bb_tmac_w1_exact_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 1, TMAC_EXACT);
}
void bb_tmac_w2_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 2, TMAC_LUT8);
}
void bb_tmac_w2_fa_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 2, TMAC_FA);
}
void bb_tmac_w2_exact_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 2, TMAC_EXACT);
}
void bb_tmac_w3_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 3, TMAC_LUT8);
}
void bb_tmac_w3_fa_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 3, TMAC_FA);
}
void bb_tmac_w3_exact_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 3, TMAC_EXACT);
}
void bb_tmac_w4_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 4, TMAC_LUT8);
}
void bb_tmac_w4_fa_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 4, TMAC_FA);
}
void bb_tmac_w4_exact_avx512(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 4, TMAC_EXACT);
}

/* ---- prepare (tmac_wB, tmac_wB_fa): the same bytes as the scalar prepare ----
 * Two K-groups per zmm (lanes 8h + p: entry p of group 2i + h), the float additions in the
 * reference's order ((±x0 ± x1) ± x2) - x3 (sign flips by xor are exact), int8 by cvtps2dq (round
 * to nearest even, as nearbyint) after the same clamp, SQ from the p = 0 lanes. */
static void prepare_avx512(const float *x, int n, int k, void *act, tmac_mode mode)
{
    __m512i xi[4], sgn[3];
    for (int t = 0; t < 4; t++) {
        int32_t ix[16], sg[16];
        for (int l = 0; l < 16; l++) {
            ix[l] = 4 * (l >> 3) + t;
            sg[l] = ((l & 7) >> t) & 1 ? 0 : (int32_t)0x80000000u;
        }
        xi[t] = _mm512_loadu_si512(ix);
        if (t < 3) sgn[t] = _mm512_loadu_si512(sg);
    }
    const __m512 lim = _mm512_set1_ps(127.0f), nlim = _mm512_set1_ps(-127.0f);
    for (int c = 0; c < n; c++) {
        tmac_ghead *head = tmac_col_begin(act, n, k, mode, c);
        uint8_t *qt = (uint8_t *)tmac_col_tables(act, n, k, mode, c);
        for (int g = 0; g < k / TMAC_QG; g++) {
            const float *xg = x + (size_t)c * k + (size_t)g * TMAC_QG;
            __m512 tab[TMAC_TPG / 2], amax = _mm512_setzero_ps();
            for (int i = 0; i < TMAC_TPG / 2; i++) {
                __m512 x8 = _mm512_castps256_ps512(_mm256_loadu_ps(xg + 8 * i));
                __m512 x0 = _mm512_permutexvar_ps(xi[0], x8), x1 = _mm512_permutexvar_ps(xi[1], x8);
                __m512 x2 = _mm512_permutexvar_ps(xi[2], x8), x3 = _mm512_permutexvar_ps(xi[3], x8);
                __m512 a = _mm512_add_ps(_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x0), sgn[0])),
                                         _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x1), sgn[1])));
                a = _mm512_add_ps(a, _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x2), sgn[2])));
                tab[i] = _mm512_sub_ps(a, x3);
                amax = _mm512_max_ps(amax, _mm512_abs_ps(tab[i]));
            }
            float am = _mm512_reduce_max_ps(amax);
            const __m512 inv = _mm512_set1_ps(am > 0.0f ? 127.0f / am : 0.0f);
            __m512i sq = _mm512_setzero_si512();
            for (int i = 0; i < TMAC_TPG / 2; i++) {
                __m512 v = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(tab[i], inv), nlim), lim);
                __m512i q = _mm512_cvtps_epi32(v);
                sq = _mm512_mask_add_epi32(sq, 0x0101, sq, q);
                __m128i bytes = _mm512_cvtsepi32_epi8(q);
                if (mode == TMAC_FA) bytes = _mm_xor_si128(bytes, _mm_set1_epi8((char)0x80));
                _mm_storeu_si128((__m128i *)(qt + (size_t)g * 8 * TMAC_TPG + 16 * i), bytes);
            }
            head[g].d = am / 127.0f;
            head[g].sq = -_mm512_reduce_add_epi32(sq);
        }
    }
}

void tmac_prepare_avx512(const float *x, int n, int k, void *act) { prepare_avx512(x, n, k, act, TMAC_LUT8); }
void tmac_fa_prepare_avx512(const float *x, int n, int k, void *act) { prepare_avx512(x, n, k, act, TMAC_FA); }
