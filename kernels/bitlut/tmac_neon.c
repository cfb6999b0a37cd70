/* T-MAC, Arm NEON (Armv8.0 Advanced SIMD) variant of tmac_w1 .. tmac_w4 and their _fa/_exact
 * forms: T-MAC's Arm path (T-MAC §4, "efficient table look-up by TBL/PSHUF"; non-contiguous
 * data loaded with NEON LD4).
 *
 * What the loop does, per 32-row block, 16-activation chunk and packed vector u (64 bytes):
 *   LD4 (vld4q_u8) de-interleaves the vector by byte t of each dword, so register t holds slot t
 *   (one K-group sel(u, t) and one bit plane plane(u, t), tmac_slot) of rows 0..15 in its low
 *   nibbles and of rows 16..31 in its high nibbles: one lane per row, one table per register.
 *   AND 0x0F / USHR 4 give the two index vectors, TBL (vqtbl1q_s8) looks each up in the K-group's
 *   16-entry table (LUT-centric layout, §3.2: 16 int8 entries per group of 4 activations in one
 *   register), and the bit-serial planes are summed with their weights 2^plane (§4, bit-serial
 *   linear transformation) by widening multiply-accumulate into int16 lanes, one per row
 *   (SMLAL / SMLAL2 by 2^i; UMLAL for the unsigned bytes).  So one LD4 + 8 AND/USHR + 8 TBL +
 *   16 MLAL handle 128 lookups (32 rows x 4 slots), b LD4s per chunk.
 *   The int16 lanes are widened to int32 every flush_every chunks, before they could overflow:
 *   a row gains at most 4 (2^b - 1) 127 per chunk with int8 tables (7620 for b = 4: 4 chunks;
 *   3556 for b = 3: a whole group of 8) and 4 (2^b - 1) 255 with _exact's unsigned low bytes
 *   (uint16: 15300 for b = 4, 4 chunks; 7140 for b = 3, 8).
 * mirror consolidation (§3.3): a group's 32 stored half tables are expanded once per tile of
 *   4 blocks (128 rows) into an L1 buffer: entries 8..15 = NEG + REV64 of entries 0..7 (the
 *   biased _fa bytes too: 256 - u is the byte negation); _exact's int16 entries and their
 *   negations are split into a low-byte and a high-byte table by UZP1 / UZP2.
 * table quantization (§3.3): int8 tables (the scalar prepare's bytes; tmac_prepare_neon below
 *   writes the same).
 * fast aggregation (§4, _fa): URHADD ((a + b + 1) >> 1, vpavgb's rounding) over the same slot of
 *   4 consecutive chunks, avg(avg(u0, u1), avg(u2, u3)), then UMLAL by 2^plane into uint16 (at
 *   most 2 quads x 4 K-groups x 255 x (2^b - 1) = 30600 per group), 4 S - 514 * 8 L at the end.
 * _exact: low bytes (unsigned, UMLAL) and high bytes (signed, SMLAL) looked up and summed
 *   separately, recombined as lo + 256 hi at the group end.
 * Every integer sum is exact; the float part is the reference's per row: (float)(isum + o SQ)
 * times h, times d, added to the row's accumulator, groups ascending (no FMA: C11 contracts
 * nothing), so results are bit-identical to the scalar reference. */
#include <arm_neon.h>
#include <stdbool.h>
#include <string.h>

#include "tmac.h"

#define AI static inline __attribute__((always_inline))

#define TB TMAC_TB /* one table expansion serves 128 rows */

