/* cb2: scalar reference, quantizer (pack) and descriptor.  See cb2.h for layout and semantics. */
#include "cb2.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/act_quant.h"
#include "../common/fp16.h"
#include "../common/q8_k_rows.h" /* bb_quant_q8_K_rows_avx512 / _neon: q8_K bytes of bb_quant_q8_K_rows, faster */

#if defined(__x86_64__)
#include <emmintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

_Static_assert(sizeof(bb_cb2_block) == 82, "cb2 block must be 82 bytes");

static size_t cb2_packed_size(int m, int k)
{
    return (size_t)m * (k / BB_CB2_QK) * sizeof(bb_cb2_block) + BB_CB2_TRAILER;
}

static inline int cb2_index(const bb_cb2_block *b, int j) { return (b->qs[j & 63] >> (2 * (j >> 6))) & 3; }

/* One codebook prepared for nearest-centroid search: centroids ascending with their stored
 * index, the steps between neighbours and the midpoints between them. */
typedef struct {
    float c[BB_CB2_ENTRIES];
    float step[BB_CB2_ENTRIES - 1]; /* c[e+1] - c[e] */
    float mid[BB_CB2_ENTRIES - 1];  /* (c[e] + c[e+1]) / 2 */
    int code[BB_CB2_ENTRIES];
    float cmax; /* max |c| */
} sorted_book;

static void sort_book(const int8_t *book, sorted_book *s)
{
    for (int e = 0; e < BB_CB2_ENTRIES; e++) { s->c[e] = book[e]; s->code[e] = e; }
    for (int i = 1; i < BB_CB2_ENTRIES; i++)
        for (int j = i; j > 0 && s->c[j] < s->c[j - 1]; j--) {
            float t = s->c[j]; s->c[j] = s->c[j - 1]; s->c[j - 1] = t;
            int u = s->code[j]; s->code[j] = s->code[j - 1]; s->code[j - 1] = u;
        }
    for (int e = 0; e + 1 < BB_CB2_ENTRIES; e++) {
        s->mid[e] = 0.5f * (s->c[e] + s->c[e + 1]);
        s->step[e] = s->c[e + 1] - s->c[e];
    }
    s->cmax = fmaxf(fabsf(s->c[0]), fabsf(s->c[BB_CB2_ENTRIES - 1]));
}

/* Position (in sorted order) of the centroid nearest to x / scale, for scale > 0. */
static inline int nearest(const sorted_book *b, float x, float scale)
{
    int p = 0;
    for (int e = 0; e + 1 < BB_CB2_ENTRIES; e++) p += x > scale * b->mid[e];
    return p;
}

/* One pass over a sub-group at a scale: every element at its nearest centroid c_i; returns
 * sum x_i c_i in *sxc and sum c_i^2 in *scc, from which the squared error at this scale is
 * xx - 2 scale sxc + scale^2 scc and the least-squares scale of this assignment sxc / scc. */
