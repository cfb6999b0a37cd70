/* llama.cpp's tensor and metadata names (gguf_names.h). */
#include "gguf_names.h"

#include <stdio.h>
#include <string.h>

static const bb_gguf_role roles[] = {
    {"tok_embeddings", "token_embd", true, false, false},
    {"rms_final", "output_norm", true, false, false},
    {"wcls", "output", true, false, false},
    {"rms_att", "attn_norm", false, false, false},
    {"wq", "attn_q", false, true, false},
    {"wk", "attn_k", false, true, false},
    {"wv", "attn_v", false, true, false},
    {"attn_sub_norm", "attn_sub_norm", false, false, true},
    {"wo", "attn_output", false, true, false},
    {"rms_ffn", "ffn_norm", false, false, false},
    {"w1", "ffn_gate", false, true, false},
    {"w3", "ffn_up", false, true, false},
    {"ffn_sub_norm", "ffn_sub_norm", false, false, true},
    {"w2", "ffn_down", false, true, false},
};

int bb_gguf_role_count(void) { return (int)(sizeof roles / sizeof roles[0]); }
const bb_gguf_role *bb_gguf_role_at(int i) { return i >= 0 && i < bb_gguf_role_count() ? &roles[i] : NULL; }

const bb_gguf_role *bb_gguf_role_of(const char *engine)
{
    for (int i = 0; i < bb_gguf_role_count(); i++)
        if (!strcmp(roles[i].engine, engine)) return &roles[i];
    return NULL;
}

bool bb_gguf_role_present(const bb_gguf_role *r, const bb_tf_dims *d)
{
    if (r->sub_norm) return d->sub_norms;
    if (!strcmp(r->engine, "wcls")) return !d->tied_embedding;
    return true;
}

void bb_gguf_tensor_name(char *out, size_t len, const bb_gguf_role *r, int layer, const char *suffix)
{
    if (r->global) snprintf(out, len, "%s.%s", r->file, suffix);
    else snprintf(out, len, "blk.%d.%s.%s", layer, r->file, suffix);
}

void bb_gguf_role_shape(const bb_gguf_role *r, const bb_tf_dims *d, size_t *rows, size_t *cols)
{
    size_t hd = (size_t)bb_tf_head_dim(d), dq = (size_t)d->n_heads * hd, kv = (size_t)d->n_kv_heads * hd;
    size_t dim = (size_t)d->dim, hid = (size_t)d->hidden_dim;
    const char *e = r->engine;
    *rows = 1;
    *cols = dim;
    if (!strcmp(e, "tok_embeddings") || !strcmp(e, "wcls")) *rows = (size_t)d->vocab_size;
    else if (!strcmp(e, "wq")) *rows = dq;
    else if (!strcmp(e, "wk") || !strcmp(e, "wv")) *rows = kv;
    else if (!strcmp(e, "wo")) { *rows = dim; *cols = dq; }
    else if (!strcmp(e, "w1") || !strcmp(e, "w3")) *rows = hid;
    else if (!strcmp(e, "w2")) { *rows = dim; *cols = hid; }
    else if (!strcmp(e, "attn_sub_norm")) *cols = dq;
    else if (!strcmp(e, "ffn_sub_norm")) *cols = hid;
}

static const bb_gguf_dim_key dim_keys[] = {
    {"context_length", offsetof(bb_tf_dims, seq_len)},
    {"embedding_length", offsetof(bb_tf_dims, dim)},
    {"block_count", offsetof(bb_tf_dims, n_layers)},
    {"feed_forward_length", offsetof(bb_tf_dims, hidden_dim)},
    {"attention.head_count", offsetof(bb_tf_dims, n_heads)},
    {"attention.head_count_kv", offsetof(bb_tf_dims, n_kv_heads)},
    {"vocab_size", offsetof(bb_tf_dims, vocab_size)},
};

int bb_gguf_dim_key_count(void) { return (int)(sizeof dim_keys / sizeof dim_keys[0]); }
const bb_gguf_dim_key *bb_gguf_dim_key_at(int i) { return i >= 0 && i < bb_gguf_dim_key_count() ? &dim_keys[i] : NULL; }

size_t bb_gguf_neox_file_row(size_t r, size_t hd)
{
    size_t h = r / hd, j = r % hd;
    return h * hd + (j % 2 ? hd / 2 + j / 2 : j / 2);
}

bool bb_gguf_arch_neox(bb_tf_style style) { return style == BB_STYLE_BITNET; }
