/* The registry: every kernel bitbench knows, in one array.  Adding a kernel = one source file in
 * its family folder + one extern line and one entry here.  Everything else (bitbench list,
 * bitbench gemm, Lua, the conformance suite) finds it through this table. */
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ternary.h"

/* --- multiply-add (kernels/mad) --- */
extern const bb_kernel bb_kernel_q8_0;
extern const bb_kernel bb_kernel_q8_0_x16;
extern const bb_kernel bb_kernel_q4_0;
extern const bb_kernel bb_kernel_q4_0x8;
extern const bb_kernel bb_kernel_q4_0_4_4;
extern const bb_kernel bb_kernel_q4_0_4_8;
extern const bb_kernel bb_kernel_i2_s;
extern const bb_kernel bb_kernel_tq2_0;
extern const bb_kernel bb_kernel_tq2_0_x16;
extern const bb_kernel bb_kernel_q2_k;
extern const bb_kernel bb_kernel_q2_k_x16;
extern const bb_kernel bb_kernel_tq1_0;
extern const bb_kernel bb_kernel_tq1_0_x16;
/* --- float baselines (baselines/) --- */
extern const bb_kernel bb_kernel_f32;
extern const bb_kernel bb_kernel_f32_blas;
extern const bb_kernel bb_kernel_f16;
extern const bb_kernel bb_kernel_bf16;
/* --- bit-wise LUT (kernels/bitlut) --- */
extern const bb_kernel bb_kernel_tmac_w1, bb_kernel_tmac_w1_fa, bb_kernel_tmac_w1_exact;
extern const bb_kernel bb_kernel_tmac_w2, bb_kernel_tmac_w2_fa, bb_kernel_tmac_w2_exact;
extern const bb_kernel bb_kernel_tmac_w3, bb_kernel_tmac_w3_fa, bb_kernel_tmac_w3_exact;
extern const bb_kernel bb_kernel_tmac_w4, bb_kernel_tmac_w4_fa, bb_kernel_tmac_w4_exact;
/* --- element-wise LUT (kernels/elut) --- */
extern const bb_kernel bb_kernel_tl1_0;
extern const bb_kernel bb_kernel_tl1_1;
extern const bb_kernel bb_kernel_tl2_0;
extern const bb_kernel bb_kernel_tl2_1;
/* --- codebook (kernels/codebook) --- */
extern const bb_kernel bb_kernel_cb2;
extern const bb_kernel bb_kernel_iq4_nl;
extern const bb_kernel bb_kernel_iq4_nl_x8;
/* --- up-convert (kernels/upconvert) --- */
extern const bb_kernel bb_kernel_up_i2;
extern const bb_kernel bb_kernel_up_i1;

static const bb_kernel *const registry[] = {
    /* mad */
    &bb_kernel_q8_0,
    &bb_kernel_q8_0_x16,
    &bb_kernel_q4_0,
    &bb_kernel_q4_0x8,
    &bb_kernel_q4_0_4_4,
    &bb_kernel_q4_0_4_8,
    &bb_kernel_i2_s,
    &bb_kernel_tq2_0,
    &bb_kernel_tq2_0_x16,
    &bb_kernel_q2_k,
    &bb_kernel_q2_k_x16,
    &bb_kernel_tq1_0,
    &bb_kernel_tq1_0_x16,
    /* float */
    &bb_kernel_f32,
    &bb_kernel_f32_blas,
    &bb_kernel_f16,
    &bb_kernel_bf16,
    /* bitlut */
    &bb_kernel_tmac_w1, &bb_kernel_tmac_w1_fa, &bb_kernel_tmac_w1_exact,
    &bb_kernel_tmac_w2, &bb_kernel_tmac_w2_fa, &bb_kernel_tmac_w2_exact,
    &bb_kernel_tmac_w3, &bb_kernel_tmac_w3_fa, &bb_kernel_tmac_w3_exact,
    &bb_kernel_tmac_w4, &bb_kernel_tmac_w4_fa, &bb_kernel_tmac_w4_exact,
    /* elut */
    &bb_kernel_tl1_0,
    &bb_kernel_tl1_1,
    &bb_kernel_tl2_0,
    &bb_kernel_tl2_1,
    /* codebook */
    &bb_kernel_cb2,
    &bb_kernel_iq4_nl,
    &bb_kernel_iq4_nl_x8,
    /* upconvert */
    &bb_kernel_up_i2,
    &bb_kernel_up_i1,
};

#define NREGISTRY ((int)(sizeof registry / sizeof registry[0]))

/* Kernels a test program adds (bb_kernel_register_for_tests); the bitbench program adds none. */
static const bb_kernel *test_kernels[4];
static int ntest_kernels;

int bb_kernel_register_for_tests(const bb_kernel *k)
{
    if (ntest_kernels == (int)(sizeof test_kernels / sizeof test_kernels[0]) || bb_kernel_by_name(k->name)) return -1;
    test_kernels[ntest_kernels++] = k;
    return 0;
}

int bb_kernel_count(void) { return NREGISTRY + ntest_kernels; }

const bb_kernel *bb_kernel_at(int i)
{
    if (i < 0 || i >= bb_kernel_count()) return NULL;
    return i < NREGISTRY ? registry[i] : test_kernels[i - NREGISTRY];
}

const bb_kernel *bb_kernel_by_name(const char *name)
{
    for (int i = 0; i < bb_kernel_count(); i++)
        if (strcmp(bb_kernel_at(i)->name, name) == 0) return bb_kernel_at(i);
    return NULL;
}

