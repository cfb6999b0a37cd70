/* Blocked attention with a running softmax (attention.h). */
#include "attention.h"

#include <math.h>
#include <string.h>

static void scores(const bb_vec_ops *v, const float *q, const bb_attn_kv *kv, int s0, int n, float scale, float *out)
{
    const char *k = (const char *)kv->k + (size_t)s0 * kv->k_row;
    switch (kv->kt) {
    case BB_KV_F16: v->scores_f16(q, (const uint16_t *)k, (size_t)kv->k_row / 2, kv->hd, n, scale, out); break;
    case BB_KV_BF16: v->scores_bf16(q, (const uint16_t *)k, (size_t)kv->k_row / 2, kv->hd, n, scale, out); break;
    case BB_KV_Q8_0: v->scores_q8_0(q, k, kv->k_row, kv->hd, n, scale, out); break;
    default: v->scores_f32(q, (const float *)k, (size_t)kv->k_row / 4, kv->hd, n, scale, out); break;
    }
}

static void wsum(const bb_vec_ops *v, float *out, const float *a, const bb_attn_kv *kv, int s0, int n)
{
    const char *val = (const char *)kv->v + (size_t)s0 * kv->v_row;
    switch (kv->vt) {
    case BB_KV_F16: v->wsum_f16(out, a, (const uint16_t *)val, (size_t)kv->v_row / 2, kv->hd, n); break;
    case BB_KV_BF16: v->wsum_bf16(out, a, (const uint16_t *)val, (size_t)kv->v_row / 2, kv->hd, n); break;
    case BB_KV_Q8_0: v->wsum_q8_0(out, a, val, kv->v_row, kv->hd, n); break;
    default: v->wsum_f32(out, a, (const float *)val, (size_t)kv->v_row / 4, kv->hd, n); break;
    }
}

/* BB_ATTN_PREFETCH_ROWS (attention.h): each step of the scores first asks for lines of the next
 * chunk's keys, and each step of the weighted sum for those of the next chunk's values, so that
 * each pass finds its rows in L2 while DRAM streams the next chunk's.  Asking for the values as
 * the keys stream made the whole attention slower (docs/measurements/2026-11-28-decode.md,
 * "Attention at depth"); leaving the values to the hardware streamer left a core's attention at
 * 1.5x a read of the cache on an Emerald Rapids guest, one chunk ahead 1.35x (docs/measurements/
 * 2026-11-29-xeon.md).
 *
 * BB_ATTN_PREFETCH_PARTS (attention.h): the next chunk is asked for as that many parts in
 * lockstep, not front to back: the step over rows [r0, r1) of a full chunk asks for rows [r0, r1)
 * / BB_ATTN_PREFETCH_PARTS of each part.  The same lines, in an order the memory serves faster: on
 * the Emerald Rapids guest with AMX a read of 8 streams per thread is 20-40 % faster than one
 * (support/memory.h, BB_READ_STREAMS), and so was this attention over a 4096-deep f16 cache; 4
 * and 16 parts were slower than 8, and reading the chunk itself in lockstep slower still
 * (docs/measurements/2026-11-30-attention-streams.md). */

/* Always inlined, as kernels/common/prefetch.h says: GCC deletes a call it does not inline to a
 * function that only prefetches (this one's was, and the attention ran as if it had none). */
static inline __attribute__((always_inline)) void prefetch_rows(const void *base, size_t row, int s0, int s1)
{
    const char *p = (const char *)base + (size_t)s0 * row, *end = (const char *)base + (size_t)s1 * row;
    for (; p < end; p += 64) __builtin_prefetch(p, 0, 2);
}

/* Rows [t0, t1) of the keys (values: 1) of this head and, past its n rows, of kv->next's, as if
 * the two heads' rows were one stream: the windows of a head's last chunks run on into the next
 * head's first (bb_attn_ahead). */
