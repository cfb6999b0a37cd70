/* Loading a model from a path or a config name (model_load.h). */
#include "model_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_source.h"
#include "llama2c.h"
#include "model_fit.h"
#include "synthetic.h"
#include "tokenizer.h"

struct bb_model_source {
    bb_model_format format;
    char name[256];
    char path[1024]; /* the file, "" for a config */
    bb_gguf_model *gguf;
    bb_llama2c *l2c;
    bb_model_config cfg;
    bb_synthetic syn;
    bb_tf_dims d;
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

int bb_model_is_path(const char *what)
{
    return ends_with(what, ".gguf") || ends_with(what, ".bin") || strchr(what, '/') != NULL;
}

void bb_model_config_dims(const bb_model_config *c, int seq_len, bb_tf_dims *d)
{
    memset(d, 0, sizeof *d);
    d->dim = c->dim;
    d->hidden_dim = c->ffn_dim;
    d->n_layers = c->n_layers;
    d->n_heads = c->n_heads;
    d->n_kv_heads = c->n_kv_heads;
    d->head_dim = c->head_dim;
    d->vocab_size = c->vocab_size;
    d->seq_len = seq_len;
    d->style = c->style == BB_MODEL_BITNET ? BB_STYLE_BITNET : BB_STYLE_LLAMA;
    d->sub_norms = c->style == BB_MODEL_BITNET;
    d->ffn_act = c->ffn_act == BB_MODEL_FFN_RELU2 ? BB_FFN_RELU2 : BB_FFN_SILU;
    d->tied_embedding = c->tied_embedding;
}

static int open_file(bb_model_source *m, const char *path, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    snprintf(m->name, sizeof m->name, "%s", slash ? slash + 1 : path);
    if (ends_with(path, ".gguf")) {
        m->format = BB_MODEL_FROM_GGUF;
        if (!(m->gguf = bb_gguf_model_open(path, err, errlen))) return -1;
        m->d = *bb_gguf_model_dims(m->gguf);
        return 0;
    }
    m->format = BB_MODEL_FROM_LLAMA2C;
    if (!(m->l2c = bb_llama2c_open(path, err, errlen))) return -1;
    m->d = *bb_llama2c_dims(m->l2c);
    return 0;
}

bb_model_source *bb_model_source_open(const char *what, const bb_synthetic_options *syn, char *err, size_t errlen)
{
    bb_model_source *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int rc;
    if (bb_model_is_path(what)) {
        snprintf(m->path, sizeof m->path, "%s", what);
        rc = open_file(m, what, err, errlen);
    } else {
        m->format = BB_MODEL_FROM_CONFIG;
        snprintf(m->name, sizeof m->name, "%s", what);
        rc = bb_model_load(what, &m->cfg, err, errlen);
        if (!rc) bb_model_config_dims(&m->cfg, 0, &m->d);
        m->syn.seed = syn ? syn->seed : 1;
        m->syn.distinct_layers = syn ? syn->distinct_layers : 0;
    }
    if (rc) {
        bb_model_source_close(m);
        return NULL;
    }
    return m;
}

void bb_model_source_close(bb_model_source *m)
{
    if (!m) return;
    bb_gguf_model_close(m->gguf);
    bb_llama2c_close(m->l2c);
    free(m);
}

bb_model_format bb_model_source_format(const bb_model_source *m) { return m->format; }
const char *bb_model_source_name(const bb_model_source *m) { return m->name; }
const bb_tf_dims *bb_model_source_dims(const bb_model_source *m) { return &m->d; }
const bb_gguf *bb_model_source_gguf(const bb_model_source *m) { return m->gguf ? bb_gguf_model_file(m->gguf) : NULL; }

bb_tokenizer *bb_model_source_tokenizer(const bb_model_source *m, const char *tokpath, char *err, size_t errlen)
{
    int vocab = m->d.vocab_size;
    size_t tl = tokpath ? strlen(tokpath) : 0;
    if (tl >= 5 && !strcmp(tokpath + tl - 5, ".gguf")) return bb_tokenizer_open_gguf(tokpath, err, errlen);
    if (tokpath) return bb_tokenizer_load(tokpath, vocab, err, errlen);
    if (m->gguf) return bb_tokenizer_from_gguf(bb_gguf_model_file(m->gguf), err, errlen);
    if (m->format == BB_MODEL_FROM_CONFIG) {
        snprintf(err, errlen, "model %s has synthetic weights and no tokenizer; give --tokenizer", m->name);
        return NULL;
    }
    char path[1200];
    if (bb_llama2c_tokenizer_beside(m->path, vocab, path, sizeof path)) {
        snprintf(err, errlen, "no tokenizer beside %s (tok%d.bin or tokenizer.bin); give --tokenizer", m->path, vocab);
        return NULL;
    }
    return bb_tokenizer_load(path, vocab, err, errlen);
}

int bb_model_source_run_dims(const bb_model_source *m, int seq_len, bb_tf_dims *d, char *warn, size_t warnlen,
                             char *err, size_t errlen)
{
    *d = m->d;
    if (warnlen) warn[0] = 0;
    if (seq_len <= 0 && m->d.seq_len <= 0) {
        snprintf(err, errlen, "%s: a model config has no context length; the run must give one", m->name);
        return -1;
    }
    if (seq_len > 0) d->seq_len = seq_len;
    if (m->d.seq_len > 0 && seq_len > m->d.seq_len)
        snprintf(warn, warnlen, "%s: running %d positions, more than the %d the file gives as its training context",
                 m->name, seq_len, m->d.seq_len);
    return 0;
}

bb_weight_source bb_model_source_weights(bb_model_source *m, const bb_tf_dims *d)
{
    if (m->gguf) return bb_gguf_model_source(m->gguf);
    if (m->l2c) return bb_llama2c_source(m->l2c);
    m->syn.dims = *d;
    return bb_synthetic_source(&m->syn);
}

bb_transformer *bb_model_source_build(bb_model_source *m, int seq_len, const bb_tf_options *opt, char *warn,
                                      size_t warnlen, char *err, size_t errlen)
{
    bb_tf_dims d;
    if (bb_model_source_run_dims(m, seq_len, &d, warn, warnlen, err, errlen)) return NULL;
    /* before anything is allocated: a model that cannot fit is refused, not left to the OOM killer */
    if (bb_model_check_fits(m->name, &d, opt, err, errlen)) return NULL;
    bb_weight_source src = bb_model_source_weights(m, &d);
    char e[1024];
    bb_transformer *t = bb_tf_create(&d, &src, opt, e, sizeof e);
    if (!t) snprintf(err, errlen, "%s: %s", m->name, e);
    return t;
}

bb_transformer *bb_model_load_engine(const char *what, int seq_len, const bb_tf_options *opt,
                                     const bb_synthetic_options *syn, char *warn, size_t warnlen, char *err,
                                     size_t errlen)
{
    bb_model_source *m = bb_model_source_open(what, syn, err, errlen);
    if (!m) return NULL;
    bb_transformer *t = bb_model_source_build(m, seq_len, opt, warn, warnlen, err, errlen);
    bb_model_source_close(m);
    return t;
}

int bb_model_config_resolve(const char *what, bb_model_config *cfg, char *err, size_t errlen)
{
    if (!bb_model_is_path(what)) return bb_model_load(what, cfg, err, errlen);
    bb_model_source *m = bb_model_source_open(what, NULL, err, errlen);
    if (!m) return -1;
    const bb_tf_dims *d = &m->d;
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->name, sizeof cfg->name, "%.63s", m->name);
    cfg->style = d->style == BB_STYLE_BITNET ? BB_MODEL_BITNET : BB_MODEL_LLAMA;
    cfg->dim = d->dim;
    cfg->ffn_dim = d->hidden_dim;
    cfg->n_layers = d->n_layers;
    cfg->n_heads = d->n_heads;
    cfg->n_kv_heads = d->n_kv_heads;
    cfg->head_dim = bb_tf_head_dim(d);
    cfg->vocab_size = d->vocab_size;
    cfg->ffn_act = d->ffn_act == BB_FFN_RELU2 ? BB_MODEL_FFN_RELU2 : BB_MODEL_FFN_SILU;
    cfg->tied_embedding = d->tied_embedding;
    snprintf(cfg->source, sizeof cfg->source, "%s", what);
    snprintf(cfg->path, sizeof cfg->path, "%s", what);
    bb_model_source_close(m);
    return 0;
}
