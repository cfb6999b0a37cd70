/* The kernel of every linear tensor and of the classifier (kernel_choice.h). */
#include "kernel_choice.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_names.h"
#include "gguf_types.h"
#include "kernels/kernel.h"

/* The engine's names of a layer's linear tensors, in tensor_kernels order (transformer.h). */
static const char *const linear_names[BB_TF_LINEARS] = {"wq", "wk", "wv", "wo", "w1", "w3", "w2"};

const char *bb_kernel_for_ggml_type(const char *type)
{
    /* the kernel named as the type first (f32 before f32_blas), else the first that stores it */
    char lower[32];
    size_t n = strlen(type);
    if (n >= sizeof lower) return NULL;
    for (size_t i = 0; i <= n; i++) lower[i] = (char)tolower((unsigned char)type[i]);
    const bb_kernel *named = bb_kernel_by_name(lower);
    if (named && named->gguf_type && !strcmp(named->gguf_type, type)) return named->name;
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *k = bb_kernel_at(i);
        if (k->gguf_type && !strcmp(k->gguf_type, type)) return k->name;
    }
    return NULL;
}

/* The GGUF tensor of an engine tensor of a model file, or NULL (a llama2.c checkpoint). */
static const bb_gguf_tensor *file_tensor(const bb_model_source *m, const char *engine, int layer)
{
    const bb_gguf *g = bb_model_source_gguf(m);
    if (!g) return NULL;
    const bb_gguf_role *r = bb_gguf_role_of(engine);
    char name[96];
    bb_gguf_tensor_name(name, sizeof name, r, layer, "weight");
    return bb_gguf_find_tensor(g, name);
}

/* The stored ggml type of an engine tensor of a model file ("F32" for a llama2.c checkpoint). */
static const char *stored_type(const bb_model_source *m, const char *engine, int layer)
{
    const bb_gguf_tensor *t = file_tensor(m, engine, layer);
    const bb_ggml_type *ty = t ? bb_ggml_type_by_id(t->type) : NULL;
    return ty ? ty->name : "F32"; /* the model's checks found every tensor (gguf_source.c) */
}

const char *bb_kernel_fast_layout(const char *type)
{
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *k = bb_kernel_at(i);
        if (!k->gguf_repack_type || strcmp(k->gguf_repack_type, type) || !k->repack_stored) continue;
        const bb_kernel *kern;
        const bb_variant *var;
        char e[256];
        /* its best variant here; the scalar reference would be slower than the stored layout's SIMD */
        if (bb_kernel_resolve(k->name, &kern, &var, e, sizeof e) || !strcmp(var->isa, "scalar")) return NULL;
        return k->name;
    }
    return NULL;
}

/* Does an engine tensor's matrix fill kern's row groups and blocks unpadded (M a multiple of the
 * layout's rows, as llama.cpp repacks only such tensors)?  Only then can its stored blocks be
 * rearranged (transformer_build.c packs a padded one from its dequantized values). */
static bool fits_unpadded(const bb_model_source *m, const char *engine, int layer, const bb_kernel *k)
{
    const bb_gguf_tensor *t = file_tensor(m, engine, layer);
    if (!t || t->n_dims != 2 || t->ne[0] > INT32_MAX || t->ne[1] > INT32_MAX) return false;
    int kk = (int)t->ne[0], mm = (int)t->ne[1];
    char e[256];
    return bb_tf_padded_m(k, mm) == mm && bb_tf_padded_k(k, kk) == kk && !bb_kernel_check_shape(k, mm, kk, 1, e, sizeof e);
}

/* The fast layout of an engine tensor's stored type when its blocks fit it unpadded, else NULL. */
static const char *fast_layout_of(const bb_model_source *m, const char *engine, int layer, const char *type)
{
    const char *fast = bb_kernel_fast_layout(type);
    return fast && fits_unpadded(m, engine, layer, bb_kernel_by_name(fast)) ? fast : NULL;
}

static const char *file_name(const char *engine)
{
    const bb_gguf_role *r = bb_gguf_role_of(engine);
    return r ? r->file : engine;
}

/* Tensors of one stored type that the run does not use as stored. */
typedef struct {
    const char *type;
    int count;
    bool kind[BB_TF_LINEARS];
} type_tally;

enum { MAX_TALLIES = 16 };

