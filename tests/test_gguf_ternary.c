/* The llama.cpp block formats tq1_0, tq2_0 and q2_k (kernels/mad): bytes built by hand from the
 * format descriptions (ggml's block_tq1_0 / block_tq2_0 / block_q2_K), decoding of such blocks,
 * unpack(pack(w)) = t * fp16(scale) exactly for the ternary ones, the q2_K quantizer on a grid it
 * can represent, a hand-computed q2_K dot product, and every SIMD variant against the scalar
 * reference on many-block rows (several chunks) and on arbitrary bytes, not only on what pack
 * writes (GGUF files come from other quantizers). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/common/act_quant.h"
#include "kernels/common/fp16.h"
#include "kernels/kernel.h"
#include "kernels/mad/ggml_k.h"
#include "support/rng.h"

static const bb_kernel *kern(const char *name)
{
    const bb_kernel *k = bb_kernel_by_name(name);
    CHECK(k != NULL, "kernel %s not registered", name);
    return k;
}

static int pack_ternary(const bb_kernel *k, int m, int kd, const int8_t *t, float scale, void *dst)
{
    float *w = malloc(sizeof(float) * (size_t)m * kd);
    for (size_t i = 0; i < (size_t)m * kd; i++) w[i] = t[i] * scale;
    bb_weights bw = {.m = m, .k = kd, .f32 = w, .ternary = t, .ternary_scale = scale};
    char err[256];
    int rc = bb_kernel_pack(k, &bw, dst, err, sizeof err);
    free(w);
    return rc;
}

/* ---- tq2_0 ---- */
static void test_tq2_0_bytes(void)
{
    const bb_kernel *k = kern("tq2_0");
    if (!k) return;
    int8_t t[256];
    bb_block_tq2_0 blk;
    CHECK(k->packed_size(1, 256) == 66, "tq2_0 block is %zu bytes, want 66", k->packed_size(1, 256));

    /* all zeros: every code is 1, so every byte is 01 01 01 01 = 0x55; d = fp16(0.1) = 0x2e66 */
    memset(t, 0, sizeof t);
    pack_ternary(k, 1, 256, t, 0.1f, &blk);
    int ok = 1;
    for (int i = 0; i < 64; i++) ok &= blk.qs[i] == 0x55;
    CHECK(ok, "tq2_0: all-zero trits should give 0x55 bytes");
    CHECK(blk.d == 0x2e66, "tq2_0: d bits %04x, want 2e66 (fp16 of 0.1)", blk.d);
    const uint8_t *raw = (const uint8_t *)&blk;
    CHECK(raw[64] == 0x66 && raw[65] == 0x2e, "tq2_0: d must follow qs[64], little endian");

    /* single trits: value 0 (+1) is bits 0-1 of qs[0]; value 32 (-1) bits 2-3 of qs[0];
     * value 127 (+1) bits 6-7 of qs[31]; value 128 (-1) bits 0-1 of qs[32]; value 255 (+1) bits
     * 6-7 of qs[63] */
    t[0] = 1, t[32] = -1, t[127] = 1, t[128] = -1, t[255] = 1;
    pack_ternary(k, 1, 256, t, 1.0f, &blk);
    CHECK(blk.qs[0] == 0x52, "tq2_0 qs[0] = %02x, want 52", blk.qs[0]);   /* 01 01 00 10 */
    CHECK(blk.qs[31] == 0x95, "tq2_0 qs[31] = %02x, want 95", blk.qs[31]); /* 10 01 01 01 */
    CHECK(blk.qs[32] == 0x54, "tq2_0 qs[32] = %02x, want 54", blk.qs[32]); /* 01 01 01 00 */
    CHECK(blk.qs[63] == 0x95, "tq2_0 qs[63] = %02x, want 95", blk.qs[63]);
    CHECK(blk.qs[1] == 0x55 && blk.qs[33] == 0x55, "tq2_0: untouched bytes changed");
    CHECK(blk.d == 0x3c00, "tq2_0: d bits %04x, want 3c00", blk.d);

    /* every trit: the byte formula of the format description */
    bb_rng r;
    bb_rng_seed(&r, 5);
    for (int i = 0; i < 256; i++) t[i] = (int8_t)(bb_rng_next(&r) % 3) - 1;
    pack_ternary(k, 1, 256, t, 1.0f, &blk);
    ok = 1;
    for (int j = 0; j < 2; j++)
        for (int m = 0; m < 32; m++) {
            int want = 0;
            for (int l = 0; l < 4; l++) want |= (t[128 * j + 32 * l + m] + 1) << (2 * l);
            ok &= blk.qs[32 * j + m] == want;
        }
    CHECK(ok, "tq2_0: qs[32j+m] bits 2l..2l+1 must hold value 128j+32l+m");

    /* decoding a hand-made block, with a stray code 3 (ggml reads it as +2) */
    memset(&blk, 0x55, 64);
    blk.qs[5] = 0x5b; /* value 5 code 3, value 37 code 2 */
    blk.d = 0x4000;   /* 2.0 */
    float w[256];
    k->unpack(&blk, 1, 256, w);
    CHECK(w[5] == 4.0f && w[37] == 2.0f && w[0] == 0.0f, "tq2_0 unpack: %g %g %g, want 4 2 0", w[5], w[37], w[0]);
}

