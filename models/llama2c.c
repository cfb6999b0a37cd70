#include "llama2c.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/input_file.h"
#include "weights_finite.h"

struct bb_llama2c {
    char path[512];
    bb_tf_dims d;
    const float *data; /* the tensors, after the header */
    void *map;
    size_t map_size;
};

/* Offsets (in floats) of each tensor group. */
typedef struct {
    size_t emb, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, rms_final, wcls, end;
} layout;

static layout layout_of(const bb_tf_dims *d)
{
    size_t L = (size_t)d->n_layers, dim = (size_t)d->dim, hid = (size_t)d->hidden_dim;
    size_t hd = (size_t)bb_tf_head_dim(d), kv = (size_t)d->n_kv_heads * hd, V = (size_t)d->vocab_size;
    layout o;
    o.emb = 0;
    o.rms_att = o.emb + V * dim;
    o.wq = o.rms_att + L * dim;
    o.wk = o.wq + L * dim * dim;
    o.wv = o.wk + L * kv * dim;
    o.wo = o.wv + L * kv * dim;
    o.rms_ffn = o.wo + L * dim * dim;
    o.w1 = o.rms_ffn + L * dim;
    o.w2 = o.w1 + L * hid * dim;
    o.w3 = o.w2 + L * dim * hid;
    o.rms_final = o.w3 + L * hid * dim;
    size_t freq = o.rms_final + dim;
    o.wcls = freq + (size_t)d->seq_len * hd; /* real and imag halves: seq * hd/2 each */
    o.end = d->tied_embedding ? o.wcls : o.wcls + V * dim;
    return o;
}

bb_llama2c *bb_llama2c_open(const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO with no writer would otherwise block in open(); the check below refuses it.
     * No size bound here: the header's sizes must match the file's size exactly, below. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    uint64_t file_size = 0;
    if (bb_input_check_fd(fd, path, "llama2.c checkpoint", BB_INPUT_ANY_SIZE, &file_size, err, errlen) != 0) {
        close(fd);
        return NULL;
    }
    int32_t h[7];
    if (file_size < sizeof h || pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h) {
        snprintf(err, errlen, "%s: too short for a llama2.c header (28 bytes)", path);
        close(fd);
        return NULL;
    }
    bb_llama2c *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(c->path, sizeof c->path, "%s", path);
    bb_tf_dims *d = &c->d;
    d->dim = h[0]; d->hidden_dim = h[1]; d->n_layers = h[2]; d->n_heads = h[3]; d->n_kv_heads = h[4];
    d->tied_embedding = h[5] > 0;
    d->vocab_size = h[5] > 0 ? h[5] : h[5] == INT32_MIN ? 0 : -h[5]; /* -INT32_MIN overflows; 0 is refused below */
    d->seq_len = h[6];
    d->style = BB_STYLE_LLAMA;
    d->ffn_act = BB_FFN_SILU;
    char e[256];
    if (bb_tf_dims_check(d, e, sizeof e) || d->dim > (1 << 16) || d->hidden_dim > (1 << 18) || d->n_layers > 1024 ||
        d->vocab_size > (1 << 22) || d->seq_len > (1 << 20)) {
        snprintf(err, errlen, "%s: not a llama2.c checkpoint: header dim=%d hidden=%d layers=%d heads=%d kv_heads=%d vocab=%d seq_len=%d%s%s",
                 path, h[0], h[1], h[2], h[3], h[4], h[5], h[6], e[0] ? ": " : " (implausible sizes)", e[0] ? e : "");
        close(fd);
        free(c);
        return NULL;
    }
    layout o = layout_of(d);
    size_t want = sizeof h + o.end * sizeof(float);
    if (file_size != want) {
        snprintf(err, errlen, "%s: size %lld bytes, but its header (dim=%d layers=%d vocab=%d ...) needs %zu: %s", path,
                 (long long)file_size, d->dim, d->n_layers, d->vocab_size, want,
                 file_size < want ? "truncated" : "trailing data or wrong header");
        close(fd);
        free(c);
        return NULL;
    }
    c->map = mmap(NULL, want, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (c->map == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno));
        free(c);
        return NULL;
    }
    c->map_size = want;
    c->data = (const float *)((const char *)c->map + sizeof h);
    return c;
}

void bb_llama2c_close(bb_llama2c *c)
{
    if (!c) return;
    munmap(c->map, c->map_size);
    free(c);
}

const bb_tf_dims *bb_llama2c_dims(const bb_llama2c *c) { return &c->d; }

static int get(void *ctx, const char *name, int layer, float *dst, size_t count, char *err, size_t errlen)
{
    bb_llama2c *c = ctx;
    layout o = layout_of(&c->d);
    const struct { const char *name; size_t off; } t[] = {
        {"tok_embeddings", o.emb}, {"rms_att", o.rms_att}, {"wq", o.wq}, {"wk", o.wk}, {"wv", o.wv},
        {"wo", o.wo}, {"rms_ffn", o.rms_ffn}, {"w1", o.w1}, {"w2", o.w2}, {"w3", o.w3},
        {"rms_final", o.rms_final}, {"wcls", o.wcls}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (strcmp(t[i].name, name) != 0) continue;
        if (!strcmp(name, "wcls") && c->d.tied_embedding) break;
        size_t off = t[i].off + (layer >= 0 ? (size_t)layer * count : 0);
        memcpy(dst, c->data + off, count * sizeof(float));
        return bb_weights_check_finite(c->path, name, layer, dst, count, 0, err, errlen);
    }
    snprintf(err, errlen, "%s: a llama2.c checkpoint has no tensor '%s'", c->path, name);
    return -1;
}

bb_weight_source bb_llama2c_source(bb_llama2c *c)
{
    bb_weight_source s = {.ctx = c, .get = get};
    return s;
}

int bb_llama2c_tokenizer_beside(const char *model, int vocab, char *out, size_t len)
{
    const char *slash = strrchr(model, '/');
    int dl = slash ? (int)(slash - model + 1) : 0;
    const char *names[2] = {"tok%d.bin", "tokenizer.bin"};
    for (int i = 0; i < 2; i++) {
        char file[64];
        snprintf(file, sizeof file, names[i], vocab);
        snprintf(out, len, "%.*s%s", dl, model, file);
        /* Whether it is there, not opened: a FIFO named tokenizer.bin would block an open; the
         * tokenizer's reader refuses it with its own line. */
        if (access(out, F_OK) == 0) return 0;
    }
    return -1;
}
