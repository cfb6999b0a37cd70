/* Properties of the codebook family (kernels/codebook) beyond the conformance suite:
 *   - the two-phase builder recovers known codebooks from groups drawn from them (noise-free:
 *     exactly; tiny noise: within one integer step), deterministically for a seed;
 *   - the committed default cb2 codebooks are what their documented generator produces;
 *   - cb2 packing is lossless for weights that lie exactly on a codebook at representable scales;
 *   - cb2's SIMD variants equal the reference with codebooks that use the extreme centroids -64
 *     and 63 and activations that reach -128 and 127 (the vpmaddubsw bound);
 *   - cb2's reconstruction error is below q2_k's on the same Gaussian matrices at similar bits per
 *     weight (Arm paper Table 4); without q2_k in the registry, below a plain 2-bit uniform
 *     quantizer of 2.5 bits per weight, with a note;
 *   - an IQ4_NL block hand-built from the format description packs to the expected bytes;
 *   - iq4_nl's Arm variants give the reference's bits (they keep its float order);
 *   - iq4_nl_x8 has a SIMD variant wherever q4_0x8 (the same records) has one, so the engine
 *     rearranges IQ4_NL wherever it rearranges Q4_0 (models/kernel_choice.h), and its variants
 *     give the reference's bits on the codebook's extremes (-127, 113) against activations of
 *     +-127: the vpmaddubsw bound an AVX2 loop must respect.
 * `test_codebook --emit-default` prints the default cb2 table as C (see cb2_default.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/codebook/cb2.h"
#include "kernels/codebook/cb_builder.h"
#include "kernels/codebook/iq4_nl.h"
#include "kernels/common/act_quant.h"
#include "kernels/common/fp16.h"
#include "kernels/kernel.h"
#include "support/rng.h"

static const int8_t known[4][4] = {
    {-63, -20, 20, 63}, /* symmetric, uniform-like */
    {-63, -40, 0, 30},  /* skewed negative */
    {-30, 0, 40, 63},   /* skewed positive */
    {-63, -5, 5, 63},   /* bimodal, heavy tails */
};

/* Groups of 16 drawn from the known codebooks: each group picks a codebook and a scale, every
 * element a random centroid, and one element the codebook's largest-magnitude centroid (so the
 * group's absmax scaling maps the codebook onto itself). */
static void draw_groups(float *w, size_t groups, double noise, uint64_t seed)
{
    bb_rng r;
    bb_rng_seed(&r, seed);
    for (size_t g = 0; g < groups; g++) {
        int kb = (int)(bb_rng_next(&r) % 4);
        double scale = 0.01 + bb_rng_uniform(&r);
        int ext = abs(known[kb][0]) >= abs(known[kb][3]) ? 0 : 3;
        int pos = (int)(bb_rng_next(&r) % 16);
        for (int i = 0; i < 16; i++) {
            int e = i == pos ? ext : (int)(bb_rng_next(&r) % 4);
            double v = known[kb][e] / 63.0 * scale;
            if (i != pos && noise > 0) v += noise * scale * bb_rng_gauss(&r);
            w[g * 16 + i] = (float)v;
        }
    }
}

/* Each known codebook matches a distinct built one, entries within tol. */
static int books_match(const bb_cb_set *s, int tol)
{
    int used[BB_CB_MAX_BOOKS] = {0};
    for (int kb = 0; kb < 4; kb++) {
        int found = -1;
        for (int b = 0; b < s->books && found < 0; b++) {
            if (used[b]) continue;
            int ok = 1;
            for (int e = 0; e < 4; e++) ok &= abs(s->q[b][e] - known[kb][e]) <= tol;
            if (ok) found = b;
        }
        if (found < 0) return 0;
        used[found] = 1;
    }
    return 1;
}

static void print_set(const char *what, const bb_cb_set *s)
{
    printf("%s:", what);
    for (int b = 0; b < s->books; b++) {
        printf(" {");
        for (int e = 0; e < s->entries; e++) printf("%s%d", e ? "," : "", s->q[b][e]);
        printf("} %.2f", s->share[b]);
    }
    printf("\n");
}

