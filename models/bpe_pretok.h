/* BPE pre-tokenizers: the text, as code points, is cut into pieces by the regex that the GGUF
 * key tokenizer.ggml.pre names, and BPE merges never cross a cut.  Hand-written matchers, one
 * per pattern, taking the first alternative that matches at each position (leftmost-first, as
 * the regex engines of the reference tokenizers do):
 *   gpt-2:     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 *   llama-bpe: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
 *              | ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+        (Llama 3)
 * \p{L}, \p{N} and \s are the classes of unicode.h. */
#ifndef BB_BPE_PRETOK_H
#define BB_BPE_PRETOK_H

#include <stddef.h>
#include <stdint.h>

typedef enum { BB_PRETOK_GPT2, BB_PRETOK_LLAMA3 } bb_pretok;

/* The pre-tokenizer for a tokenizer.ggml.pre value; -1 when it is not one supported here.
 * supported lists the accepted values for messages. */
int bb_pretok_from_name(const char *name, size_t len);
extern const char bb_pretok_supported[];

/* Cuts cps[0..n) into pieces; ends[k] is the end (exclusive) of piece k (ends has room for n).
 * Returns the number of pieces, or -1 out of memory. */
long bb_pretok_split(bb_pretok pre, const uint32_t *cps, size_t n, size_t *ends);

#endif