/* Rebuild the 32 tables of group g (mirror consolidation) into tl[j] (and th[j] for _exact). */
AI void expand_group(const void *tabs, int g, const tmac_mode mode, uint8x16_t *tl, uint8x16_t *th)
{
    if (mode == TMAC_EXACT) {
        const int16_t *t = (const int16_t *)tabs + (size_t)g * 8 * TMAC_TPG;
        for (int j = 0; j < TMAC_TPG; j++) {
            int16x8_t v = vld1q_s16(t + 8 * j), neg = vrev64q_s16(vnegq_s16(v));
            neg = vextq_s16(neg, neg, 4); /* -T7 .. -T0 */
            uint8x16_t a = vreinterpretq_u8_s16(v), b = vreinterpretq_u8_s16(neg);
            tl[j] = vuzp1q_u8(a, b); /* little endian: even bytes are the low bytes */
            th[j] = vuzp2q_u8(a, b);
        }
    } else {
        const int8_t *t = (const int8_t *)tabs + (size_t)g * 8 * TMAC_TPG;
        for (int j = 0; j < TMAC_TPG; j++) {
            int8x8_t v = vld1_s8(t + 8 * j);
            tl[j] = vreinterpretq_u8_s8(vcombine_s8(v, vrev64_s8(vneg_s8(v))));
        }
    }
}

/* Chunks between int16 -> int32 widenings (bounds in the header comment). */
AI int flush_every(const int b) { return b == 4 ? 4 : 8; }

/* acc (rows 0-7, 8-15, 16-23, 24-31) += 2^plane * lookups (lo: rows 0-15, hi: rows 16-31). */
AI void mac_s8(int16x8_t acc[4], int8x16_t lo, int8x16_t hi, int plane)
{
    const int8x16_t w = vdupq_n_s8((int8_t)(1 << plane));
    acc[0] = vmlal_s8(acc[0], vget_low_s8(lo), vget_low_s8(w));
    acc[1] = vmlal_high_s8(acc[1], lo, w);
    acc[2] = vmlal_s8(acc[2], vget_low_s8(hi), vget_low_s8(w));
    acc[3] = vmlal_high_s8(acc[3], hi, w);
}

AI void mac_u8(uint16x8_t acc[4], uint8x16_t lo, uint8x16_t hi, int plane)
{
    const uint8x16_t w = vdupq_n_u8((uint8_t)(1 << plane));
    acc[0] = vmlal_u8(acc[0], vget_low_u8(lo), vget_low_u8(w));
    acc[1] = vmlal_high_u8(acc[1], lo, w);
    acc[2] = vmlal_u8(acc[2], vget_low_u8(hi), vget_low_u8(w));
    acc[3] = vmlal_high_u8(acc[3], hi, w);
}

/* acc32 (8 x 4 rows) += acc16 (4 x 8 rows), times 256 for high bytes, then acc16 = 0 (int32
 * lanes wrap like the sums do). */
AI void flush_s16(int32x4_t acc32[8], int16x8_t acc16[4], const bool high_bytes)
{
    for (int i = 0; i < 4; i++) {
        if (high_bytes) {
            acc32[2 * i] = vaddq_s32(acc32[2 * i], vshll_n_s16(vget_low_s16(acc16[i]), 8));
            acc32[2 * i + 1] = vaddq_s32(acc32[2 * i + 1], vshll_high_n_s16(acc16[i], 8));
        } else {
            acc32[2 * i] = vaddw_s16(acc32[2 * i], vget_low_s16(acc16[i]));
            acc32[2 * i + 1] = vaddw_high_s16(acc32[2 * i + 1], acc16[i]);
        }
        acc16[i] = vdupq_n_s16(0);
    }
}

AI void flush_u16(int32x4_t acc32[8], uint16x8_t acc16[4])
{
    for (int i = 0; i < 4; i++) {
        acc32[2 * i] = vreinterpretq_s32_u32(vaddw_u16(vreinterpretq_u32_s32(acc32[2 * i]), vget_low_u16(acc16[i])));
        acc32[2 * i + 1] = vreinterpretq_s32_u32(vaddw_high_u16(vreinterpretq_u32_s32(acc32[2 * i + 1]), acc16[i]));
        acc16[i] = vdupq_n_u16(0);
    }
}

/* _fa: one quad (4 chunks) of vector u: the rounding average over the chunks of each slot's
 * lookups, weighted by 2^plane into acc. */