static inline __attribute__((always_inline)) void prefetch_stream(const bb_attn_kv *kv, int values, int t0, int t1)
{
    size_t row = values ? kv->v_row : kv->k_row;
    if (t0 < kv->n) prefetch_rows(values ? kv->v : kv->k, row, t0, t1 < kv->n ? t1 : kv->n);
    const bb_attn_kv *nx = kv->next;
    if (nx && t1 > kv->n) {
        int a = t0 > kv->n ? t0 - kv->n : 0, b = t1 - kv->n < nx->n ? t1 - kv->n : nx->n;
        if (a < b) prefetch_rows(values ? nx->v : nx->k, row, a, b);
    }
}

/* Each step's share of the window ahead (bb_attn_ahead, attention.h), part by part. */
static inline __attribute__((always_inline)) void prefetch_ahead(const bb_attn_kv *kv, int values, int s0, int s1,
                                                                 int r0, int r1)
{
    for (int p = 0; p < BB_ATTN_PREFETCH_PARTS; p++) {
        int t0, t1;
        if (bb_attn_ahead(kv, s0, s1, r0, r1, p, &t0, &t1)) prefetch_stream(kv, values, t0, t1);
    }
}

void bb_attn_chunk(const bb_vec_ops *v, const float *q, const bb_attn_kv *kv, int s0, int s1, float scale,
                   float *sc, float *acc, bb_attn_ml *ml)
{
    int n = s1 - s0;
    for (int s = s0; s < s1; s += BB_ATTN_PREFETCH_ROWS) {
        int e = s + BB_ATTN_PREFETCH_ROWS < s1 ? s + BB_ATTN_PREFETCH_ROWS : s1;
        prefetch_ahead(kv, 0, s0, s1, s - s0, e - s0);
        scores(v, q, kv, s, e - s, scale, sc + (s - s0));
    }
    ml->l = v->exp_max(sc, n, &ml->m);
    memset(acc, 0, sizeof(float) * (size_t)kv->hd);
    for (int s = s0; s < s1; s += BB_ATTN_PREFETCH_ROWS) {
        int e = s + BB_ATTN_PREFETCH_ROWS < s1 ? s + BB_ATTN_PREFETCH_ROWS : s1;
        prefetch_ahead(kv, 1, s0, s1, s - s0, e - s0);
        wsum(v, acc, sc + (s - s0), kv, s, e - s);
    }
}

void bb_attn_init(float *acc, bb_attn_ml *ml, int hd)
{
    memset(acc, 0, sizeof(float) * (size_t)hd);
    ml->m = -INFINITY;
    ml->l = 0.0f;
}

/* m' = max(m, m_c); both sides rescaled to m' (the side that holds m' by exactly 1). */
void bb_attn_fold(float *acc, bb_attn_ml *ml, const float *acc_c, bb_attn_ml c, int hd)
{
    float m = ml->m > c.m ? ml->m : c.m;
    float a = ml->m == m ? 1.0f : expf(ml->m - m), b = c.m == m ? 1.0f : expf(c.m - m);
    for (int e = 0; e < hd; e++) acc[e] = acc[e] * a + acc_c[e] * b;
    ml->l = ml->l * a + c.l * b;
    ml->m = m;
}

void bb_attn_finish(float *out, const float *acc, bb_attn_ml ml, int hd)
{
    float inv = 1.0f / ml.l;
    for (int e = 0; e < hd; e++) out[e] = acc[e] * inv;
}

void bb_attend(const bb_vec_ops *v, const float *q, const bb_attn_kv *kv, int n, float scale, float *out,
               float *scratch)
{
    float *sc = scratch, *acc_c = scratch + BB_ATTN_CHUNK;
    bb_attn_ml ml, c;
    bb_attn_init(out, &ml, kv->hd);
    for (int s0 = 0; s0 < n; s0 += BB_ATTN_CHUNK) {
        int s1 = n - s0 < BB_ATTN_CHUNK ? n : s0 + BB_ATTN_CHUNK;
        bb_attn_chunk(v, q, kv, s0, s1, scale, sc, acc_c, &c);
        bb_attn_fold(out, &ml, acc_c, c, kv->hd);
    }
    bb_attn_finish(out, out, ml, kv->hd);
}
