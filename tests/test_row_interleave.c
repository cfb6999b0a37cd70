/* The 16-row interleaved kernels hold their plain kernels' numbers (common/row_interleave.h):
 * q8_0_x16 q8_0's (q8_0_x16.h), q2_k_x16 q2_k's (q2_k_x16.h), tq1_0_x16 tq1_0's (tq1_0_x16.h),
 * tq2_0_x16 tq2_0's (tq2_0_x16.h).  From the same weights the interleaved bytes are the plain kernel's blocks
 * rearranged exactly as the header states, they dequantize to identical floats, repacking the
 * plain kernel's bytes (the engine's path for a GGUF tensor, kernel.h gguf_repack_type) gives
 * the same bytes as packing, and every variant gives the plain scalar reference's result bit for
 * bit, at N = 1 (decode) and N > 1, and for row slices that start inside the matrix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "check.h"
#include "kernels/kernel.h"
#include "support/memory.h"
#include "support/rng.h"

/* Where byte j of row i's block lives in its record, as the headers state. */
static size_t q8_0_x16_at(int i, int j)
{
    if (j < 2) return 2 * i + j;                           /* d */
    return 32 + 64 * ((j - 2) / 4) + 4 * i + (j - 2) % 4; /* q */
}

static size_t q2_k_x16_at(int i, int j)
{
    if (j < 16) return 32 * (j / 2) + 2 * i + j % 2;                    /* scales */
    if (j < 80) return 256 + 64 * ((j - 16) / 4) + 4 * i + (j - 16) % 4; /* qs */
    return 1280 + 32 * ((j - 80) / 2) + 2 * i + j % 2;                  /* d, dmin */
}

static size_t tq1_0_x16_at(int i, int j)
{
    if (j < 52) return 64 * (j / 4) + 4 * i + j % 4; /* qs, qh */
    return 832 + 2 * i + j % 2;                        /* d */
}

static size_t tq2_0_x16_at(int i, int j)
{
    if (j < 64) return 64 * (j / 4) + 4 * i + j % 4; /* qs */
    return 1024 + 2 * i + j % 2;                       /* d */
}

typedef struct {
    const char *plain, *x16;
    int block_values, block_bytes;
    size_t (*at)(int i, int j);
} interleaved;

static const interleaved kinds[] = {{"q8_0", "q8_0_x16", 32, 34, q8_0_x16_at},
                                    {"q2_k", "q2_k_x16", 256, 84, q2_k_x16_at},
                                    {"tq1_0", "tq1_0_x16", 256, 54, tq1_0_x16_at},
                                    {"tq2_0", "tq2_0_x16", 256, 66, tq2_0_x16_at}};