/* ---- tq1_0 ---- */
static uint8_t tq1_byte(const int c[5]) /* ggml: base 3, first trit most significant, then ceil(q*256/243) */
{
    int q = 0;
    for (int n = 0; n < 5; n++) q = q * 3 + c[n];
    return (uint8_t)((q * 256 + 242) / 243);
}

static void test_tq1_0_bytes(void)
{
    const bb_kernel *k = kern("tq1_0");
    if (!k) return;
    int8_t t[256];
    bb_block_tq1_0 blk;
    CHECK(k->packed_size(1, 256) == 54, "tq1_0 block is %zu bytes, want 54", k->packed_size(1, 256));

    /* all zeros: codes 1 1 1 1 1 -> 121 -> ceil(121*256/243) = 128; qh: 1 1 1 1 (0) -> 120 -> 127 */
    memset(t, 0, sizeof t);
    pack_ternary(k, 1, 256, t, 0.1f, &blk);
    int ok = 1;
    for (int i = 0; i < 48; i++) ok &= blk.qs[i] == 128;
    for (int i = 0; i < 4; i++) ok &= blk.qh[i] == 127;
    CHECK(ok, "tq1_0: all-zero trits should give qs 0x80, qh 0x7f");
    CHECK(blk.d == 0x2e66, "tq1_0: d bits %04x, want 2e66", blk.d);
    const uint8_t *raw = (const uint8_t *)&blk;
    CHECK(raw[52] == 0x66 && raw[53] == 0x2e, "tq1_0: d must follow qs[48], qh[4]");

    /* all +1: 242 -> 255; qh 240 -> 253.  all -1: 0. */
    for (int i = 0; i < 256; i++) t[i] = 1;
    pack_ternary(k, 1, 256, t, 1.0f, &blk);
    CHECK(blk.qs[0] == 255 && blk.qs[47] == 255 && blk.qh[3] == 253, "tq1_0 all +1: %d %d %d", blk.qs[0], blk.qs[47],
          blk.qh[3]);
    for (int i = 0; i < 256; i++) t[i] = -1;
    pack_ternary(k, 1, 256, t, 1.0f, &blk);
    CHECK(blk.qs[0] == 0 && blk.qh[0] == 0, "tq1_0 all -1: %d %d", blk.qs[0], blk.qh[0]);

    /* qs[0] holds values 0, 32, 64, 96, 128: (+1, 0, -1, 0, +1) -> codes 2 1 0 1 2 -> 194 -> 205;
     * qs[32] holds 160, 176, 192, 208, 224; qh[1] holds 241, 245, 249, 253 */
    memset(t, 0, sizeof t);
    t[0] = 1, t[64] = -1, t[128] = 1;
    t[160] = -1, t[176] = -1, t[224] = 1;
    t[241] = 1, t[253] = -1;
    pack_ternary(k, 1, 256, t, 1.0f, &blk);
    CHECK(blk.qs[0] == 205, "tq1_0 qs[0] = %d, want 205", blk.qs[0]);
    const int c32[5] = {0, 0, 1, 1, 2}, cqh1[5] = {2, 1, 1, 0, 0};
    CHECK(blk.qs[32] == tq1_byte(c32), "tq1_0 qs[32] = %d, want %d", blk.qs[32], tq1_byte(c32));
    CHECK(blk.qh[1] == tq1_byte(cqh1), "tq1_0 qh[1] = %d, want %d", blk.qh[1], tq1_byte(cqh1));
    CHECK(blk.qs[1] == 128 && blk.qs[33] == 128 && blk.qh[0] == 127, "tq1_0: untouched bytes changed");

    /* every trit, from the description */
    bb_rng r;
    bb_rng_seed(&r, 6);
    for (int i = 0; i < 256; i++) t[i] = (int8_t)(bb_rng_next(&r) % 3) - 1;
    pack_ternary(k, 1, 256, t, 1.0f, &blk);
    ok = 1;
    for (int m = 0; m < 32; m++) {
        int c[5];
        for (int n = 0; n < 5; n++) c[n] = t[m + 32 * n] + 1;
        ok &= blk.qs[m] == tq1_byte(c);
    }
    for (int m = 0; m < 16; m++) {
        int c[5];
        for (int n = 0; n < 5; n++) c[n] = t[160 + m + 16 * n] + 1;
        ok &= blk.qs[32 + m] == tq1_byte(c);
    }
    for (int j = 0; j < 4; j++) {
        int c[5] = {0};
        for (int n = 0; n < 4; n++) c[n] = t[240 + j + 4 * n] + 1;
        ok &= blk.qh[j] == tq1_byte(c);
    }
    CHECK(ok, "tq1_0: bytes differ from the format description");

    /* decoding is (uint8)(b * 3^n) * 3 >> 8 on any byte (GGUF data), e.g. b = 205 above */
    memset(&blk, 0, sizeof blk);
    blk.qs[0] = 205;
    blk.d = 0x3c00;
    float w[256];
    k->unpack(&blk, 1, 256, w);
    CHECK(w[0] == 1 && w[32] == 0 && w[64] == -1 && w[96] == 0 && w[128] == 1, "tq1_0 unpack of 205: %g %g %g %g %g",
          w[0], w[32], w[64], w[96], w[128]);
}

