/* T-MAC, AVX2 variant of tmac_w1 .. tmac_w4 and their _fa/_exact forms.
 *
 * Which of the paper's options this variant uses (T-MAC):
 *   LUT-centric layout (§3.2): vpshufb holds one 16-entry table per 128-bit lane (the same table
 *     in both lanes, as T-MAC's AVX2 kernel); a dword of the packed layout holds 4 lookups of one
 *     row from 1, 2 or 4 tables (b = 4; b = 2; b = 1 and the third plane of b = 3), so 1, 2 or 4
 *     vpshufb are merged by vpblendw / vpblendvb.  A group's 32 tables are rebuilt once per tile of
 *     4 row blocks (128 rows) into an L1 buffer and reused by every row of the tile.
 *   mirror consolidation (§3.3): each stored 8-entry table is expanded by vpshufb (entries 0..7,
 *     7..0) and vpsignb (negate 8..15); for _exact, the int16 entries and their negations are
 *     split into a low-byte and a high-byte table by four vpshufb.
 *   table quantization (§3.3): int8 tables; vpmaddubsw (plane weights unsigned, lookups signed)
 *     sums the pairs of a dword into int16, accumulated in int16 and widened by vpmaddwd before
 *     they could overflow (every 8 chunks, every 4 for b = 4).
 *   fast aggregation (§4, _fa): vpavgb over the same slot of 4 consecutive chunks, then one
 *     vpmaddubsw (biased lookups unsigned, plane weights signed).
 *   _exact: low bytes (unsigned) and high bytes (signed) looked up separately, lo + 256 hi.
 * Results are bit-identical to the scalar reference. */
#include <immintrin.h>
#include <string.h>

#include "tmac.h"

#define AI static inline __attribute__((always_inline))

#define TB TMAC_TB

/* Lookup of one index vector (bytes 0..15 per lane) for vector u: dword byte t from the table of
 * K-group sel(u, t) of the chunk (tables t4[0..3]). */
AI __m256i lookup(const int b, const int u, __m256i idx, const __m256i *t4)
{
    if (b == 4) return _mm256_shuffle_epi8(t4[u], idx);
    if (b == 1 || u == 2) {
        const __m256i odd = _mm256_set1_epi16((short)0xFF00);
        __m256i x01 = _mm256_blendv_epi8(_mm256_shuffle_epi8(t4[0], idx), _mm256_shuffle_epi8(t4[1], idx), odd);
        __m256i x23 = _mm256_blendv_epi8(_mm256_shuffle_epi8(t4[2], idx), _mm256_shuffle_epi8(t4[3], idx), odd);
        return _mm256_blend_epi16(x01, x23, 0xAA);
    }
    return _mm256_blend_epi16(_mm256_shuffle_epi8(t4[2 * u], idx), _mm256_shuffle_epi8(t4[2 * u + 1], idx), 0xAA);
}

/* Rebuild the 32 tables of group g (mirror consolidation) into tb[j] (and th[j] for _exact). */
AI void expand_group(const void *tabs, int g, const tmac_mode mode, __m256i *tl, __m256i *th)
{
    if (mode == TMAC_EXACT) {
        __m256i alo, blo, ahi, bhi;
        {
            uint8_t a_lo[32], b_lo[32], a_hi[32], b_hi[32];
            for (int e = 0; e < 32; e++) {
                int ee = e % 16;
                a_lo[e] = ee < 8 ? (uint8_t)(2 * ee) : 0x80;
                a_hi[e] = ee < 8 ? (uint8_t)(2 * ee + 1) : 0x80;
                b_lo[e] = ee >= 8 ? (uint8_t)(2 * (15 - ee)) : 0x80;
                b_hi[e] = ee >= 8 ? (uint8_t)(2 * (15 - ee) + 1) : 0x80;
            }
            alo = _mm256_loadu_si256((const __m256i *)a_lo);
            blo = _mm256_loadu_si256((const __m256i *)b_lo);
            ahi = _mm256_loadu_si256((const __m256i *)a_hi);
            bhi = _mm256_loadu_si256((const __m256i *)b_hi);
        }
        const int16_t *t = (const int16_t *)tabs + (size_t)g * 8 * TMAC_TPG;
        for (int j = 0; j < TMAC_TPG; j++) {
            __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(t + 8 * j)));
            __m256i neg = _mm256_sub_epi16(_mm256_setzero_si256(), v);
            tl[j] = _mm256_or_si256(_mm256_shuffle_epi8(v, alo), _mm256_shuffle_epi8(neg, blo));
            th[j] = _mm256_or_si256(_mm256_shuffle_epi8(v, ahi), _mm256_shuffle_epi8(neg, bhi));
        }
    } else {
        const __m256i mirror = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2, 1, 0,
                                                0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2, 1, 0);
        const __m256i sign = _mm256_setr_epi8(1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1,
                                              1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1);
        const uint8_t *t = (const uint8_t *)tabs + (size_t)g * 8 * TMAC_TPG;
        for (int j = 0; j < TMAC_TPG; j++) {
            int64_t e8;
            memcpy(&e8, t + 8 * j, 8);
            /* biased _fa tables: -u mod 256 is the mirror too, so the same negation serves */
            tl[j] = _mm256_sign_epi8(_mm256_shuffle_epi8(_mm256_set1_epi64x(e8), mirror), sign);
        }
    }
}

