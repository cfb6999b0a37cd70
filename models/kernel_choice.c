/* The kernel of every linear tensor and of the classifier (kernel_choice.h). */
#include "kernel_choice.h"

#include <ctype.h>
#include <stdbool.h>
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

/* The stored ggml type of an engine tensor of a model file ("F32" for a llama2.c checkpoint). */
static const char *stored_type(const bb_model_source *m, const char *engine, int layer)
{
    const bb_gguf *g = bb_model_source_gguf(m);
    if (!g) return "F32";
    const bb_gguf_role *r = bb_gguf_role_of(engine);
    char name[96];
    bb_gguf_tensor_name(name, sizeof name, r, layer, "weight");
    const bb_gguf_tensor *t = bb_gguf_find_tensor(g, name);
    const bb_ggml_type *ty = t ? bb_ggml_type_by_id(t->type) : NULL;
    return ty ? ty->name : "F32"; /* the model's checks found every tensor (gguf_source.c) */
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

static int resolve(const char *what, const char *spec, const bb_kernel **kern, char *err, size_t errlen)
{
    const bb_variant *var;
    char e[1024];
    if (!bb_kernel_resolve(spec, kern, &var, e, sizeof e)) return 0;
    snprintf(err, errlen, "%s: %s", what, e);
    return -1;
}

/* A model file: every tensor's kernel from its type and the options. */
static int choose_for_file(const bb_model_source *m, const bb_tf_dims *d, const char *kernel, const char *out_kernel,
                           bb_kernel_choice *c, char *err, size_t errlen)
{
    const bb_kernel *given = NULL, *out = NULL;
    if (kernel && resolve("kernel", kernel, &given, err, errlen)) return -1;
    if (out_kernel && resolve("output kernel", out_kernel, &out, err, errlen)) return -1;
    size_t n = (size_t)d->n_layers * BB_TF_LINEARS;
    if (!(c->tensor_kernels = malloc(n * sizeof *c->tensor_kernels))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    type_tally changed[MAX_TALLIES], none[MAX_TALLIES];
    int nchanged = 0, nnone = 0;
    for (int l = 0; l < d->n_layers; l++)
        for (int i = 0; i < BB_TF_LINEARS; i++) {
            const char *type = stored_type(m, linear_names[i], l), *own = bb_kernel_for_ggml_type(type);
            const char **k = &c->tensor_kernels[(size_t)l * BB_TF_LINEARS + i];
            if (given) {
                *k = kernel;
                if (!keeps(given, type)) tally(changed, &nchanged, type, i);
            } else if (own) {
                *k = own;
            } else { /* no kernel stores the type: its exact values in f32 */
                *k = "f32";
                tally(none, &nnone, type, i);
            }
        }
    const char *cls_name = d->tied_embedding ? "tok_embeddings" : "wcls";
    const char *cls_type = stored_type(m, cls_name, -1), *cls_own = bb_kernel_for_ggml_type(cls_type);
    c->opt.kernel = kernel ? kernel : BB_KERNEL_AS_STORED;
    c->opt.out_kernel = out_kernel ? out_kernel : cls_own ? cls_own : "f32";
    c->opt.tensor_kernels = c->tensor_kernels;
    for (int i = 0; i < nchanged; i++) c->requantized += changed[i].count;
    for (int i = 0; i < nnone; i++) c->requantized += none[i].count;

    size_t o = 0, cap = sizeof c->note;
    char cls[160];
    if (out && !keeps(out, cls_type))
        snprintf(cls, sizeof cls, "the classifier (%s %s) goes through --out-kernel %s", file_name(cls_name), cls_type,
                 out_kernel);
    else if (out)
        snprintf(cls, sizeof cls, "the classifier (%s) stays %s", file_name(cls_name), cls_type);
    else if (!cls_own)
        snprintf(cls, sizeof cls, "the classifier (%s) is %s, which no kernel stores: dequantized to f32 "
                 "(--out-kernel to change it)", file_name(cls_name), cls_type);
    else
        snprintf(cls, sizeof cls, "the classifier (%s) stays %s (--out-kernel to change it)", file_name(cls_name),
                 cls_type);
    if (nchanged) {
        o += (size_t)snprintf(c->note + o, cap - o, "--kernel %s requantizes %d tensors: ", kernel, c->requantized);
        o += describe_tallies(c->note + o, cap - o, changed, nchanged);
        if (o < cap) snprintf(c->note + o, cap - o, "; %s", cls);
    } else if (nnone) {
        o += (size_t)snprintf(c->note + o, cap - o, "no kernel stores ");
        o += describe_tallies(c->note + o, cap - o, none, nnone);
        if (o < cap) snprintf(c->note + o, cap - o, ": dequantized to f32 (--kernel to choose one); %s", cls);
    } else if (given || !cls_own || (out && !keeps(out, cls_type))) {
        if (given) snprintf(c->note, cap, "--kernel %s uses every linear tensor as stored; %s", kernel, cls);
        else snprintf(c->note, cap, "the linear tensors as stored; %s", cls);
    }
    return 0;
}

int bb_kernel_choose(const bb_model_source *m, const bb_tf_dims *d, const char *kernel, const char *out_kernel,
                     bb_kernel_choice *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (bb_model_source_format(m) != BB_MODEL_FROM_CONFIG) {
        if (choose_for_file(m, d, kernel, out_kernel, c, err, errlen) == 0) return 0;
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
