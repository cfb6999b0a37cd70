/* The merge loop both encoders share (llama.cpp's llm_tokenizer_spm and _bpe sessions): text
 * split into UTF-8 characters as symbols; every adjacent pair that may merge is queued with its
 * priority; the best pair (highest priority, the leftmost on a tie) is merged, its neighbours'
 * pairs queued anew, until no pair is left.  A queued pair whose symbols changed since is stale
 * and skipped: symbols only grow, so unchanged sizes mean unchanged symbols. */
#include <stdlib.h>

#include "tokenizer_impl.h"
#include "unicode.h"

static int before(const bb_tok_pair *a, const bb_tok_pair *b)
{
    return a->priority > b->priority || (a->priority == b->priority && a->left < b->left);
}

static void heap_push(bb_tok_merger *m, bb_tok_pair p)
{
    int i = m->n_heap++;
    while (i > 0 && before(&p, &m->heap[(i - 1) / 2])) {
        m->heap[i] = m->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    m->heap[i] = p;
}

static bb_tok_pair heap_pop(bb_tok_merger *m)
{
    bb_tok_pair top = m->heap[0], last = m->heap[--m->n_heap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= m->n_heap) break;
        if (c + 1 < m->n_heap && before(&m->heap[c + 1], &m->heap[c])) c++;
        if (!before(&m->heap[c], &last)) break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    m->heap[i] = last;
    return top;
}

static void queue_pair(bb_tok_merger *m, int left, int right)
{
    double priority;
    if (left >= 0 && right >= 0 && m->pair_priority(m, left, right, &priority))
        heap_push(m, (bb_tok_pair){priority, left, right, m->sym[left].n + m->sym[right].n});
}

int bb_tok_merge(bb_tok_merger *m, size_t n)
{
    bb_tok_symbol *sym = m->sym;
    int ns = 0;
    for (size_t at = 0; at < n; ns++) {
        size_t cl = (size_t)bb_utf8_len((unsigned char)m->text[at]);
        if (cl > n - at) cl = n - at;
        sym[ns] = (bb_tok_symbol){at, cl, ns - 1, at + cl < n ? ns + 1 : -1};
        at += cl;
    }
    m->n_heap = 0;
    for (int i = 1; i < ns; i++) queue_pair(m, i - 1, i);
    while (m->n_heap) {
        bb_tok_pair p = heap_pop(m);
        bb_tok_symbol *l = &sym[p.left], *r = &sym[p.right];
        if (l->n == 0 || r->n == 0 || l->n + r->n != p.size) continue;
        l->n += r->n;
        r->n = 0;
        l->next = r->next;
        if (r->next >= 0) sym[r->next].prev = p.left;
        queue_pair(m, l->prev, p.left);
        queue_pair(m, p.left, l->next);
    }
    return ns ? 0 : -1;
}