/* Chunks between int16 → int32 widenings (see the header comment for the bounds). */
AI int flush_every(const int b, const tmac_mode mode) { return b == 4 ? (mode == TMAC_EXACT ? 2 : 4) : 8; }

/* One 8-row half (dwords 8hh .. 8hh+7) of one block for group g: exact int32 isum of rows
 * 8hh + d (low nibbles) and 16 + 8hh + d (high nibbles). */
AI void half_group(const uint8_t *wg, int hh, const __m256i *tl, const __m256i *th, const int b,
                   const tmac_mode mode, const __m256i *cu, size_t tile_bytes, __m256i isum[2])
{
    const __m256i m0f = _mm256_set1_epi8(0x0F), ones = _mm256_set1_epi16(1);
    const size_t cstride = (size_t)64 * b;
    __m256i a32[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    __m256i h32[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    __m256i a16[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    __m256i h16[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    if (mode == TMAC_FA) {
        for (int qd = 0; qd < 2; qd++)
            for (int u = 0; u < b; u++) {
                __m256i l[4][2];
                for (int cc = 0; cc < 4; cc++) {
                    const uint8_t *p = wg + (size_t)(4 * qd + cc) * cstride + 64 * u + 32 * hh;
                    bb_prefetch_interleaved(p, tile_bytes, BB_PREFETCH_L1_BYTES / TB);
                    __m256i v = _mm256_loadu_si256((const __m256i *)p);
                    const __m256i *t4 = tl + 4 * (4 * qd + cc);
                    l[cc][0] = lookup(b, u, _mm256_and_si256(v, m0f), t4);
                    l[cc][1] = lookup(b, u, _mm256_and_si256(_mm256_srli_epi16(v, 4), m0f), t4);
                }
                for (int s = 0; s < 2; s++) {
                    __m256i va = _mm256_avg_epu8(_mm256_avg_epu8(l[0][s], l[1][s]), _mm256_avg_epu8(l[2][s], l[3][s]));
                    a16[s] = _mm256_add_epi16(a16[s], _mm256_maddubs_epi16(va, cu[u]));
                }
            }
    } else {
        const int fe = flush_every(b, mode);
        for (int ch = 0; ch < TMAC_QG / TMAC_CHUNK; ch++) {
            for (int u = 0; u < b; u++) {
                const uint8_t *p = wg + (size_t)ch * cstride + 64 * u + 32 * hh;
                bb_prefetch_interleaved(p, tile_bytes, BB_PREFETCH_L1_BYTES / TB);
                __m256i v = _mm256_loadu_si256((const __m256i *)p);
                __m256i ix[2] = {_mm256_and_si256(v, m0f), _mm256_and_si256(_mm256_srli_epi16(v, 4), m0f)};
                for (int s = 0; s < 2; s++) {
                    if (mode == TMAC_EXACT) {
                        a16[s] = _mm256_add_epi16(a16[s], _mm256_maddubs_epi16(lookup(b, u, ix[s], tl + 4 * ch), cu[u]));
                        h16[s] = _mm256_add_epi16(h16[s], _mm256_maddubs_epi16(cu[u], lookup(b, u, ix[s], th + 4 * ch)));
                    } else {
                        a16[s] = _mm256_add_epi16(a16[s], _mm256_maddubs_epi16(cu[u], lookup(b, u, ix[s], tl + 4 * ch)));
                    }
                }
            }
            if ((ch + 1) % fe == 0 && ch + 1 < TMAC_QG / TMAC_CHUNK)
                for (int s = 0; s < 2; s++) {
                    a32[s] = _mm256_add_epi32(a32[s], _mm256_madd_epi16(a16[s], ones));
                    a16[s] = _mm256_setzero_si256();
                    if (mode == TMAC_EXACT) {
                        h32[s] = _mm256_add_epi32(h32[s], _mm256_madd_epi16(h16[s], ones));
                        h16[s] = _mm256_setzero_si256();
                    }
                }
        }
    }
    const int L = (1 << b) - 1;
    for (int s = 0; s < 2; s++) {
        __m256i r = _mm256_add_epi32(a32[s], _mm256_madd_epi16(a16[s], ones));
        if (mode == TMAC_FA) r = _mm256_add_epi32(_mm256_slli_epi32(r, 2), _mm256_set1_epi32(-514 * 8 * L));
        if (mode == TMAC_EXACT)
            r = _mm256_add_epi32(r, _mm256_slli_epi32(_mm256_add_epi32(h32[s], _mm256_madd_epi16(h16[s], ones)), 8));
        isum[s] = r;
    }
}

AI void tile(const void *w, const void *act, float *y, int m, int k, int n, int col, int blk0, int tb, const int b,
             const tmac_mode mode, __m256i *tl, __m256i *th)
{
    const int G = k / TMAC_QG;
    const tmac_ghead *head = tmac_col_head(act, n, k, mode, col);
    const void *tabs = tmac_col_tables(act, n, k, mode, col);
    __m256i cu[4];
    for (int u = 0; u < b; u++) {
        uint8_t c[32];
        for (int e = 0; e < 32; e++) {
            int sel, plane;
            tmac_slot(b, u, e % 4, &sel, &plane);
            c[e] = (uint8_t)(1 << plane);
        }
        cu[u] = _mm256_loadu_si256((const __m256i *)c);
    }
    float facc[TB][TMAC_RB];
    memset(facc, 0, sizeof facc);
    for (int g = 0; g < G; g++) {
        expand_group(tabs, g, mode, tl, th);
        const __m256i sq = _mm256_set1_epi32(head[g].sq & 0xFFFF); /* vpmaddwd: o * sq, sq's high half 0 */
        const __m256 d = _mm256_set1_ps(head[g].d);
        for (int i = 0; i < tb; i++) {
            const uint8_t *wg = tmac_block_w(w, k, b, blk0 + i) + (size_t)g * 8 * 64 * b;
            const float *hb = tmac_block_h(w, m, k, b, blk0 + i) + g * TMAC_RB;
            const int8_t *ob = tmac_block_o(w, m, k, b, blk0 + i) + g * TMAC_RB;
            /* the next tile's scales and offsets of this group, into L2 (tmac_avx512.c) */
            const size_t next = (size_t)tb * G * TMAC_RB;
            __builtin_prefetch(hb + next, 0, 2);
            __builtin_prefetch(hb + next + 16, 0, 2);
            __builtin_prefetch(ob + next, 0, 2);
            for (int hh = 0; hh < 2; hh++) {
                __m256i isum[2];
                half_group(wg, hh, tl, th, b, mode, cu, (size_t)tb * tmac_block_wbytes(k, b), isum);
                for (int s = 0; s < 2; s++) {
                    int r0 = 16 * s + 8 * hh;
                    __m256i o = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(ob + r0)));
                    __m256i v = _mm256_add_epi32(isum[s], _mm256_madd_epi16(o, sq));
                    __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(v), _mm256_loadu_ps(hb + r0));
                    f = _mm256_add_ps(_mm256_loadu_ps(&facc[i][r0]), _mm256_mul_ps(f, d));
                    _mm256_storeu_ps(&facc[i][r0], f);
                }
            }
        }
    }
    for (int i = 0; i < tb; i++)
        memcpy(y + (size_t)col * m + (size_t)(blk0 + i) * TMAC_RB, facc[i], sizeof facc[i]);
}

AI void run(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1, const int b,
            const tmac_mode mode)
{
    __m256i tl[TMAC_TPG], th[TMAC_TPG];
    int blk = m0 / TMAC_RB, blk1 = (m1 + TMAC_RB - 1) / TMAC_RB;
    for (; blk < blk1; blk += TB) {
        int tb = blk1 - blk < TB ? blk1 - blk : TB;
        for (int c = 0; c < n; c++) tile(w, act, y, m, k, n, c, blk, tb, b, mode, tl, th);
    }
}

/* ---- the twelve kernels' avx2 matmuls (tmac.h): run() for each constant b and mode ---- */
void bb_tmac_w1_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 1, TMAC_LUT8);
}
void bb_tmac_w1_fa_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 1, TMAC_FA);
}
void bb_tmac_w1_exact_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 1, TMAC_EXACT);
}
void bb_tmac_w2_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 2, TMAC_LUT8);
}
void bb_tmac_w2_fa_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 2, TMAC_FA);
}
void bb_tmac_w2_exact_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 2, TMAC_EXACT);
}
void bb_tmac_w3_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 3, TMAC_LUT8);
}
void bb_tmac_w3_fa_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 3, TMAC_FA);
}
void bb_tmac_w3_exact_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 3, TMAC_EXACT);
}
void bb_tmac_w4_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 4, TMAC_LUT8);
}
void bb_tmac_w4_fa_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 4, TMAC_FA);
}
void bb_tmac_w4_exact_avx2(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 4, TMAC_EXACT);
}

