/* Blocked attention with a running softmax (models/attention.h) against a double-precision
 * reference: random q, keys and values in every KV cache type (models/kv_type.h) and every vector
 * table this CPU runs, sequences from 1 position to several chunks (5000), head dimensions 32 to
 * 128, and peaked scores (q scaled up, so that the running maximum moves between chunks and the
 * rescaling matters).  The reference reads the cache through bb_kv_load_row (the values the cache
 * holds) and computes softmax(q·k / sqrt(hd)) · v in double; the result must agree within float
 * rounding.  Also: the q8_0 row format itself (blocks of an f16 scale and 32 int8, the ggml
 * quantization rule), and the engine over a context of several chunks, where decode on 1 and 2
 * threads gives the same bits (the chunks are folded in order whichever thread computed them) and
 * the prefill's logits those of token-by-token decode.  And the prefetch window (bb_attn_ahead):
 * every row asked for exactly once, by the chunk before its own, heads of 1 to 4100 rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/common/fp16.h"
#include "models/attention.h"
#include "models/synthetic.h"
#include "models/transformer.h"
#include "support/rng.h"

static void fill(bb_rng *r, float *x, size_t n, float scale)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)(bb_rng_gauss(r) * scale);
}

/* softmax(q·k_s * scale) · v_s in double over the rows the cache holds. */
static void reference(const float *q, const bb_attn_kv *kv, int n, double scale, double *out)
{
    int hd = kv->hd;
    double *sc = malloc(sizeof(double) * (size_t)n), max = -INFINITY, sum = 0;
    float *row = malloc(sizeof(float) * (size_t)hd);
    for (int s = 0; s < n; s++) {
        bb_kv_load_row(kv->kt, row, (const char *)kv->k + (size_t)s * kv->k_row, hd);
        double d = 0;
        for (int e = 0; e < hd; e++) d += (double)q[e] * row[e];
        sc[s] = d * scale;
        if (sc[s] > max) max = sc[s];
    }
    for (int s = 0; s < n; s++) sum += sc[s] = exp(sc[s] - max);
    for (int e = 0; e < hd; e++) out[e] = 0;
    for (int s = 0; s < n; s++) {
        bb_kv_load_row(kv->vt, row, (const char *)kv->v + (size_t)s * kv->v_row, hd);
        for (int e = 0; e < hd; e++) out[e] += sc[s] / sum * row[e];
    }
    free(sc);
    free(row);
}

static void against_reference(const bb_vec_ops *v, bb_rng *r)
{
    static const int lens[] = {1, 7, 255, 256, 257, 600, 5000};
    static const int hds[] = {32, 64, 96, 128};
    enum { MAXN = 5000, MAXHD = 128 };
    float *kf = malloc(sizeof(float) * MAXN * MAXHD), *vf = malloc(sizeof(float) * MAXN * MAXHD);
    void *kc = malloc(4 * (size_t)MAXN * MAXHD), *vc = malloc(4 * (size_t)MAXN * MAXHD);
    float q[MAXHD], out[MAXHD], scratch[BB_ATTN_CHUNK + MAXHD];
    double ref[MAXHD];
    for (int hi = 0; hi < 4; hi++)
        for (int kt = 0; kt < BB_KV_TYPES; kt++)
            for (int peak = 0; peak < 2; peak++) {
                int hd = hds[hi], vt = (kt + peak) % BB_KV_TYPES; /* mixed key and value types too */
                fill(r, kf, (size_t)MAXN * hd, 1.0f);
                fill(r, vf, (size_t)MAXN * hd, 1.0f);
                /* a few positions stand out, far into the sequence: the running max must move */
                for (int s = 300; s < MAXN; s += 997)
                    for (int e = 0; e < hd; e++) kf[(size_t)s * hd + e] *= 3.0f;
                bb_attn_kv kv = {kc, vc, (bb_kv_type)kt, (bb_kv_type)vt, bb_kv_row_bytes((bb_kv_type)kt, hd),
                                 bb_kv_row_bytes((bb_kv_type)vt, hd), hd, MAXN, NULL};
                for (int s = 0; s < MAXN; s++) {
                    bb_kv_store_row(kv.kt, (char *)kc + (size_t)s * kv.k_row, kf + (size_t)s * hd, hd, v->to_f16);
                    bb_kv_store_row(kv.vt, (char *)vc + (size_t)s * kv.v_row, vf + (size_t)s * hd, hd, v->to_f16);
                }
                fill(r, q, (size_t)hd, peak ? 4.0f : 1.0f);
                float scale = 1.0f / sqrtf((float)hd);
                for (int li = 0; li < (int)(sizeof lens / sizeof lens[0]); li++) {
                    int n = lens[li];
                    bb_attend(v, q, &kv, n, scale, out, scratch);
                    reference(q, &kv, n, scale, ref);
                    /* a next head to prefetch into (the first rows of the same cache) changes no bit */
                    float out2[MAXHD];
                    bb_attn_kv kvn = kv, head2 = kv;
                    head2.n = n < 100 ? n : 100;
                    kvn.n = n;
                    kvn.next = &head2;
                    bb_attend(v, q, &kvn, n, scale, out2, scratch);
                    CHECK(memcmp(out, out2, sizeof(float) * (size_t)hd) == 0,
                          "%s hd %d n %d: a next head changed the result", v->name, hd, n);
                    double err = 0;
                    for (int e = 0; e < hd; e++) err = fmax(err, fabs(out[e] - ref[e]));
                    /* values are ~N(0, 1): float sums of up to 5000 weighted terms, exp to 1 ulp */
                    CHECK(err <= 2e-5, "%s k %s v %s hd %d n %d%s: max |out - reference| = %.3g", v->name,
                          bb_kv_type_name(kv.kt), bb_kv_type_name(kv.vt), hd, n, peak ? " (peaked)" : "", err);
                }
            }
    free(kf);
    free(vf);
    free(kc);
    free(vc);
}