/* Families are not listed anywhere else: each is named by its kernels, in registry order. */
static bool family_listed_before(int i)
{
    for (int j = 0; j < i; j++)
        if (strcmp(bb_kernel_at(j)->family, bb_kernel_at(i)->family) == 0) return true;
    return false;
}

int bb_family_count(void)
{
    int n = 0;
    for (int i = 0; i < bb_kernel_count(); i++) n += !family_listed_before(i);
    return n;
}

const char *bb_family_at(int f)
{
    for (int i = 0, n = 0; i < bb_kernel_count(); i++)
        if (!family_listed_before(i) && n++ == f) return bb_kernel_at(i)->family;
    return NULL;
}

int bb_variant_count(const bb_kernel *k)
{
    int n = 0;
    while (n < BB_MAX_VARIANTS && k->variants[n].isa) n++;
    return n;
}

bool bb_variant_usable(const bb_variant *v)
{
    return (bb_cpu_features() & v->requires) == v->requires;
}

static void list_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < bb_kernel_count(); i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", bb_kernel_at(i)->name);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

int bb_kernel_resolve(const char *spec, const bb_kernel **kernel, const bb_variant **variant,
                      char *err, size_t errlen)
{
    if (!spec) {
        snprintf(err, errlen, "no kernel named");
        return -1;
    }
    char name[64];
    const char *at = strchr(spec, '@');
    size_t nlen = at ? (size_t)(at - spec) : strlen(spec);
    if (nlen == 0 || nlen >= sizeof name) {
        char names[1024];
        list_names(names, sizeof names);
        snprintf(err, errlen, "bad kernel name '%s'; valid kernels: %s", spec, names);
        return -1;
    }
    memcpy(name, spec, nlen);
    name[nlen] = 0;
    const bb_kernel *k = bb_kernel_by_name(name);
    if (!k) {
        char names[1024];
        list_names(names, sizeof names);
        snprintf(err, errlen, "unknown kernel '%s'; valid kernels: %s", name, names);
        return -1;
    }
    int nv = bb_variant_count(k);
    const bb_variant *chosen = NULL;
    if (at) {
        for (int i = 0; i < nv; i++)
            if (strcmp(k->variants[i].isa, at + 1) == 0) chosen = &k->variants[i];
        if (chosen && !bb_variant_usable(chosen)) {
            const char *amx = chosen->requires & BB_CPU_AMX_INT8 ? bb_cpu_amx_refusal() : NULL;
            char missing[256];
            bb_cpu_feature_string(chosen->requires & ~bb_cpu_features(), missing, sizeof missing);
            snprintf(err, errlen, "kernel %s: variant '%s' needs CPU features this machine lacks (%s)%s%s",
                     k->name, chosen->isa, missing, amx ? ": " : "", amx ? amx : "");
            return -1;
        }
    } else {
        for (int i = 0; i < nv; i++)
            if (bb_variant_usable(&k->variants[i])) chosen = &k->variants[i];
    }
    if (!chosen) {
        char isas[256];
        size_t used = 0;
        isas[0] = 0;
        for (int i = 0; i < nv; i++) {
            if (!bb_variant_usable(&k->variants[i])) continue;
            int w = snprintf(isas + used, sizeof isas - used, "%s%s", used ? ", " : "", k->variants[i].isa);
            if (w < 0 || (size_t)w >= sizeof isas - used) break;
            used += (size_t)w;
        }
        snprintf(err, errlen, "kernel %s has no variant '%s'; usable on this CPU: %s", k->name,
                 at ? at + 1 : "(any)", isas);
        return -1;
    }
    *kernel = k;
    if (variant) *variant = chosen;
    return 0;
}

int bb_kernel_check_shape(const bb_kernel *k, int m, int kd, int n, char *err, size_t errlen)
{
    if (m <= 0 || kd <= 0 || n <= 0) {
        snprintf(err, errlen, "shape M=%d K=%d N=%d: all sizes must be positive", m, kd, n);
        return -1;
    }
    if (kd % k->k_multiple) {
        snprintf(err, errlen, "kernel %s needs K to be a multiple of %d, got K=%d", k->name,
                 k->k_multiple, kd);
        return -1;
    }
    if (m % k->m_multiple) {
        snprintf(err, errlen, "kernel %s needs M to be a multiple of %d, got M=%d", k->name,
                 k->m_multiple, m);
        return -1;
    }
    if (k->shape_error) {
        const char *why = k->shape_error(m, kd);
        if (why) {
            snprintf(err, errlen, "kernel %s cannot do M=%d K=%d: %s", k->name, m, kd, why);
            return -1;
        }
    }
    return 0;
}

int bb_kernel_pack(const bb_kernel *k, const bb_weights *w, void *dst, char *err, size_t errlen)
{
    if (bb_kernel_check_shape(k, w->m, w->k, 1, err, errlen)) return -1;
    if (k->weights != BB_WEIGHTS_TERNARY || w->ternary) return k->pack(w, dst, err, errlen);
    size_t count = (size_t)w->m * (size_t)w->k;
    int8_t *t = malloc(count);
    if (!t) {
        snprintf(err, errlen, "out of memory ternarizing %zu weights", count);
        return -1;
    }
    bb_weights tw = *w;
    tw.ternary_scale = bb_ternarize(w->f32, count, t);
    tw.ternary = t;
    int rc = k->pack(&tw, dst, err, errlen);
    free(t);
    return rc;
}
