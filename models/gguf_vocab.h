/* The vocabulary a GGUF file carries (tokenizer.ggml.*), as llama.cpp's `llama` (SentencePiece)
 * tokenizer reads it: tokenizer.ggml.model = "llama", tokens, scores, token_type, and the
 * bos/eos/unknown ids.  Written by the exporter so that the file loads in llama.cpp and in
 * bitbench's tokenizer (tokenizer.h) alike.  Two sources:
 *
 *   - a llama2.c tokenizer file (tokenizer.bin, tok512.bin: int32 max_token_length, then per
 *     token float score, int32 length, the bytes), converted as llama.cpp's
 *     convert-llama2c-to-ggml does: id 0 is "<unk>" (UNKNOWN), 1 "<s>" and 2 "</s>" (CONTROL),
 *     an empty token CONTROL, "<0xXX>" BYTE, the rest NORMAL with ' ' written as U+2581;
 *   - a byte-level vocabulary for models that have none (synthetic weights), sized to the
 *     model's vocab: "<unk>", "<s>", "</s>", the 256 byte tokens "<0x00>".."<0xFF>" (so every
 *     text encodes, byte by byte), then NORMAL filler tokens "<unused0>", "<unused1>", ... that
 *     no text produces.  Scores are 0, as llama.cpp's converter gives special and byte tokens.
 *
 * Token types are llama.cpp's llama_token_type values. */
#ifndef BB_GGUF_VOCAB_H
#define BB_GGUF_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "gguf_write.h"

enum { BB_GGUF_TOKEN_NORMAL = 1, BB_GGUF_TOKEN_UNKNOWN = 2, BB_GGUF_TOKEN_CONTROL = 3, BB_GGUF_TOKEN_BYTE = 6 };

/* The byte-level vocabulary needs its 3 special and 256 byte tokens. */
#define BB_GGUF_BYTE_VOCAB_MIN 259

typedef struct {
    int n;
    char **tokens; /* NUL-terminated */
    float *scores;
    int32_t *types;
    int bos, eos, unk;
} bb_gguf_vocab;

/* Returns 0, or -1 with one line (a vocab below BB_GGUF_BYTE_VOCAB_MIN is refused). */
int bb_gguf_vocab_byte_level(int n, bb_gguf_vocab *v, char *err, size_t errlen);
/* The first n tokens of a llama2.c tokenizer file; -1 with one line naming the file when it is
 * unreadable, truncated or holds fewer than n tokens. */
int bb_gguf_vocab_from_llama2c(const char *path, int n, bb_gguf_vocab *v, char *err, size_t errlen);
void bb_gguf_vocab_free(bb_gguf_vocab *v);

/* The tokenizer.ggml.* keys of v. */
int bb_gguf_vocab_write(bb_gguf_writer *w, const bb_gguf_vocab *v);

#endif