/* unpack(pack(t, s)) = t * fp16(s), bit for bit */
static void test_roundtrip(const char *name)
{
    const bb_kernel *k = kern(name);
    if (!k) return;
    const int m = 3, kd = 768;
    int8_t *t = malloc((size_t)m * kd);
    float *w = malloc(sizeof(float) * (size_t)m * kd);
    void *p = malloc(k->packed_size(m, kd));
    bb_rng r;
    bb_rng_seed(&r, 11);
    for (int i = 0; i < m * kd; i++) t[i] = (int8_t)(bb_rng_next(&r) % 3) - 1;
    const float scales[] = {0.1f, 0.731f, 1.0f, 3.3e-5f};
    for (int s = 0; s < 4; s++) {
        CHECK(pack_ternary(k, m, kd, t, scales[s], p) == 0, "%s: pack failed", name);
        k->unpack(p, m, kd, w);
        float d = bb_fp16_to_fp32(bb_fp32_to_fp16(scales[s]));
        int bad = 0;
        for (int i = 0; i < m * kd; i++) bad += memcmp(&w[i], &(float){t[i] * d}, 4) != 0;
        CHECK(!bad, "%s: unpack(pack) differs from t * fp16(%g) = t * %.9g at %d places", name, scales[s], d, bad);
    }
    free(t); free(w); free(p);
}

