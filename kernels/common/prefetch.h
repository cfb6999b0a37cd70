/* Software prefetch for weight streams.  A GEMV reads each weight byte once; the hardware
 * streamer stops at 4 KiB page boundaries and, on this class of CPU, does not keep enough lines
 * in flight for one core to reach DRAM bandwidth while it also computes.  So kernels that stream
 * weights prefetch each line twice ahead of the current load: BB_PREFETCH_BYTES ahead into L2
 * (prefetcht1, PRFM PLDL2KEEP) and BB_PREFETCH_L1_BYTES ahead into L1.  A prefetch to L1 alone
 * holds one of the core's few L1 miss buffers (16 on Golden Cove) for a whole DRAM round trip,
 * which caps the lines in flight; the far one to L2 is tracked by L2's larger miss queue, and the
 * near one then only moves the line from L2 to L1.  The far distance is 16 KiB, four pages ahead:
 * on an Emerald Rapids guest 4 KiB left i2_s at 1.19x a plain read and 16 KiB brought it to
 * 1.05x, while on Zen 3 4 to 16 KiB measured the same.  Distances and hints were measured with
 * `bitbench gemm --cache dram --read` over the streaming kernels (docs/measurements/
 * 2026-11-29-xeon.md); the up-convert kernels use the same scheme with their own distances.
 * A variant that reads one forward stream may leave them to the hardware where the CPU's rule
 * says so (kernels/cpu.h, bb_cpu_stream_prefetch: on Zen 4 they made q8_0_x16 slower). */
#ifndef BB_PREFETCH_H
#define BB_PREFETCH_H

#include <stddef.h>

#ifndef BB_PREFETCH_BYTES
#define BB_PREFETCH_BYTES 16384
#endif
#ifndef BB_PREFETCH_L1_BYTES
#define BB_PREFETCH_L1_BYTES 2048
#endif

/* Always inlined: GCC 12 judges a call it does not inline to a function whose only statement is
 * a prefetch free of side effects and deletes it (it did, in the always-inline kernel tiles). */
static inline __attribute__((always_inline)) void bb_prefetch_stream(const void *p)
{
    __builtin_prefetch((const char *)p + BB_PREFETCH_L1_BYTES, 0, 3);
    __builtin_prefetch((const char *)p + BB_PREFETCH_BYTES, 0, 2);
}

/* bb_prefetch_stream for a reader of several streams in lockstep, each `pass` bytes before the
 * next pass's matching stream (the row tiles of a pass, rows one after the other): BB_PREFETCH_BYTES
 * ahead in its own stream would land in a line another stream of the pass has already read, so
 * the far prefetch goes to the same place one pass ahead.  The near one stays in the stream,
 * `near` bytes ahead: BB_PREFETCH_L1_BYTES, or that shared among the pass's streams so that the
 * pass as a whole looks BB_PREFETCH_L1_BYTES ahead, as baselines/float_common.h's GEMV tile does.
 * Which is measured per kernel, from DRAM at one thread on the Zen 4 host (docs/measurements/
 * 2026-12-01-near-prefetch.md): shared, tl2_0@avx512 went from 1.19-1.22x a read to 1.10-1.14x,
 * tmac_w2 (its far prefetch a tile ahead) from 1.40x to 1.20-1.28x, i2_s no worse (1.04-1.12x
 * against 1.04-1.08x); the x16 and x8 records read better with the full distance in each stream
 * (tq2_0_x16 1.05-1.13x against 1.08-1.16x, q4_0x8 0.98-1.00x against 1.01-1.07x). */
static inline __attribute__((always_inline)) void bb_prefetch_interleaved(const void *p, size_t pass, size_t near)
{
    __builtin_prefetch((const char *)p + near, 0, 3);
    __builtin_prefetch((const char *)p + pass, 0, 2);
}

/* bb_prefetch_stream for every 64 bytes of [p, p + bytes): a block or record about to be read
 * whose size is not one line (the interleaved records of kernels/common/row_interleave.h).  For a
 * record of many lines, issue the prefetches one per load as the record is read instead: a run
 * of 40 at once takes every miss buffer of the core (Zen 3, Emerald Rapids) and the loads behind it
 * wait (q2_k_x16_avx2.c; docs/measurements/2026-11-29-avx2.md, 2026-11-29-xeon.md). */
static inline __attribute__((always_inline)) void bb_prefetch_stream_range(const void *p, size_t bytes)
{
    /* bytes is a constant at every call: unrolled, the prefetches issue as a straight run */
#pragma GCC unroll 32
    for (size_t i = 0; i < bytes; i += 64) bb_prefetch_stream((const char *)p + i);
}

/* The head of a stream about to be read, the lines its reader's own prefetches skip: the first
 * BB_PREFETCH_L1_BYTES into L1, the rest up to BB_PREFETCH_BYTES into L2. */
static inline void bb_prefetch_head(const void *p, size_t bytes)
{
    for (size_t i = 0; i < bytes && i < BB_PREFETCH_BYTES; i += 64) {
        if (i < BB_PREFETCH_L1_BYTES) __builtin_prefetch((const char *)p + i, 0, 3);
        else __builtin_prefetch((const char *)p + i, 0, 2);
    }
}

#endif
