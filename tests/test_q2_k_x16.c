/* q2_k_x16 holds q2_k's numbers (q2_k_x16.h): from the same float weights its bytes are q2_k's
 * blocks rearranged exactly as the header states, they dequantize to identical floats, and every
 * variant gives the q2_k scalar reference's result bit for bit, at N = 1 (decode) and N > 1,
 * for row slices that start inside the matrix (threads). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

static void run_case(int m, int k, int n, uint64_t seed)
{
    const bb_kernel *q2 = bb_kernel_by_name("q2_k"), *qx = bb_kernel_by_name("q2_k_x16");
    CHECK(q2 && qx, "q2_k and q2_k_x16 must be registered");
    if (!q2 || !qx) return;
    size_t psize = q2->packed_size(m, k);
    CHECK(qx->packed_size(m, k) == psize, "q2_k_x16 size %zu differs from q2_k's %zu", qx->packed_size(m, k), psize);
    float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
    float *w2 = malloc(sizeof(float) * (size_t)m * k), *wx = malloc(sizeof(float) * (size_t)m * k);
    float *yref = malloc(sizeof(float) * (size_t)n * m), *y = malloc(sizeof(float) * (size_t)n * m);
    uint8_t *p2 = bb_alloc(psize), *px = bb_alloc(psize), *act = bb_alloc(q2->act_size(n, k));
    bb_rng r;
    bb_rng_seed(&r, seed);
    bb_fill_gauss(&r, w, (size_t)m * k, 1.0f);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    char err[256];
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(q2, &bw, p2, err, sizeof err) == 0, "q2_k pack: %s", err);
    CHECK(bb_kernel_pack(qx, &bw, px, err, sizeof err) == 0, "q2_k_x16 pack: %s", err);

    /* record (g, b): qs bytes 4 per row per 64-byte line, then scales 2 per row per 32 bytes,
     * then the 16 d, then the 16 dmin */
    int nb = k / 256, bad = 0;
    for (int row = 0; row < m && !bad; row++)
        for (int b = 0; b < nb && !bad; b++) {
            const uint8_t *blk = p2 + ((size_t)row * nb + b) * 84; /* scales[16] qs[64] d dmin */
            const uint8_t *rec = px + ((size_t)(row / 16) * nb + b) * 1344;
            int i = row % 16;
            for (int j = 0; j < 64; j++)
                if (rec[64 * (j / 4) + 4 * i + j % 4] != blk[16 + j]) bad = 1;
            for (int j = 0; j < 16; j++)
                if (rec[1024 + 32 * (j / 2) + 2 * i + j % 2] != blk[j]) bad = 1;
            if (memcmp(rec + 1280 + 2 * i, blk + 80, 2) || memcmp(rec + 1312 + 2 * i, blk + 82, 2)) bad = 1;
            CHECK(!bad, "q2_k_x16 M=%d K=%d: row %d block %d not where q2_k_x16.h puts it", m, k, row, b);
        }

    q2->unpack(p2, m, k, w2);
    qx->unpack(px, m, k, wx);
    CHECK(memcmp(w2, wx, sizeof(float) * (size_t)m * k) == 0, "q2_k_x16 M=%d K=%d: dequantized weights differ", m, k);

    q2->prepare(x, n, k, act);
    q2->variants[0].matmul(p2, act, yref, m, k, n, 0, m);
    for (int v = 0; v < bb_variant_count(qx); v++) {
        const bb_variant *var = &qx->variants[v];
        if (!bb_variant_usable(var)) continue;
        for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
        var->matmul(px, act, y, m, k, n, 0, m);
        CHECK(memcmp(y, yref, sizeof(float) * (size_t)n * m) == 0,
              "q2_k_x16@%s M=%d K=%d N=%d: not bit-equal to the q2_k reference", var->isa, m, k, n);
        if (m >= 32) { /* a slice from row 16 on writes those rows only, with the same bits */
            for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
            var->matmul(px, act, y, m, k, n, 16, m);
            int wrong = 0;
            for (int c = 0; c < n; c++)
                for (int row = 0; row < m; row++) {
                    size_t i = (size_t)c * m + row;
                    if (row < 16 ? !isnan(y[i]) : memcmp(&y[i], &yref[i], sizeof(float)) != 0) wrong++;
                }
            CHECK(wrong == 0, "q2_k_x16@%s M=%d K=%d N=%d: slice [16, M) wrong in %d outputs", var->isa, m, k, n, wrong);
        }
    }
    free(w); free(x); free(w2); free(wx); free(yref); free(y); free(p2); free(px); free(act);
}

int main(void)
{
    run_case(16, 256, 1, 1);
    run_case(32, 256 * 3, 1, 2);
    run_case(48, 2560, 1, 3);
    run_case(32, 1024, 5, 4);
    run_case(16, 512, 16, 5);
    return check_summary("q2_k_x16");
}