/* ---- q2_k ---- */
static void test_q2_k(void)
{
    const bb_kernel *k = kern("q2_k");
    if (!k) return;
    CHECK(k->packed_size(1, 256) == 84, "q2_k block is %zu bytes, want 84", k->packed_size(1, 256));
    /* hand-made block: every scale byte 0x21 (sc 1, m 2), d = 1, dmin = 0.5: w = q - 1 */
    bb_block_q2_K blk;
    memset(blk.scales, 0x21, 16);
    for (int i = 0; i < 64; i++) blk.qs[i] = (uint8_t)(i * 37 + 11);
    blk.d = 0x3c00;
    blk.dmin = 0x3800;
    blk.scales[3] = 0x53; /* values 48..63: sc 3, m 5 */
    const uint8_t *raw = (const uint8_t *)&blk;
    CHECK(raw[0] == 0x21 && raw[16] == 11 && raw[80] == 0x00 && raw[81] == 0x3c && raw[83] == 0x38,
          "q2_k: field order scales[16], qs[64], d, dmin");
    float w[256];
    k->unpack(&blk, 1, 256, w);
    int ok = 1;
    for (int i = 0; i < 256; i++) {
        int q = (blk.qs[32 * (i / 128) + i % 32] >> (2 * ((i % 128) / 32))) & 3;
        float want = (i / 16 == 3) ? 3.0f * q - 2.5f : q - 1.0f;
        ok &= w[i] == want;
    }
    CHECK(ok, "q2_k unpack: value 128h+32l+i is bits 2l of qs[32h+i], times d*sc minus dmin*m");
    /* value 0: qs[0] = 11 = 00 00 10 11 -> q 3 -> 2; value 32: q 2 -> 1; value 64: q 0 -> -1 */
    CHECK(w[0] == 2 && w[32] == 1 && w[64] == -1, "q2_k unpack: %g %g %g, want 2 1 -1", w[0], w[32], w[64]);

    /* a dot product by hand: x = 1 everywhere quantizes to q8_K q = -128, d = -1/128, so
     * y = sum_i w_i exactly */
    float x[256];
    for (int i = 0; i < 256; i++) x[i] = 1.0f;
    bb_block_q8_K a;
    bb_quant_q8_K(x, 256, &a);
    double want = 0;
    for (int i = 0; i < 256; i++) want += w[i];
    for (int v = 0; v < bb_variant_count(k); v++) {
        if (!bb_variant_usable(&k->variants[v])) continue;
        float y = NAN;
        k->variants[v].matmul(&blk, &a, &y, 1, 256, 1, 0, 1);
        CHECK(y == (float)want, "q2_k@%s: y = %.9g, want %.9g", k->variants[v].isa, y, want);
    }

    /* the quantizer on values it can represent (q * 1 - 1.5 per sub-block, all sub-blocks
     * alike, so 4-bit scales 15 and mins 15 against d = 1/15, dmin = 1.5/15) */
    float src[256];
    bb_rng r;
    bb_rng_seed(&r, 3);
    for (int i = 0; i < 256; i++) src[i] = (float)(i % 4) - 1.5f;
    for (int i = 0; i < 256; i++) { /* shuffle values within each sub-block */
        int j = i / 16 * 16 + (int)(bb_rng_next(&r) % 16);
        float tmp = src[i]; src[i] = src[j]; src[j] = tmp;
    }
    bb_weights bw = {.m = 1, .k = 256, .f32 = src};
    char err[128];
    CHECK(bb_kernel_pack(k, &bw, &blk, err, sizeof err) == 0, "q2_k pack: %s", err);
    k->unpack(&blk, 1, 256, w);
    double maxerr = 0;
    for (int i = 0; i < 256; i++) maxerr = fmax(maxerr, fabs((double)w[i] - src[i]));
    CHECK(maxerr < 2e-3, "q2_k: representable grid comes back with error %g", maxerr);
    CHECK((blk.scales[0] & 0xf) == 15 && (blk.scales[0] >> 4) == 15, "q2_k: scales[0] = %02x, want ff", blk.scales[0]);

    /* Gaussian weights: the quantizer is no worse than 2 bits should be (rms error vs rms) */
    float *g = malloc(sizeof(float) * 4096), *gd = malloc(sizeof(float) * 4096);
    void *p = malloc(k->packed_size(1, 4096));
    bb_fill_gauss(&r, g, 4096, 1.0f);
    bw.k = 4096;
    bw.f32 = g;
    bb_kernel_pack(k, &bw, p, err, sizeof err);
    k->unpack(p, 1, 4096, gd);
    double e2 = 0, s2 = 0;
    for (int i = 0; i < 4096; i++) e2 += (gd[i] - g[i]) * (double)(gd[i] - g[i]), s2 += (double)g[i] * g[i];
    CHECK(sqrt(e2 / s2) < 0.35, "q2_k: relative rms error %.3f on Gaussian weights", sqrt(e2 / s2));
    free(g); free(gd); free(p);
}