AI void fa_quad(const uint8_t *p, size_t cstride, const int b, const int u, const uint8x16_t *tq, uint16x8_t acc[4])
{
    const uint8x16_t nib = vdupq_n_u8(0x0F);
    uint8x16x4_t v[4];
    for (int cc = 0; cc < 4; cc++) {
        bb_prefetch_stream(p + cc * cstride);
        v[cc] = vld4q_u8(p + cc * cstride);
    }
    for (int t = 0; t < 4; t++) {
        int sel, plane;
        tmac_slot(b, u, t, &sel, &plane);
        uint8x16_t l[2][4];
        for (int cc = 0; cc < 4; cc++) {
            l[0][cc] = vqtbl1q_u8(tq[4 * cc + sel], vandq_u8(v[cc].val[t], nib));
            l[1][cc] = vqtbl1q_u8(tq[4 * cc + sel], vshrq_n_u8(v[cc].val[t], 4));
        }
        uint8x16_t a[2];
        for (int s = 0; s < 2; s++)
            a[s] = vrhaddq_u8(vrhaddq_u8(l[s][0], l[s][1]), vrhaddq_u8(l[s][2], l[s][3]));
        mac_u8(acc, a[0], a[1], plane);
    }
}

/* One chunk's vector u (int8 or _exact tables of the chunk in tl4 / th4). */
AI void chunk_vector(const uint8_t *p, const int b, const int u, const tmac_mode mode, const uint8x16_t *tl4,
                     const uint8x16_t *th4, int16x8_t sacc[4], uint16x8_t uacc[4])
{
    const uint8x16_t nib = vdupq_n_u8(0x0F);
    bb_prefetch_stream(p);
    uint8x16x4_t v = vld4q_u8(p);
    for (int t = 0; t < 4; t++) {
        int sel, plane;
        tmac_slot(b, u, t, &sel, &plane);
        uint8x16_t ilo = vandq_u8(v.val[t], nib), ihi = vshrq_n_u8(v.val[t], 4);
        if (mode == TMAC_EXACT) {
            mac_u8(uacc, vqtbl1q_u8(tl4[sel], ilo), vqtbl1q_u8(tl4[sel], ihi), plane);
            mac_s8(sacc, vreinterpretq_s8_u8(vqtbl1q_u8(th4[sel], ilo)),
                   vreinterpretq_s8_u8(vqtbl1q_u8(th4[sel], ihi)), plane);
        } else {
            mac_s8(sacc, vreinterpretq_s8_u8(vqtbl1q_u8(tl4[sel], ilo)),
                   vreinterpretq_s8_u8(vqtbl1q_u8(tl4[sel], ihi)), plane);
        }
    }
}

/* One block's group g: isum (without the offset plane) of its 32 rows, 4 per register.  One set
 * of int32 lanes (_exact adds its high bytes there shifted by 8 at each flush), so that the
 * int16 accumulators, the LD4 registers and the chunk's tables stay in registers. */
AI void block_group(const uint8_t *wg, const uint8x16_t *tl, const uint8x16_t *th, const int b,
                    const tmac_mode mode, int32x4_t isum[8])
{
    const size_t cstride = (size_t)64 * b;
    int16x8_t s16[4];
    uint16x8_t u16[4];
    for (int i = 0; i < 8; i++) isum[i] = vdupq_n_s32(0);
    for (int i = 0; i < 4; i++) {
        s16[i] = vdupq_n_s16(0);
        u16[i] = vdupq_n_u16(0);
    }
    if (mode == TMAC_FA) {
        for (int qd = 0; qd < TMAC_QG / TMAC_CHUNK / 4; qd++)
            for (int u = 0; u < b; u++) fa_quad(wg + (size_t)4 * qd * cstride + 64 * u, cstride, b, u, tl + 16 * qd, u16);
        flush_u16(isum, u16);
        const int L = (1 << b) - 1;
        for (int i = 0; i < 8; i++) isum[i] = vaddq_s32(vshlq_n_s32(isum[i], 2), vdupq_n_s32(-514 * 8 * L));
        return;
    }
    const int fe = flush_every(b);
    for (int c0 = 0; c0 < TMAC_QG / TMAC_CHUNK; c0 += fe) {
        for (int ch = c0; ch < c0 + fe; ch++)
            for (int u = 0; u < b; u++)
                chunk_vector(wg + (size_t)ch * cstride + 64 * u, b, u, mode, tl + 4 * ch, th + 4 * ch, s16, u16);
        if (mode == TMAC_EXACT) {
            flush_u16(isum, u16);
            flush_s16(isum, s16, true);
        } else {
            flush_s16(isum, s16, false);
        }
    }
}

