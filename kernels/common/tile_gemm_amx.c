/* The AMX-INT8 GEMM driver (amx.h): activations to VNNI B tiles once per call, weights decoded
 * to int8 A tiles once per strip of 32 rows, 2 x 2 tiles of TDPBSSD per K step, one C extraction
 * per scale block folded into float outputs in the reference's order. */
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "act_quant.h"
#include "amx.h"
#include "../kernel.h"

/* Tile registers: 0-3 C (2a + b: weight half a, activation half b), 4-5 A (weight rows 0-15 and
 * 16-31 of the strip), 6-7 B (activation rows 0-15 and 16-31 of the pair).  ldtilecfg's 64-byte
 * operand, palette 1 (SDM vol. 1, 18.2). */
typedef struct {
    uint8_t palette_id, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} tile_config;
_Static_assert(sizeof(tile_config) == 64, "ldtilecfg reads 64 bytes");

/* ldtilecfg with the whole 64-byte configuration as its operand.  GCC 12's _tile_loadconfig
 * declares an 8-byte memory input, so the compiler may drop the stores to the rest of a
 * configuration built on the stack, and the first tile load then faults (ggml's AMX path at that
 * compiler crashes so with SIGILL); here the asm reads what it is given. */
static inline void load_tile_config(const tile_config *cfg)
{
    __asm__ volatile("ldtilecfg %0" : : "m"(*cfg));
}

static void configure_tiles(int kstep)
{
    tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette_id = 1;
    for (int t = 0; t < 8; t++) {
        cfg.rows[t] = t >= 6 ? (uint8_t)(kstep / 4) : BB_AMX_ROWS;
        cfg.colsb[t] = t == 4 || t == 5 ? (uint16_t)kstep : 64;
    }
    load_tile_config(&cfg);
}

/* The call's buffers, one allocation. */
typedef struct {
    int kp;        /* K rounded up to 64: row length of the strip and staging buffers */
    int kstep;     /* K per TDPBSSD: 64, or 32 where blocks or K are multiples of 32 only */
    int seg, nseg; /* K per segment, segments in K */
    int npad;      /* N rounded up to 16 */
    int8_t *actv;  /* npad/16 blocks of kp/4 rows x 64 bytes: activations in VNNI order */
    int8_t *strip; /* BB_AMX_STRIP rows x kp: the decoded weights */
    int8_t *mins;  /* BB_AMX_STRIP rows x kp: the decoded mins_i8 rows (BB_AMX_BLOCK_K_MINS) */
    int8_t *stage; /* 16 rows x kp: activation rows copied out of the prepared buffer */
    float *da;     /* nseg x npad activation scales */
    float *dw;     /* nseg x BB_AMX_STRIP weight scales of the strip */
    float *dm;     /* nseg x BB_AMX_STRIP min scales of the strip (BB_AMX_BLOCK_K_MINS) */
    void *mem;
} gemm_scratch;

static int scratch_init(gemm_scratch *s, const bb_amx_ops *ops, int n, int k)
{
    s->kp = (k + 63) & ~63;
    s->seg = ops->seg ? ops->seg : k;
    s->nseg = k / s->seg;
    s->kstep = k % 64 == 0 && s->seg % 64 == 0 ? 64 : 32;
    s->npad = (n + 15) & ~15;
    size_t kp = (size_t)s->kp, actv = (size_t)s->npad * kp, strip = BB_AMX_STRIP * kp, stage = 16 * kp;
    size_t da = ((size_t)s->nseg * s->npad * sizeof(float) + 63) & ~(size_t)63;
    size_t dw = ((size_t)s->nseg * BB_AMX_STRIP * sizeof(float) + 63) & ~(size_t)63;
    size_t mins = ops->fold == BB_AMX_BLOCK_K_MINS ? strip + dw : 0; /* the mins strip and dm */
    s->mem = aligned_alloc(64, actv + strip + stage + da + dw + mins);
    if (!s->mem) return -1;
    s->actv = s->mem;
    s->strip = s->actv + actv;
    s->stage = s->strip + strip;
    s->da = (float *)(s->stage + stage);
    s->dw = (float *)((char *)s->da + da);
    s->mins = mins ? (int8_t *)s->dw + dw : NULL;
    s->dm = mins ? (float *)(s->mins + strip) : NULL;
    return 0;
}

