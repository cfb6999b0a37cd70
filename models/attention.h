/* Attention of one query head over a KV cache, blocked with a running ("online") softmax: the
 * positions are taken in chunks of BB_ATTN_CHUNK, aligned to position 0; each chunk gives a
 * partial state (m = its largest score, l = sum of e^(score - m), acc = sum of e^(score - m) v),
 * and the states are folded in position order into one running state; the output is acc / l.
 * Nothing of size positions x positions is formed: a chunk's scores are BB_ATTN_CHUNK floats.
 * This is the softmax rescaling of FlashAttention (Dao et al. 2022, §3.1: m, l and the rescaled
 * sum), with chunks instead of SRAM tiles.
 *
 * The arithmetic depends only on the positions and the cache, never on which thread computes a
 * chunk or on how the work is split: the engine computes chunk states on any thread (for decode,
 * the chunks of one head spread over the pool) and folds them in order, so prefill, token-by-token
 * decode and any thread count give the same bits.  Against the plain softmax (scores, softmax,
 * weighted sum) the result differs by float rounding: one extra rescale per chunk and the division
 * by l after the sum instead of before.
 *
 * Memory: while a chunk's scores stream its keys, the next chunk's keys are prefetched into L2,
 * and while its weighted sum streams its values, the next chunk's values, as eight parts in
 * lockstep: each pass reads from L2 what the previous chunk asked for, and DRAM stays busy.  The
 * stream runs on into the next head the same thread reads (bb_attn_ahead).  What
 * each choice measured is in docs/measurements/2026-11-28-decode.md, "Attention at depth",
 * 2026-11-29-xeon.md and 2026-11-30-attention-streams.md. */
#ifndef BB_ATTENTION_H
#define BB_ATTENTION_H

#include <stddef.h>

#include "kv_type.h"
#include "vec.h"

enum { BB_ATTN_CHUNK = 256 };
/* A chunk is read in steps of BB_ATTN_PREFETCH_ROWS positions; each step asks for its share of
 * the window ahead, BB_ATTN_PREFETCH_PARTS parts in lockstep (attention.c says why). */
enum { BB_ATTN_PREFETCH_ROWS = 16, BB_ATTN_PREFETCH_PARTS = 8 };

/* One head's keys and values: rows of hd elements of types kt and vt, row s at k + s * k_row
 * bytes (v + s * v_row); n rows are there.  next (optional, same types): the head whose first
 * chunk the reader takes after this head's last; the prefetch one chunk ahead then runs on into
 * its rows instead of stopping at n (a thread's decode items cross from head to head). */
typedef struct bb_attn_kv {
    const void *k, *v;
    bb_kv_type kt, vt;
    size_t k_row, v_row;
    int hd, n;
    const struct bb_attn_kv *next;
} bb_attn_kv;

/* The state of one query head: m, l and acc (hd floats). */
typedef struct {
    float m, l;
} bb_attn_ml;

/* The partial state over positions [s0, s1) (s1 - s0 <= BB_ATTN_CHUNK) into acc (hd floats) and
 * *ml; scores is BB_ATTN_CHUNK floats of scratch. */
void bb_attn_chunk(const bb_vec_ops *v, const float *q, const bb_attn_kv *kv, int s0, int s1, float scale,
                   float *scores, float *acc, bb_attn_ml *ml);
/* The rows that the step over the chunk's rows [s0 + r0, s0 + r1) asks for in part `part` (0 to
 * BB_ATTN_PREFETCH_PARTS - 1) of the window ahead: rows [*t0, *t1) of the stream (this head's
 * rows, then from n on kv->next's; the caller clips at each head's end); returns 0 when there
 * are none.  The window of chunk [s0, s1) is the stream's rows [s0 + BB_ATTN_CHUNK,
 * s1 + BB_ATTN_CHUNK), as many as the chunk has, so that with the window before it it ends
 * exactly at the end of the next head's first chunk.  A head of one chunk (s0 == 0, s1 == n:
 * every head of at most BB_ATTN_CHUNK positions) has no chunk before it to have asked for
 * that: its window is kv->next's first chunk, spread over its own rows (none without a next
 * head).  Each part of the window goes with the chunk's rows in proportion, step by step. */
static inline int bb_attn_ahead(const bb_attn_kv *kv, int s0, int s1, int r0, int r1, int part, int *t0, int *t1)
{
    int start = s0 + BB_ATTN_CHUNK, len = s1 - s0, rows = len;
    if (s0 == 0 && s1 == kv->n) { /* one chunk: the next head's first */
        if (!kv->next) return 0;
        start = kv->n;
        rows = kv->next->n < BB_ATTN_CHUNK ? kv->next->n : BB_ATTN_CHUNK;
    }
    int p0 = part * rows / BB_ATTN_PREFETCH_PARTS, size = (part + 1) * rows / BB_ATTN_PREFETCH_PARTS - p0;
    *t0 = start + p0 + r0 * size / len;
    *t1 = start + p0 + r1 * size / len;
    return *t0 < *t1;
}

/* The empty running state: m = -inf, l = 0, acc = 0. */
void bb_attn_init(float *acc, bb_attn_ml *ml, int hd);
/* Fold a chunk's state (acc_c, c) into the running state (acc, ml). */
void bb_attn_fold(float *acc, bb_attn_ml *ml, const float *acc_c, bb_attn_ml c, int hd);
/* out = acc / l (out may be acc). */
void bb_attn_finish(float *out, const float *acc, bb_attn_ml ml, int hd);
/* The whole attention of q over positions [0, n): chunks in order, each folded; scratch is
 * BB_ATTN_CHUNK + hd floats.  The engine's arithmetic, for tests and single-threaded callers. */
void bb_attend(const bb_vec_ops *v, const float *q, const bb_attn_kv *kv, int n, float scale, float *out,
               float *scratch);

#endif