/* Rows of tb blocks (blk0 ..) against activation row col. */
AI void tile(const void *w, const void *act, float *y, int m, int k, int n, int col, int blk0, int tb, const int b,
             const tmac_mode mode, uint8x16_t *tl, uint8x16_t *th)
{
    const int G = k / TMAC_QG;
    const tmac_ghead *head = tmac_col_head(act, n, k, mode, col);
    const void *tabs = tmac_col_tables(act, n, k, mode, col);
    float facc[TB][TMAC_RB];
    memset(facc, 0, sizeof facc);
    for (int g = 0; g < G; g++) {
        expand_group(tabs, g, mode, tl, th);
        const int32_t sq = head[g].sq;
        const float32x4_t d = vdupq_n_f32(head[g].d);
        for (int i = 0; i < tb; i++) {
            const uint8_t *wg = tmac_block_w(w, k, b, blk0 + i) + (size_t)g * 8 * 64 * b;
            const float *hb = tmac_block_h(w, m, k, b, blk0 + i) + g * TMAC_RB;
            const int8_t *ob = tmac_block_o(w, m, k, b, blk0 + i) + g * TMAC_RB;
            /* the next tile's scales and offsets of this group, into L2 (tmac_avx512.c) */
            const size_t next = (size_t)tb * G * TMAC_RB;
            __builtin_prefetch(hb + next, 0, 2);
            __builtin_prefetch(hb + next + 16, 0, 2);
            __builtin_prefetch(ob + next, 0, 2);
            int32x4_t isum[8];
            block_group(wg, tl, th, b, mode, isum);
            for (int hh = 0; hh < 2; hh++) {
                int8x16_t o8 = vld1q_s8(ob + 16 * hh);
                int16x8_t o16[2] = {vmovl_s8(vget_low_s8(o8)), vmovl_high_s8(o8)};
                for (int q = 0; q < 4; q++) {
                    int r0 = 16 * hh + 4 * q;
                    int32x4_t o32 = q % 2 ? vmovl_high_s16(o16[q / 2]) : vmovl_s16(vget_low_s16(o16[q / 2]));
                    int32x4_t v = vmlaq_n_s32(isum[r0 / 4], o32, sq);
                    float32x4_t f = vmulq_f32(vcvtq_f32_s32(v), vld1q_f32(hb + r0));
                    vst1q_f32(&facc[i][r0], vaddq_f32(vld1q_f32(&facc[i][r0]), vmulq_f32(f, d)));
                }
            }
        }
    }
    for (int i = 0; i < tb; i++) memcpy(y + (size_t)col * m + (size_t)(blk0 + i) * TMAC_RB, facc[i], sizeof facc[i]);
}

AI void run(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1, const int b,
            const tmac_mode mode)
{
    uint8x16_t tl[TMAC_TPG], th[TMAC_TPG];
    int blk = m0 / TMAC_RB, blk1 = (m1 + TMAC_RB - 1) / TMAC_RB;
    for (; blk < blk1; blk += TB) {
        int tb = blk1 - blk < TB ? blk1 - blk : TB;
        for (int c = 0; c < n; c++) tile(w, act, y, m, k, n, c, blk, tb, b, mode, tl, th);
    }
}

/* ---- the twelve kernels' neon matmuls (tmac.h): run() for each constant b and mode ---- */
void bb_tmac_w1_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 1, TMAC_LUT8);
}
void bb_tmac_w1_fa_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 1, TMAC_FA);
}
void bb_tmac_w1_exact_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 1, TMAC_EXACT);
}
void bb_tmac_w2_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 2, TMAC_LUT8);
}
void bb_tmac_w2_fa_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 2, TMAC_FA);
}
void bb_tmac_w2_exact_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 2, TMAC_EXACT);
}
void bb_tmac_w3_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 3, TMAC_LUT8);
}
void bb_tmac_w3_fa_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 3, TMAC_FA);
}
void bb_tmac_w3_exact_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 3, TMAC_EXACT);
}
void bb_tmac_w4_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 4, TMAC_LUT8);
}
void bb_tmac_w4_fa_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 4, TMAC_FA);
}
void bb_tmac_w4_exact_neon(const void *w, const void *a, float *y, int m, int k, int n, int m0, int m1)
{
    run(w, a, y, m, k, n, m0, m1, 4, TMAC_EXACT);
}

