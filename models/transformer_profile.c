/* The forward pass's time breakdown (transformer.h, bb_tf_profile): its memory and switch; the
 * clock readings themselves are in transformer.c, beside what they time. */
#include <stdlib.h>
#include <string.h>

#include "transformer_state.h"

/* chunk_end keeps each thread's slot on a cache line of its own (8 doubles): the threads write
 * them after every chunk, and sharing a line would add a coherence miss per chunk to what is
 * being measured. */
enum { END_STRIDE = 8 };

bb_tf_profile *bb_tf_profile_new(int nthreads)
{
    if (nthreads < 1) return NULL;
    bb_tf_profile *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->nthreads = nthreads;
    p->idle = calloc((size_t)nthreads, sizeof *p->idle);
    p->chunk_end = aligned_alloc(64, (size_t)nthreads * END_STRIDE * sizeof(double));
    if (!p->idle || !p->chunk_end) {
        bb_tf_profile_free(p);
        return NULL;
    }
    memset(p->chunk_end, 0, (size_t)nthreads * END_STRIDE * sizeof(double));
    return p;
}

void bb_tf_profile_free(bb_tf_profile *p)
{
    if (!p) return;
    free(p->idle);
    free(p->chunk_end);
    free(p);
}

void bb_tf_profile_reset(bb_tf_profile *p)
{
    double *idle = p->idle, *end = p->chunk_end;
    int n = p->nthreads;
    memset(p, 0, sizeof *p);
    p->idle = idle;
    p->chunk_end = end;
    p->nthreads = n;
    memset(idle, 0, (size_t)n * sizeof *idle);
}

void bb_tf_set_profile(bb_transformer *t, bb_tf_profile *p) { t->prof = p; }