/* Every variant against the scalar reference on rows of many blocks (several chunks of the SIMD
 * variants, remainders of 4-block groups), N = 1..5, on packed weights and on arbitrary bytes.
 * Exact variants must give the reference's bits; tq2_0@avx512 accumulates in float lanes. */
static void test_variants(const char *name, int random_bytes)
{
    const bb_kernel *k = kern(name);
    if (!k) return;
    const int m = 7, kd = 256 * 37, n = 5;
    size_t psize = k->packed_size(m, kd), bsize = psize / ((size_t)m * kd / 256);
    uint8_t *p = malloc(psize);
    float *w = malloc(sizeof(float) * (size_t)m * kd), *x = malloc(sizeof(float) * (size_t)n * kd);
    float *wd = malloc(sizeof(float) * (size_t)m * kd);
    float *yref = malloc(sizeof(float) * (size_t)n * m), *y = malloc(sizeof(float) * (size_t)n * m);
    void *act = malloc(k->act_size(n, kd));
    bb_rng r;
    bb_rng_seed(&r, 21 + (uint64_t)random_bytes);
    if (random_bytes) {
        for (size_t i = 0; i < psize; i++) p[i] = (uint8_t)bb_rng_next(&r);
        /* keep the fp16 scales finite and moderate: 0x3000..0x3bff (0.125 .. <1) */
        size_t doff = bsize == 84 ? 80 : bsize - 2;
        for (size_t b = 0; b < psize / bsize; b++) {
            for (size_t o = doff; o < bsize; o += 2) {
                uint16_t h = (uint16_t)(0x3000 + bb_rng_next(&r) % 0xc00);
                memcpy(p + b * bsize + o, &h, 2);
            }
        }
    } else {
        if (k->weights == BB_WEIGHTS_TERNARY) bb_fill_ternary(&r, w, (size_t)m * kd, 0.37f);
        else bb_fill_gauss(&r, w, (size_t)m * kd, 1.0f);
        bb_weights bw = {.m = m, .k = kd, .f32 = w};
        char err[128];
        CHECK(bb_kernel_pack(k, &bw, p, err, sizeof err) == 0, "%s pack: %s", name, err);
    }
    k->unpack(p, m, kd, wd);
    bb_fill_gauss(&r, x, (size_t)n * kd, 1.0f);
    for (int nn = 1; nn <= n; nn++) {
        k->prepare(x, nn, kd, act);
        k->variants[0].matmul(p, act, yref, m, kd, nn, 0, m);
        for (int v = 1; v < bb_variant_count(k); v++) {
            const bb_variant *var = &k->variants[v];
            if (!bb_variant_usable(var)) continue;
            /* tq2_0@avx512 rounds in its own order, and so does @amx below 16 rows (its fallback) */
            int exact = !(strcmp(name, "tq2_0") == 0 &&
                          (strcmp(var->isa, "avx512") == 0 || (strcmp(var->isa, "amx") == 0 && nn < 16)));
            (var->prepare ? var->prepare : k->prepare)(x, nn, kd, act);
            var->matmul(p, act, y, m, kd, nn, 0, m);
            int bad = 0;
            for (int c = 0; c < nn; c++)
                for (int row = 0; row < m; row++) {
                    size_t i = (size_t)c * m + row;
                    if (exact) {
                        bad += memcmp(&y[i], &yref[i], 4) != 0;
                    } else {
                        double sum = 0;
                        for (int j = 0; j < kd; j++) sum += fabs((double)wd[(size_t)row * kd + j] * x[(size_t)c * kd + j]);
                        bad += !(fabs((double)y[i] - yref[i]) <= 2.0 * (kd + 16) * 0x1p-23 * sum);
                    }
                }
            CHECK(!bad, "%s@%s K=%d N=%d %s: %d outputs differ from the reference%s", name, var->isa, kd, nn,
                  random_bytes ? "arbitrary bytes" : "packed", bad, exact ? " bits" : " beyond float rounding");
        }
    }
    free(p); free(w); free(x); free(wd); free(yref); free(y); free(act);
}

