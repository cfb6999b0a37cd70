/* kernels/common/i8_rows_simd.h: the AVX2, AVX-512 and NEON versions of bb_quant_i8_rows write the
 * same bytes as the scalar one (q, scale, qsum, zero padding and head) for every K remainder,
 * Gaussian rows, rows of exact rounding ties (x * s = j + 0.5, which must go to even), rows with
 * values beyond the absmax after scaling, and all-zero rows.  The same for the q8_0 activation
 * buffer of the "_0" kernels (kernels/mad/qx_0.h: bb_qx_prepare against its AVX2, AVX-512 and NEON
 * versions; there the ties must go away from zero, as roundf). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/common/act_quant.h"
#include "kernels/common/i8_rows_simd.h"
#include "kernels/cpu.h"
#include "kernels/mad/qx_0.h"
#include "support/rng.h"

typedef void (*prep_fn)(const float *, int, int, void *);

static void fill(int pattern, float *x, int k, bb_rng *r)
{
    for (int i = 0; i < k; i++) {
        switch (pattern) {
        case 0: x[i] = (float)bb_rng_gauss(r); break;
        case 1: x[i] = (float)(i % 254 - 127) + 0.5f; break; /* ties once s = 1 */
        case 2: x[i] = 0.0f; break;
        default: x[i] = (float)bb_rng_gauss(r) * 1e-30f; break; /* tiny scale */
        }
    }
    if (pattern == 1) x[0] = 127.0f; /* absmax 127: s = 1 exactly */
}

typedef struct {
    const char *name;
    uint64_t isa;
    prep_fn fn;
} impl;

/* Every usable impls[] (ended by a NULL fn) against ref on every K of ks and every fill pattern
 * (3 rows, the last all zeros); returns how many were compared. */
static int compare(const char *what, size_t (*size_of)(int n, int k), prep_fn ref, const impl *impls, const int *ks,
                   size_t nks, bb_rng *r)
{
    int compared = 0;
    for (size_t ki = 0; ki < nks; ki++)
        for (int pattern = 0; pattern < 4; pattern++) {
            int k = ks[ki], n = 3;
            float *x = malloc(sizeof(float) * (size_t)n * k);
            size_t size = size_of(n, k);
            unsigned char *want = malloc(size), *got = malloc(size);
            for (int c = 0; c < n; c++) fill(c == 2 ? 0 : pattern, x + (size_t)c * k, k, r);
            memset(want, 0x5a, size);
            ref(x, n, k, want);
            for (size_t v = 0; impls[v].fn; v++) {
                if ((bb_cpu_features() & impls[v].isa) != impls[v].isa) continue;
                memset(got, 0xa5, size);
                impls[v].fn(x, n, k, got);
                compared++;
                CHECK(memcmp(want, got, size) == 0, "%s_%s K=%d pattern %d: bytes differ", what, impls[v].name, k,
                      pattern);
            }
            free(x);
            free(want);
            free(got);
        }
    return compared;
}

int main(void)
{
    static const impl i8_rows[] = {
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_quant_i8_rows_avx2},
        {"avx512", BB_ISA_AVX512, bb_quant_i8_rows_avx512},
#endif
#if defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_quant_i8_rows_neon},
#endif
        {NULL, 0, NULL}, /* the end */
    };
    static const impl q8_0[] = {
#if defined(__x86_64__)
        {"avx2", BB_ISA_AVX2, bb_qx_prepare_avx2},
        {"avx512", BB_ISA_AVX512, bb_qx_prepare_avx512},
#endif
#if defined(__aarch64__)
        {"neon", BB_ISA_NEON, bb_qx_prepare_neon},
#endif
        {NULL, 0, NULL},
    };
    static const int ks[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000, 1600, 4099};
    static const int q8_0_ks[] = {32, 64, 320, 4096}; /* multiples of the block */
    bb_rng r;
    bb_rng_seed(&r, 11);
    int compared = compare("bb_quant_i8_rows", bb_i8_rows_size, bb_quant_i8_rows, i8_rows, ks,
                           sizeof ks / sizeof ks[0], &r);
    compared += compare("bb_qx_prepare", bb_qx_act_size, bb_qx_prepare, q8_0, q8_0_ks,
                        sizeof q8_0_ks / sizeof q8_0_ks[0], &r);
#if defined(__aarch64__)
    /* NEON is in every aarch64 core: here the comparisons must have run */
    CHECK(compared > 0, "no SIMD version was compared on aarch64");
#endif
    printf("i8_rows_simd: %d comparisons\n", compared);
    return check_summary("i8_rows_simd");
}