static void tally(type_tally *t, int *nt, const char *type, int kind)
{
    int i = 0;
    while (i < *nt && strcmp(t[i].type, type)) i++;
    if (i == *nt) {
        if (*nt == MAX_TALLIES) i = MAX_TALLIES - 1; /* more types than any file has: lumped */
        else t[(*nt)++] = (type_tally){.type = type};
    }
    t[i].count++;
    t[i].kind[kind] = true;
}

/* "30 Q8_0 (attn_q, attn_k), 5 F32 (ffn_down)" */
static size_t describe_tallies(char *out, size_t cap, const type_tally *t, int nt)
{
    size_t o = 0;
    for (int i = 0; i < nt && o < cap; i++) {
        o += (size_t)snprintf(out + o, cap - o, "%s%d %s (", i ? ", " : "", t[i].count, t[i].type);
        bool first = true;
        for (int k = 0; k < BB_TF_LINEARS && o < cap; k++)
            if (t[i].kind[k]) {
                o += (size_t)snprintf(out + o, cap - o, "%s%s", first ? "" : ", ", file_name(linear_names[k]));
                first = false;
            }
        if (o < cap) o += (size_t)snprintf(out + o, cap - o, ")");
    }
    return o < cap ? o : cap;
}

/* Does kern use a tensor of this type as stored (or rearrange its blocks, not requantizing)? */
static bool keeps(const bb_kernel *kern, const char *type)
{
    return (kern->gguf_type && !strcmp(kern->gguf_type, type)) ||
           (kern->gguf_repack_type && !strcmp(kern->gguf_repack_type, type));
}

/* keeps, for one tensor of a GGUF file: only where the matrix needs no padding for kern (a padded
 * one is packed from its dequantized values, transformer_build.c stored_way). */
static bool keeps_tensor(const bb_kernel *kern, const char *type, const bb_model_source *m, const char *engine,
                         int layer)
{
    return keeps(kern, type) && (!file_tensor(m, engine, layer) || fits_unpadded(m, engine, layer, kern));
}

static int resolve(const char *what, const char *spec, const bb_kernel **kern, char *err, size_t errlen)
{
    const bb_variant *var;
    char e[1024];
    if (!bb_kernel_resolve(spec, kern, &var, e, sizeof e)) return 0;
    snprintf(err, errlen, "%s: %s", what, e);
    return -1;
}

/* "; rearranges 20 tensors at load into faster layouts, bits unchanged: 20 Q4_0 (attn_q, ...) for
 * q4_0x8 (--no-repack keeps the stored layout)" */
static size_t describe_rearranged(char *out, size_t cap, const type_tally *t, int nt, int count)
{
    size_t o = (size_t)snprintf(out, cap, "rearranges %d tensor%s at load into a faster layout, bits unchanged: ", count,
                                count == 1 ? "" : "s");
    for (int i = 0; i < nt && o < cap; i++) {
        o += describe_tallies(out + o, cap - o, &t[i], 1);
        if (o < cap) o += (size_t)snprintf(out + o, cap - o, " for %s%s", bb_kernel_fast_layout(t[i].type),
                                           i + 1 < nt ? ", " : "");
    }
    if (o < cap) o += (size_t)snprintf(out + o, cap - o, " (--no-repack keeps the stored layout)");
    return o < cap ? o : cap;
}