/* ggml's q8_0 rule on hand-made blocks: d = absmax / 127 as f16, q = round(x / d). */
static void q8_0_format(void)
{
    float x[64], back[64];
    for (int i = 0; i < 32; i++) x[i] = (float)(i - 16) * 0.25f; /* absmax 4 at i = 0 */
    for (int i = 32; i < 64; i++) x[i] = 0.0f;                  /* a block of zeros: d = 0, q = 0 */
    uint8_t row[68];
    bb_kv_store_row(BB_KV_Q8_0, row, x, 64, bb_vec_scalar.to_f16);
    uint16_t d;
    memcpy(&d, row, 2);
    CHECK(d == bb_fp32_to_fp16(4.0f / 127.0f), "q8_0 scale %#x, want fp16(4/127) %#x", d, bb_fp32_to_fp16(4.0f / 127.0f));
    CHECK((int8_t)row[2] == -127 && (int8_t)row[2 + 16] == 0 && (int8_t)row[2 + 31] == 119,
          "q8_0 quants %d %d %d, want -127 0 119", (int8_t)row[2], (int8_t)row[18], (int8_t)row[33]);
    memcpy(&d, row + 34, 2);
    CHECK(d == 0 && row[36] == 0 && row[67] == 0, "a zero block stores d = 0 and q = 0");
    bb_kv_load_row(BB_KV_Q8_0, back, row, 64);
    float err = 0;
    for (int i = 0; i < 64; i++) err = fmaxf(err, fabsf(back[i] - x[i]));
    CHECK(err <= 0.6f * 4.0f / 127.0f, "q8_0 round trip off by %g (half a step is %g)", err, 2.0f / 127.0f);
    char e[200];
    CHECK(bb_kv_type_check(BB_KV_Q8_0, 48, e, sizeof e) == -1 && strstr(e, "48"), "q8_0 at head dim 48 refused: %s", e);
    bb_kv_type t;
    CHECK(bb_kv_type_parse("q4_0", &t, e, sizeof e) == -1 && strstr(e, "q4_0") && strstr(e, "q8_0"), "%s", e);
}

/* A small model over 3 chunks of context: decode on 1 and 2 threads gives the same bits, and
 * a prefill of everything gives the last token's logits of token-by-token decode. */
static void engine_over_chunks(void)
{
    enum { SEQ = 700 };
    bb_tf_dims d = {.dim = 128, .hidden_dim = 256, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2, .vocab_size = 64,
                    .seq_len = SEQ, .style = BB_STYLE_LLAMA, .ffn_act = BB_FFN_SILU, .tied_embedding = true};
    int *tok = malloc(sizeof(int) * SEQ);
    for (int i = 0; i < SEQ; i++) tok[i] = (i * 37 + 5) % d.vocab_size;
    float *last[2] = {0};
    char err[1024];
    for (int kv = 0; kv < BB_KV_TYPES; kv += 3) { /* f32 and q8_0 */
        bb_tf_options opt = {.kernel = "f32", .out_kernel = "f32", .kv_k = (bb_kv_type)kv, .kv_v = (bb_kv_type)kv,
                             .max_batch = 64};
        bb_synthetic syn = {.dims = d, .seed = 9};
        bb_weight_source src = bb_synthetic_source(&syn);
        bb_transformer *t = bb_tf_create(&d, &src, &opt, err, sizeof err);
        CHECK(t != NULL, "%s", err);
        if (!t) continue;
        for (int th = 1; th <= 2; th++) {
            bb_pool *pool = bb_pool_create(th, err, sizeof err);
            const float *l = NULL;
            for (int p = 0; p < SEQ; p++) l = bb_tf_forward(t, pool, &tok[p], 1, p, NULL);
            last[th - 1] = malloc(sizeof(float) * d.vocab_size);
            memcpy(last[th - 1], l, sizeof(float) * d.vocab_size);
            if (th > 1)
                CHECK(!memcmp(last[0], last[th - 1], sizeof(float) * d.vocab_size),
                      "kv %s: decode at position %d on %d threads differs from 1 thread", bb_kv_type_name(opt.kv_k),
                      SEQ - 1, th);
            if (th == 2) {
                l = bb_tf_forward(t, pool, tok, SEQ, 0, NULL);
                float diff = 0;
                for (int v = 0; v < d.vocab_size; v++) diff = fmaxf(diff, fabsf(l[v] - last[0][v]));
                CHECK(diff <= 1e-4f, "kv %s: prefill of %d tokens and token-by-token decode differ by %g",
                      bb_kv_type_name(opt.kv_k), SEQ, diff);
            }
            bb_pool_destroy(pool);
        }
        for (int i = 0; i < 2; i++) free(last[i]);
        CHECK(bb_tf_kv_bytes_per_token(t, 99) == 2u * 2 * 100 * bb_kv_row_bytes(opt.kv_k, 32) * 2,
              "KV bytes a decode step at position 99 reads: %zu", bb_tf_kv_bytes_per_token(t, 99));
        bb_tf_free(t);
    }
    free(tok);
}

