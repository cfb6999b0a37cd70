/* GGUF block formats q8_0 and q4_0 (and q4_0x8, which must hold the same numbers), against
 * blocks worked out by hand from the format description (ggml block_q8_0 / block_q4_0):
 * quantization to the exact bytes (fp16 d little endian, then the quants), unpack of literal
 * bytes to the format's values, the q8_0 activation bytes, a one-block product every variant
 * must give exactly, and the SIMD variants of q8_0 / q4_0 agreeing with each other bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "check.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

static void check_bytes(const char *what, const uint8_t *got, const uint8_t *want, int len)
{
    for (int i = 0; i < len; i++)
        if (got[i] != want[i]) {
            CHECK(0, "%s: byte %d is 0x%02x, expected 0x%02x", what, i, got[i], want[i]);
            return;
        }
    PASS();
}

static void pack_one(const char *name, int m, const float *x, uint8_t *dst)
{
    const bb_kernel *kern = bb_kernel_by_name(name);
    CHECK(kern != NULL, "kernel %s not registered", name);
    if (!kern) return;
    char err[256] = "";
    bb_weights w = {.m = m, .k = 32, .f32 = x};
    CHECK(bb_kernel_pack(kern, &w, dst, err, sizeof err) == 0, "%s: pack failed: %s", name, err);
}

static void check_unpack(const char *name, const uint8_t *bytes, const float *want)
{
    const bb_kernel *kern = bb_kernel_by_name(name);
    if (!kern) return;
    float got[32];
    kern->unpack(bytes, 1, 32, got);
    for (int j = 0; j < 32; j++)
        if (got[j] != want[j]) {
            CHECK(0, "%s unpack: weight %d is %.9g, expected %.9g", name, j, got[j], want[j]);
            return;
        }
    PASS();
}

/* q8_0 A: d = amax/127 = 1 exactly (fp16 0x3c00); q = round(x) half away from zero. */
static void q8_0_block_a(void)
{
    float x[32] = {127.0f, -127.0f, 2.5f, -2.5f, 0.49f, 0.5f, -0.5f, 1.5f};
    for (int j = 8; j < 32; j++) x[j] = (float)(j - 16);
    static const uint8_t want[34] = {
        0x00, 0x3c,                                     /* d = 1.0 */
        0x7f, 0x81, 0x03, 0xfd, 0x00, 0x01, 0xff, 0x02, /* 127 -127 3 -3 0 1 -1 2 */
        0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff, /* -8 .. -1 */
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, /* 0 .. 15 */
        0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};
    uint8_t got[34 + 16];
    pack_one("q8_0", 1, x, got);
    check_bytes("q8_0 block A", got, want, 34);
    float vals[32] = {127, -127, 3, -3, 0, 1, -1, 2};
    for (int j = 8; j < 32; j++) vals[j] = (float)(j - 16);
    check_unpack("q8_0", want, vals);
}

/* q8_0 B: amax 0.5 -> d = 0.5/127 = 2^-8 * 1.00787..., nearest fp16 2^-8 * (1 + 8/1024) = 0x1c08;
 * q = round(x * 254): -0.5 -> -127, 0.1 -> 25 (25.4), -0.2 -> -51 (-50.8). */
static void q8_0_block_b(void)
{
    float x[32] = {-0.5f, 0.1f, -0.2f};
    uint8_t want[34] = {0x08, 0x1c, 0x81, 0x19, 0xcd};
    uint8_t got[34 + 16];
    pack_one("q8_0", 1, x, got);
    check_bytes("q8_0 block B", got, want, 34);
    float vals[32] = {0};
    const float d = 1032.0f / 262144.0f; /* 2^-8 * (1 + 8/1024) */
    vals[0] = -127 * d;
    vals[1] = 25 * d;
    vals[2] = -51 * d;
    check_unpack("q8_0", want, vals);
}

/* q4_0 A: x_j = (j-8)/2, x_{16+j} = (7-j)/2.  The signed max is x_0 = -4, d = -4/-8 = 0.5
 * (fp16 0x3800), 1/d = 2, nibble = trunc(2x + 8.5): low nibble j, high nibble 15-j. */
static void q4_0_block_a(uint8_t *bytes)
{
    float x[32];
    for (int j = 0; j < 16; j++) {
        x[j] = (float)(j - 8) * 0.5f;
        x[16 + j] = (float)(7 - j) * 0.5f;
    }
    static const uint8_t want[18] = {0x00, 0x38, 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87,
                                     0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0x1e, 0x0f};
    uint8_t got[18 + 16];
    pack_one("q4_0", 1, x, got);
    check_bytes("q4_0 block A", got, want, 18);
    float vals[32];
    for (int j = 0; j < 32; j++) vals[j] = x[j]; /* representable exactly: dequantizes to itself */
    check_unpack("q4_0", want, vals);
    memcpy(bytes, want, 18);
}

