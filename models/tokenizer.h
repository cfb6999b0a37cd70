/* Tokenizers: one type, three sources, so callers do not care where the vocabulary came from.
 *
 *  - llama2.c's tokenizer file (tokenizer.bin / tok512.bin), bb_tokenizer_load:
 *      int32 max_token_length; then per token: float score, int32 len, len bytes (not terminated).
 *    Encoded as run.c does: BOS (1), a dummy-prefix " " when the text is not empty, one symbol per
 *    UTF-8 code point (bytes without a token become the <0xHH> tokens 3..258), then repeatedly
 *    the adjacent pair whose concatenation is a token with the highest score is merged.
 *  - GGUF metadata (tokenizer.ggml.*), bb_tokenizer_from_gguf, as llama.cpp (src/llama-vocab.cpp)
 *    reads and applies it:
 *      model "llama": SentencePiece-style, the same merging by score over the text with spaces as
 *        U+2581 and a leading space (add_space_prefix), byte fallback to <0xHH> tokens;
 *      model "gpt2": byte-level BPE: the pre-tokenizer that tokenizer.ggml.pre names cuts the
 *        text (bpe_pretok.h), bytes map to printable characters (GPT-2's bytes_to_unicode), then
 *        pairs merge by rank in tokenizer.ggml.merges (llama-bpe first takes a whole piece that
 *        is a token: ignore_merges).
 *    BOS/EOS/unknown ids and the add-BOS/add-EOS flags come from the file, with llama.cpp's
 *    defaults per model (llama: BOS 1, EOS 2, unknown 0, add BOS; gpt2: BOS = EOS = 11, no BOS
 *    except for the llama-bpe pre-tokenizer).
 *
 * Decoding gives the text of one token; the leading space that SentencePiece adds is dropped
 * from the first token of a text (prev < 0 or prev == BOS).  Control tokens decode to "". */
#ifndef BB_TOKENIZER_H
#define BB_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct bb_tokenizer bb_tokenizer;
typedef struct bb_gguf bb_gguf;

/* NULL with one line naming the file and what is wrong (missing, truncated, implausible, a token
 * text twice: llama.cpp stops on that in a GGUF vocabulary, so both readers refuse it). */
bb_tokenizer *bb_tokenizer_load(const char *path, int vocab_size, char *err, size_t errlen);
/* From an open GGUF file's metadata; the tokenizer does not refer to the file afterwards.
 * NULL with one line naming the file, the key and what is valid. */
bb_tokenizer *bb_tokenizer_from_gguf(const bb_gguf *g, char *err, size_t errlen);
/* bb_gguf_open + bb_tokenizer_from_gguf + bb_gguf_close. */
bb_tokenizer *bb_tokenizer_open_gguf(const char *path, char *err, size_t errlen);
void bb_tokenizer_free(bb_tokenizer *t);

/* Encodes text with the tokenizer's own BOS/EOS flags, special-token text taken literally.
 * Returns the number of tokens written to out, or -1 with a message when they do not fit in cap;
 * cap = bb_tokenizer_cap(strlen(text)) always suffices. */
int bb_tokenizer_encode(const bb_tokenizer *t, const char *text, int *out, int cap, char *err, size_t errlen);
/* Tokens a text of len bytes can become at most: every byte one token (byte fallback), except a
 * space, which SentencePiece-style vocabularies write as "▁" (3 bytes: 3 byte tokens where the
 * vocabulary has no "▁", as bitbench export's byte-level one), plus the dummy-prefix "▁", BOS and
 * EOS. */
static inline int bb_tokenizer_cap(size_t len) { return (int)(3 * len + 5); }
/* The general form: add_special adds BOS/EOS as the flags say (llama.cpp's add_special);
 * parse_special turns the text of control tokens (e.g. "<|begin_of_text|>") into those tokens.
 * User-defined tokens are always matched whole, as llama.cpp does. */
int bb_tokenizer_encode_ex(const bb_tokenizer *t, const char *text, size_t len, bool add_special, bool parse_special,
                           int *out, int cap, char *err, size_t errlen);
/* The text of token `tok` following token `prev` (-1 at the start); internal storage. */
const char *bb_tokenizer_decode(const bb_tokenizer *t, int prev, int tok);

int bb_tokenizer_vocab_size(const bb_tokenizer *t);
int bb_tokenizer_bos(const bb_tokenizer *t); /* -1 when none */
int bb_tokenizer_eos(const bb_tokenizer *t);
/* Whether generation stops at tok: BOS for llama2.c files (as run.c), else EOS and the
 * end-of-turn tokens llama.cpp recognises by text (<|eot_id|>, <|end_of_text|>, ...). */
bool bb_tokenizer_is_eog(const bb_tokenizer *t, int tok);
/* "llama2.c", "llama (SentencePiece)", "gpt2 (byte-level BPE, pre gpt-2)" ... */
const char *bb_tokenizer_describe(const bb_tokenizer *t);
/* What loading accepted that llama.cpp accepts but a reader should know of (a byte-level
 * vocabulary missing byte tokens, merges that are empty or not pairs): one line each, joined by
 * '\n', each also printed on stderr when the tokenizer was read; "" when none. */
const char *bb_tokenizer_notes(const bb_tokenizer *t);

#endif
