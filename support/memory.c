/* Allocation and plain buffer reads: see memory.h. */
#include "memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "timer.h"

void *bb_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) bytes = 64;
    if (posix_memalign(&p, 64, (bytes + 63) & ~(size_t)63) != 0) return NULL;
    return p;
}

void *bb_alloc_stream(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < 2 * huge) return bb_alloc(bytes);
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes)) return NULL;
    (void)madvise(p, bytes, MADV_HUGEPAGE); /* advice only: without it the pages stay 4 KiB */
    return p;
}

typedef struct {
    const void *const *bufs;
    const size_t *bytes;
    int n, streams;
    bool zmm;
} buffers_job;

/* The part of a buffer that is read: from its first 64-byte boundary, whole 256-byte units. */
static const uint8_t *readable(const void *buf, size_t bytes, size_t *units)
{
    const uint8_t *p = buf, *a = (const uint8_t *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
    *units = bytes > (size_t)(a - p) ? (bytes - (size_t)(a - p)) / 256 : 0;
    return a;
}

static void buffers_worker(void *ctx, int tid, int nthreads)
{
    buffers_job *j = ctx;
    for (int i = 0; i < j->n; i++) {
        /* this thread's share of buffer i in 256-byte units, as bb_split_rows splits rows */
        size_t units;
        const uint8_t *a = readable(j->bufs[i], j->bytes[i], &units);
        int u0, u1;
        bb_split_rows((int)units, 1, tid, nthreads, &u0, &u1);
        size_t len = (size_t)(u1 - u0) * 256;
        if (len == 0) continue;
        if (j->zmm) bb_read512(a + (size_t)u0 * 256, len, j->streams);
        else bb_read256(a + (size_t)u0 * 256, len, j->streams);
    }
}

double bb_read_buffers(bb_pool *pool, const void *const *bufs, const size_t *bytes, int n, int streams, size_t *read)
{
    buffers_job j = {bufs, bytes, n, streams, bb_read512_usable()};
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        size_t units;
        readable(bufs[i], bytes[i], &units);
        total += units * 256;
    }
    if (read) *read = total;
    double t0 = bb_now();
    bb_pool_run(pool, buffers_worker, &j);
    return bb_now() - t0;
}