/* ---- prepare (tmac_wB, tmac_wB_fa): the same bytes as the scalar prepare ----
 * One K-group per two float32x4 (lane p: entry p, entries 0-3 and 4-7), the float additions in
 * the reference's order ((±x0 ± x1) ± x2) - x3 (sign flips by EOR are exact; the first sum is
 * the same for both halves), the absolute maximum by FMAXNM (fmaxf's maxNum), int8 by FCVTNS
 * (round to nearest even, as nearbyint) after the same clamp, narrowed with SQXTN (in range). */
static void prepare_neon(const float *x, int n, int k, void *act, tmac_mode mode)
{
    static const uint32_t sgn01[2][4] = {{0x80000000u, 0, 0x80000000u, 0}, {0x80000000u, 0x80000000u, 0, 0}};
    const uint32x4_t s0 = vld1q_u32(sgn01[0]), s1 = vld1q_u32(sgn01[1]);
    const float32x4_t lim = vdupq_n_f32(127.0f), nlim = vdupq_n_f32(-127.0f);
    for (int c = 0; c < n; c++) {
        tmac_ghead *head = tmac_col_begin(act, n, k, mode, c);
        uint8_t *qt = (uint8_t *)tmac_col_tables(act, n, k, mode, c);
        for (int g = 0; g < k / TMAC_QG; g++) {
            const float *xg = x + (size_t)c * k + (size_t)g * TMAC_QG;
            float32x4_t tab[TMAC_TPG][2], amax = vdupq_n_f32(0.0f);
            for (int j = 0; j < TMAC_TPG; j++) {
                float32x4_t xj = vld1q_f32(xg + 4 * j);
                float32x4_t x0 = vdupq_laneq_f32(xj, 0), x1 = vdupq_laneq_f32(xj, 1);
                float32x4_t x2 = vdupq_laneq_f32(xj, 2), x3 = vdupq_laneq_f32(xj, 3);
                float32x4_t a = vaddq_f32(vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(x0), s0)),
                                          vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(x1), s1)));
                tab[j][0] = vsubq_f32(vsubq_f32(a, x2), x3); /* p = 0..3: bit 2 clear, a + (-x2) */
                tab[j][1] = vsubq_f32(vaddq_f32(a, x2), x3);
                amax = vmaxnmq_f32(amax, vmaxnmq_f32(vabsq_f32(tab[j][0]), vabsq_f32(tab[j][1])));
            }
            float am = vmaxnmvq_f32(amax);
            const float32x4_t inv = vdupq_n_f32(am > 0.0f ? 127.0f / am : 0.0f);
            int32_t sq = 0;
            uint8_t *qg = qt + (size_t)g * 8 * TMAC_TPG;
            for (int j = 0; j < TMAC_TPG; j++) {
                int32x4_t q[2];
                for (int h = 0; h < 2; h++)
                    q[h] = vcvtnq_s32_f32(vminq_f32(vmaxq_f32(vmulq_f32(tab[j][h], inv), nlim), lim));
                sq -= vgetq_lane_s32(q[0], 0);
                int8x8_t b8 = vqmovn_s16(vcombine_s16(vqmovn_s32(q[0]), vqmovn_s32(q[1])));
                if (mode == TMAC_FA) b8 = veor_s8(b8, vdup_n_s8((int8_t)0x80));
                vst1_s8((int8_t *)(qg + 8 * j), b8);
            }
            head[g].d = am / 127.0f;
            head[g].sq = sq;
        }
    }
}

void tmac_prepare_neon(const float *x, int n, int k, void *act) { prepare_neon(x, n, k, act, TMAC_LUT8); }
void tmac_fa_prepare_neon(const float *x, int n, int k, void *act) { prepare_neon(x, n, k, act, TMAC_FA); }
