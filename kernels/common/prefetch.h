/* Software prefetch for weight streams.  A GEMV reads each weight byte once; the hardware
 * streamer stops at 4 KiB page boundaries and, on this class of CPU, does not keep enough lines
 * in flight for one core to reach DRAM bandwidth while it also computes.  Prefetching a fixed
 * distance ahead of the current load was measured with `bitbench gemm --cache dram` on i2_s at
 * 0 to 16 KiB; 4 KiB streamed fastest (figures in README.md, "End-to-end"), so kernels that
 * stream weights prefetch BB_PREFETCH_BYTES ahead. */
#ifndef BB_PREFETCH_H
#define BB_PREFETCH_H

#include <stddef.h>

#define BB_PREFETCH_BYTES 4096

static inline __attribute__((always_inline)) void bb_prefetch_stream(const void *p)
{
    __builtin_prefetch((const char *)p + BB_PREFETCH_BYTES, 0, 3);
}

/* Every line of [p, p + bytes): the head of a stream about to be read. */
static inline void bb_prefetch_lines(const void *p, size_t bytes)
{
    for (size_t i = 0; i < bytes; i += 64) __builtin_prefetch((const char *)p + i, 0, 3);
}

#endif
