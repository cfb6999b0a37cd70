/* Fuzz target: the llama2.c tokenizer (models/tokenizer.c): load, encode, decode.
 *
 * Input: u16 vocabulary size (little endian), u8 flags (bit 0 add BOS/EOS, bit 1 parse special
 * tokens), u8 text length T, T bytes of text to encode, then the tokenizer file (tokenizer.bin
 * layout, models/tokenizer.h).  A file the loader accepts is used as generate uses it: the text
 * is encoded, each token decoded after its predecessor, and every id of the vocabulary decoded
 * once.  Seeds: tok512.bin of stories260K behind a header (run.sh) and small hand-made
 * vocabularies (tests/fuzz/regressions/tokenizer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "models/tokenizer.h"

enum { HEADER = 4 };

static void encode_decode(const bb_tokenizer *t, const char *text, size_t len, unsigned flags)
{
    int cap = bb_tokenizer_cap(len);
    int *ids = malloc((size_t)cap * sizeof *ids);
    if (!ids) return;
    char err[512];
    int n = bb_tokenizer_encode_ex(t, text, len, flags & 1, flags & 2, ids, cap, err, sizeof err);
    int vocab = bb_tokenizer_vocab_size(t);
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= vocab) { /* the engine indexes its embedding table with these */
            fprintf(stderr, "fuzz_tokenizer: token %d of the encoding is id %d, outside the vocabulary of %d\n", i,
                    ids[i], vocab);
            abort();
        }
        const char *piece = bb_tokenizer_decode(t, i ? ids[i - 1] : -1, ids[i]);
        if (piece) (void)strlen(piece);
        (void)bb_tokenizer_is_eog(t, ids[i]);
    }
    free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEADER) return 0;
    int vocab = data[0] | data[1] << 8;
    unsigned flags = data[2];
    size_t text_len = data[3];
    if (size - HEADER < text_len) return 0;
    const uint8_t *file = data + HEADER + text_len;
    char err[512];
    bb_tokenizer *t = bb_tokenizer_load(fuzz_input_path(file, size - HEADER - text_len), vocab, err, sizeof err);
    if (!t) return 0;
    (void)strlen(bb_tokenizer_describe(t));
    char *text = fuzz_input_string(data + HEADER, text_len);
    encode_decode(t, text, strlen(text), flags);
    free(text);
    for (int id = 0; id < bb_tokenizer_vocab_size(t); id++) {
        const char *piece = bb_tokenizer_decode(t, id ? id - 1 : -1, id);
        if (piece) (void)strlen(piece);
    }
    bb_tokenizer_free(t);
    return 0;
}