/* Activation rows in blocks of 16, each 64 K at a time: row kr of the block's B data holds
 * q[c][4kr..4kr+3] for its 16 rows c (zero rows past N). */
static void pack_activations(const bb_amx_ops *ops, const void *act, int n, int k, gemm_scratch *s)
{
    for (int nb = 0; nb < s->npad / 16; nb++) {
        const int8_t *rows[16];
        for (int i = 0; i < 16; i++) {
            int c = 16 * nb + i;
            rows[i] = c < n ? ops->act_i8(act, n, k, c, s->stage + (size_t)i * s->kp) : NULL;
        }
        int8_t *dst = s->actv + (size_t)nb * 16 * s->kp;
        for (int k0 = 0; k0 < k; k0 += 64) {
            int live = k - k0 < 64 ? k - k0 : 64;
            __mmask64 mask = live == 64 ? ~0ull : (1ull << live) - 1;
            __m512i r[16];
            for (int i = 0; i < 16; i++)
                r[i] = rows[i] ? _mm512_maskz_loadu_epi8(mask, rows[i] + k0) : _mm512_setzero_si512();
            bb_amx_transpose16(r);
            for (int kr = 0; kr < live / 4; kr++) _mm512_storeu_si512(dst + 16 * (size_t)k0 + 64 * kr, r[kr]);
        }
    }
    memset(s->da, 0, (size_t)s->nseg * s->npad * sizeof(float));
    ops->act_scales(act, n, k, s->npad, s->da);
}

/* One strip against one or two activation blocks: A rows at a (stride kp), B data at b0, b1;
 * and the next strip's packed weights [pf, pf_end), prefetched into L2 pf_lines lines per K step
 * so that reading them overlaps the tile work instead of following it. */
typedef struct {
    const int8_t *a, *b0, *b1;
    size_t kp;
    int kstep, two_a, two_b;
    const char *pf, *pf_end;
    int pf_lines;
} tile_pass;

/* sums[i][j] = the int32 dot over [k0, k1) of strip row i and activation row j. */
static inline __attribute__((always_inline)) void segment_dots(tile_pass *p, int k0, int k1, int two_a, int two_b,
                                                               int32_t sums[32][32])
{
    const int8_t *a = p->a;
    size_t kp = p->kp;
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (int kk = k0; kk < k1; kk += p->kstep) {
        _tile_loadd(4, a + kk, kp);
        _tile_loadd(6, p->b0 + 16 * (size_t)kk, 64);
        if (two_b) _tile_loadd(7, p->b1 + 16 * (size_t)kk, 64);
        if (two_a) _tile_loadd(5, a + 16 * kp + kk, kp);
        _tile_dpbssd(0, 4, 6);
        if (two_b) _tile_dpbssd(1, 4, 7);
        if (two_a) _tile_dpbssd(2, 5, 6);
        if (two_a && two_b) _tile_dpbssd(3, 5, 7);
        for (int l = 0; l < p->pf_lines && p->pf < p->pf_end; l++, p->pf += 64) _mm_prefetch(p->pf, _MM_HINT_T1);
    }
    _tile_stored(0, &sums[0][0], 128);
    if (two_b) _tile_stored(1, &sums[0][16], 128);
    if (two_a) _tile_stored(2, &sums[16][0], 128);
    if (two_a && two_b) _tile_stored(3, &sums[16][16], 128);
}

static void segment_dots_any(tile_pass *p, int k0, int k1, int32_t sums[32][32])
{
    if (p->two_a && p->two_b) segment_dots(p, k0, k1, 1, 1, sums);
    else if (p->two_a) segment_dots(p, k0, k1, 1, 0, sums);
    else if (p->two_b) segment_dots(p, k0, k1, 0, 1, sums);
    else segment_dots(p, k0, k1, 0, 0, sums);
}