/* ---- prepare (tmac_wB, tmac_wB_fa): the same bytes as the scalar prepare ----
 * One K-group per ymm (lane p = entry p), the float additions in the reference's order, sign
 * flips by xor (exact), int8 by cvtps2dq (round to nearest even) after the same clamp. */
static void prepare_avx2(const float *x, int n, int k, void *act, tmac_mode mode)
{
    __m256i sgn[3];
    for (int t = 0; t < 3; t++) {
        int32_t sg[8];
        for (int p = 0; p < 8; p++) sg[p] = (p >> t) & 1 ? 0 : (int32_t)0x80000000u;
        sgn[t] = _mm256_loadu_si256((const __m256i *)sg);
    }
    const __m256 lim = _mm256_set1_ps(127.0f), nlim = _mm256_set1_ps(-127.0f);
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    for (int c = 0; c < n; c++) {
        tmac_ghead *head = tmac_col_begin(act, n, k, mode, c);
        uint8_t *qt = (uint8_t *)tmac_col_tables(act, n, k, mode, c);
        for (int g = 0; g < k / TMAC_QG; g++) {
            const float *xg = x + (size_t)c * k + (size_t)g * TMAC_QG;
            __m256 tab[TMAC_TPG], amax = _mm256_setzero_ps();
            for (int j = 0; j < TMAC_TPG; j++) {
                __m256 x0 = _mm256_broadcast_ss(xg + 4 * j), x1 = _mm256_broadcast_ss(xg + 4 * j + 1);
                __m256 x2 = _mm256_broadcast_ss(xg + 4 * j + 2), x3 = _mm256_broadcast_ss(xg + 4 * j + 3);
                __m256 a = _mm256_add_ps(_mm256_xor_ps(x0, _mm256_castsi256_ps(sgn[0])),
                                         _mm256_xor_ps(x1, _mm256_castsi256_ps(sgn[1])));
                a = _mm256_add_ps(a, _mm256_xor_ps(x2, _mm256_castsi256_ps(sgn[2])));
                tab[j] = _mm256_sub_ps(a, x3);
                amax = _mm256_max_ps(amax, _mm256_and_ps(tab[j], absmask));
            }
            __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
            m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
            m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
            float am = _mm_cvtss_f32(m4);
            const __m256 inv = _mm256_set1_ps(am > 0.0f ? 127.0f / am : 0.0f);
            int32_t sq = 0;
            for (int j = 0; j < TMAC_TPG; j++) {
                __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(tab[j], inv), nlim), lim);
                __m256i q = _mm256_cvtps_epi32(v);
                sq -= _mm256_cvtsi256_si32(q);
                __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
                __m128i b8 = _mm_packs_epi16(w16, w16);
                if (mode == TMAC_FA) b8 = _mm_xor_si128(b8, _mm_set1_epi8((char)0x80));
                _mm_storel_epi64((__m128i *)(qt + (size_t)g * 8 * TMAC_TPG + 8 * j), b8);
            }
            head[g].d = am / 127.0f;
            head[g].sq = sq;
        }
    }
}

void tmac_prepare_avx2(const float *x, int n, int k, void *act) { prepare_avx2(x, n, k, act, TMAC_LUT8); }
void tmac_fa_prepare_avx2(const float *x, int n, int k, void *act) { prepare_avx2(x, n, k, act, TMAC_FA); }
