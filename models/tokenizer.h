/* llama2.c's tokenizer file (tokenizer.bin / tok512.bin) and its BPE encoder, as run.c does it:
 *   int32 max_token_length; then per token: float score, int32 len, len bytes (not terminated).
 * encode: BOS (1), a dummy-prefix " " token when the text is not empty, one token per UTF-8
 * code point (byte fallback to ids 3..258 for unknown bytes), then repeatedly merge the adjacent
 * pair whose concatenation is a token with the highest score.  decode: the piece, without its
 * leading space after BOS; "<0xHH>" pieces are the raw byte. */
#ifndef BB_TOKENIZER_H
#define BB_TOKENIZER_H

#include <stddef.h>

typedef struct bb_tokenizer bb_tokenizer;

/* NULL with one line naming the file and what is wrong (missing, truncated, implausible). */
bb_tokenizer *bb_tokenizer_load(const char *path, int vocab_size, char *err, size_t errlen);
void bb_tokenizer_free(bb_tokenizer *t);
/* Returns the number of tokens written to out (at most cap), or -1 with a message. */
int bb_tokenizer_encode(const bb_tokenizer *t, const char *text, int *out, int cap, char *err, size_t errlen);
/* The text of token `tok` following token `prev` (static or internal storage). */
const char *bb_tokenizer_decode(const bb_tokenizer *t, int prev, int tok);

#endif