/* acc[i][j] for strip rows i < ni, activation rows j < 16 * nj from one segment's sums, with
 * the segment's scales dw[i], da[j] (and for BB_AMX_BLOCK_K_MINS the mins' sums msums and scales
 * dm[i]): the reference's float operations, one lane per output (the block folds add to acc,
 * which starts at 0.0f as the reference's sum does). */
static inline __attribute__((always_inline)) void fold_rows(bb_amx_fold fold, int nj, const int32_t sums[32][32],
                                                            const int32_t msums[32][32], const float *dw,
                                                            const float *dm, const float *da, int ni,
                                                            float acc[32][32])
{
    const __m512 zero = _mm512_setzero_ps();
    const __m512 a[2] = {_mm512_loadu_ps(da), nj > 1 ? _mm512_loadu_ps(da + 16) : zero};
    const __mmask16 live[2] = {_mm512_cmp_ps_mask(a[0], zero, _CMP_NEQ_UQ), _mm512_cmp_ps_mask(a[1], zero, _CMP_NEQ_UQ)};
    for (int i = 0; i < ni; i++) {
        __m512 wv = _mm512_set1_ps(dw[i]);
        for (int h = 0; h < nj; h++) {
            __m512 x = _mm512_cvtepi32_ps(_mm512_load_si512(&sums[i][16 * h])), y;
            if (fold == BB_AMX_DEQUANT_ROW) /* (float)isum / da * dw, 0 where da == 0 */
                y = _mm512_maskz_mul_ps(live[h], _mm512_div_ps(x, a[h]), wv);
            else if (fold == BB_AMX_BLOCK_QX)
                y = _mm512_add_ps(_mm512_load_ps(&acc[i][16 * h]), _mm512_mul_ps(_mm512_mul_ps(x, wv), a[h]));
            else if (fold == BB_AMX_BLOCK_K_MINS) {
                __m512 xm = _mm512_cvtepi32_ps(_mm512_load_si512(&msums[i][16 * h]));
                __m512 p = _mm512_mul_ps(_mm512_mul_ps(a[h], wv), x);
                __m512 q = _mm512_mul_ps(_mm512_mul_ps(a[h], _mm512_set1_ps(dm[i])), xm);
                y = _mm512_add_ps(_mm512_load_ps(&acc[i][16 * h]), _mm512_sub_ps(p, q));
            } else
                y = _mm512_add_ps(_mm512_load_ps(&acc[i][16 * h]), _mm512_mul_ps(x, _mm512_mul_ps(a[h], wv)));
            _mm512_store_ps(&acc[i][16 * h], y);
        }
    }
}

/* fold_rows with the mode and the number of activation halves known to the compiler. */
static void fold_segment(bb_amx_fold fold, const int32_t sums[32][32], const int32_t msums[32][32],
                         const float *dw, const float *dm, const float *da, int ni, int nj, float acc[32][32])
{
    if (fold == BB_AMX_DEQUANT_ROW) {
        if (nj > 1) fold_rows(BB_AMX_DEQUANT_ROW, 2, sums, NULL, dw, NULL, da, ni, acc);
        else fold_rows(BB_AMX_DEQUANT_ROW, 1, sums, NULL, dw, NULL, da, ni, acc);
    } else if (fold == BB_AMX_BLOCK_QX) {
        if (nj > 1) fold_rows(BB_AMX_BLOCK_QX, 2, sums, NULL, dw, NULL, da, ni, acc);
        else fold_rows(BB_AMX_BLOCK_QX, 1, sums, NULL, dw, NULL, da, ni, acc);
    } else if (fold == BB_AMX_BLOCK_K_MINS) {
        if (nj > 1) fold_rows(BB_AMX_BLOCK_K_MINS, 2, sums, msums, dw, dm, da, ni, acc);
        else fold_rows(BB_AMX_BLOCK_K_MINS, 1, sums, msums, dw, dm, da, ni, acc);
    } else {
        if (nj > 1) fold_rows(BB_AMX_BLOCK_K, 2, sums, NULL, dw, NULL, da, ni, acc);
        else fold_rows(BB_AMX_BLOCK_K, 1, sums, NULL, dw, NULL, da, ni, acc);
    }
}

