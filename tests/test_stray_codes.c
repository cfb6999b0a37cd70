/* Stray codes: the ternary formats that store a code per weight in 2 bits (I2_S, TQ2_0 and its
 * interleaved tq2_0_x16) have a fourth code, 3, that no quantizer writes and that a file may still
 * hold; it decodes as +2, as bitnet.cpp's and ggml's dot products read it (models/gguf_types.h).
 * TQ1_0 (and its interleaved tq1_0_x16) packs five trits per byte as ceil(q * 256 / 243): 13 of
 * the 256 byte values are never written, and each variant must still decode every byte by the
 * formula of tq1_0.h.  The conformance suite packs quantized weights, so it never sees one.
 * Here the code bytes are arbitrary (every byte value, and every code 3) against activations at
 * the int8 extremes, over a K long enough that a SIMD variant's int16 partial sums would overflow
 * if its grouping assumed codes <= 2: every variant must still give the reference's bits (or, for
 * a variant that accumulates in float, stay within float rounding of it). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "variant_check.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

enum fill { FILL_RANDOM, FILL_ALL_THREE };

/* The code bytes of a packed matrix: where they are, so they can be overwritten. */
typedef struct {
    const char *kernel;
    size_t block_bytes;  /* bytes per block of codes and scale; 0: codes first, scale after all */
    size_t code_bytes;   /* code bytes at the start of each block */
    size_t block_values; /* weights per block */
} code_layout;

static const code_layout layouts[] = {
    {"i2_s", 0, 0, 0},                /* M*K/4 code bytes, then the per-tensor scale */
    {"tq2_0", 66, 64, 256},           /* {qs[64]; fp16 d} per 256 weights */
    {"tq1_0", 54, 52, 256},           /* {qs[48]; qh[4]; fp16 d} per 256 weights */
    {"tq1_0_x16", 864, 832, 16 * 256}, /* 16 rows' code bytes interleaved, then their 16 d */
    {"tq2_0_x16", 1056, 1024, 16 * 256}, /* the same for tq2_0's blocks */
};

static void overwrite_codes(const code_layout *l, uint8_t *packed, int m, int k, enum fill fill, bb_rng *r)
{
    size_t blocks = l->block_bytes ? (size_t)m * k / l->block_values : 1;
    size_t per = l->block_bytes ? l->code_bytes : (size_t)m * k / 4;
    for (size_t b = 0; b < blocks; b++) {
        uint8_t *codes = packed + b * l->block_bytes;
        for (size_t i = 0; i < per; i++) codes[i] = fill == FILL_ALL_THREE ? 0xff : (uint8_t)(bb_rng_next(r) >> 24);
    }
}

static void check_case(const bb_kernel *kern, const code_layout *l, int m, int k, int n, enum fill fill,
                       uint64_t seed)
{
    size_t psize = kern->packed_size(m, k), asize = kern->act_size(n, k);
    float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
    float *wdeq = malloc(sizeof(float) * (size_t)m * k);
    float *yref = malloc(sizeof(float) * (size_t)n * m), *y = malloc(sizeof(float) * (size_t)n * m);
    uint8_t *packed = bb_alloc(psize), *act = bb_alloc(asize);
    if (!w || !x || !wdeq || !yref || !y || !packed || !act) {
        CHECK(0, "%s: out of memory", kern->name);
        goto done;
    }
    bb_rng r;
    bb_rng_seed(&r, seed);
    for (size_t i = 0; i < (size_t)m * k; i++) w[i] = (float)((int)(bb_rng_next(&r) % 3) - 1);
    /* activation rows: all +1 (q = +127 everywhere), all -1, then gaussian */
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    for (int i = 0; i < k; i++) x[i] = 1.0f;
    if (n > 1)
        for (int i = 0; i < k; i++) x[k + i] = -1.0f;
    char err[512] = "";
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    if (bb_kernel_pack(kern, &bw, packed, err, sizeof err) != 0) {
        CHECK(0, "%s: pack failed: %s", kern->name, err);
        goto done;
    }
    overwrite_codes(l, packed, m, k, fill, &r);
    kern->unpack(packed, m, k, wdeq);

    const bb_variant *ref = &kern->variants[0];
    (ref->prepare ? ref->prepare : kern->prepare)(x, n, k, act);
    ref->matmul(packed, act, yref, m, k, n, 0, m);
    for (int v = 1; v < bb_variant_count(kern); v++) {
        const bb_variant *var = &kern->variants[v];
        if (!bb_variant_usable(var)) continue;
        (var->prepare ? var->prepare : kern->prepare)(x, n, k, act);
        for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
        var->matmul(packed, act, y, m, k, n, 0, m);
        variant_matches_reference(kern, var, y, yref, wdeq, x, m, k, n,
                                  fill == FILL_ALL_THREE ? " (every code byte 0xff)" : " (random code bytes)");
    }
done:
    free(w); free(x); free(wdeq); free(yref); free(y); free(packed); free(act);
}

int main(void)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        const bb_kernel *kern = bb_kernel_by_name(layouts[i].kernel);
        CHECK(kern != NULL, "kernel %s is not registered", layouts[i].kernel);
        if (!kern) continue;
        /* K past two groups of 16 blocks of 128, with an odd block count where the format allows
         * one; N = 1 (the GEMV path) and 5 (a group of 4 activation rows and a remainder); M = 6
         * rows of each m_multiple (a variant's group of 4 weight rows and a remainder) */
        int m = 6 * kern->m_multiple, k = 128 * 41;
        if (k % kern->k_multiple) k = 256 * 21;
        for (int f = FILL_RANDOM; f <= FILL_ALL_THREE; f++) {
            check_case(kern, &layouts[i], m, k, 1, (enum fill)f, 11 + i);
            check_case(kern, &layouts[i], m, k, 5, (enum fill)f, 23 + i);
        }
        int usable = 0;
        for (int v = 0; v < bb_variant_count(kern); v++) usable += bb_variant_usable(&kern->variants[v]);
        printf("%-6s stray codes checked (%d variants usable)\n", kern->name, usable);
    }
    return check_summary("stray_codes");
}