static void assign_sums(const float *x, const sorted_book *b, float scale, float *sxc, float *scc)
{
    /* Four lanes, compare-and-mask instead of branches: SSE2 (part of every x86-64) or NEON
     * (part of every aarch64), the same operations in the same order, so both architectures
     * pack the same bytes (ISO C mode: no contraction of the multiply and add into an FMA). */
    float av[4], qv[4];
#if defined(__x86_64__)
    __m128 t0 = _mm_set1_ps(scale * b->mid[0]), t1 = _mm_set1_ps(scale * b->mid[1]);
    __m128 t2 = _mm_set1_ps(scale * b->mid[2]), c0 = _mm_set1_ps(b->c[0]);
    __m128 s0 = _mm_set1_ps(b->step[0]), s1 = _mm_set1_ps(b->step[1]), s2 = _mm_set1_ps(b->step[2]);
    __m128 a = _mm_setzero_ps(), q = _mm_setzero_ps();
    for (int i = 0; i < BB_CB2_SUB; i += 4) {
        __m128 v = _mm_loadu_ps(x + i);
        __m128 c = _mm_add_ps(c0, _mm_and_ps(_mm_cmpgt_ps(v, t0), s0));
        c = _mm_add_ps(c, _mm_and_ps(_mm_cmpgt_ps(v, t1), s1));
        c = _mm_add_ps(c, _mm_and_ps(_mm_cmpgt_ps(v, t2), s2));
        a = _mm_add_ps(a, _mm_mul_ps(v, c));
        q = _mm_add_ps(q, _mm_mul_ps(c, c));
    }
    _mm_storeu_ps(av, a);
    _mm_storeu_ps(qv, q);
#elif defined(__aarch64__)
    float32x4_t t0 = vdupq_n_f32(scale * b->mid[0]), t1 = vdupq_n_f32(scale * b->mid[1]);
    float32x4_t t2 = vdupq_n_f32(scale * b->mid[2]), c0 = vdupq_n_f32(b->c[0]);
    uint32x4_t s0 = vreinterpretq_u32_f32(vdupq_n_f32(b->step[0]));
    uint32x4_t s1 = vreinterpretq_u32_f32(vdupq_n_f32(b->step[1]));
    uint32x4_t s2 = vreinterpretq_u32_f32(vdupq_n_f32(b->step[2]));
    float32x4_t a = vdupq_n_f32(0), q = vdupq_n_f32(0);
    for (int i = 0; i < BB_CB2_SUB; i += 4) {
        float32x4_t v = vld1q_f32(x + i);
        float32x4_t c = vaddq_f32(c0, vreinterpretq_f32_u32(vandq_u32(vcgtq_f32(v, t0), s0)));
        c = vaddq_f32(c, vreinterpretq_f32_u32(vandq_u32(vcgtq_f32(v, t1), s1)));
        c = vaddq_f32(c, vreinterpretq_f32_u32(vandq_u32(vcgtq_f32(v, t2), s2)));
        a = vaddq_f32(a, vmulq_f32(v, c));
        q = vaddq_f32(q, vmulq_f32(c, c));
    }
    vst1q_f32(av, a);
    vst1q_f32(qv, q);
#else
#error "cb2.c: assign_sums has an x86-64 (SSE2) and an aarch64 (NEON) form only"
#endif
    *sxc = (av[0] + av[1]) + (av[2] + av[3]);
    *scc = (qv[0] + qv[1]) + (qv[2] + qv[3]);
}

/* Best continuous scale of one sub-group for one codebook: a grid around the absmax fit, each
 * point followed by one least-squares step (s = sum x c / sum c^2 for its assignment). */
static float fit_scale(const float *x, float xx, float amax, const sorted_book *b, float *err_out)
{
    static const float grid[] = {0.7f, 0.85f, 1.0f};
    float best_s = 0, best_e = xx;
    if (amax > 0 && b->cmax > 0)
        for (size_t gi = 0; gi < sizeof grid / sizeof grid[0]; gi++) {
            float s = amax / b->cmax * grid[gi];
            for (int it = 0; it < 2; it++) {
                float sxc, scc;
                assign_sums(x, b, s, &sxc, &scc);
                float e = xx - 2 * s * sxc + s * s * scc;
                if (e < best_e) { best_e = e; best_s = s; }
                if (sxc <= 0 || scc == 0) break;
                s = sxc / scc;
            }
        }
    *err_out = best_e;
    return best_s;
}

/* Quantize one super-block at its stored scale d16: every sub-group picks the codebook and local
 * scale (around its continuous optimum) with the lowest squared error at the stored scale. */
static void quant_block(const float *x, const float *xx, const sorted_book *books,
                        float scont[][BB_CB2_BOOKS], uint16_t d16, bb_cb2_block *out)
{
    float d = bb_fp16_to_fp32(d16);
    for (int g = 0; g < BB_CB2_QK / BB_CB2_SUB; g++) {
        const float *xg = x + g * BB_CB2_SUB;
        int best_k = 0, best_ls = 0;
        float best_e = xx[g];
        for (int kb = 0; kb < BB_CB2_BOOKS && d > 0; kb++) {
            int l0 = (int)lrintf(scont[g][kb] / d);
            for (int ls = l0 - 1; ls <= l0 + 1; ls++) {
                if (ls < 1 || ls > BB_CB2_LSMAX) continue;
                float s = d * (float)ls, sxc, scc;
                assign_sums(xg, &books[kb], s, &sxc, &scc);
                float e = xx[g] - 2 * s * sxc + s * s * scc;
                if (e < best_e) { best_e = e; best_k = kb; best_ls = ls; }
            }
        }
        out->meta[g] = (uint8_t)(best_k | best_ls << 3);
        float s = d * (float)best_ls;
        for (int i = 0; i < BB_CB2_SUB; i++) {
            int j = g * BB_CB2_SUB + i;
            int code = best_ls ? books[best_k].code[nearest(&books[best_k], xg[i], s)] : 0;
            out->qs[j & 63] |= (uint8_t)(code << (2 * (j >> 6)));
        }
    }
}

