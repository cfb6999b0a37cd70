/* The variants' dispatch fields (kernel.h, bb_variant).  m_pass is 0 or a multiple of the kernel's
 * m_multiple above it.  What ran: for every registered variant with a documented small-N rule,
 * bb_variant_ran gives the rule's variant below min_n (N = 1) and the variant itself from min_n on
 * (N = 16 for the @amx variants); a variant without a rule always names itself.  The registry is
 * walked, so a new kernel or variant is covered without editing this file, on any host (the rule
 * is a property of the registry, not of the CPU).  Where f16@amx can run (AMX-BF16 granted), a
 * call with a NaN activation is counted as a fallback (bb_kernel_fallback_note) and one without
 * is not; elsewhere that part says why it is skipped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/kernel.h"

static const bb_variant *variant_named(const bb_kernel *kern, const char *isa)
{
    for (int v = 0; v < bb_variant_count(kern); v++)
        if (strcmp(kern->variants[v].isa, isa) == 0) return &kern->variants[v];
    return NULL;
}

static void test_rules(void)
{
    int ruled = 0;
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *kern = bb_kernel_at(i);
        for (int j = 0; j < bb_variant_count(kern); j++) {
            const bb_variant *v = &kern->variants[j];
            /* m_pass (kernel.h): 0, or whole multiples of m_multiple beyond it, since callers cut M there */
            CHECK(v->m_pass == 0 || (v->m_pass > kern->m_multiple && v->m_pass % kern->m_multiple == 0),
                  "%s@%s: m_pass %d is neither 0 nor a multiple of m_multiple %d above it", kern->name, v->isa,
                  v->m_pass, kern->m_multiple);
            if (!v->small_n_isa) {
                CHECK(v->min_n == 0, "%s@%s: min_n %d without a small_n_isa", kern->name, v->isa, v->min_n);
                CHECK(!strcmp(bb_variant_ran(v, 1), v->isa) && !strcmp(bb_variant_ran(v, 16), v->isa),
                      "%s@%s without a rule names itself", kern->name, v->isa);
                /* the tile variants are the ones that dispatch by N: each must state it */
                CHECK(strcmp(v->isa, "amx") != 0, "%s@amx states no small-N rule", kern->name);
                continue;
            }
            ruled++;
            CHECK(variant_named(kern, v->small_n_isa) != NULL && strcmp(v->small_n_isa, v->isa) != 0,
                  "%s@%s: its small-N variant '%s' is another variant of the kernel", kern->name, v->isa, v->small_n_isa);
            CHECK(v->min_n > 1, "%s@%s: min_n %d", kern->name, v->isa, v->min_n);
            CHECK(!strcmp(bb_variant_ran(v, 1), v->small_n_isa), "%s@%s at N=1 ran %s, the rule says %s", kern->name,
                  v->isa, bb_variant_ran(v, 1), v->small_n_isa);
            CHECK(!strcmp(bb_variant_ran(v, v->min_n - 1), v->small_n_isa), "%s@%s below min_n", kern->name, v->isa);
            CHECK(!strcmp(bb_variant_ran(v, v->min_n), v->isa), "%s@%s at min_n ran %s", kern->name, v->isa,
                  bb_variant_ran(v, v->min_n));
            if (!strcmp(v->isa, "amx")) /* the tile drivers' BB_AMX_MIN_N (kernels/common/amx_rule.h) */
                CHECK(v->min_n == 16 && !strcmp(v->small_n_isa, "avx512") && !strcmp(bb_variant_ran(v, 16), "amx"),
                      "%s@amx: N < 16 runs avx512, N = 16 amx (min_n %d, small_n_isa %s)", kern->name, v->min_n,
                      v->small_n_isa);
        }
    }
    printf("%d variants with a small-N rule\n", ruled);
}

/* The counter only grows, by one per note. */
static void test_counter(void)
{
    uint64_t before = bb_kernel_fallback_calls();
    bb_kernel_fallback_note();
    bb_kernel_fallback_note();
    CHECK(bb_kernel_fallback_calls() - before == 2, "two notes counted");
}

/* f16@amx: N = 16 Gaussian activations run the tiles (no fallback); one NaN sends the call to
 * @avx512, counted once. */
static void test_f16_amx_fallback(void)
{
    const bb_kernel *kern;
    const bb_variant *v;
    char err[512];
    if (bb_kernel_resolve("f16@amx", &kern, &v, err, sizeof err)) {
        printf("f16@amx fallback count not checked on this host: %s\n", err);
        return;
    }
    int m = 32, k = 64, n = 16;
    float *w = calloc((size_t)m * k, sizeof(float)), *x = calloc((size_t)n * k, sizeof(float));
    float *y = calloc((size_t)n * m, sizeof(float));
    void *packed = malloc(kern->packed_size(m, k)), *act = malloc(kern->act_size(n, k));
    if (!w || !x || !y || !packed || !act) {
        CHECK(0, "out of memory");
        free(w); free(x); free(y); free(packed); free(act);
        return;
    }
    for (int i = 0; i < m * k; i++) w[i] = (float)((i % 7) - 3) / 8;
    for (int i = 0; i < n * k; i++) x[i] = (float)((i % 5) - 2) / 4;
    bb_weights bw = {.m = m, .k = k, .f32 = w};
    CHECK(bb_kernel_pack(kern, &bw, packed, err, sizeof err) == 0, "pack: %s", err);
    void (*prepare)(const float *, int, int, void *) = v->prepare ? v->prepare : kern->prepare;
    uint64_t before = bb_kernel_fallback_calls();
    prepare(x, n, k, act);
    v->matmul(packed, act, y, m, k, n, 0, m);
    CHECK(bb_kernel_fallback_calls() == before, "finite input: the tiles ran, no fallback");
    x[5] = NAN;
    prepare(x, n, k, act);
    v->matmul(packed, act, y, m, k, n, 0, m);
    CHECK(bb_kernel_fallback_calls() == before + 1, "a NaN activation: one fallback call counted");
    free(w); free(x); free(y); free(packed); free(act);
}

int main(void)
{
    test_rules();
    test_counter();
    test_f16_amx_fallback();
    return check_summary("variant_ran");
}
