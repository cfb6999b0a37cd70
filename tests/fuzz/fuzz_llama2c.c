/* Fuzz target: the llama2.c checkpoint reader (models/llama2c.c).
 *
 * The input is a checkpoint file.  A file the reader accepts has every tensor read back through
 * its weight source, with the element counts the engine asks for (models/transformer.h, the
 * names of bb_weight_source), so that a header whose dimensions disagree with the file's size
 * shows up as a read past the mapping rather than as a silent accept.  Non-finite weights are
 * refused by the source (a message, not a crash).  Seeds: a tiny checkpoint run.sh makes and
 * truncated and altered copies (tests/fuzz/regressions/llama2c). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "models/llama2c.h"

static void read_tensor(bb_weight_source *src, const char *name, int layer, size_t count, size_t limit)
{
    /* The reader accepted the file only if every tensor fits in it; a count beyond the input
     * would be the reader's bug, which the read below shows to ASan, but it must not first make
     * this target allocate gigabytes. */
    if (count == 0 || count > limit) return;
    float *dst = malloc(count * sizeof(float));
    if (!dst) return;
    char err[512];
    src->get(src->ctx, name, layer, dst, count, err, sizeof err);
    free(dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    bb_llama2c *c = bb_llama2c_open(fuzz_input_path(data, size), err, sizeof err);
    if (!c) return 0;
    const bb_tf_dims *d = bb_llama2c_dims(c);
    bb_weight_source src = bb_llama2c_source(c);
    size_t limit = size / sizeof(float) + 1;
    size_t dim = (size_t)d->dim, hidden = (size_t)d->hidden_dim, vocab = (size_t)d->vocab_size;
    size_t head = (size_t)bb_tf_head_dim(d);
    size_t kv_dim = (size_t)d->n_kv_heads * head;
    read_tensor(&src, "tok_embeddings", -1, vocab * dim, limit);
    for (int l = 0; l < d->n_layers; l++) {
        read_tensor(&src, "rms_att", l, dim, limit);
        read_tensor(&src, "wq", l, dim * dim, limit);
        read_tensor(&src, "wk", l, kv_dim * dim, limit);
        read_tensor(&src, "wv", l, kv_dim * dim, limit);
        read_tensor(&src, "wo", l, dim * dim, limit);
        read_tensor(&src, "rms_ffn", l, dim, limit);
        read_tensor(&src, "w1", l, hidden * dim, limit);
        read_tensor(&src, "w2", l, dim * hidden, limit);
        read_tensor(&src, "w3", l, hidden * dim, limit);
    }
    read_tensor(&src, "rms_final", -1, dim, limit);
    if (!d->tied_embedding) read_tensor(&src, "wcls", -1, vocab * dim, limit);
    bb_llama2c_close(c);
    return 0;
}