static void test_builder_recovers(void)
{
    const size_t groups = 8192;
    float *w = malloc(sizeof(float) * groups * 16);
    if (!w) { CHECK(0, "oom"); return; }
    bb_cb_params p;
    bb_cb_params_cb2(&p);
    p.books = 4;
    char err[256];
    bb_cb_set s, s2;

    draw_groups(w, groups, 0.0, 11);
    CHECK(bb_cb_build(w, groups * 16, &p, &s, err, sizeof err) == 0, "build: %s", err);
    print_set("noise-free", &s);
    CHECK(books_match(&s, 0), "builder did not recover the 4 known codebooks exactly from noise-free groups");
    for (int b = 0; b < 4; b++)
        CHECK(fabs(s.share[b] - 0.25) < 0.03, "cluster %d holds %.3f of the groups, expected about 1/4", b, s.share[b]);
    CHECK(bb_cb_build(w, groups * 16, &p, &s2, err, sizeof err) == 0 && memcmp(&s, &s2, sizeof s) == 0,
          "two builds with the same seed differ");

    draw_groups(w, groups, 0.002, 12);
    CHECK(bb_cb_build(w, groups * 16, &p, &s, err, sizeof err) == 0, "build: %s", err);
    print_set("noise 0.2%", &s);
    CHECK(books_match(&s, 1), "builder did not recover the 4 known codebooks within 1 from noisy groups");

    /* a sample of the groups in phase 1 still finds them */
    p.max_groups = 2000;
    draw_groups(w, groups, 0.0, 13);
    CHECK(bb_cb_build(w, groups * 16, &p, &s, err, sizeof err) == 0 && books_match(&s, 0),
          "builder with a 2000-group phase-1 sample did not recover the known codebooks");

    /* refusals */
    CHECK(bb_cb_build(w, 17, &p, &s, err, sizeof err) != 0 && strstr(err, "multiple"), "17 weights accepted: %s", err);
    p.books = 0;
    CHECK(bb_cb_build(w, groups * 16, &p, &s, err, sizeof err) != 0, "0 codebooks accepted");
    bb_cb_params_cb2(&p);
    memset(w, 0, sizeof(float) * 32);
    CHECK(bb_cb_build(w, 32, &p, &s, err, sizeof err) != 0 && strstr(err, "zero"), "all-zero weights accepted");
    free(w);
}

static void test_default_books(void)
{
    bb_cb_set s;
    char err[256];
    CHECK(bb_cb2_generate_default(&s, err, sizeof err) == 0, "default generator: %s", err);
    int8_t books[BB_CB2_BOOKS][BB_CB2_ENTRIES];
    CHECK(bb_cb2_books_from_set(&s, books, err, sizeof err) == 0, "%s", err);
    CHECK(memcmp(books, bb_cb2_default_books, sizeof books) == 0,
          "the committed default codebooks differ from what bb_cb2_generate_default produces "
          "(regenerate with test_codebook --emit-default)");
}