/* q4_0 B: x_0 = 2 and x_1 = -2 tie in magnitude; the first one is the max, so d = 2/-8 = -0.25
 * (fp16 0xb400), 1/d = -4, nibble = min(15, trunc(-4x + 8.5)):
 *   x = 2 -> 0;  -2 -> 16 clamped to 15;  -1.75 -> 15;  0.125 -> 8 (-0.5 + 8.5);
 *   -0.125 -> 9 (0.5 + 8.5);  0.375 -> 7;  1 -> 4;  0 -> 8;  x_16 = -0.5 -> 10;  x_17 = 1.9 -> 0. */
static void q4_0_block_b(void)
{
    float x[32] = {2.0f, -2.0f, -1.75f, 0.125f, -0.125f, 0.375f, 1.0f};
    x[16] = -0.5f;
    x[17] = 1.9f;
    static const uint8_t want[18] = {0x00, 0xb4, 0xa0, 0x0f, 0x8f, 0x88, 0x89, 0x87, 0x84, 0x88,
                                     0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88};
    uint8_t got[18 + 16];
    pack_one("q4_0", 1, x, got);
    check_bytes("q4_0 block B", got, want, 18);
    /* value = (nibble - 8) * -0.25 */
    float vals[32];
    for (int j = 0; j < 32; j++) vals[j] = (float)(8 - 8) * -0.25f; /* nibble 8 */
    const int nib[7] = {0, 15, 15, 8, 9, 7, 4};
    for (int j = 0; j < 7; j++) vals[j] = (float)(nib[j] - 8) * -0.25f;
    vals[16] = (10 - 8) * -0.25f;
    vals[17] = (0 - 8) * -0.25f;
    check_unpack("q4_0", want, vals);
}

/* The activation side: x = 1 everywhere gives q8_0 d = fp16(1/127) = 2^-7 * (1 + 8/1024) = 0x2008
 * and q = 127; prepare also stores d as float, -8 * the block sum 127*32 = -32512, and -8 * each
 * 4-byte lane's sum 4*127 = -4064 (qx_0.h aux, at 64, 72 and 96 for K = 32). */
static void act_block(void)
{
    const bb_kernel *kern = bb_kernel_by_name("q4_0");
    if (!kern) return;
    float x[32];
    for (int j = 0; j < 32; j++) x[j] = 1.0f;
    uint8_t *act = malloc(kern->act_size(1, 32));
    kern->prepare(x, 1, 32, act);
    uint8_t want[34] = {0x08, 0x20};
    for (int j = 0; j < 32; j++) want[2 + j] = 0x7f;
    check_bytes("q8_0 activation block", act, want, 34);
    float d;
    int32_t o[2], c[8];
    memcpy(&d, act + 64, 4);
    memcpy(o, act + 72, 8);
    memcpy(c, act + 96, 32);
    CHECK(d == 1032.0f / 131072.0f && o[0] == -32512 && o[1] == 0, "activation aux: d %.9g o %d %d", d, (int)o[0],
          (int)o[1]);
    for (int i = 0; i < 8; i++) CHECK(c[i] == -4064, "activation aux: c[%d] = %d", i, (int)c[i]);
    free(act);
}

/* One block times that activation, every variant:
 *   q4_0 A: isum = 127 * sum(nibble - 8) = 127 * -16 = -2032, y = (-2032 * 0.5) * d_a
 *           = -1016 * 1032/131072 = -7.99951171875 (exact in float)
 *   q8_0 A: isum = 127 * 86 = 10922, y = 10922 * d_a = 85.9947509765625 (exact) */
static void check_product(const char *name, int m, const float *w, float want)
{
    const bb_kernel *kern = bb_kernel_by_name(name);
    if (!kern) return;
    float x[32], y[8];
    for (int j = 0; j < 32; j++) x[j] = 1.0f;
    uint8_t *packed = malloc(kern->packed_size(m, 32)), *act = malloc(kern->act_size(1, 32));
    pack_one(name, m, w, packed);
    for (int v = 0; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        if (!bb_variant_usable(var)) continue;
        (var->prepare ? var->prepare : kern->prepare)(x, 1, 32, act);
        var->matmul(packed, act, y, m, 32, 1, 0, m);
        for (int r = 0; r < m; r++)
            CHECK(y[r] == want, "%s@%s: row %d gives %.9g, expected %.9g", name, var->isa, r, y[r], want);
    }
    free(packed);
    free(act);
}

/* q8_0.h / q4_0.h: the AVX2 and AVX-512 variants form the same int32 lane partials and the same
 * float operations, so they agree bit for bit (the reference only within float rounding). */
static void simd_variants_agree(const char *name, int m, int k, int n)
{
    const bb_kernel *kern = bb_kernel_by_name(name);
    if (!kern) return;
    float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
    float *y0 = malloc(sizeof(float) * (size_t)n * m), *y = malloc(sizeof(float) * (size_t)n * m);
    uint8_t *packed = bb_alloc(kern->packed_size(m, k)), *act = bb_alloc(kern->act_size(n, k));
    bb_rng r;
    bb_rng_seed(&r, (uint64_t)m * k + n);
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    char err[256];
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "%s pack: %s", name, err);
    kern->prepare(x, n, k, act);
    const char *first = NULL;
    for (int v = 1; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        /* @amx gives the scalar reference's bits instead (tests/test_amx.c) */
        if (!bb_variant_usable(var) || strcmp(var->isa, "amx") == 0) continue;
        var->matmul(packed, act, first ? y : y0, m, k, n, 0, m);
        if (!first) first = var->isa;
        else
            CHECK(memcmp(y, y0, sizeof(float) * (size_t)n * m) == 0, "%s M=%d K=%d N=%d: %s and %s differ", name, m,
                  k, n, first, var->isa);
    }
    free(w); free(x); free(y0); free(y); free(packed); free(act);
}

