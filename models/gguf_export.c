/* Exporting a model to GGUF (gguf_export.h). */
#include "gguf_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_names.h"
#include "gguf_types.h"
#include "gguf_write.h"
#include "kernels/kernel.h"
#include "support/timer.h"

/* The targets and their llama_ftype (llama.h; I2_S: bitnet.cpp's fork, LLAMA_FTYPE_MOSTLY_I2_S). */
static const struct { const char *name; uint32_t ftype; } targets[] = {
    {"f32", 0},    {"f16", 1},    {"bf16", 32},   {"q8_0", 7},  {"q4_0", 2},
    {"q2_k", 10},  {"tq1_0", 36}, {"tq2_0", 37},  {"iq4_nl", 25}, {"i2_s", 40},
};
enum { N_TARGETS = sizeof targets / sizeof targets[0] };

static int target_index(const char *name)
{
    for (int i = 0; i < N_TARGETS; i++)
        if (!strcmp(targets[i].name, name)) return i;
    return -1;
}

int bb_gguf_export_type_valid(const char *name) { return name && target_index(name) >= 0; }

const char *bb_gguf_export_types(void)
{
    static char list[128];
    if (!list[0])
        for (int i = 0; i < N_TARGETS; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", targets[i].name);
    return list;
}

/* How one kind of tensor is written: the kernel that packs it and the ggml type that is. */
typedef struct {
    const bb_kernel *kern;
    const bb_ggml_type *type;
    char fallback[160]; /* why it is not its rule's type; "" when it is */
} role_plan;

static bool is_float_kernel(const bb_kernel *k) { return k->plain_rows; }

/* The kernel a role's rule picks for target t (header: tensor types). */
static const char *rule_kernel(const bb_gguf_role *r, const bb_tf_dims *d, const bb_kernel *t)
{
    bool emb = !strcmp(r->engine, "tok_embeddings"), out = !strcmp(r->engine, "wcls") || (emb && d->tied_embedding);
    if (r->linear) return t->name;
    if (!emb && !out) return "f32"; /* norms */
    if (is_float_kernel(t)) return t->name;
    if (t->weights == BB_WEIGHTS_TERNARY) return "f16";
    return out ? "q8_0" : t->name;
}

static int plan_role(const bb_gguf_role *r, const bb_tf_dims *d, const bb_kernel *target, role_plan *p, char *err,
                     size_t errlen)
{
    size_t rows, cols;
    bb_gguf_role_shape(r, d, &rows, &cols);
    const char *name = rule_kernel(r, d, target), *why = NULL;
    p->kern = bb_kernel_by_name(name);
    p->fallback[0] = 0;
    if (p->kern && cols % (size_t)p->kern->k_multiple == 0 && !(p->kern->shape_error && (why = p->kern->shape_error((int)rows, (int)cols)))) {
        p->type = p->kern->gguf_type ? bb_ggml_type_by_name(p->kern->gguf_type) : NULL;
    } else if (p->kern) {
        const bb_ggml_type *ty = bb_ggml_type_by_name(p->kern->gguf_type);
        if (why) snprintf(p->fallback, sizeof p->fallback, "F32 (%s: %s)", ty->name, why);
        else snprintf(p->fallback, sizeof p->fallback, "F32 (%s's block %d does not divide %zu)", ty->name,
                      p->kern->k_multiple, cols);
        p->kern = bb_kernel_by_name("f32");
        p->type = bb_ggml_type_by_id(BB_GGML_F32);
    }
    if (!p->kern || !p->type) {
        snprintf(err, errlen, "kernel '%s' is missing or stores no GGUF type (a build without it?)", name);
        return -1;
    }
    return 0;
}

/* Metadata: architecture, dimensions, file type, vocabulary. */
static int write_metadata(bb_gguf_writer *w, const bb_tf_dims *d, const bb_gguf_export_options *opt, int target,
                          char *err, size_t errlen)
{
    const char *arch = d->style == BB_STYLE_BITNET ? "bitnet" : "llama";
    char key[96];
    int rc = bb_gguf_set_str(w, "general.architecture", arch) || bb_gguf_set_str(w, "general.name", opt->name) ||
             bb_gguf_set_u32(w, "general.file_type", targets[target].ftype) ||
             bb_gguf_set_u32(w, "general.quantization_version", 2);
    for (int i = 0; i < bb_gguf_dim_key_count() && !rc; i++) {
        const bb_gguf_dim_key *k = bb_gguf_dim_key_at(i);
        int v;
        memcpy(&v, (const char *)d + k->offset, sizeof v);
        snprintf(key, sizeof key, "%s.%s", arch, k->key);
        rc = bb_gguf_set_u32(w, key, (uint32_t)v);
    }
    int hd = bb_tf_head_dim(d);
    snprintf(key, sizeof key, "%s.rope.dimension_count", arch);
    rc = rc || bb_gguf_set_u32(w, key, (uint32_t)hd);
    if (!rc && hd * d->n_heads != d->dim) {
        snprintf(key, sizeof key, "%s.attention.key_length", arch);
        rc = bb_gguf_set_u32(w, key, (uint32_t)hd);
        snprintf(key, sizeof key, "%s.attention.value_length", arch);
        rc = rc || bb_gguf_set_u32(w, key, (uint32_t)hd);
    }
    snprintf(key, sizeof key, "%s.rope.freq_base", arch);
    rc = rc || bb_gguf_set_f32(w, key, d->rope_theta > 0 ? d->rope_theta : 10000.0f);
    snprintf(key, sizeof key, "%s.attention.layer_norm_rms_epsilon", arch);
    rc = rc || bb_gguf_set_f32(w, key, d->norm_eps > 0 ? d->norm_eps : 1e-5f);
    snprintf(key, sizeof key, "%s.hidden_activation", arch);
    if (!rc && d->style == BB_STYLE_BITNET && d->ffn_act == BB_FFN_RELU2) rc = bb_gguf_set_str(w, key, "relu2");
    if (rc) return -1;
    if (opt->vocab) return bb_gguf_vocab_write(w, opt->vocab);
    if (opt->vocab_from) {
        for (uint64_t i = 0; i < bb_gguf_kv_count(opt->vocab_from); i++) {
            const bb_gguf_kv *kv = bb_gguf_kv_at(opt->vocab_from, i);
            if (kv->key.len > 10 && !memcmp(kv->key.ptr, "tokenizer.", 10) && bb_gguf_copy_kv(w, kv)) return -1;
        }
        return 0;
    }
    bb_gguf_vocab v;
    if (bb_gguf_vocab_byte_level(d->vocab_size, &v, err, errlen)) return -2;
    rc = bb_gguf_vocab_write(w, &v);
    bb_gguf_vocab_free(&v);
    return rc;
}

/* What the file format cannot say about a model. */
static int check_dims(const bb_tf_dims *d, char *err, size_t errlen)
{
    char e[256];
    if (bb_tf_dims_check(d, e, sizeof e)) {
        snprintf(err, errlen, "%s", e);
        return -1;
    }
    if (d->style == BB_STYLE_LLAMA && (d->sub_norms || d->ffn_act != BB_FFN_SILU)) {
        snprintf(err, errlen, "llama.cpp's llama architecture has no %s; only bitnet models have them",
                 d->sub_norms ? "sub-norms" : "squared-ReLU FFN");
        return -1;
    }
    if (d->style == BB_STYLE_BITNET && !d->sub_norms) {
        snprintf(err, errlen, "llama.cpp's bitnet architecture always has sub-norms; this bitnet model has none");
        return -1;
    }
    return 0;
}

static bool is_norm(const bb_gguf_role *r)
{
    return !r->linear && strcmp(r->engine, "tok_embeddings") && strcmp(r->engine, "wcls");
}

typedef struct {
    bb_gguf_writer *w;
    const char *path;
    const bb_tf_dims *d;
    const bb_weight_source *src;
    role_plan plan[16]; /* by role index */
    bb_gguf_export_report *rep;
} exporter;

/* Bitnet's Q and K rows go to the file in NEOX order (gguf_names.h), whole packed rows at a time;
 * a per-tensor trailer (I2_S's scale) stays where it is. */
static int permute_rows(uint8_t *packed, size_t rows, size_t row_bytes, size_t hd)
{
    uint8_t *tmp = malloc(rows * row_bytes);
    if (!tmp) return -1;
    for (size_t r = 0; r < rows; r++) memcpy(tmp + bb_gguf_neox_file_row(r, hd) * row_bytes, packed + r * row_bytes, row_bytes);
    memcpy(packed, tmp, rows * row_bytes);
    free(tmp);
    return 0;
}

/* Pack rows [r0, r0 + n) of w (cols wide) into dst. */
static int pack_rows(const role_plan *p, const float *w, size_t r0, size_t n, size_t cols, void *dst, char *err,
                     size_t errlen)
{
    bb_weights bw = {.m = (int)n, .k = (int)cols, .f32 = w + r0 * cols};
    return bb_kernel_pack(p->kern, &bw, dst, err, errlen);
}

/* Pack the tensor's f32 weights and write its GGUF bytes: row-independent types in slices of
 * rows, ternary types (one scale over the whole tensor) and permuted ones whole. */
static int pack_and_write(exporter *x, const role_plan *p, const float *w, size_t rows, size_t cols, bool neox,
                          uint64_t bytes, char *err, size_t errlen)
{
    const bb_kernel *k = p->kern;
    size_t row_bytes = cols / p->type->block * p->type->block_bytes;
    bool sliced = !neox && k->weights != BB_WEIGHTS_TERNARY && k->packed_size(1, (int)cols) == row_bytes &&
                  rows * row_bytes == bytes;
    size_t step = sliced ? ((size_t)8 << 20) / (cols * sizeof(float)) : rows;
    if (step < 1) step = 1;
    if (step > rows) step = rows;
    size_t packed_bytes = k->packed_size((int)step, (int)cols);
    if (!sliced && packed_bytes < bytes) {
        snprintf(err, errlen, "kernel %s packs %zu bytes, fewer than the %s tensor's %llu", k->name, packed_bytes,
                 p->type->name, (unsigned long long)bytes);
        return -1;
    }
    uint8_t *packed = malloc(packed_bytes);
    if (!packed) {
        snprintf(err, errlen, "out of memory for %zu packed bytes", packed_bytes);
        return -1;
    }
    int rc = 0;
    for (size_t r0 = 0; r0 < rows && !rc; r0 += step) {
        size_t n = rows - r0 < step ? rows - r0 : step;
        rc = pack_rows(p, w, r0, n, cols, packed, err, errlen);
        if (!rc && neox && permute_rows(packed, rows, row_bytes, (size_t)bb_tf_head_dim(x->d))) {
            snprintf(err, errlen, "out of memory permuting rows");
            rc = -1;
        }
        if (!rc && bb_gguf_write_data(x->w, packed, sliced ? n * row_bytes : (size_t)bytes)) rc = -2;
    }
    free(packed);
    return rc;
}

static void count_type(bb_gguf_export_report *rep, const char *type, uint64_t bytes)
{
    int i = 0;
    while (i < rep->n_types && strcmp(rep->per_type[i].type, type)) i++;
    if (i == rep->n_types) {
        if (i == BB_GGUF_EXPORT_MAX_TYPES) return; /* cannot happen: norms, target, output, fallback */
        snprintf(rep->per_type[i].type, sizeof rep->per_type[i].type, "%s", type);
        rep->n_types++;
    }
    rep->per_type[i].tensors++;
    rep->per_type[i].bytes += bytes;
    rep->n_tensors++;
}

/* A tensor the source stores in the planned type is written as it is (export(read(x)) == x):
 * 1 when done, 0 when the source has no such form, -1 on error. */
static int copy_stored(exporter *x, const bb_gguf_role *r, const role_plan *p, int layer, bool neox, uint64_t bytes,
                       char *err, size_t errlen)
{
    bb_stored_tensor st;
    if (!x->src->stored || x->src->stored(x->src->ctx, r->engine, r->global ? -1 : layer, &st) ||
        st.out_scale != 1.0f || strcmp(st.type, p->type->name) || st.bytes != bytes)
        return 0;
    if (!neox) return bb_gguf_write_data(x->w, st.data, st.bytes) ? -2 : 1;
    size_t rows, cols;
    bb_gguf_role_shape(r, x->d, &rows, &cols);
    size_t row_bytes = cols / p->type->block * p->type->block_bytes;
    uint8_t *copy = malloc(st.bytes);
    int rc = copy ? 1 : -1;
    if (copy) {
        memcpy(copy, st.data, st.bytes);
        if (permute_rows(copy, rows, row_bytes, (size_t)bb_tf_head_dim(x->d))) rc = -1;
    }
    if (rc < 0) snprintf(err, errlen, "out of memory for %zu bytes", st.bytes);
    else if (bb_gguf_write_data(x->w, copy, st.bytes)) rc = -2;
    free(copy);
    return rc;
}

/* Fetch, pack and write one tensor; errors name it. */
static int write_tensor(exporter *x, int role, int layer, char *err, size_t errlen)
{
    const bb_gguf_role *r = bb_gguf_role_at(role);
    const role_plan *p = &x->plan[role];
    size_t rows, cols;
    bb_gguf_role_shape(r, x->d, &rows, &cols);
    uint64_t bytes;
    const char *name = bb_gguf_writer_current(x->w, &bytes);
    char e[512];
    bool neox = bb_gguf_arch_neox(x->d->style) && (!strcmp(r->engine, "wq") || !strcmp(r->engine, "wk"));
    int rc = copy_stored(x, r, p, layer, neox, bytes, e, sizeof e);
    if (rc == 1) {
        rc = 0;
    } else if (rc == 0) {
        float *w = malloc(rows * cols * sizeof *w);
        rc = -1;
        if (!w) snprintf(e, sizeof e, "out of memory for %zu x %zu floats", rows, cols);
        else if (!x->src->get(x->src->ctx, r->engine, r->global ? -1 : layer, w, rows * cols, e, sizeof e))
            rc = pack_and_write(x, p, w, rows, cols, neox, bytes, e, sizeof e);
        free(w);
    }
    if (rc == -2) snprintf(err, errlen, "%s", bb_gguf_writer_error(x->w));
    else if (rc) snprintf(err, errlen, "%s: tensor '%s': %s", x->path, name, e);
    else count_type(x->rep, p->type->name, bytes);
    return rc ? -1 : 0;
}

/* Declare every tensor (per_layer false: the global ones, true: one layer's) or write them. */
static int each_tensor(exporter *x, bool write, char *err, size_t errlen)
{
    for (int layer = -1; layer < x->d->n_layers; layer++)
        for (int i = 0; i < bb_gguf_role_count(); i++) {
            const bb_gguf_role *r = bb_gguf_role_at(i);
            if (r->global != (layer < 0) || !bb_gguf_role_present(r, x->d)) continue;
            if (write) {
                if (write_tensor(x, i, layer, err, errlen)) return -1;
                continue;
            }
            size_t rows, cols;
            bb_gguf_role_shape(r, x->d, &rows, &cols);
            uint64_t ne[2] = {cols, rows};
            char name[96];
            bb_gguf_tensor_name(name, sizeof name, r, layer, "weight");
            if (bb_gguf_add_tensor(x->w, name, x->plan[i].type->id, is_norm(r) ? 1 : 2, ne)) {
                snprintf(err, errlen, "%s", bb_gguf_writer_error(x->w));
                return -1;
            }
        }
    return 0;
}

static int plan_all(exporter *x, const bb_kernel *target, char *err, size_t errlen)
{
    size_t used = 0;
    for (int i = 0; i < bb_gguf_role_count(); i++) {
        const bb_gguf_role *r = bb_gguf_role_at(i);
        if (!bb_gguf_role_present(r, x->d)) continue;
        if (plan_role(r, x->d, target, &x->plan[i], err, errlen)) return -1;
        if (!x->plan[i].fallback[0] || used >= sizeof x->rep->fallbacks) continue;
        size_t rows, cols;
        bb_gguf_role_shape(r, x->d, &rows, &cols);
        int n = r->global ? 1 : x->d->n_layers;
        used += (size_t)snprintf(x->rep->fallbacks + used, sizeof x->rep->fallbacks - used,
                                 "%s%s%s.weight [%zu, %zu]: %s, %d tensor%s", used ? "\n" : "", r->global ? "" : "blk.*.",
                                 r->file, cols, rows, x->plan[i].fallback, n, n == 1 ? "" : "s");
    }
    return 0;
}

int bb_gguf_export(const char *path, const bb_tf_dims *d, const bb_weight_source *src,
                   const bb_gguf_export_options *opt, bb_gguf_export_report *rep, char *err, size_t errlen)
{
    memset(rep, 0, sizeof *rep);
    double t0 = bb_now();
    int target = opt->type ? target_index(opt->type) : -1;
    if (target < 0) {
        snprintf(err, errlen, "type '%s' cannot be exported; valid: %s", opt->type ? opt->type : "(none)",
                 bb_gguf_export_types());
        return -1;
    }
    char e[512];
    if (check_dims(d, e, sizeof e)) {
        snprintf(err, errlen, "%s: %s", path, e);
        return -1;
    }
    exporter x = {.path = path, .d = d, .src = src, .rep = rep};
    if (plan_all(&x, bb_kernel_by_name(opt->type), e, sizeof e)) {
        snprintf(err, errlen, "%s: %s", path, e);
        return -1;
    }
    if (!(x.w = bb_gguf_writer_create(path, err, errlen))) return -1;
    int rc = write_metadata(x.w, d, opt, target, e, sizeof e);
    if (rc == -2) snprintf(err, errlen, "%s: %s", path, e);
    else if (rc) snprintf(err, errlen, "%s", bb_gguf_writer_error(x.w));
    if (!rc) rc = each_tensor(&x, false, err, errlen);
    if (!rc) rep->file_bytes = bb_gguf_writer_file_size(x.w);
    if (!rc) rc = each_tensor(&x, true, err, errlen);
    if (rc) {
        bb_gguf_writer_abort(x.w);
        return -1;
    }
    if (bb_gguf_writer_finish(x.w, err, errlen)) return -1;
    rep->seconds = bb_now() - t0;
    return 0;
}