static void run_case(const interleaved *il, int m, int k, int n, uint64_t seed)
{
    const bb_kernel *q2 = bb_kernel_by_name(il->plain), *qx = bb_kernel_by_name(il->x16);
    CHECK(q2 && qx, "%s and %s must be registered", il->plain, il->x16);
    if (!q2 || !qx) return;
    size_t psize = q2->packed_size(m, k);
    CHECK(qx->packed_size(m, k) == psize, "%s size %zu differs from %s's %zu", il->x16, qx->packed_size(m, k), il->plain, psize);
    float *w = malloc(sizeof(float) * (size_t)m * k), *x = malloc(sizeof(float) * (size_t)n * k);
    float *w2 = malloc(sizeof(float) * (size_t)m * k), *wx = malloc(sizeof(float) * (size_t)m * k);
    float *yref = malloc(sizeof(float) * (size_t)n * m), *y = malloc(sizeof(float) * (size_t)n * m);
    uint8_t *p2 = bb_alloc(psize), *px = bb_alloc(psize), *act = bb_alloc(q2->act_size(n, k));
    bb_rng r;
    bb_rng_seed(&r, seed);
    bb_random_weights(q2, m, k, seed, w);
    bb_fill_gauss(&r, x, (size_t)n * k, 1.0f);
    char err[256];
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(q2, &bw, p2, err, sizeof err) == 0, "%s pack: %s", il->plain, err);
    CHECK(bb_kernel_pack(qx, &bw, px, err, sizeof err) == 0, "%s pack: %s", il->x16, err);

    int nb = k / il->block_values, bad = 0, B = il->block_bytes;
    for (int row = 0; row < m && !bad; row++)
        for (int b = 0; b < nb && !bad; b++) {
            const uint8_t *blk = p2 + ((size_t)row * nb + b) * B;
            const uint8_t *rec = px + ((size_t)(row / 16) * nb + b) * 16 * B;
            for (int j = 0; j < B; j++)
                if (rec[il->at(row % 16, j)] != blk[j]) bad = 1;
            CHECK(!bad, "%s M=%d K=%d: row %d block %d not where its header puts it", il->x16, m, k, row, b);
        }

    /* the engine's load path for a GGUF tensor of the plain type: its blocks rearranged */
    CHECK(qx->gguf_repack_type && !strcmp(qx->gguf_repack_type, q2->gguf_type) && qx->repack_stored,
          "%s does not take %s tensors as stored", il->x16, q2->gguf_type ? q2->gguf_type : "(none)");
    if (qx->repack_stored) {
        uint8_t *pr = bb_alloc(psize);
        memset(pr, 0xa5, psize);
        qx->repack_stored(p2, m, k, pr);
        CHECK(memcmp(pr, px, psize) == 0, "%s M=%d K=%d: repacking %s's bytes differs from packing", il->x16, m, k,
              il->plain);
        free(pr);
    }

    q2->unpack(p2, m, k, w2);
    qx->unpack(px, m, k, wx);
    CHECK(memcmp(w2, wx, sizeof(float) * (size_t)m * k) == 0, "%s M=%d K=%d: dequantized weights differ", il->x16, m, k);

    q2->prepare(x, n, k, act);
    q2->variants[0].matmul(p2, act, yref, m, k, n, 0, m);
    for (int v = 0; v < bb_variant_count(qx); v++) {
        const bb_variant *var = &qx->variants[v];
        if (!bb_variant_usable(var)) continue;
        for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
        var->matmul(px, act, y, m, k, n, 0, m);
        CHECK(memcmp(y, yref, sizeof(float) * (size_t)n * m) == 0,
              "%s@%s M=%d K=%d N=%d: not bit-equal to the %s reference", il->x16, var->isa, m, k, n, il->plain);
        if (m >= 32) { /* a slice from row 16 on writes those rows only, with the same bits */
            for (size_t i = 0; i < (size_t)n * m; i++) y[i] = NAN;
            var->matmul(px, act, y, m, k, n, 16, m);
            int wrong = 0;
            for (int c = 0; c < n; c++)
                for (int row = 0; row < m; row++) {
                    size_t i = (size_t)c * m + row;
                    if (row < 16 ? !isnan(y[i]) : memcmp(&y[i], &yref[i], sizeof(float)) != 0) wrong++;
                }
            CHECK(wrong == 0, "%s@%s M=%d K=%d N=%d: slice [16, M) wrong in %d outputs", il->x16, var->isa, m, k, n, wrong);
        }
    }
    free(w); free(x); free(w2); free(wx); free(yref); free(y); free(p2); free(px); free(act);
}

int main(void)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const interleaved *il = &kinds[i];
        run_case(il, 16, 256, 1, 1);
        run_case(il, 32, 256 * 3, 1, 2);
        run_case(il, 48, 2560, 1, 3);
        run_case(il, 32, 1024, 5, 4); /* groups of 4 activation rows and 1 */
        run_case(il, 16, 512, 16, 5);
        run_case(il, 32, 256, 7, 6);
        if (il->block_values == 32) run_case(il, 32, 96, 17, 7); /* q8_0: an odd count of blocks (amx pairs them) */
    }
    return check_summary("row_interleave");
}