/* A model file: every tensor's kernel from its type and the options. */
static int choose_for_file(const bb_model_source *m, const bb_tf_dims *d, const char *kernel, const char *out_kernel,
                           bool keep_layout, bb_kernel_choice *c, char *err, size_t errlen)
{
    const bb_kernel *given = NULL, *out = NULL;
    if (kernel && resolve("kernel", kernel, &given, err, errlen)) return -1;
    if (out_kernel && resolve("output kernel", out_kernel, &out, err, errlen)) return -1;
    size_t n = (size_t)d->n_layers * BB_TF_LINEARS;
    if (!(c->tensor_kernels = malloc(n * sizeof *c->tensor_kernels))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    type_tally changed[MAX_TALLIES], none[MAX_TALLIES], moved[MAX_TALLIES];
    int nchanged = 0, nnone = 0, nmoved = 0;
    for (int l = 0; l < d->n_layers; l++)
        for (int i = 0; i < BB_TF_LINEARS; i++) {
            const char *type = stored_type(m, linear_names[i], l), *own = bb_kernel_for_ggml_type(type);
            const char *fast = keep_layout ? NULL : fast_layout_of(m, linear_names[i], l, type);
            const char **k = &c->tensor_kernels[(size_t)l * BB_TF_LINEARS + i];
            if (given) {
                *k = kernel;
                if (!keeps_tensor(given, type, m, linear_names[i], l)) tally(changed, &nchanged, type, i);
            } else if (fast) { /* the same blocks in the layout its SIMD code reads fastest */
                *k = fast;
                tally(moved, &nmoved, type, i);
                c->rearranged++;
            } else if (own) {
                *k = own;
            } else { /* no kernel stores the type: its exact values in f32 */
                *k = "f32";
                tally(none, &nnone, type, i);
            }
        }
    const char *cls_name = d->tied_embedding ? "tok_embeddings" : "wcls";
    const char *cls_type = stored_type(m, cls_name, -1), *cls_own = bb_kernel_for_ggml_type(cls_type);
    const char *cls_fast = keep_layout ? NULL : fast_layout_of(m, cls_name, -1, cls_type);
    c->opt.kernel = kernel ? kernel : keep_layout ? BB_KERNEL_STORED_LAYOUT : BB_KERNEL_AS_STORED;
    c->opt.out_kernel = out_kernel ? out_kernel : cls_fast ? cls_fast : cls_own ? cls_own : "f32";
    c->opt.tensor_kernels = c->tensor_kernels;
    for (int i = 0; i < nchanged; i++) c->requantized += changed[i].count;
    for (int i = 0; i < nnone; i++) c->requantized += none[i].count;

    size_t o = 0, cap = sizeof c->note;
    char cls[160];
    bool out_keeps = out && keeps_tensor(out, cls_type, m, cls_name, -1);
    if (out && !out_keeps)
        snprintf(cls, sizeof cls, "the classifier (%s %s) goes through --out-kernel %s", file_name(cls_name), cls_type,
                 out_kernel);
    else if (out)
        snprintf(cls, sizeof cls, "the classifier (%s) stays %s", file_name(cls_name), cls_type);
    else if (!cls_own)
        snprintf(cls, sizeof cls, "the classifier (%s) is %s, which no kernel stores: dequantized to f32 "
                 "(--out-kernel to change it)", file_name(cls_name), cls_type);
    else if (cls_fast)
        snprintf(cls, sizeof cls, "the classifier (%s) stays %s, its blocks rearranged for %s (--out-kernel to change "
                 "it)", file_name(cls_name), cls_type, cls_fast);
    else
        snprintf(cls, sizeof cls, "the classifier (%s) stays %s (--out-kernel to change it)", file_name(cls_name),
                 cls_type);
    if (nchanged) {
        o += (size_t)snprintf(c->note + o, cap - o, "--kernel %s requantizes %d tensors: ", kernel, c->requantized);
        o += describe_tallies(c->note + o, cap - o, changed, nchanged);
        if (o < cap) snprintf(c->note + o, cap - o, "; %s", cls);
    } else if (given) { /* nothing requantized: nnone and nmoved count only when no kernel is given */
        snprintf(c->note, cap, "--kernel %s uses every linear tensor as stored; %s", kernel, cls);
    } else if (nnone || nmoved || cls_fast) {
        if (nnone) {
            o += (size_t)snprintf(c->note + o, cap - o, "no kernel stores ");
            o += describe_tallies(c->note + o, cap - o, none, nnone);
            if (o < cap) o += (size_t)snprintf(c->note + o, cap - o, ": dequantized to f32 (--kernel to choose one); ");
        }
        if (nmoved && o < cap) {
            o += describe_rearranged(c->note + o, cap - o, moved, nmoved, c->rearranged);
            if (o < cap) o += (size_t)snprintf(c->note + o, cap - o, "; ");
        }
        if (o < cap) snprintf(c->note + o, cap - o, "%s", cls);
    } else if (!cls_own || (out && !out_keeps)) {
        snprintf(c->note, cap, "the linear tensors as stored; %s", cls);
    }
    return 0;
}

int bb_kernel_choose(const bb_model_source *m, const bb_tf_dims *d, const char *kernel, const char *out_kernel,
                     bool keep_layout, bb_kernel_choice *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (bb_model_source_format(m) != BB_MODEL_FROM_CONFIG) {
        if (choose_for_file(m, d, kernel, out_kernel, keep_layout, c, err, errlen) == 0) return 0;
        bb_kernel_choice_free(c);
        return -1;
    }
    c->opt.kernel = kernel ? kernel : "f32";
    c->opt.out_kernel = out_kernel ? out_kernel : "f16";
    return 0;
}

void bb_kernel_choice_free(bb_kernel_choice *c)
{
    free(c->tensor_kernels);
    c->tensor_kernels = NULL;
    c->opt.tensor_kernels = NULL;
}