static void pack_block(const float *x, const sorted_book *books, bb_cb2_block *out)
{
    float scont[BB_CB2_QK / BB_CB2_SUB][BB_CB2_BOOKS], xx[BB_CB2_QK / BB_CB2_SUB];
    float smax = 0;
    for (int g = 0; g < BB_CB2_QK / BB_CB2_SUB; g++) {
        const float *xg = x + g * BB_CB2_SUB;
        float amax = 0, best_e = INFINITY, best_s = 0;
        xx[g] = 0;
        for (int i = 0; i < BB_CB2_SUB; i++) {
            amax = fmaxf(amax, fabsf(xg[i]));
            xx[g] += xg[i] * xg[i];
        }
        for (int kb = 0; kb < BB_CB2_BOOKS; kb++) {
            float e;
            scont[g][kb] = fit_scale(xg, xx[g], amax, &books[kb], &e);
            if (e < best_e) { best_e = e; best_s = scont[g][kb]; }
        }
        smax = fmaxf(smax, best_s);
    }
    memset(out, 0, sizeof *out);
    if (smax == 0) return;
    /* the largest sub-group scale maps to ls = 31 (trying 30 and 29 as well changed the error on
     * Gaussian weights by < 0.03% for 3x the time) */
    out->d = bb_fp32_to_fp16(fminf(smax / (float)BB_CB2_LSMAX, 65504.0f));
    quant_block(x, xx, books, scont, out->d, out);
}

int bb_cb2_pack_books(const bb_weights *w, const int8_t books[BB_CB2_BOOKS][BB_CB2_ENTRIES], void *dst,
                      char *err, size_t errlen)
{
    for (int kb = 0; kb < BB_CB2_BOOKS; kb++)
        for (int e = 0; e < BB_CB2_ENTRIES; e++)
            if (books[kb][e] < BB_CB2_CMIN || books[kb][e] > BB_CB2_CMAX) {
                snprintf(err, errlen, "cb2: codebook %d entry %d is %d, outside [%d, %d]", kb, e, books[kb][e],
                         BB_CB2_CMIN, BB_CB2_CMAX);
                return -1;
            }
    if (w->k % BB_CB2_QK) {
        snprintf(err, errlen, "cb2: K=%d is not a multiple of %d", w->k, BB_CB2_QK);
        return -1;
    }
    sorted_book sb[BB_CB2_BOOKS];
    for (int kb = 0; kb < BB_CB2_BOOKS; kb++) sort_book(books[kb], &sb[kb]);
    bb_cb2_block *out = dst;
    int nb = w->k / BB_CB2_QK;
    for (int r = 0; r < w->m; r++)
        for (int b = 0; b < nb; b++)
            pack_block(w->f32 + (size_t)r * w->k + (size_t)b * BB_CB2_QK, sb, &out[(size_t)r * nb + b]);
    int8_t *trailer = (int8_t *)(out + (size_t)w->m * nb);
    memset(trailer, 0, BB_CB2_TRAILER);
    memcpy(trailer, books, BB_CB2_BOOKS * BB_CB2_ENTRIES);
    return 0;
}

int bb_cb2_books_from_set(const bb_cb_set *s, int8_t books[BB_CB2_BOOKS][BB_CB2_ENTRIES], char *err,
                          size_t errlen)
{
    if (s->books != BB_CB2_BOOKS || s->entries != BB_CB2_ENTRIES || s->qmax > BB_CB2_CMAX) {
        snprintf(err, errlen, "cb2 needs %d codebooks of %d entries with qmax <= %d; the set has %d of %d, qmax %d",
                 BB_CB2_BOOKS, BB_CB2_ENTRIES, BB_CB2_CMAX, s->books, s->entries, s->qmax);
        return -1;
    }
    for (int kb = 0; kb < BB_CB2_BOOKS; kb++)
        for (int e = 0; e < BB_CB2_ENTRIES; e++) books[kb][e] = s->q[kb][e];
    return 0;
}

static int cb2_pack(const bb_weights *w, void *dst, char *err, size_t errlen)
{
    return bb_cb2_pack_books(w, bb_cb2_default_books, dst, err, errlen);
}