/* The SIMD prepares (AVX-512, NEON) write bb_quant_q8_K's bytes: ties between +a and -a (the
 * first wins), an all-zero block, halves that round to even, a block whose extreme is positive. */
static void test_q8_K_prepare(const char *name, uint64_t isa, void (*prep)(const float *, int, int, void *))
{
    if ((bb_cpu_features() & isa) != isa) return;
    const int kd = 256 * 9, n = 3;
    float *x = malloc(sizeof(float) * (size_t)n * kd);
    bb_rng r;
    bb_rng_seed(&r, 99);
    bb_fill_gauss(&r, x, (size_t)n * kd, 2.0f);
    memset(x + 256, 0, 256 * sizeof(float));                 /* block 1: zeros */
    x[512 + 7] = -5.0f, x[512 + 100] = 5.0f;                  /* block 2: tie, negative first */
    x[768 + 3] = 5.0f, x[768 + 200] = -5.0f;                  /* block 3: tie, positive first */
    for (int i = 0; i < 256; i++) x[1024 + i] = (float)(i - 128) / 2.0f; /* block 4: .5 steps */
    x[1280 + 17] = 1e-30f;                                    /* block 5: tiny extreme */
    for (int i = 0; i < 256; i++) if (i != 17) x[1280 + i] = 0;
    size_t sz = bb_q8_K_rows_size(n, kd);
    uint8_t *a = malloc(sz), *b = malloc(sz);
    memset(a, 0x11, sz);
    memset(b, 0x22, sz);
    bb_quant_q8_K_rows(x, n, kd, a);
    prep(x, n, kd, b);
    size_t diff = 0;
    for (size_t i = 0; i < sz; i++) diff += a[i] != b[i];
    CHECK(diff == 0, "q8_K prepare (%s) differs from bb_quant_q8_K_rows in %zu of %zu bytes", name, diff, sz);
    free(x); free(a); free(b);
}

int main(void)
{
#if defined(__x86_64__)
    test_q8_K_prepare("AVX-512", BB_ISA_AVX512, bb_quant_q8_K_rows_avx512);
#endif
#if defined(__aarch64__)
    test_q8_K_prepare("NEON", BB_ISA_NEON, bb_quant_q8_K_rows_neon);
#endif
    test_tq2_0_bytes();
    test_tq1_0_bytes();
    test_roundtrip("tq1_0");
    test_roundtrip("tq2_0");
    test_q2_k();
    const char *names[] = {"tq1_0", "tq2_0", "q2_k"};
    for (int i = 0; i < 3; i++) {
        test_variants(names[i], 0);
        test_variants(names[i], 1);
    }
    return check_summary("gguf_ternary");
}
