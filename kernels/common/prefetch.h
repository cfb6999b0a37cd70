/* Software prefetch for weight streams.  A GEMV reads each weight byte once; the hardware
 * streamer stops at 4 KiB page boundaries and, on this class of CPU, does not keep enough lines
 * in flight for one core to reach DRAM bandwidth while it also computes.  Prefetching a fixed
 * distance ahead of the current load was measured with `bitbench gemm --cache dram` on i2_s
 * (M=6912, K=2560, 2 threads: 0 B → ~10 GB/s, 1 KiB → ~17 GB/s, 4 KiB → ~21-23 GB/s, 16 KiB →
 * ~18 GB/s), so kernels that stream weights prefetch BB_PREFETCH_BYTES ahead. */
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
