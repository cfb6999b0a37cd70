/* GGUF models for the engine (gguf_source.h). */
#include "gguf_source.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_names.h"
#include "gguf_types.h"
#include "weights_finite.h"

struct bb_gguf_model {
    bb_gguf *g;
    char arch[16];
    bb_tf_dims d;
    bool neox;  /* RoPE on pairs (i, i + head_dim/2): wq and wk rows are permuted (see the header) */
    void *rows; /* the permuted tensor handed out last, sized for the largest wq / wk */
};

/* NEOX pairs (i, i + hd/2) become the engine's adjacent pairs (2i, 2i+1) (gguf_names.h). */
static void permute_rows(const bb_gguf_model *m, const void *from, void *to, size_t rows, size_t row_bytes)
{
    size_t hd = (size_t)bb_tf_head_dim(&m->d);
    for (size_t r = 0; r < rows; r++)
        memcpy((char *)to + r * row_bytes, (const char *)from + bb_gguf_neox_file_row(r, hd) * row_bytes, row_bytes);
}

/* A required positive integer key ARCH.what, or the default when dflt > 0 and it is absent. */
static int meta_int(const bb_gguf *g, const char *arch, const char *what, int dflt, int *out, char *err, size_t errlen)
{
    char key[128];
    uint32_t v;
    snprintf(key, sizeof key, "%s.%s", arch, what);
    int rc = bb_gguf_get_u32(g, key, &v, err, errlen);
    if (rc == BB_GGUF_MISSING && dflt > 0) {
        *out = dflt;
        return 0;
    }
    if (rc) return -1;
    if (v < 1 || v > (1u << 24)) {
        snprintf(err, errlen, "%s: metadata key '%s' = %u: must be in [1, 16777216]", bb_gguf_path(g), key, v);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int meta_float(const bb_gguf *g, const char *arch, const char *what, float dflt, float *out, char *err,
                      size_t errlen)
{
    char key[128];
    snprintf(key, sizeof key, "%s.%s", arch, what);
    int rc = bb_gguf_get_f32(g, key, out, err, errlen);
    if (rc == BB_GGUF_MISSING) *out = dflt;
    else if (rc) return -1;
    /* an f64 beyond FLT_MAX arrives here as inf; an infinite RoPE base or epsilon is as
     * meaningless as NaN (transformer_build.c, bb_tf_dims_check) */
    if (!(*out > 0 && isfinite(*out))) {
        snprintf(err, errlen, "%s: metadata key '%s' = %g: must be a finite positive number", bb_gguf_path(g), key,
                 (double)*out);
        return -1;
    }
    return 0;
}

/* bitnet's FFN activation: "relu2" or "silu" (default). */
static int read_activation(bb_gguf_model *m, char *err, size_t errlen)
{
    char key[64];
    bb_gguf_str s;
    snprintf(key, sizeof key, "%s.hidden_activation", m->arch);
    int rc = bb_gguf_get_str(m->g, key, &s, err, errlen);
    m->d.ffn_act = BB_FFN_SILU;
    if (rc == BB_GGUF_MISSING) return 0;
    if (rc) return -1;
    if (s.len == 5 && !memcmp(s.ptr, "relu2", 5)) m->d.ffn_act = BB_FFN_RELU2;
    else if (!(s.len == 4 && !memcmp(s.ptr, "silu", 4))) {
        snprintf(err, errlen, "%s: metadata key '%s' = '%.*s': valid are relu2, silu", bb_gguf_path(m->g), key,
                 (int)(s.len > 32 ? 32 : s.len), s.ptr);
        return -1;
    }
    return 0;
}

/* The file's own vocabulary (when it has one) against the model's: token_embd.weight's rows and
 * the classifier's are vocab_size (check_tensors), so the token list must have as many entries.
 * Fewer, and the model can emit ids the tokenizer cannot print; more, and the tokenizer hands
 * the engine ids past the embedding.  llama.cpp sizes token_embd from the token list and
 * refuses any other shape ("wrong shape"), so such a file does not run there either. */
static int check_vocab_rows(const bb_gguf *g, const char *arch, int vocab_size, char *err, size_t errlen)
{
    bb_gguf_array tokens;
    char e[256];
    if (bb_gguf_get_array(g, "tokenizer.ggml.tokens", BB_GGUF_STRING, &tokens, e, sizeof e)) return 0;
    if (tokens.count == (uint64_t)vocab_size) return 0;
    snprintf(err, errlen, "%s: tokenizer.ggml.tokens has %llu entries, but the model's vocabulary (%s.vocab_size or "
             "token_embd.weight's rows) is %d; they must be equal, one embedding row per token", bb_gguf_path(g),
             (unsigned long long)tokens.count, arch, vocab_size);
    return -1;
}

/* RoPE scaling, which bitbench does not implement: llama.cpp reads ARCH.rope.scaling.type,
 * ARCH.rope.scaling.factor (or the older ARCH.rope.scale_linear; 0 means 1) and multiplies
 * every rotation angle by 1/factor, and a rope_freqs.weight tensor (Llama 3.1's frequency
 * factors) divides each pair's frequency by its own factor.  Ignoring either runs the model
 * with other positions than it was trained on, so a file that asks for one is refused; the
 * identity (type "none", factor 0 or 1) is accepted. */
static int check_rope_scaling(const bb_gguf *g, const char *arch, char *err, size_t errlen)
{
    static const char *const factors[] = {"rope.scaling.factor", "rope.scale_linear"};
    char key[128];
    for (size_t i = 0; i < sizeof factors / sizeof *factors; i++) {
        float f;
        snprintf(key, sizeof key, "%s.%s", arch, factors[i]);
        int rc = bb_gguf_get_f32(g, key, &f, err, errlen);
        if (rc == BB_GGUF_MISSING) continue;
        if (rc) return -1;
        if (!(f == 0 || f == 1)) {
            snprintf(err, errlen, "%s: metadata key '%s' = %g: bitbench does not implement RoPE scaling (valid: 0 or 1, "
                     "no scaling)", bb_gguf_path(g), key, (double)f);
            return -1;
        }
    }
    bb_gguf_str s;
    snprintf(key, sizeof key, "%s.rope.scaling.type", arch);
    int rc = bb_gguf_get_str(g, key, &s, err, errlen);
    if (rc != BB_GGUF_MISSING) {
        if (rc) return -1;
        if (!(s.len == 4 && !memcmp(s.ptr, "none", 4))) {
            snprintf(err, errlen, "%s: metadata key '%s' = '%.*s': bitbench does not implement RoPE scaling (valid: none)",
                     bb_gguf_path(g), key, (int)(s.len > 32 ? 32 : s.len), s.ptr);
            return -1;
        }
    }
    if (bb_gguf_find_tensor(g, "rope_freqs.weight")) {
        snprintf(err, errlen, "%s: tensor 'rope_freqs.weight' (RoPE frequency factors, Llama 3.1 scaling): bitbench does "
                 "not implement RoPE scaling", bb_gguf_path(g));
        return -1;
    }
    return 0;
}

static int read_dims(bb_gguf_model *m, char *err, size_t errlen)
{
    bb_tf_dims *d = &m->d;
    const char *a = m->arch;
    const bb_gguf *g = m->g;
    if (meta_int(g, a, "context_length", 0, &d->seq_len, err, errlen) ||
        meta_int(g, a, "embedding_length", 0, &d->dim, err, errlen) ||
        meta_int(g, a, "block_count", 0, &d->n_layers, err, errlen) ||
        meta_int(g, a, "feed_forward_length", 0, &d->hidden_dim, err, errlen) ||
        meta_int(g, a, "attention.head_count", 0, &d->n_heads, err, errlen) ||
        meta_int(g, a, "attention.head_count_kv", d->n_heads, &d->n_kv_heads, err, errlen))
        return -1;
    int hd = d->dim % d->n_heads ? 0 : d->dim / d->n_heads, vhd, rot;
    if (meta_int(g, a, "attention.key_length", hd, &d->head_dim, err, errlen) ||
        meta_int(g, a, "attention.value_length", d->head_dim, &vhd, err, errlen) ||
        meta_int(g, a, "rope.dimension_count", d->head_dim, &rot, err, errlen))
        return -1;
    if (vhd != d->head_dim || rot != d->head_dim) {
        snprintf(err, errlen, "%s: %s.attention.value_length = %d and %s.rope.dimension_count = %d must equal the head "
                 "dimension %d (partial rotation and unequal K/V heads are not supported)", bb_gguf_path(g), a, vhd, a,
                 rot, d->head_dim);
        return -1;
    }
    if (meta_float(g, a, "attention.layer_norm_rms_epsilon", 1e-5f, &d->norm_eps, err, errlen) ||
        meta_float(g, a, "rope.freq_base", 10000.0f, &d->rope_theta, err, errlen) ||
        check_rope_scaling(g, a, err, errlen))
        return -1;
    const bb_gguf_tensor *emb = bb_gguf_find_tensor(g, "token_embd.weight");
    int rows = emb && emb->n_dims == 2 && emb->ne[1] <= (1u << 24) ? (int)emb->ne[1] : 0;
    if (meta_int(g, a, "vocab_size", rows, &d->vocab_size, err, errlen)) {
        if (!rows) snprintf(err, errlen, "%s: no %s.vocab_size and no 2-D token_embd.weight to take it from",
                            bb_gguf_path(g), a);
        return -1;
    }
    if (check_vocab_rows(g, a, d->vocab_size, err, errlen)) return -1;
    d->style = strcmp(a, "bitnet") ? BB_STYLE_LLAMA : BB_STYLE_BITNET;
    m->neox = bb_gguf_arch_neox(d->style);
    d->sub_norms = d->style == BB_STYLE_BITNET;
    d->tied_embedding = bb_gguf_find_tensor(g, "output.weight") == NULL;
    if (d->style == BB_STYLE_BITNET && read_activation(m, err, errlen)) return -1;
    char e[256];
    if (bb_tf_dims_check(d, e, sizeof e)) {
        snprintf(err, errlen, "%s: %s", bb_gguf_path(g), e);
        return -1;
    }
    return 0;
}

/* One tensor present, shaped as the metadata says, decodable; a scale beside it has 1 element. */
static int check_tensor(const bb_gguf_model *m, const bb_gguf_role *r, int layer, char *err, size_t errlen)
{
    char name[96], why[96];
    size_t rows, cols;
    bb_gguf_role_shape(r, &m->d, &rows, &cols);
    uint64_t ne[2] = {cols, rows};
    bb_gguf_tensor_name(name, sizeof name, r, layer, "weight");
    snprintf(why, sizeof why, "from the %s.* metadata", m->arch);
    if (bb_gguf_expect_tensor(m->g, name, rows > 1 ? 2 : 1, ne, why, err, errlen)) return -1;
    const bb_gguf_tensor *t = bb_gguf_find_tensor(m->g, name);
    const bb_ggml_type *ty = bb_ggml_type_by_id(t->type);
    if (!ty->decodes) {
        snprintf(err, errlen, "%s: tensor '%s' has type %s, which bitbench cannot read (readable: %s)",
                 bb_gguf_path(m->g), name, ty->name, bb_ggml_decoded_types());
        return -1;
    }
    bb_gguf_tensor_name(name, sizeof name, r, layer, "scale");
    const bb_gguf_tensor *s = bb_gguf_find_tensor(m->g, name);
    if (s && (s->n_elements != 1 || s->type != BB_GGML_F32)) {
        snprintf(err, errlen, "%s: tensor '%s' must be one F32 value (a per-tensor scale)", bb_gguf_path(m->g), name);
        return -1;
    }
    return 0;
}

/* The block number of a tensor named "blk.N.*", or -1 for other names (and -2 for a "blk."
 * name without a number: no block at all). */
static long block_of(const char *name)
{
    if (strncmp(name, "blk.", 4)) return -1;
    long n = 0;
    const char *p = name + 4;
    if (*p < '0' || *p > '9') return -2;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((n = n * 10 + (*p - '0')) > (1L << 24)) return (1L << 24) + 1;
    return *p == '.' ? n : -2;
}

/* ARCH.block_count against the blocks the tensors belong to.  llama.cpp refuses both ways: it
 * asks for every tensor of blocks 0 .. block_count-1 ("missing tensor"), and a tensor it never
 * asked for fails its count ("wrong number of tensors").  A file with more blocks than it
 * declares would otherwise run as a shallower model than the one shared, silently. */
static int check_blocks(const bb_gguf_model *m, char *err, size_t errlen)
{
    long last = -1;
    for (uint64_t i = 0; i < bb_gguf_tensor_count(m->g); i++) {
        const char *name = bb_gguf_tensor_at(m->g, i)->name;
        long b = block_of(name);
        if (b == -2) {
            snprintf(err, errlen, "%s: tensor '%.80s' starts with 'blk.' but names no block (valid: blk.N.<name>)",
                     bb_gguf_path(m->g), name);
            return -1;
        }
        if (b >= m->d.n_layers) {
            snprintf(err, errlen, "%s: tensor '%.80s' belongs to block %ld, but %s.block_count = %d (valid blocks: 0 .. %d)",
                     bb_gguf_path(m->g), name, b, m->arch, m->d.n_layers, m->d.n_layers - 1);
            return -1;
        }
        if (b > last) last = b;
    }
    if (last + 1 < m->d.n_layers) {
        char have[48] = "no block tensors";
        if (last >= 0) snprintf(have, sizeof have, "tensors up to block %ld", last);
        snprintf(err, errlen, "%s: %s.block_count = %d, but the file has %s (blk.%ld.* is missing); the two must agree",
                 bb_gguf_path(m->g), m->arch, m->d.n_layers, have, last + 1);
        return -1;
    }
    return 0;
}

static int check_tensors(const bb_gguf_model *m, char *err, size_t errlen)
{
    for (int layer = -1; layer < m->d.n_layers; layer++)
        for (int i = 0; i < bb_gguf_role_count(); i++) {
            const bb_gguf_role *r = bb_gguf_role_at(i);
            if (r->global != (layer < 0) || !bb_gguf_role_present(r, &m->d)) continue;
            if (check_tensor(m, r, layer, err, errlen)) return -1;
        }
    return 0;
}

bb_gguf_model *bb_gguf_model_open(const char *path, char *err, size_t errlen)
{
    bb_gguf_model *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (!(m->g = bb_gguf_open(path, err, errlen))) goto fail;
    bb_gguf_str a;
    if (bb_gguf_get_str(m->g, "general.architecture", &a, err, errlen)) goto fail;
    if (!((a.len == 5 && !memcmp(a.ptr, "llama", 5)) || (a.len == 6 && !memcmp(a.ptr, "bitnet", 6)))) {
        snprintf(err, errlen, "%s: general.architecture = '%.*s' is not supported; valid: llama, bitnet", path,
                 (int)(a.len > 40 ? 40 : a.len), a.ptr);
        goto fail;
    }
    memcpy(m->arch, a.ptr, a.len);
    if (read_dims(m, err, errlen) || check_blocks(m, err, errlen) || check_tensors(m, err, errlen)) goto fail;
    if (m->neox) { /* wq is the larger of wq and wk, the same in every layer */
        const bb_gguf_tensor *q = bb_gguf_find_tensor(m->g, "blk.0.attn_q.weight");
        size_t bytes = sizeof(float) * q->n_elements > q->n_bytes ? sizeof(float) * q->n_elements : q->n_bytes;
        if (!(m->rows = malloc(bytes))) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
    }
    return m;
fail:
    bb_gguf_model_close(m);
    return NULL;
}

void bb_gguf_model_close(bb_gguf_model *m)
{
    if (!m) return;
    bb_gguf_close(m->g);
    free(m->rows);
    free(m);
}

const bb_tf_dims *bb_gguf_model_dims(const bb_gguf_model *m) { return &m->d; }
const char *bb_gguf_model_arch(const bb_gguf_model *m) { return m->arch; }
const bb_gguf *bb_gguf_model_file(const bb_gguf_model *m) { return m->g; }

/* The tensor for an engine name, and its scale (1 when it has none). */
static const bb_gguf_tensor *lookup(const bb_gguf_model *m, const char *engine, int layer, float *scale, char *err,
                                    size_t errlen)
{
    const bb_gguf_role *r = bb_gguf_role_of(engine);
    char name[96];
    if (!r || !bb_gguf_role_present(r, &m->d)) {
        snprintf(err, errlen, "%s: the model has no tensor for '%s'", bb_gguf_path(m->g), engine);
        return NULL;
    }
    bb_gguf_tensor_name(name, sizeof name, r, layer, "scale");
    const bb_gguf_tensor *s = bb_gguf_find_tensor(m->g, name);
    *scale = 1.0f;
    if (s) memcpy(scale, s->data, sizeof(float));
    bb_gguf_tensor_name(name, sizeof name, r, layer, "weight");
    const bb_gguf_tensor *t = bb_gguf_find_tensor(m->g, name);
    if (!t) snprintf(err, errlen, "%s: tensor '%s' is missing", bb_gguf_path(m->g), name);
    return t;
}

static int get(void *ctx, const char *engine, int layer, float *dst, size_t count, char *err, size_t errlen)
{
    bb_gguf_model *m = ctx;
    float scale;
    const bb_gguf_tensor *t = lookup(m, engine, layer, &scale, err, errlen);
    if (!t) return -1;
    if (t->n_elements != count) {
        snprintf(err, errlen, "%s: tensor '%s' has %llu values, the engine asked for %zu", bb_gguf_path(m->g), t->name,
                 (unsigned long long)t->n_elements, count);
        return -1;
    }
    if (bb_gguf_decode_rows(m->g, t, 0, t->n_elements / t->ne[0], dst, err, errlen)) return -1;
    if (scale != 1.0f)
        for (size_t i = 0; i < count; i++) dst[i] *= scale;
    if (bb_weights_check_finite(bb_gguf_path(m->g), t->name, -1, dst, count, 0, err, errlen)) return -1;
    if (m->neox && (!strcmp(engine, "wq") || !strcmp(engine, "wk"))) {
        memcpy(m->rows, dst, sizeof(float) * count);
        permute_rows(m, m->rows, dst, count / t->ne[0], sizeof(float) * t->ne[0]);
    }
    return 0;
}

/* Are the tensor's values (decoded a slice of rows at a time) and its scale finite? */
static bool decodes_finite(const bb_gguf_model *m, const bb_gguf_tensor *t, float scale)
{
    if (!isfinite(scale)) return false;
    uint64_t rows = t->n_elements / t->ne[0], step = t->ne[0] >= 65536 ? 1 : 65536 / t->ne[0];
    float *buf = malloc(sizeof(float) * step * t->ne[0]);
    char err[256];
    bool ok = buf != NULL;
    for (uint64_t r = 0; ok && r < rows; r += step) {
        uint64_t n = rows - r < step ? rows - r : step;
        ok = bb_gguf_decode_rows(m->g, t, r, n, buf, err, sizeof err) == 0 &&
             bb_weights_check_finite("", t->name, -1, buf, n * t->ne[0], 0, err, sizeof err) == 0;
    }
    free(buf);
    return ok;
}

static int stored(void *ctx, const char *engine, int layer, bb_stored_tensor *out)
{
    bb_gguf_model *m = ctx;
    char err[256];
    float scale;
    const bb_gguf_tensor *t = lookup(m, engine, layer, &scale, err, sizeof err);
    if (!t) return -1;
    /* non-finite bytes are not handed over as they are: get() then decodes them and names the
     * tensor in its refusal (weights_finite.h) */
    if (!bb_weights_nonfinite_allowed() && !decodes_finite(m, t, scale)) return -1;
    out->data = t->data;
    out->bytes = t->n_bytes;
    if (m->neox && (!strcmp(engine, "wq") || !strcmp(engine, "wk"))) {
        /* whole rows move; a per-tensor trailer (I2_S's scale) stays after them */
        size_t rows = t->n_elements / t->ne[0], row_bytes = (size_t)(t->ne[0] / bb_ggml_type_by_id(t->type)->block) *
                                                            bb_ggml_type_by_id(t->type)->block_bytes;
        permute_rows(m, t->data, m->rows, rows, row_bytes);
        memcpy((char *)m->rows + rows * row_bytes, (const char *)t->data + rows * row_bytes, t->n_bytes - rows * row_bytes);
        out->data = m->rows;
    }
    out->type = bb_ggml_type_by_id(t->type)->name;
    out->out_scale = scale;
    return 0;
}

bb_weight_source bb_gguf_model_source(bb_gguf_model *m)
{
    bb_weight_source s = {.ctx = m, .get = get, .stored = stored};
    return s;
}