/* Every variant's prepare writes the same bytes as the scalar one (q8_0 blocks and aux), on
 * Gaussian rows of several magnitudes and on blocks built to hit roundf's ties (x/d = k + 0.5
 * exactly), values just below a tie, zeros and -0, and scales that underflow or overflow fp16. */
static void prepare_variants_agree(void)
{
    const bb_kernel *kern = bb_kernel_by_name("q4_0");
    if (!kern) return;
    const int n = 12, k = 32 * 9;
    float *x = malloc(sizeof(float) * n * k);
    bb_rng r;
    bb_rng_seed(&r, 99);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    const float mags[6] = {1.0f, 1e-3f, 3e-8f, 1e-41f, 1e5f, 1e7f}; /* d: normal .. subnormal fp16, fp16 inf */
    for (int row = 0; row < 6; row++)
        for (int i = 0; i < k; i++) x[row * k + i] *= mags[row];
    float *t = x + 6 * k; /* amax 127 -> d = 1: x itself is x/d */
    for (int i = 0; i < k; i++) t[i] = (float)(i % 64 - 32) + 0.5f;
    t[0] = 127.0f;
    t[32] = -127.0f;
    for (int i = 64; i < 96; i++) t[i] = 0.49999997f * (i & 1 ? 1.0f : -1.0f);
    t[64] = 127.0f;
    for (int i = 96; i < 128; i++) t[i] = (i & 1) ? -0.0f : 0.0f; /* all-zero block */
    uint8_t *ref = bb_alloc(kern->act_size(n, k)), *got = bb_alloc(kern->act_size(n, k));
    kern->prepare(x, n, k, ref);
    for (int v = 1; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        if (!bb_variant_usable(var) || !var->prepare) continue;
        memset(got, 0x5a, kern->act_size(n, k));
        var->prepare(x, n, k, got);
        size_t i = 0;
        while (i < kern->act_size(n, k) && got[i] == ref[i]) i++;
        CHECK(i == kern->act_size(n, k), "prepare@%s: byte %zu is 0x%02x, scalar gives 0x%02x", var->isa, i,
              i < kern->act_size(n, k) ? got[i] : 0, i < kern->act_size(n, k) ? ref[i] : 0);
    }
    free(x); free(ref); free(got);
}

int main(void)
{
    q8_0_block_a();
    q8_0_block_b();
    uint8_t qa[18];
    q4_0_block_a(qa);
    q4_0_block_b();
    act_block();

    float w4[8 * 32], w8[32];
    for (int r = 0; r < 8; r++)
        for (int j = 0; j < 16; j++) {
            w4[r * 32 + j] = (float)(j - 8) * 0.5f;
            w4[r * 32 + 16 + j] = (float)(7 - j) * 0.5f;
        }
    float xa[8] = {127.0f, -127.0f, 2.5f, -2.5f, 0.49f, 0.5f, -0.5f, 1.5f};
    memcpy(w8, xa, sizeof xa);
    for (int j = 8; j < 32; j++) w8[j] = (float)(j - 16);
    check_product("q4_0", 1, w4, -7.99951171875f);
    check_product("q4_0x8", 8, w4, -7.99951171875f);
    check_product("q8_0", 1, w8, 85.9947509765625f);

    /* q4_0x8 record of 8 copies of block A: d[i] = 0x3800, qs = block A's 8-byte halves, XOR 0x88 */
    const bb_kernel *x8 = bb_kernel_by_name("q4_0x8");
    if (x8) {
        uint8_t rec[144 + 16], want[144];
        pack_one("q4_0x8", 8, w4, rec);
        for (int i = 0; i < 8; i++) {
            want[2 * i] = qa[0];
            want[2 * i + 1] = qa[1];
        }
        for (int c = 0; c < 16; c++)
            for (int t = 0; t < 8; t++) want[16 + 8 * c + t] = qa[2 + 8 * (c / 8) + t] ^ 0x88;
        check_bytes("q4_0x8 record", rec, want, 144);
    }
    prepare_variants_agree();
    const int shapes[][3] = {{3, 32, 1}, {17, 32 * 7, 3}, {9, 2560, 5}, {4, 32 * 130, 16}};
    for (int i = 0; i < 4; i++) {
        simd_variants_agree("q4_0", shapes[i][0], shapes[i][1], shapes[i][2]);
        simd_variants_agree("q8_0", shapes[i][0], shapes[i][1], shapes[i][2]);
    }
    return check_summary("gguf_blocks");
}
