/* The Arm paper's interleaved Q4_0 kernels hold q4_0's numbers (§4.1.1): q4_0x8 (8 rows,
 * 8-byte chunks, Q4_0_8_8), q4_0_4_8 (4 rows, 8-byte chunks) and q4_0_4_4 (4 rows, 4-byte chunks).
 * From the same float weights each one's bytes are q4_0's blocks rearranged exactly as
 * q4_0_interleaved.h states (q4_0x8's also by repacking q4_0's bytes, the engine's load path for
 * a GGUF Q4_0 tensor), they dequantize to identical floats, and every variant of each gives
 * the q4_0 scalar reference's result bit for bit (they keep the reference's order of float
 * operations): q4_0_4_4 == q4_0_4_8 == q4_0x8 == q4_0.  q4_0's own SIMD variants, which
 * accumulate in FMA lanes, agree within float rounding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "check.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

/* An interleaved kernel: R rows per group, C bytes per chunk (q4_0_interleaved.h). */
typedef struct {
    const char *name;
    int rows, chunk;
} interleaving;

static const interleaving kinds[] = {{"q4_0x8", 8, 8}, {"q4_0_4_8", 4, 8}, {"q4_0_4_4", 4, 4}};

static void run_case(const interleaving *il, int m, int k, int n, uint64_t seed)
{
    const bb_kernel *q4 = bb_kernel_by_name("q4_0"), *qi = bb_kernel_by_name(il->name);
    CHECK(q4 && qi, "q4_0 and %s must be registered", il->name);
    if (!q4 || !qi || m % il->rows) return;
    size_t psize = q4->packed_size(m, k);
    CHECK(qi->packed_size(m, k) == psize, "%s size %zu differs from q4_0 %zu", il->name, qi->packed_size(m, k), psize);
    float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
    float *w4 = malloc(sizeof(float) * (size_t)m * k), *wi = malloc(sizeof(float) * (size_t)m * k);
    float *yref = malloc(sizeof(float) * (size_t)n * m), *y = malloc(sizeof(float) * (size_t)n * m);
    uint8_t *p4 = bb_alloc(psize), *pi = bb_alloc(psize), *act = bb_alloc(q4->act_size(n, k));
    bb_rng r;
    bb_rng_seed(&r, seed);
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    char err[256];
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(q4, &bw, p4, err, sizeof err) == 0, "q4_0 pack: %s", err);
    CHECK(bb_kernel_pack(qi, &bw, pi, err, sizeof err) == 0, "%s pack: %s", il->name, err);

    /* the layout of q4_0_interleaved.h: record (g, b) = R scales, then chunks of C bytes of the
     * rows in turn, XOR 0x88 */
    int nb = k / 32, bad = 0, R = il->rows, C = il->chunk;
    for (int row = 0; row < m && !bad; row++)
        for (int b = 0; b < nb && !bad; b++) {
            const uint8_t *blk = p4 + ((size_t)row * nb + b) * 18;
            const uint8_t *rec = pi + ((size_t)(row / R) * nb + b) * 18 * R;
            int i = row % R;
            if (rec[2 * i] != blk[0] || rec[2 * i + 1] != blk[1]) bad = 1;
            for (int j = 0; j < 16; j++)
                if (rec[2 * R + C * (R * (j / C) + i) + j % C] != (blk[2 + j] ^ 0x88)) bad = 1;
            CHECK(!bad, "%s M=%d K=%d: row %d block %d not where q4_0_interleaved.h puts it", il->name, m, k, row, b);
        }

    /* q4_0x8 is the layout a GGUF Q4_0 tensor is rearranged into at load (kernel.h
     * gguf_repack_type): repacking q4_0's bytes gives the very records packing gives */
    if (!strcmp(il->name, "q4_0x8"))
        CHECK(qi->gguf_repack_type && !strcmp(qi->gguf_repack_type, "Q4_0") && qi->repack_stored,
              "q4_0x8 does not take Q4_0 tensors' blocks");
    if (qi->repack_stored) {
        uint8_t *pr = bb_alloc(psize);
        memset(pr, 0xa5, psize);
        qi->repack_stored(p4, m, k, pr);
        CHECK(memcmp(pr, pi, psize) == 0, "%s M=%d K=%d: repacking q4_0's bytes differs from packing", il->name, m, k);
        free(pr);
    }

    q4->unpack(p4, m, k, w4);
    qi->unpack(pi, m, k, wi);
    CHECK(memcmp(w4, wi, sizeof(float) * (size_t)m * k) == 0, "%s M=%d K=%d: dequantized weights differ", il->name, m, k);

    q4->prepare(x, n, k, act);
    q4->variants[0].matmul(p4, act, yref, m, k, n, 0, m);
    for (int v = 0; v < bb_variant_count(qi); v++) {
        const bb_variant *var = &qi->variants[v];
        if (!bb_variant_usable(var)) continue;
        for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
        var->matmul(pi, act, y, m, k, n, 0, m);
        CHECK(memcmp(y, yref, sizeof(float) * (size_t)n * m) == 0,
              "%s@%s M=%d K=%d N=%d: not bit-equal to the q4_0 reference", il->name, var->isa, m, k, n);
    }
    for (int v = 1; v < bb_variant_count(q4); v++) {
        const bb_variant *var = &q4->variants[v];
        if (!bb_variant_usable(var)) continue;
        var->matmul(p4, act, y, m, k, n, 0, m);
        int mism = 0;
        for (int c = 0; c < n; c++)
            for (int row = 0; row < m; row++) {
                double sum = 0;
                for (int j = 0; j < k; j++) sum += fabs((double)w4[(size_t)row * k + j] * x[(size_t)c * k + j]);
                size_t i = (size_t)c * m + row;
                if (!(fabs((double)y[i] - yref[i]) <= 2.0 * (k + 16) * 0x1p-23 * sum + 1e-30)) mism++;
            }
        CHECK(mism == 0, "q4_0@%s M=%d K=%d N=%d: %d outputs beyond float rounding of %s", var->isa, m, k, n, mism,
              il->name);
    }
    free(w); free(x); free(w4); free(wi); free(yref); free(y); free(p4); free(pi); free(act);
}

int main(void)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const interleaving *il = &kinds[i];
        run_case(il, 8, 32, 1, 1);
        run_case(il, 40, 32 * 7, 3, 2);  /* odd number of blocks; odd N (i8mm pairs rows) */
        run_case(il, 64, 2560, 1, 3);
        run_case(il, 24, 2560, 8, 4);
        run_case(il, 16, 1024, 16, 5);
        run_case(il, 8, 96, 11, 6);
        run_case(il, 12, 64, 5, 7);      /* M a multiple of 4 only: 3 groups of 4 (not for q4_0x8) */
    }
    return check_summary("q4_0_interleaved");
}
