/* Inside the tokenizer (models/tokenizer*.c, models/bpe_pretok.c): one vocabulary type for the
 * three sources, llama2.c's tokenizer.bin, GGUF "llama" (SentencePiece-style) and GGUF "gpt2"
 * (byte-level BPE).  Not for callers: they use tokenizer.h. */
#ifndef BB_TOKENIZER_IMPL_H
#define BB_TOKENIZER_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpe_pretok.h"
#include "strmap.h"
#include "tokenizer.h"

typedef enum {
    BB_TOK_LLAMA2C, /* llama2.c tokenizer.bin: SentencePiece merges, spaces stored as ' ' */
    BB_TOK_SPM,     /* GGUF tokenizer.ggml.model = llama: spaces stored as U+2581 */
    BB_TOK_BPE,     /* GGUF tokenizer.ggml.model = gpt2: byte-level BPE with merges */
} bb_tok_kind;


/* GGUF tokenizer.ggml.token_type values (llama.cpp's llama_token_type). */
enum {
    BB_TOKTYPE_UNDEFINED = 0,
    BB_TOKTYPE_NORMAL = 1,
    BB_TOKTYPE_UNKNOWN = 2,
    BB_TOKTYPE_CONTROL = 3,
    BB_TOKTYPE_USER_DEFINED = 4,
    BB_TOKTYPE_UNUSED = 5,
    BB_TOKTYPE_BYTE = 6,
};

struct bb_tokenizer {
    bb_tok_kind kind;
    int n_vocab;
    const char **text; /* token strings as stored (into arena), text_len[i] bytes, NUL after */
    uint32_t *text_len;
    float *score;      /* SPM merge priority (higher first); NULL for BPE */
    uint8_t *type;     /* BB_TOKTYPE_* */
    const char **piece; /* what decoding prints for each token (into arena), NUL-terminated */
    bb_strmap vocab;    /* text -> id */
    bb_strmap merges;   /* BPE: "left right" -> rank */
    char *arena;
    size_t arena_used, arena_cap;
    int bos, eos, unk;  /* -1 when the vocabulary has none */
    bool add_bos, add_eos, add_space_prefix, ignore_merges;
    bb_pretok pre;
    int byte_token[256]; /* SPM byte fallback: the id of <0xXX>, -1 if none */
    char byte_utf8[256][2];       /* BPE: each byte's printable character (GPT-2 bytes_to_unicode) */
    uint8_t byte_utf8_len[256];
    int eog[8];          /* ids that end generation (bb_tokenizer_is_eog) */
    int n_eog;
    int *specials;       /* control, unknown and user-defined ids, longest text first */
    int n_specials;
    int dup_first, dup_second; /* bb_tok_index: the first token whose text repeats an earlier one's, -1 if none */
    char notes[640];           /* bb_tokenizer_notes */
};

/* Allocation of the shared parts: the arrays for n tokens and an arena of arena_bytes. */
bb_tokenizer *bb_tok_alloc(int n, size_t arena_bytes);
/* Copies n bytes into the arena, NUL-terminated; NULL when the arena is full (a sizing bug). */
char *bb_tok_arena_copy(bb_tokenizer *t, const char *s, size_t n);
/* Builds the text -> id map and the SPM byte fallback table once text[] is filled. */
int bb_tok_index(bb_tokenizer *t);
/* The byte of a "<0xHH>" token text (upper-case hex, as SentencePiece writes it), or -1. */
int bb_tok_parse_byte(const char *s, size_t n);
/* The id of the token whose text is s[0, n), or -1.  Here, not in tokenizer.c, because the
 * encoders tokenizer.c dispatches to (tokenizer_spm.c, tokenizer_bpe.c) look tokens up too: no
 * file calls back into the file that calls it. */
static inline int bb_tok_lookup(const bb_tokenizer *t, const char *s, size_t n) { return bb_strmap_get(&t->vocab, s, n); }
/* A token's text for an error line: at most max bytes, control bytes, quotes and backslashes as
 * \xHH (never a newline), "..." after a cut. */
void bb_tok_quote(const char *s, size_t n, size_t max, char *out, size_t outlen);
/* Adds a line to t->notes and prints it on stderr ("note: " first). */
void bb_tok_note(bb_tokenizer *t, const char *line);

/* The merge loop of both encoders (tokenizer_merge.c).  text[0, n) is split into UTF-8
 * characters, sym (room for n) gets the symbols, heap (room for 3n: n - 1 pairs at first, at most
 * two more per merge) the queue.  pair_priority says whether sym[left] and sym[right] may merge
 * and how urgently (higher first).  After bb_tok_merge the symbols left are the chain from
 * sym[0] along next; it returns -1 when the text is empty (no symbols). */
typedef struct {
    size_t start, n; /* n is 0 once merged into its left neighbour */
    int prev, next;
} bb_tok_symbol;
typedef struct {
    double priority;
    int left, right;
    size_t size; /* bytes of the pair when queued */
} bb_tok_pair;
typedef struct bb_tok_merger bb_tok_merger;
struct bb_tok_merger {
    const bb_tokenizer *t;
    const char *text;
    bb_tok_symbol *sym;
    bb_tok_pair *heap;
    int n_heap;
    char *key; /* BPE: room for the "left right" merge key */
    bool (*pair_priority)(bb_tok_merger *m, int left, int right, double *priority);
};
int bb_tok_merge(bb_tok_merger *m, size_t n);

/* Encoders of one run of plain text (no special tokens in it): append ids to out[*n...]. */
/* out needs room for 3 * len + 3 more ids (a space is 3 bytes as U+2581, each may fall back
 * to a byte token in a vocabulary without "▁"); BPE needs len. */
int bb_spm_encode(const bb_tokenizer *t, const char *text, size_t len, bool space_prefix, int *out, int *n,
                  char *err, size_t errlen);
int bb_bpe_encode(const bb_tokenizer *t, const char *text, size_t len, int *out, int *n, char *err, size_t errlen);
/* BPE: fills byte_utf8; the decoded pieces (byte-level characters back to bytes) into the arena. */
void bb_bpe_byte_map(bb_tokenizer *t);
int bb_bpe_make_pieces(bb_tokenizer *t);

#endif