static void cb2_unpack(const void *src, int m, int k, float *dst)
{
    const int8_t *books = bb_cb2_books(src, m, k);
    for (int r = 0; r < m; r++) {
        const bb_cb2_block *row = bb_cb2_row(src, k, r);
        for (int b = 0; b < k / BB_CB2_QK; b++) {
            float d = bb_fp16_to_fp32(row[b].d);
            for (int j = 0; j < BB_CB2_QK; j++) {
                int meta = row[b].meta[j / BB_CB2_SUB];
                int c = books[(meta & 7) * BB_CB2_ENTRIES + cb2_index(&row[b], j)];
                dst[(size_t)r * k + (size_t)b * BB_CB2_QK + j] = d * (float)((meta >> 3) * c);
            }
        }
    }
}

static void cb2_matmul_ref(const void *w, const void *act, float *y, int m, int k, int n, int m0, int m1)
{
    const int8_t *books = bb_cb2_books(w, m, k);
    int nb = k / BB_CB2_QK;
    for (int c = 0; c < n; c++) {
        const bb_block_q8_K *a = (const bb_block_q8_K *)act + (size_t)c * nb;
        for (int r = m0; r < m1; r++) {
            const bb_cb2_block *row = bb_cb2_row(w, k, r);
            float sum = 0.0f;
            for (int b = 0; b < nb; b++) {
                int32_t isum = 0;
                for (int g = 0; g < BB_CB2_QK / BB_CB2_SUB; g++) {
                    int meta = row[b].meta[g];
                    const int8_t *book = books + (meta & 7) * BB_CB2_ENTRIES;
                    int32_t s = 0;
                    for (int i = 0; i < BB_CB2_SUB; i++) {
                        int j = g * BB_CB2_SUB + i;
                        s += book[cb2_index(&row[b], j)] * a[b].qs[j];
                    }
                    isum += (meta >> 3) * s;
                }
                sum += (bb_fp16_to_fp32(row[b].d) * a[b].d) * (float)isum;
            }
            y[(size_t)c * m + r] = sum;
        }
    }
}

const bb_kernel bb_kernel_cb2 = {
    .name = "cb2",
    .family = "codebook",
    .description = "group-wise codebooks: 8 int8 books of 4, 2-bit indices, 5-bit sub-scales, fp16 super-scale",
    .paper = "Arm paper §5.2-5.3, Algorithm 1-2",
    .bits_per_weight = 82.0 * 8 / BB_CB2_QK,
    .lossless = false,
    .weights = BB_WEIGHTS_REAL,
    .act = BB_ACT_I8_BLOCK256,
    .plain_rows = false,
    .float_accumulation = false,
    .k_multiple = BB_CB2_QK,
    .m_multiple = 1,
    .packed_size = cb2_packed_size,
    .pack = cb2_pack,
    .unpack = cb2_unpack,
    .act_size = bb_q8_K_rows_size,
    .prepare = bb_quant_q8_K_rows,
    .variants = {
        {"scalar", 0, cb2_matmul_ref, NULL},
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_cb2_matmul_avx2, NULL},
        {"avx512", BB_ISA_AVX512, bb_cb2_matmul_avx512, bb_quant_q8_K_rows_avx512},
#elif defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_cb2_matmul_neon, bb_quant_q8_K_rows_neon},
        {"dotprod", BB_ISA_DOTPROD, bb_cb2_matmul_dotprod, bb_quant_q8_K_rows_neon},
#endif
    },
    .about = {
        .layout_text = "row-major; each row K/256 super-blocks of 82 bytes:\n"
            "qs[64] 2-bit element indices (byte j: element 64s + j in bits 2s..2s+1), meta[16] per 16 "
            "weights (codebook number, 5-bit local scale ls), fp16 d;\n"
            "weight = d * ls * C[codebook][index] (Arm paper §5.2-5.3)",
        .block_weights = 256,
        .block_bytes = 82,
        .outside_blocks = "a 64-byte trailer: the 8 codebooks of 4 int8 centroids (32 bytes), then 32 zero bytes",
        .activation = "q8_K: int8 in blocks of 256 with a float scale and int16 sums of each 16 (llama.cpp "
            "block_q8_K)",
        .act_bytes = 1.0 + 4.0 / 256,
        .int_ops = 2.0 + 2.0 / 16,
        .float_ops = 3.0 / 256,
        .column_int_ops_per_k = 0,
        .column_float_ops_per_k = 0,
        .column_cost = "none besides preparing the activations",
        .error = "weights: each sub-group of 16 takes the codebook and local scale with the least squared "
            "error, elements at their nearest centroid (Arm paper §5.3); relative RMS error 0.270 on "
            "Gaussian weights (q2_k: 0.296)",
    },
};