static int emit_default(void)
{
    bb_cb_set s;
    char err[256];
    if (bb_cb2_generate_default(&s, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("const int8_t bb_cb2_default_books[BB_CB2_BOOKS][BB_CB2_ENTRIES] = {\n");
    for (int b = 0; b < s.books; b++)
        printf("    {%d, %d, %d, %d}, /* %.1f%% of the groups */\n", s.q[b][0], s.q[b][1], s.q[b][2], s.q[b][3],
               100 * s.share[b]);
    printf("};\n");
    return 0;
}

/* Weights exactly on codebooks: w = d * ls_g * C[cb_g][e], every sub-group using all four
 * centroids, one sub-group per super-block at ls = 31 so the packer's d is d again. */
static void test_lossless_packing(const int8_t books[BB_CB2_BOOKS][BB_CB2_ENTRIES], const char *which)
{
    const int m = 6, k = 512;
    const bb_kernel *kern = bb_kernel_by_name("cb2");
    float *w = malloc(sizeof(float) * m * k), *back = malloc(sizeof(float) * m * k);
    void *packed = malloc(kern->packed_size(m, k));
    if (!w || !back || !packed) { CHECK(0, "oom"); return; }
    bb_rng r;
    bb_rng_seed(&r, 5);
    for (int blk = 0; blk < m * k / BB_CB2_QK; blk++) {
        float d = bb_fp16_to_fp32(bb_fp32_to_fp16((float)(0.001 + 0.01 * bb_rng_uniform(&r))));
        int top = (int)(bb_rng_next(&r) % 16);
        for (int g = 0; g < 16; g++) {
            int cb = (int)(bb_rng_next(&r) % BB_CB2_BOOKS);
            int ls = g == top ? 31 : 1 + (int)(bb_rng_next(&r) % 31);
            int perm[16];
            for (int i = 0; i < 16; i++) perm[i] = i < 4 ? i : (int)(bb_rng_next(&r) % 4);
            for (int i = 0; i < 16; i++) {
                int j = (int)(bb_rng_next(&r) % 16), t = perm[i];
                perm[i] = perm[j]; perm[j] = t;
            }
            if (blk == 0 && g == 3) ls = 0; /* an all-zero sub-group */
            for (int i = 0; i < 16; i++)
                w[blk * BB_CB2_QK + g * 16 + i] = d * (float)(ls * books[cb][perm[i]]);
        }
    }
    memset(w + 2 * BB_CB2_QK, 0, sizeof(float) * BB_CB2_QK); /* an all-zero super-block */
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    char err[256];
    CHECK(bb_cb2_pack_books(&bw, books, packed, err, sizeof err) == 0, "pack: %s", err);
    kern->unpack(packed, m, k, back);
    int bad = 0;
    for (int i = 0; i < m * k && bad < 3; i++)
        if (back[i] != w[i]) {
            bad++;
            CHECK(0, "cb2 (%s codebooks) not lossless at %d: %.9g packed back as %.9g", which, i, w[i], back[i]);
        }
    if (!bad) PASS();
    free(w); free(back); free(packed);
}

/* Extreme codebooks and activations: variants equal the reference bit for bit. */
static void test_extremes(void)
{
    static const int8_t books[BB_CB2_BOOKS][BB_CB2_ENTRIES] = {
        {-64, -20, 20, 63}, {-64, -63, 62, 63}, {-64, 0, 1, 63}, {63, 63, 63, 63},
        {-64, -64, -64, -64}, {-10, -5, 5, 10}, {-64, -30, 10, 63}, {-1, 0, 1, 2},
    };
    const int m = 9, k = 768, n = 3;
    const bb_kernel *kern = bb_kernel_by_name("cb2");
    float *w = malloc(sizeof(float) * m * k), *x = malloc(sizeof(float) * n * k);
    float *yref = malloc(sizeof(float) * n * m), *y = malloc(sizeof(float) * n * m);
    void *packed = malloc(kern->packed_size(m, k)), *act = malloc(kern->act_size(n, k));
    if (!w || !x || !yref || !y || !packed || !act) { CHECK(0, "oom"); return; }
    bb_rng r;
    bb_rng_seed(&r, 9);
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
    for (int i = 0; i < n * k; i++) { /* +-max everywhere: q8_K gives -128 and 127 */
        int v = (int)(bb_rng_next(&r) % 3);
        x[i] = v == 0 ? 1.0f : (v == 1 ? -1.0f : (float)bb_rng_gauss(&r));
    }
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    char err[256];
    CHECK(bb_cb2_pack_books(&bw, books, packed, err, sizeof err) == 0, "pack: %s", err);
    /* every sub-group at ls = 31 with the widest codebook, to reach the bound */
    for (int row = 0; row < m; row++)
        for (int b = 0; b < k / BB_CB2_QK; b++) {
            bb_cb2_block *blk = (bb_cb2_block *)packed + (size_t)row * (k / BB_CB2_QK) + b;
            if (row % 3 == 0)
                for (int g = 0; g < 16; g++) blk->meta[g] = (uint8_t)((g % 2 ? 1 : 0) | 31 << 3);
            if (row % 3 == 1) memset(blk->qs, row == 1 ? 0x00 : 0xff, sizeof blk->qs); /* all -64 or all 63 */
        }
    kern->prepare(x, n, k, act);
    kern->variants[0].matmul(packed, act, yref, m, k, n, 0, m);
    for (int v = 1; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        if (!bb_variant_usable(var)) continue;
        var->matmul(packed, act, y, m, k, n, 0, m);
        CHECK(memcmp(y, yref, sizeof(float) * n * m) == 0, "cb2@%s differs from the reference on extreme input",
              var->isa);
    }
    /* the bad codebook is refused */
    int8_t badb[BB_CB2_BOOKS][BB_CB2_ENTRIES];
    memcpy(badb, books, sizeof badb);
    badb[2][1] = 64;
    CHECK(bb_cb2_pack_books(&bw, badb, packed, err, sizeof err) != 0 && strstr(err, "outside"),
          "codebook entry 64 accepted");
    free(w); free(x); free(yref); free(y); free(packed); free(act);
}

/* Plain 2-bit uniform quantizer, 2.5 bits per weight: groups of 32 with an fp16 scale, levels
 * {-3, -1, 1, 3} * d / 2, d chosen by a grid search on the group's squared error. */
static void uniform2_roundtrip(const float *x, size_t count, float *out)
{
    for (size_t g = 0; g < count / 32; g++) {
        const float *xg = x + g * 32;
        float amax = 0, best_e = INFINITY, best_d = 0;
        for (int i = 0; i < 32; i++) amax = fmaxf(amax, fabsf(xg[i]));
        for (int t = 0; t < 40; t++) {
            float d = bb_fp16_to_fp32(bb_fp32_to_fp16(amax / 3 * (0.4f + 0.02f * t))), e = 0;
            for (int i = 0; i < 32 && d > 0; i++) {
                float l = fminf(fmaxf(floorf(xg[i] / d) + 0.5f, -1.5f), 1.5f);
                e += (xg[i] - l * d) * (xg[i] - l * d);
            }
            if (d > 0 && e < best_e) { best_e = e; best_d = d; }
        }
        for (int i = 0; i < 32; i++)
            out[g * 32 + i] = best_d > 0 ? fminf(fmaxf(floorf(xg[i] / best_d) + 0.5f, -1.5f), 1.5f) * best_d : 0;
    }
}

static double rel_rmse(const float *w, const float *back, size_t count)
{
    double e = 0, t = 0;
    for (size_t i = 0; i < count; i++) {
        e += ((double)w[i] - back[i]) * ((double)w[i] - back[i]);
        t += (double)w[i] * w[i];
    }
    return sqrt(e / t);
}

static void test_cb2_vs_q2_k(void)
{
    const bb_kernel *cb2 = bb_kernel_by_name("cb2"), *q2k = bb_kernel_by_name("q2_k");
    const int shapes[][2] = {{256, 4096}, {512, 2560}, {128, 6912}};
    if (!q2k)
        printf("note: q2_k is not registered; comparing cb2 with a plain 2-bit uniform quantizer "
               "(groups of 32, fp16 scale, 2.5 bits per weight) instead\n");
    else
        CHECK(cb2->bits_per_weight <= q2k->bits_per_weight * 1.05, "cb2 %.3f bpw is not similar to q2_k's %.3f",
              cb2->bits_per_weight, q2k->bits_per_weight);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int m = shapes[s][0], k = shapes[s][1];
        size_t count = (size_t)m * k;
        float *w = malloc(sizeof(float) * count), *back = malloc(sizeof(float) * count);
        void *p1 = malloc(cb2->packed_size(m, k)), *p2 = q2k ? malloc(q2k->packed_size(m, k)) : NULL;
        if (!w || !back || !p1 || (q2k && !p2)) { CHECK(0, "oom"); return; }
        bb_rng r;
        bb_rng_seed(&r, 100 + s);
        bb_fill_gauss(&r, w, count, 0.02f);
        bb_weights bw = {.m = m, .k = k, .f32 = w};
        char err[256];
        CHECK(bb_kernel_pack(cb2, &bw, p1, err, sizeof err) == 0, "cb2 pack: %s", err);
        cb2->unpack(p1, m, k, back);
        double e_cb2 = rel_rmse(w, back, count), e_other;
        const char *other;
        double bpw_other;
        if (q2k) {
            CHECK(bb_kernel_pack(q2k, &bw, p2, err, sizeof err) == 0, "q2_k pack: %s", err);
            q2k->unpack(p2, m, k, back);
            other = "q2_k";
            bpw_other = q2k->bits_per_weight;
        } else {
            uniform2_roundtrip(w, count, back);
            other = "uniform 2-bit";
            bpw_other = 2.5;
        }
        e_other = rel_rmse(w, back, count);
        printf("Gaussian %dx%d: relative RMS error cb2 %.4f (%.4f bpw), %s %.4f (%.4f bpw): cb2/%s = %.3f\n", m, k,
               e_cb2, cb2->bits_per_weight, other, e_other, bpw_other, other, e_cb2 / e_other);
        CHECK(e_cb2 < e_other, "cb2's error %.4f is not below %s's %.4f on Gaussian %dx%d", e_cb2, other, e_other,
              m, k);
        free(w); free(back); free(p1); free(p2);
    }
}

/* IQ4_NL bytes built by hand from the format: fp16 d (little endian), then 16 bytes whose low
 * nibble is the index of element j and high nibble that of element j + 16. */
static void test_iq4_nl_block(void)
{
    static const int8_t kv[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
    const bb_kernel *kern = bb_kernel_by_name("iq4_nl");
    CHECK(memcmp(kv, bb_iq4_nl_kvalues, 16) == 0, "iq4_nl table differs from the published values");
    const struct { float d; uint16_t bits; } cases[] = {{0.5f, 0x3800}, {-0.25f, 0xb400}};
    for (int tc = 0; tc < 2; tc++) {
        int idx[32];
        for (int j = 0; j < 32; j++) idx[j] = (j * 7 + 3 * tc) % 16; /* every index, index 0 included */
        float w[32], back[32];
        uint8_t expect[18], got[18];
        for (int j = 0; j < 32; j++) w[j] = cases[tc].d * kv[idx[j]];
        expect[0] = (uint8_t)(cases[tc].bits & 0xff);
        expect[1] = (uint8_t)(cases[tc].bits >> 8);
        for (int j = 0; j < 16; j++) expect[2 + j] = (uint8_t)(idx[j] | idx[j + 16] << 4);
        bb_weights bw = {.m = 1, .k = 32, .f32 = w};
        char err[256];
        CHECK(kern->packed_size(1, 32) == 18, "iq4_nl block is %zu bytes, expected 18", kern->packed_size(1, 32));
        CHECK(bb_kernel_pack(kern, &bw, got, err, sizeof err) == 0, "pack: %s", err);
        CHECK(memcmp(got, expect, 18) == 0, "iq4_nl case %d: packed bytes differ from the hand-built block", tc);
        kern->unpack(expect, 1, 32, back);
        CHECK(memcmp(back, w, sizeof w) == 0, "iq4_nl case %d: unpack of the hand-built block is wrong", tc);

        /* dot with a hand-built q8_0 block: activations q / 16 with |q| <= 127 and q[0] = 127 give
         * d = 1/16 and exactly these q; the reference is (d_w * d_a) * exact integer sum */
        bb_block_q8_0 a;
        a.d = 0x2c00; /* 1/16 */
        float x[32];
        int32_t isum = 0;
        for (int j = 0; j < 32; j++) {
            a.qs[j] = (int8_t)((j % 2 ? -1 : 1) * (127 - 5 * j));
            x[j] = a.qs[j] / 16.0f;
            isum += kv[idx[j]] * a.qs[j];
        }
        uint8_t *act = malloc(kern->act_size(1, 32));
        if (!act) { CHECK(0, "oom"); return; }
        kern->prepare(x, 1, 32, act);
        CHECK(memcmp(act, &a, sizeof a) == 0, "iq4_nl: prepared activations do not start with the q8_0 block");
        float y, want = (cases[tc].d * 0.0625f) * (float)isum;
        kern->variants[0].matmul(expect, act, &y, 1, 32, 1, 0, 1);
        CHECK(y == want, "iq4_nl case %d: reference dot %.9g, expected %.9g", tc, y, want);
        for (int v = 1; v < bb_variant_count(kern); v++) {
            if (!bb_variant_usable(&kern->variants[v])) continue;
            kern->variants[v].matmul(expect, act, &y, 1, 32, 1, 0, 1);
            CHECK(fabsf(y - want) <= 1e-6f * fabsf(want), "iq4_nl@%s case %d: dot %.9g, expected %.9g",
                  kern->variants[v].isa, tc, y, want);
        }
        free(act);
    }
}

/* iq4_nl's Arm variants (iq4_nl_arm.h) keep the reference's float order, unlike the x86 ones
 * (float_accumulation, which test_conformance allows): they must give its bits.  Uneven M, N = 5
 * (a group of 4 activation columns and 1), Gaussian and +-max activations (q = +-127). */
static void test_iq4_nl_arm_exact(void)
{
    const int m = 7, k = 320, n = 5;
    const bb_kernel *kern = bb_kernel_by_name("iq4_nl");
    float *w = malloc(sizeof(float) * m * k), *x = malloc(sizeof(float) * n * k);
    float *yref = malloc(sizeof(float) * n * m), *y = malloc(sizeof(float) * n * m);
    void *packed = malloc(kern->packed_size(m, k)), *act = malloc(kern->act_size(n, k));
    if (!w || !x || !yref || !y || !packed || !act) { CHECK(0, "oom"); return; }
    bb_rng r;
    bb_rng_seed(&r, 17);
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    for (int i = 2 * k; i < 3 * k; i++) x[i] = i % 3 ? 1.0f : -1.0f;
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    char err[256];
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "pack: %s", err);
    kern->prepare(x, n, k, act);
    kern->variants[0].matmul(packed, act, yref, m, k, n, 0, m);
    for (int v = 1; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        if (strcmp(var->isa, "neon") != 0 && strcmp(var->isa, "dotprod") != 0) continue;
        if (!bb_variant_usable(var)) continue;
        var->matmul(packed, act, y, m, k, n, 0, m);
        CHECK(memcmp(y, yref, sizeof(float) * n * m) == 0, "iq4_nl@%s differs from the reference's bits", var->isa);
    }
    free(w); free(x); free(yref); free(y); free(packed); free(act);
}

/* iq4_nl_x8 holds iq4_nl's numbers: the same weights packed by both give the same dequantized
 * weights and, through every variant of iq4_nl_x8 (bit-exact to its reference), the bits of
 * iq4_nl's reference; its records are iq4_nl's blocks interleaved (q4_0x8.h's offsets), and
 * repacking iq4_nl's bytes (a GGUF IQ4_NL tensor at load) gives those records. */
static void test_iq4_nl_x8_same_numbers(void)
{
    const int m = 24, k = 320, n = 5;
    const bb_kernel *plain = bb_kernel_by_name("iq4_nl"), *x8 = bb_kernel_by_name("iq4_nl_x8");
    CHECK(x8 != NULL, "iq4_nl_x8 not registered");
    if (!x8) return;
    float *w = malloc(sizeof(float) * m * k), *x = malloc(sizeof(float) * n * k);
    float *yref = malloc(sizeof(float) * n * m), *y = malloc(sizeof(float) * n * m);
    float *d0 = malloc(sizeof(float) * m * k), *d1 = malloc(sizeof(float) * m * k);
    uint8_t *p0 = malloc(plain->packed_size(m, k)), *p1 = malloc(x8->packed_size(m, k));
    void *act = malloc(plain->act_size(n, k));
    if (!w || !x || !yref || !y || !d0 || !d1 || !p0 || !p1 || !act) { CHECK(0, "oom"); return; }
    CHECK(plain->packed_size(m, k) == x8->packed_size(m, k), "iq4_nl_x8 is not iq4_nl's size");
    bb_rng r;
    bb_rng_seed(&r, 23);
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    char err[256];
    CHECK(bb_kernel_pack(plain, &bw, p0, err, sizeof err) == 0 && bb_kernel_pack(x8, &bw, p1, err, sizeof err) == 0,
          "pack: %s", err);
    const bb_iq4_nl_block *blk = (const bb_iq4_nl_block *)p0;
    int nb = k / BB_QK4_NL, bad = 0;
    for (int row = 0; row < m; row++)
        for (int b = 0; b < nb; b++) {
            const uint8_t *rec = p1 + ((size_t)(row / 8) * nb + b) * 144;
            bad += memcmp(rec + 2 * (row % 8), &blk[row * nb + b].d, 2) != 0;
            for (int j = 0; j < 16; j++) bad += rec[16 + 8 * (8 * (j / 8) + row % 8) + j % 8] != blk[row * nb + b].qs[j];
        }
    CHECK(bad == 0, "iq4_nl_x8 records are not iq4_nl's blocks interleaved (%d bytes differ)", bad);
    /* the engine's load path for a GGUF IQ4_NL tensor (kernel.h gguf_repack_type): its blocks,
     * rearranged, are the very bytes packing gives */
    CHECK(x8->gguf_repack_type && !strcmp(x8->gguf_repack_type, "IQ4_NL") && x8->repack_stored,
          "iq4_nl_x8 does not take IQ4_NL tensors' blocks");
    if (x8->repack_stored) {
        uint8_t *pr = malloc(x8->packed_size(m, k));
        memset(pr, 0xa5, x8->packed_size(m, k));
        x8->repack_stored(p0, m, k, pr);
        CHECK(memcmp(pr, p1, x8->packed_size(m, k)) == 0, "iq4_nl_x8: repacking iq4_nl's bytes differs from packing");
        free(pr);
    }
    plain->unpack(p0, m, k, d0);
    x8->unpack(p1, m, k, d1);
    CHECK(memcmp(d0, d1, sizeof(float) * m * k) == 0, "iq4_nl_x8 dequantizes to other weights than iq4_nl");
    plain->prepare(x, n, k, act);
    plain->variants[0].matmul(p0, act, yref, m, k, n, 0, m);
    for (int v = 0; v < bb_variant_count(x8); v++) {
        const bb_variant *var = &x8->variants[v];
        if (!bb_variant_usable(var)) continue;
        (var->prepare ? var->prepare : x8->prepare)(x, n, k, act);
        var->matmul(p1, act, y, m, k, n, 0, 8);
        var->matmul(p1, act, y, m, k, n, 8, m);
        CHECK(memcmp(y, yref, sizeof(float) * n * m) == 0, "iq4_nl_x8@%s differs from iq4_nl's reference bits", var->isa);
    }
    free(w); free(x); free(yref); free(y); free(d0); free(d1); free(p0); free(p1); free(act);
}

/* iq4_nl_x8 and q4_0x8 walk the same 8-row nibble records (common/nibble_records.h): for every
 * ISA q4_0x8 has a variant of, iq4_nl_x8 has one, or the engine would rearrange Q4_0 on a CPU
 * where IQ4_NL stays as stored (an AVX2-only x86 did, and ran iq4_nl_x8 at its scalar speed). */
static void test_iq4_nl_x8_isa_coverage(void)
{
    const bb_kernel *x8 = bb_kernel_by_name("iq4_nl_x8"), *q4 = bb_kernel_by_name("q4_0x8");
    if (!x8 || !q4) {
        CHECK(0, "iq4_nl_x8 / q4_0x8 not registered");
        return;
    }
    for (int v = 0; v < bb_variant_count(q4); v++) {
        int found = 0;
        for (int u = 0; u < bb_variant_count(x8); u++) found |= !strcmp(x8->variants[u].isa, q4->variants[v].isa);
        CHECK(found, "iq4_nl_x8 has no %s variant (q4_0x8, on the same records, has one)", q4->variants[v].isa);
    }
}

/* iq4_nl_x8's variants against its reference where the integer dots are largest: blocks of all
 * -127 (index 0), all 113 (index 15), the two alternating, and random indices, against
 * activations of all +127, all -127, alternating signs and Gaussian - 2 * 127 * 127 per int16
 * pair is the most an AVX2 vpmaddubsw may see (kvalue + 128 would saturate it).  M = 16 and N = 6
 * cover two row groups, a full 4-column tile and a partial one. */
static void test_iq4_nl_x8_extremes(void)
{
    const int m = 16, k = 256, n = 6, nb = k / BB_QK4_NL;
    const bb_kernel *x8 = bb_kernel_by_name("iq4_nl_x8");
    if (!x8 || !x8->repack_stored) {
        CHECK(0, "iq4_nl_x8 not registered with a repack");
        return;
    }
    bb_iq4_nl_block *blk = malloc(sizeof(bb_iq4_nl_block) * m * nb);
    uint8_t *packed = malloc(x8->packed_size(m, k));
    float *x = malloc(sizeof(float) * n * k), *yref = malloc(sizeof(float) * n * m), *y = malloc(sizeof(float) * n * m);
    void *act = malloc(x8->act_size(n, k));
    if (!blk || !packed || !x || !yref || !y || !act) { CHECK(0, "oom"); return; }
    bb_rng r;
    bb_rng_seed(&r, 31);
    static const uint8_t fill[3] = {0x00, 0xff, 0xf0}; /* -127 everywhere, 113 everywhere, -127 / 113 */
    for (int row = 0; row < m; row++)
        for (int b = 0; b < nb; b++) {
            bb_iq4_nl_block *p = &blk[row * nb + b];
            p->d = bb_fp32_to_fp16(0.001f * (float)(1 + (row * 7 + b) % 13));
            for (int j = 0; j < 16; j++)
                p->qs[j] = row % 4 < 3 ? fill[row % 4] : (uint8_t)(bb_rng_next(&r) & 0xff);
        }
    x8->repack_stored(blk, m, k, packed);
    for (int c = 0; c < n; c++)
        for (int i = 0; i < k; i++)
            x[c * k + i] = c == 0 ? 1.0f : c == 1 ? -1.0f : c == 2 ? (i % 2 ? -1.0f : 1.0f) : (float)bb_rng_gauss(&r);
    x8->prepare(x, n, k, act);
    x8->variants[0].matmul(packed, act, yref, m, k, n, 0, m);
    for (int v = 1; v < bb_variant_count(x8); v++) {
        const bb_variant *var = &x8->variants[v];
        if (!bb_variant_usable(var)) continue;
        (var->prepare ? var->prepare : x8->prepare)(x, n, k, act);
        var->matmul(packed, act, y, m, k, n, 0, m);
        CHECK(memcmp(y, yref, sizeof(float) * n * m) == 0, "iq4_nl_x8@%s differs from its reference on extreme input",
              var->isa);
    }
    free(blk); free(packed); free(x); free(yref); free(y); free(act);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--emit-default") == 0) return emit_default();
    CHECK(bb_kernel_by_name("cb2") && bb_kernel_by_name("iq4_nl"), "cb2 / iq4_nl not registered");
    if (!bb_kernel_by_name("cb2") || !bb_kernel_by_name("iq4_nl")) return check_summary("codebook");
    test_builder_recovers();
    test_default_books();
    test_lossless_packing(bb_cb2_default_books, "default");
    static const int8_t custom[BB_CB2_BOOKS][BB_CB2_ENTRIES] = {
        {-64, -20, 20, 63}, {-63, -40, 0, 30}, {-30, 0, 40, 63}, {-63, -5, 5, 63},
        {-50, -10, 3, 9}, {-7, 1, 22, 60}, {-33, -11, 11, 33}, {-64, -1, 1, 40},
    };
    test_lossless_packing(custom, "custom");
    test_extremes();
    test_cb2_vs_q2_k();
    test_iq4_nl_block();
    test_iq4_nl_arm_exact();
    test_iq4_nl_x8_same_numbers();
    test_iq4_nl_x8_isa_coverage();
    test_iq4_nl_x8_extremes();
    return check_summary("codebook");
}