/* y[c][r + i] = acc[i][c - c0] for the live rows and columns, 16 x 16 at a time transposed. */
static void store_outputs(const float acc[32][32], float *y, int m, int r, int rows, int c0, int cols)
{
    for (int qa = 0; 16 * qa < rows; qa++)
        for (int qb = 0; 16 * qb < cols; qb++) {
            __m512i t[16];
            for (int i = 0; i < 16; i++) t[i] = _mm512_castps_si512(_mm512_loadu_ps(&acc[16 * qa + i][16 * qb]));
            bb_amx_transpose16(t);
            int live_m = rows - 16 * qa < 16 ? rows - 16 * qa : 16, live_n = cols - 16 * qb < 16 ? cols - 16 * qb : 16;
            __mmask16 keep = (__mmask16)((1u << live_m) - 1);
            for (int j = 0; j < live_n; j++)
                _mm512_mask_storeu_ps(y + (size_t)(c0 + 16 * qb + j) * m + r + 16 * qa, keep, _mm512_castsi512_ps(t[j]));
        }
}

/* Row r's first packed byte: the kernel's row_start, or row r of a GGUF block layout, or the first
 * record of row r's group in a row-interleaved one (r a multiple of its rows, or M: the end). */
static const void *row_start(const bb_amx_ops *ops, const void *w, int m, int k, int r)
{
    if (ops->row_start) return ops->row_start(w, m, k, r);
    if (ops->il) return bb_il_record(ops->il, w, k, r, 0);
    return (const char *)w + (size_t)r * (size_t)(k / ops->seg) * ops->block_bytes;
}

/* The fp16 scale at byte `at` of every block of rows [r, r + rows) of a GGUF block layout, or at
 * lane r + i from byte `at` of every record of a row-interleaved one, as float (exact, F16C):
 * dw[b * BB_AMX_STRIP + i] for row r + i, block b. */
static void block_scales(const bb_amx_ops *ops, const void *w, int m, int k, int r, int rows, size_t at, float *dw)
{
    for (int i = 0; i < rows; i++) {
        const char *row = ops->il ? NULL : row_start(ops, w, m, k, r + i);
        for (int b = 0; b < k / ops->seg; b++) {
            uint16_t h;
            if (ops->il) h = bb_il_lane_u16(ops->il, w, k, r + i, b, at);
            else memcpy(&h, row + (size_t)b * ops->block_bytes + at, sizeof h);
            dw[b * BB_AMX_STRIP + i] = _cvtsh_ss(h);
        }
    }
}

/* Rows [r, r + rows) decoded into the strip (zero rows up to the tiles it fills) with their scales. */
static void decode_strip(const bb_amx_ops *ops, const void *w, int m, int k, int r, int rows, gemm_scratch *s)
{
    ops->weights_i8(w, m, k, r, rows, s->strip, (size_t)s->kp);
    int tiles_rows = rows > BB_AMX_ROWS ? BB_AMX_STRIP : BB_AMX_ROWS;
    if (rows < tiles_rows) memset(s->strip + (size_t)rows * s->kp, 0, (size_t)(tiles_rows - rows) * s->kp);
    if (ops->weight_scales) ops->weight_scales(w, m, k, r, rows, s->dw);
    else block_scales(ops, w, m, k, r, rows, ops->d_at, s->dw);
    if (s->mins) {
        ops->mins_i8(w, m, k, r, rows, s->mins, (size_t)s->kp);
        if (rows < tiles_rows) memset(s->mins + (size_t)rows * s->kp, 0, (size_t)(tiles_rows - rows) * s->kp);
        if (ops->min_scales) ops->min_scales(w, m, k, r, rows, s->dm);
        else block_scales(ops, w, m, k, r, rows, ops->dm_at, s->dm);
    }
}

