/* q4_0x8 holds q4_0's numbers in the Arm paper's interleaved layout (seed 003 §4.1.1): from the
 * same float weights its bytes are q4_0's blocks rearranged exactly as q4_0x8.h states, both
 * dequantize to identical floats, and every q4_0x8 variant gives the q4_0 scalar reference's
 * result bit for bit (q4_0x8 keeps the reference's order of float operations); q4_0's own SIMD
 * variants, which accumulate in FMA lanes, agree within float rounding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm_bench.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

static void run_case(int m, int k, int n, uint64_t seed)
{
    const bb_kernel *q4 = bb_kernel_by_name("q4_0"), *x8 = bb_kernel_by_name("q4_0x8");
    CHECK(q4 && x8, "q4_0 and q4_0x8 must be registered");
    if (!q4 || !x8) return;
    size_t psize = q4->packed_size(m, k);
    CHECK(x8->packed_size(m, k) == psize, "q4_0x8 size %zu differs from q4_0 %zu", x8->packed_size(m, k), psize);
    float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
    float *w4 = malloc(sizeof(float) * (size_t)m * k), *w8 = malloc(sizeof(float) * (size_t)m * k);
    float *yref = malloc(sizeof(float) * (size_t)n * m), *y = malloc(sizeof(float) * (size_t)n * m);
    uint8_t *p4 = bb_alloc(psize), *p8 = bb_alloc(psize), *act = bb_alloc(q4->act_size(n, k));
    bb_rng r;
    bb_rng_seed(&r, seed);
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    char err[256];
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(q4, &bw, p4, err, sizeof err) == 0, "q4_0 pack: %s", err);
    CHECK(bb_kernel_pack(x8, &bw, p8, err, sizeof err) == 0, "q4_0x8 pack: %s", err);

    /* the layout of q4_0x8.h: record (g, b) = 8 scales, then 16 chunks of 8 bytes XOR 0x88 */
    int nb = k / 32, bad = 0;
    for (int row = 0; row < m && !bad; row++)
        for (int b = 0; b < nb && !bad; b++) {
            const uint8_t *blk = p4 + ((size_t)row * nb + b) * 18;
            const uint8_t *rec = p8 + ((size_t)(row / 8) * nb + b) * 144;
            int i = row % 8;
            if (rec[2 * i] != blk[0] || rec[2 * i + 1] != blk[1]) bad = 1;
            for (int j = 0; j < 16; j++)
                if (rec[16 + 8 * (8 * (j / 8) + i) + j % 8] != (blk[2 + j] ^ 0x88)) bad = 1;
            CHECK(!bad, "M=%d K=%d: row %d block %d not where q4_0x8.h puts it", m, k, row, b);
        }

    q4->unpack(p4, m, k, w4);
    x8->unpack(p8, m, k, w8);
    CHECK(memcmp(w4, w8, sizeof(float) * (size_t)m * k) == 0, "M=%d K=%d: dequantized weights differ", m, k);

    q4->prepare(x, n, k, act);
    q4->variants[0].matmul(p4, act, yref, m, k, n, 0, m);
    for (int v = 0; v < bb_variant_count(x8); v++) {
        const bb_variant *var = &x8->variants[v];
        if (!bb_variant_usable(var)) continue;
        for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
        var->matmul(p8, act, y, m, k, n, 0, m);
        CHECK(memcmp(y, yref, sizeof(float) * (size_t)n * m) == 0,
              "q4_0x8@%s M=%d K=%d N=%d: not bit-equal to the q4_0 reference", var->isa, m, k, n);
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
        CHECK(mism == 0, "q4_0@%s M=%d K=%d N=%d: %d outputs beyond float rounding of q4_0x8", var->isa, m, k, n, mism);
    }
    free(w); free(x); free(w4); free(w8); free(yref); free(y); free(p4); free(p8); free(act);
}

int main(void)
{
    run_case(8, 32, 1, 1);
    run_case(40, 32 * 7, 3, 2);  /* odd number of blocks */
    run_case(64, 2560, 1, 3);
    run_case(24, 2560, 8, 4);
    run_case(16, 1024, 16, 5);
    run_case(8, 96, 11, 6);
    return check_summary("q4_0x8");
}