/* The rows a reader of head a (n_a rows) then head b (n_b rows, the next head of the same thread)
 * asks for ahead, step by step as bb_attn_chunk reads (bb_attn_ahead, clipped at each head's
 * end as the prefetch clips), counted per row: asked[0][s] for a's row s, asked[1][s] for b's.
 * Every row of a's chunk c > 0 must be asked for exactly once, while chunk c - 1 is read, and
 * every row of b's first chunk exactly once while a is read; nothing else of either head. */
static void prefetch_window(int n_a, int n_b)
{
    bb_attn_kv b = {.n = n_b}, a = {.n = n_a, .next = &b};
    int *asked[2] = {calloc((size_t)n_a, sizeof(int)), calloc((size_t)n_b, sizeof(int))};
    int outside = 0, not_next = 0;
    for (int s0 = 0; s0 < n_a; s0 += BB_ATTN_CHUNK) {
        int s1 = n_a - s0 < BB_ATTN_CHUNK ? n_a : s0 + BB_ATTN_CHUNK;
        for (int s = s0; s < s1; s += BB_ATTN_PREFETCH_ROWS) {
            int e = s + BB_ATTN_PREFETCH_ROWS < s1 ? s + BB_ATTN_PREFETCH_ROWS : s1;
            for (int p = 0; p < BB_ATTN_PREFETCH_PARTS; p++) {
                int t0, t1;
                if (!bb_attn_ahead(&a, s0, s1, s - s0, e - s0, p, &t0, &t1)) continue;
                for (int t = t0; t < t1; t++) {
                    not_next += t < n_a && (t < s1 || t >= s1 + BB_ATTN_CHUNK); /* a's row, not in the next chunk */
                    if (t < n_a) asked[0][t]++;
                    else if (t - n_a < n_b) asked[1][t - n_a]++;
                    else outside++;
                }
            }
        }
    }
    int bad_a = 0, bad_b = 0, first_b = n_b < BB_ATTN_CHUNK ? n_b : BB_ATTN_CHUNK;
    for (int s = 0; s < n_a; s++) bad_a += asked[0][s] != (s >= BB_ATTN_CHUNK);
    for (int s = 0; s < n_b; s++) bad_b += asked[1][s] != (s < first_b);
    CHECK(bad_a == 0, "heads of %d and %d rows: %d rows of the first head not asked for exactly once, by the chunk "
          "before theirs", n_a, n_b, bad_a);
    CHECK(not_next == 0, "heads of %d and %d rows: %d rows of the first head asked for by a chunk other than the one "
          "before theirs", n_a, n_b, not_next);
    CHECK(bad_b == 0, "heads of %d and %d rows: %d rows of the next head not asked for exactly once if in its first "
          "chunk, else never", n_a, n_b, bad_b);
    /* heads of one depth (decode): nothing past the next head either; a longer head's full window
     * may run past a shorter next head, which the caller clips */
    CHECK(n_a != n_b || outside == 0, "heads of %d rows: %d rows asked for past the next head", n_a, outside);
    /* a head of one chunk with no next head asks for nothing */
    a.next = NULL;
    int t0, t1, any = 0;
    if (n_a <= BB_ATTN_CHUNK)
        for (int p = 0; p < BB_ATTN_PREFETCH_PARTS; p++) any += bb_attn_ahead(&a, 0, n_a, 0, n_a, p, &t0, &t1);
    CHECK(any == 0, "a head of %d rows with no next head asks for %d windows", n_a, any);
    free(asked[0]);
    free(asked[1]);
}

int main(void)
{
    bb_rng r;
    bb_rng_seed(&r, 42);
    const bb_vec_ops *tables[3];
    int nt = bb_vec_available(tables, 3);
    for (int i = 0; i < nt; i++) against_reference(tables[i], &r);
    q8_0_format();
    engine_over_chunks();
    static const int depths[] = {1, 2, 7, 16, 20, 100, 255, 256, 257, 300, 511, 512, 513, 4097, 4100};
    for (int i = 0; i < (int)(sizeof depths / sizeof depths[0]); i++) prefetch_window(depths[i], depths[i]);
    prefetch_window(20, 300);
    prefetch_window(300, 20);
    return check_summary("attention");
}