void bb_amx_matmul(const bb_amx_ops *ops, const void *w, const void *act, float *y, int m, int k, int n, int m0,
                   int m1)
{
    gemm_scratch s;
    if (n < BB_AMX_MIN_N || m1 <= m0) { /* the documented rule (an empty slice: nothing to run) */
        ops->small_n(w, act, y, m, k, n, m0, m1);
        return;
    }
    if (k % 32 || scratch_init(&s, ops, n, k)) { /* not the rule: counted, so results say so */
        bb_kernel_fallback_note();
        ops->small_n(w, act, y, m, k, n, m0, m1);
        return;
    }
    pack_activations(ops, act, n, k, &s);
    configure_tiles(s.kstep);
    _Alignas(64) int32_t sums[2][32][32], msums[2][32][32];
    _Alignas(64) float acc[32][32];
    for (int r = m0; r < m1; r += BB_AMX_STRIP) {
        int rows = m1 - r < BB_AMX_STRIP ? m1 - r : BB_AMX_STRIP;
        decode_strip(ops, w, m, k, r, rows, &s);
        tile_pass p = {.a = s.strip, .kp = (size_t)s.kp, .kstep = s.kstep, .two_a = rows > BB_AMX_ROWS};
        int next = r + BB_AMX_STRIP < m1 ? r + BB_AMX_STRIP : m1, next_end = next + BB_AMX_STRIP < m1 ? next + BB_AMX_STRIP : m1;
        p.pf = row_start(ops, w, m, k, next);
        p.pf_end = row_start(ops, w, m, k, next_end);
        long steps = (long)((n + 31) / 32) * (k / s.kstep);
        p.pf_lines = (int)(((p.pf_end - p.pf) / 64 + steps - 1) / steps);
        for (int c0 = 0; c0 < n; c0 += 32) {
            int cols = n - c0 < 32 ? n - c0 : 32;
            p.b0 = s.actv + (size_t)(c0 / 16) * 16 * s.kp;
            p.b1 = p.b0 + 16 * (size_t)s.kp;
            p.two_b = cols > 16;
            /* software pipelined: the tiles of segment sg + 1 are computed and stored while segment
             * sg's sums (stored one fold earlier, so no wait on the tile stores) are folded */
            tile_pass pm = p; /* the mins strip against the same activations, prefetching nothing */
            pm.a = s.mins;
            pm.pf_lines = 0;
            memset(acc, 0, sizeof acc);
            segment_dots_any(&p, 0, s.seg, sums[0]);
            if (s.mins) segment_dots_any(&pm, 0, s.seg, msums[0]);
            for (int sg = 0; sg < s.nseg; sg++) {
                if (sg + 1 < s.nseg) {
                    segment_dots_any(&p, (sg + 1) * s.seg, (sg + 2) * s.seg, sums[(sg + 1) & 1]);
                    if (s.mins) segment_dots_any(&pm, (sg + 1) * s.seg, (sg + 2) * s.seg, msums[(sg + 1) & 1]);
                }
                fold_segment(ops->fold, sums[sg & 1], msums[sg & 1], s.dw + sg * BB_AMX_STRIP,
                             s.mins ? s.dm + sg * BB_AMX_STRIP : NULL, s.da + (size_t)sg * s.npad + c0, rows,
                             (cols + 15) / 16, acc);
            }
            store_outputs(acc, y, m, r, rows, c0, cols);
        }
    }
    _tile_release(); /* the tile state back to init: smaller context switches and signal frames */
    free(s.mem);
}

const int8_t *bb_amx_i8_row_act(const void *act, int n, int k, int c, int8_t *scratch)
{
    (void)n; (void)scratch;
    return bb_i8_row_q(act, k, c);
}

void bb_amx_i8_row_scales(const void *act, int n, int k, int npad, float *da)
{
    (void)npad;
    for (int c = 0; c < n; c++) da[c] = bb_i8_row(act, k, c)->scale;
}
